/*
 * error.c - thread-local "last error" message used by all library code.
 * See error.h for the contract.
 */
#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[1024];

int scx_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return -1;
}

int scx_fail_errno(const char *fmt, ...)
{
	int saved = errno;
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	len = strlen(last_error);
	snprintf(last_error + len, sizeof(last_error) - len, ": %s", strerror(saved));
	errno = saved;
	return -1;
}

const char *scx_errmsg(void)
{
	return last_error;
}

void scx_clear_error(void)
{
	last_error[0] = '\0';
}
