/*
 * html.c - HTML escaping (see html.h). UTF-8 is checked per sequence
 * (overlong forms, surrogates and code points above U+10FFFF are invalid)
 * so a browser never has to guess what a byte means.
 */
#include "report/html.h"

#include <stdint.h>
#include <string.h>

#include "lib/utf8.h"

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

/* Write one character (or its escape); returns the bytes of s it used. */
static size_t put_char(FILE *f, const unsigned char *s, size_t n)
{
	size_t len;

	switch (s[0]) {
	case '&': fputs("&amp;", f); return 1;
	case '<': fputs("&lt;", f); return 1;
	case '>': fputs("&gt;", f); return 1;
	case '"': fputs("&quot;", f); return 1;
	case '\'': fputs("&#39;", f); return 1;
	case '\t':
	case '\n': fputc(s[0], f); return 1;
	default: break;
	}
	if (s[0] < 0x20 || s[0] == 0x7f) {
		fputs(replacement, f);
		return 1;
	}
	len = utf8_seq_len(s, n);
	if (!len) {
		fputs(replacement, f);
		return 1;
	}
	fwrite(s, 1, len, f);
	return len;
}

void html_escn(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n)
		i += put_char(f, p + i, n - i);
}

void html_esc(FILE *f, const char *s)
{
	if (s)
		html_escn(f, s, strlen(s));
}

void html_esc_cut(FILE *f, const char *s, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n, chars = 0;

	if (!s)
		return;
	n = strlen(s);
	while (i < n && chars < max_chars) {
		i += put_char(f, p + i, n - i);
		chars++;
	}
	if (i < n)
		fputs("...", f);
}
