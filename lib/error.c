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

/* Append src to last_error from offset len, truncating; returns the new length. */
static size_t append(size_t len, const char *src)
{
	size_t n = strlen(src);

	if (len >= sizeof(last_error) - 1)
		return len;
	if (n > sizeof(last_error) - 1 - len)
		n = sizeof(last_error) - 1 - len;
	memcpy(last_error + len, src, n);
	last_error[len + n] = '\0';
	return len + n;
}

int scx_fail_prefix(const char *fmt, ...)
{
	char old[sizeof(last_error)], prefix[sizeof(last_error)];
	va_list ap;

	/* the arguments may point into last_error: format before writing it */
	memcpy(old, last_error, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	append(append(append(0, prefix), ": "), old);
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
