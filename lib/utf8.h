/*
 * utf8.h - UTF-8 validation shared by the writers of text others parse
 * (lib/jsonw.c's JSON strings, report/html.c's HTML): one sequence at a
 * time, rejecting overlong forms, surrogates and code points above U+10FFFF;
 * and encoding one code point (extract/jsonl_scan.c's \u escapes).
 */
#ifndef SCXPROF_LIB_UTF8_H
#define SCXPROF_LIB_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (n > 0 bytes left): 1 for ASCII, 0 if invalid. */
size_t utf8_seq_len(const unsigned char *s, size_t n);

/* Write code point cp (below 0x110000) as UTF-8 at o; returns the end. */
char *utf8_put(char *o, unsigned cp);

#endif
