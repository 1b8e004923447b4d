/*
 * warnings.c - the bounded warning list (see warnings.h).
 */
#include "lib/warnings.h"

#include <stdio.h>
#include <string.h>

#include "lib/jsonw.h"

void warnings_vadd(struct warnings *w, const char *fmt, va_list ap)
{
	char msg[WARNING_LEN];
	size_t i;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	for (i = 0; i < w->nr; i++)
		if (!strcmp(w->line[i], msg))
			return;
	if (w->nr == WARNINGS_MAX) {
		w->dropped++;
		return;
	}
	memcpy(w->line[w->nr++], msg, sizeof(msg));
}

void warnings_add(struct warnings *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warnings_vadd(w, fmt, ap);
	va_end(ap);
}

void warnings_kv_json(struct jsonw *jw, const char *key, const struct warnings *w)
{
	jsonw_key(jw, key);
	jsonw_arr_open(jw);
	for (size_t i = 0; i < w->nr; i++)
		jsonw_str(jw, w->line[i]);
	jsonw_arr_close(jw);
}
