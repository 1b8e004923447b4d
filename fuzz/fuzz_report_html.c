/*
 * fuzz_report_html.c - libFuzzer target for report/html.c, the escaping
 * every input string of scxprof report goes through. The input is used
 * as one string (escaped whole and cut at its first byte's value of
 * characters). Aborts when the output has a raw < > " ', an & that starts
 * no entity we write, a control byte other than tab and newline, or is not
 * valid UTF-8 (checked here independently of html.c's own decoder).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"

static void check_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned c = s[i], len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;

		if (!len || i + len > n)
			abort();
		for (unsigned k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				abort();
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
			abort();
		i += len;
	}
}

static void check(const char *out, size_t n)
{
	static const char *const entities[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
	size_t i, e;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)out[i];

		if (c == '<' || c == '>' || c == '"' || c == '\'' || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
			abort();
		if (c == '&') {
			for (e = 0; e < 5; e++)
				if (!strncmp(out + i, entities[e], strlen(entities[e])))
					break;
			if (e == 5)
				abort();
		}
	}
	check_utf8((const unsigned char *)out, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *out = NULL;
	size_t len = 0;
	FILE *f;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	f = open_memstream(&out, &len);
	if (!f) {
		free(s);
		return 0;
	}
	html_escn(f, s, size);
	fclose(f);
	check(out, len);
	free(out);
	f = open_memstream(&out, &len);
	if (f) {
		html_esc_cut(f, s, size ? data[0] : 0); /* NUL-terminated: stops at the first NUL */
		fclose(f);
		check(out, len);
		free(out);
	}
	free(s);
	return 0;
}
