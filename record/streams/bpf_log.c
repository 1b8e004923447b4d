/*
 * bpf_log.c - record -v for the BPF streams (see streams.h): libbpf's
 * messages, which libbpf_quiet.c keeps to the first for the one-line
 * errors, are printed too, so a program the kernel refuses comes with the
 * verifier's log.
 */
#include "record/streams/streams.h"
#include "record/streams/libbpf_quiet.h"

void streams_verbose(bool on)
{
	libbpf_quiet_echo(on);
}
