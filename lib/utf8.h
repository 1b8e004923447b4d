/*
 * utf8.h - UTF-8 validation shared by the writers of text others parse
 * (lib/jsonw.c's JSON strings, report/html.c's HTML): one sequence at a
 * time, rejecting overlong forms, surrogates and code points above U+10FFFF;
 * and encoding one code point (extract/mem/jsonl_scan.c's \u escapes).
 */
#ifndef SCXPROF_LIB_UTF8_H
#define SCXPROF_LIB_UTF8_H

#include <stddef.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (n > 0 bytes left): 1 for ASCII, 0 if invalid. */
size_t utf8_seq_len(const unsigned char *s, size_t n);

/* Write code point cp (below 0x110000) as UTF-8 at o; returns the end. */
char *utf8_put(char *o, unsigned cp);

/* Copy the valid sequence at s (n > 0 bytes left) to o, or U+FFFD (3 bytes)
 * for its one invalid first byte; *used gets the bytes of s consumed.
 * Returns the end. Inline: the JSON string writer's non-ASCII path. */
static inline char *utf8_copy_or_replace(char *o, const unsigned char *s, size_t n, size_t *used)
{
	size_t l = utf8_seq_len(s, n);

	if (l) {
		memcpy(o, s, l);
		*used = l;
		return o + l;
	}
	memcpy(o, "\xef\xbf\xbd", 3);
	*used = 1;
	return o + 3;
}

#endif
