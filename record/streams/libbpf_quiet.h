/*
 * libbpf_quiet.h - keeps libbpf from printing: while "quiet", its messages
 * are captured (the first warning of a step is kept, since it names the
 * program and the kernel's answer) so the BPF streams can put it into
 * their one-line errors instead; with record -v the messages are printed
 * too (libbpf_quiet_echo), so a program the kernel refuses comes with the
 * verifier's log.
 */
#ifndef SCX_LIBBPF_QUIET_H
#define SCX_LIBBPF_QUIET_H

#include <stdbool.h>
#include <stddef.h>

#define LIBBPF_QUIET_MSG_MAX 200

/* Also print every message but libbpf's debug ones to stderr (streams_verbose). */
void libbpf_quiet_echo(bool on);
/* Capture libbpf's messages from now on (forgetting any kept one). */
void libbpf_quiet_begin(void);
/* Restore the previous print function. */
void libbpf_quiet_end(void);
/* Forget the kept message (a new step begins). */
void libbpf_quiet_reset(void);
/* " (libbpf: MESSAGE)" in buf, or "" when nothing was kept. */
const char *libbpf_quiet_said(char *buf, size_t len);

#endif
