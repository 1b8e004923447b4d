/*
 * warnings.h - the one list of warnings a stage returns to its caller
 * (record's, its memory backend's, process's): at most WARNINGS_MAX lines
 * of under WARNING_LEN bytes each, appended printf-style; a line equal to
 * one already kept is not added again, and lines appended while the list
 * is full are counted in dropped. Library code never prints: the command
 * prints the lines ("WARNING: ...") and metadata/summary files carry them.
 *
 *   struct warnings w = {0};
 *   warnings_add(&w, "lost %llu events", n);
 *   for (size_t i = 0; i < w.nr; i++) ... w.line[i] ...
 */
#ifndef SCX_WARNINGS_H
#define SCX_WARNINGS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define WARNINGS_MAX 16
#define WARNING_LEN 512 /* a longer line is cut to WARNING_LEN - 1 bytes */

struct warnings {
	char line[WARNINGS_MAX][WARNING_LEN];
	size_t nr;
	uint64_t dropped; /* appended while full (repeats of a kept line are not counted) */
};

void warnings_add(struct warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void warnings_vadd(struct warnings *w, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

struct jsonw;
/* The lines as a field of a summary file: "key":["...", ...] */
void warnings_kv_json(struct jsonw *jw, const char *key, const struct warnings *w);

#endif
