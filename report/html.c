/*
 * html.c - HTML escaping (see html.h). UTF-8 is checked per sequence
 * (overlong forms, surrogates and code points above U+10FFFF are invalid)
 * so a browser never has to guess what a byte means.
 */
#include "report/html.h"

#include <stdint.h>
#include <string.h>

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

/* Length of the valid UTF-8 sequence at s (n > 0 bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

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
	len = utf8_len(s, n);
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
