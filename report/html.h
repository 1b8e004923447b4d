/*
 * html.h - writing HTML text safely: every string that came from the input
 * (comm names, cgroup paths, symbols, host names) goes through html_esc,
 * which escapes the five HTML-special characters, replaces control bytes
 * and invalid UTF-8 by U+FFFD, so hostile names can neither open a tag nor
 * leave an attribute value.
 */
#ifndef SCX_REPORT_HTML_H
#define SCX_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

/* Escaped text of s (n bytes) for element content and quoted attribute values. */
void html_escn(FILE *f, const char *s, size_t n);
/* The same for a NUL-terminated string; NULL writes nothing. */
void html_esc(FILE *f, const char *s);
/* At most max_chars characters of s, escaped, then "..." when cut. */
void html_esc_cut(FILE *f, const char *s, size_t max_chars);

#endif
