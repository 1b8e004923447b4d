/*
 * jsonw.c - the JSON text builder declared in jsonw.h. Hot path of the
 * process stage (one line per sample), so it avoids printf.
 */
#include "jsonw.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

void jsonw_init(struct jsonw *w)
{
	memset(w, 0, sizeof(*w));
}

void jsonw_free(struct jsonw *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

void jsonw_reset(struct jsonw *w)
{
	w->len = 0;
	w->need_comma = false;
}

static bool reserve(struct jsonw *w, size_t extra)
{
	size_t want;
	char *nb;

	if (w->oom)
		return false;
	if (w->len + extra <= w->cap)
		return true;
	want = w->cap ? w->cap : 4096;
	while (want < w->len + extra)
		want *= 2;
	nb = realloc(w->buf, want);
	if (!nb) {
		w->oom = 1;
		return false;
	}
	w->buf = nb;
	w->cap = want;
	return true;
}

void jsonw_raw(struct jsonw *w, const char *s, size_t n)
{
	if (!reserve(w, n))
		return;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void put_char(struct jsonw *w, char c)
{
	if (!reserve(w, 1))
		return;
	w->buf[w->len++] = c;
}

void jsonw_newline(struct jsonw *w)
{
	put_char(w, '\n');
	w->need_comma = false;
}

static void value_prefix(struct jsonw *w)
{
	if (w->need_comma)
		put_char(w, ',');
	w->need_comma = true;
}

void jsonw_obj_open(struct jsonw *w)
{
	value_prefix(w);
	put_char(w, '{');
	w->need_comma = false;
}

void jsonw_obj_close(struct jsonw *w)
{
	put_char(w, '}');
	w->need_comma = true;
}

void jsonw_arr_open(struct jsonw *w)
{
	value_prefix(w);
	put_char(w, '[');
	w->need_comma = false;
}

void jsonw_arr_close(struct jsonw *w)
{
	put_char(w, ']');
	w->need_comma = true;
}

/* Length of a valid UTF-8 sequence starting at s (at most n bytes), 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

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
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void put_escaped(struct jsonw *w, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run;

	put_char(w, '"');
	while (i < n) {
		run = i;
		while (run < n && s[run] >= 0x20 && s[run] != '"' && s[run] != '\\' && s[run] < 0x80)
			run++;
		if (run > i) {
			jsonw_raw(w, str + i, run - i);
			i = run;
			continue;
		}
		if (s[i] >= 0x80) {
			size_t l = utf8_seq_len(s + i, n - i);

			if (l) {
				jsonw_raw(w, str + i, l);
				i += l;
			} else {
				jsonw_raw(w, "\xef\xbf\xbd", 3);
				i++;
			}
			continue;
		}
		switch (s[i]) {
		case '"': jsonw_raw(w, "\\\"", 2); break;
		case '\\': jsonw_raw(w, "\\\\", 2); break;
		case '\n': jsonw_raw(w, "\\n", 2); break;
		case '\t': jsonw_raw(w, "\\t", 2); break;
		case '\r': jsonw_raw(w, "\\r", 2); break;
		default: {
			char e[6] = {'\\', 'u', '0', '0', hex[s[i] >> 4], hex[s[i] & 15]};

			jsonw_raw(w, e, 6);
		}
		}
		i++;
	}
	put_char(w, '"');
}

void jsonw_key(struct jsonw *w, const char *key)
{
	value_prefix(w);
	put_escaped(w, key, strlen(key));
	put_char(w, ':');
	w->need_comma = false;
}

void jsonw_strn(struct jsonw *w, const char *s, size_t n)
{
	value_prefix(w);
	put_escaped(w, s, n);
}

void jsonw_str(struct jsonw *w, const char *s)
{
	jsonw_strn(w, s, strlen(s));
}

static size_t fmt_u64(char *out, uint64_t v)
{
	char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

void jsonw_u64(struct jsonw *w, uint64_t v)
{
	char b[20];

	value_prefix(w);
	jsonw_raw(w, b, fmt_u64(b, v));
}

void jsonw_i64(struct jsonw *w, int64_t v)
{
	char b[21];
	size_t n = 0;
	uint64_t u = (uint64_t)v;

	value_prefix(w);
	if (v < 0) {
		b[n++] = '-';
		u = 0 - u;
	}
	n += fmt_u64(b + n, u);
	jsonw_raw(w, b, n);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	value_prefix(w);
	if (v)
		jsonw_raw(w, "true", 4);
	else
		jsonw_raw(w, "false", 5);
}

void jsonw_null(struct jsonw *w)
{
	value_prefix(w);
	jsonw_raw(w, "null", 4);
}

void jsonw_double(struct jsonw *w, double v, int decimals)
{
	char b[64];
	int n;

	value_prefix(w);
	if (v != v || v > 1e300 || v < -1e300) {
		jsonw_raw(w, "null", 4);
		return;
	}
	n = snprintf(b, sizeof(b), "%.*f", decimals, v);
	if (n > 0)
		jsonw_raw(w, b, (size_t)n < sizeof(b) ? (size_t)n : sizeof(b) - 1);
}

void jsonw_hex_str(struct jsonw *w, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char b[18];
	int n = 16, start;

	while (n > 1 && !(v >> ((n - 1) * 4)))
		n--;
	b[0] = '"';
	for (start = 0; start < n; start++)
		b[1 + start] = hex[(v >> ((n - 1 - start) * 4)) & 15];
	b[n + 1] = '"';
	value_prefix(w);
	jsonw_raw(w, b, (size_t)n + 2);
}

void jsonw_time_str(struct jsonw *w, uint64_t ns)
{
	char b[40];
	size_t n = 0;
	uint64_t frac = ns % 1000000000ULL;
	int i;

	b[n++] = '"';
	n += fmt_u64(b + n, ns / 1000000000ULL);
	b[n++] = '.';
	for (i = 8; i >= 0; i--) {
		b[n + (size_t)i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	n += 9;
	b[n++] = '"';
	value_prefix(w);
	jsonw_raw(w, b, n);
}

void jsonw_kv_str(struct jsonw *w, const char *key, const char *s)
{
	jsonw_key(w, key);
	jsonw_str(w, s);
}

void jsonw_kv_u64(struct jsonw *w, const char *key, uint64_t v)
{
	jsonw_key(w, key);
	jsonw_u64(w, v);
}

void jsonw_kv_i64(struct jsonw *w, const char *key, int64_t v)
{
	jsonw_key(w, key);
	jsonw_i64(w, v);
}

void jsonw_kv_bool(struct jsonw *w, const char *key, bool v)
{
	jsonw_key(w, key);
	jsonw_bool(w, v);
}

int jsonw_flush_to(struct jsonw *w, FILE *f, const char *what)
{
	if (w->oom)
		return scx_fail("%s: out of memory while formatting JSON", what);
	if (w->len && fwrite(w->buf, 1, w->len, f) != w->len)
		return scx_fail_errno("%s: write failed", what);
	w->len = 0;
	return 0;
}
