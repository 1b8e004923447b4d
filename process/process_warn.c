/*
 * process_warn.c - adds warnings to the process stage's result (see
 * process_warn.h).
 */
#include "process_warn.h"

#include <stdarg.h>

#include "lib/warnings.h"

void process_warn(struct process_result *res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warnings_vadd(&res->warnings, fmt, ap);
	va_end(ap);
}
