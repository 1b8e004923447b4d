/*
 * libbpf_quiet.c - captures libbpf's messages (see libbpf_quiet.h).
 */
#include "libbpf_quiet.h"

#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char first[LIBBPF_QUIET_MSG_MAX];
static libbpf_print_fn_t saved_print;
static bool echo;

void libbpf_quiet_echo(bool on)
{
	echo = on;
}

static int capture_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[sizeof(first)], *p;
	size_t n;

	if (echo && level != LIBBPF_DEBUG) { /* the verifier's log, whole */
		va_list copy;

		va_copy(copy, ap);
		vfprintf(stderr, fmt, copy);
		va_end(copy);
	}
	/* the ones after the first only repeat that the object failed */
	if (level == LIBBPF_DEBUG || first[0])
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	p = line;
	if (!strncmp(p, "libbpf: ", 8))
		p += 8;
	n = strlen(p);
	while (n && (p[n - 1] == '\n' || p[n - 1] == ' '))
		p[--n] = '\0';
	memcpy(first, p, n + 1);
	return 0;
}

void libbpf_quiet_begin(void)
{
	first[0] = '\0';
	saved_print = libbpf_set_print(capture_print);
}

void libbpf_quiet_end(void)
{
	libbpf_set_print(saved_print);
}

void libbpf_quiet_reset(void)
{
	first[0] = '\0';
}

const char *libbpf_quiet_said(char *buf, size_t len)
{
	if (!first[0])
		return "";
	snprintf(buf, len, " (libbpf: %.*s)", (int)(len > 14 ? len - 14 : 0), first);
	return buf;
}
