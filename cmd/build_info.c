/*
 * build_info.c - what this binary is, printed by `scxprof --version` after
 * its first line ("scxprof VERSION"): how it was linked (dynamic, or static:
 * the one file of `make static`), for which arch, from which commit, and how
 * its BPF programs were built. The Makefile compiles this file once per link
 * with SCXPROF_LINK set, and includes build/build_info.h, which it writes.
 */
#include "cmd/build_info.h"

#ifndef SCXPROF_LINK
#error "SCXPROF_LINK: compiled by the Makefile's build_info rules only"
#endif

void build_info_print(FILE *f)
{
	fprintf(f, "build: %s (%s), commit %s\n", SCXPROF_LINK, SCXPROF_ARCH, SCXPROF_COMMIT);
	fprintf(f, "bpf: %s\n", SCXPROF_BPF);
}
