/*
 * jsonw.c - the JSON text builder declared in jsonw.h. Hot path of the
 * process stage (one line per sample), so it avoids printf.
 */
#include "jsonw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "utf8.h"
#include "version.h"

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

/* An object or array opens as a value and closes as one. */
static void open_container(struct jsonw *w, char c)
{
	value_prefix(w);
	put_char(w, c);
	w->need_comma = false;
}

static void close_container(struct jsonw *w, char c)
{
	put_char(w, c);
	w->need_comma = true;
}

void jsonw_obj_open(struct jsonw *w) { open_container(w, '{'); }
void jsonw_obj_close(struct jsonw *w) { close_container(w, '}'); }
void jsonw_arr_open(struct jsonw *w) { open_container(w, '['); }
void jsonw_arr_close(struct jsonw *w) { close_container(w, ']'); }

static char *put_escape_char(char *p, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	*p++ = '\\';
	switch (c) {
	case '"': *p++ = '"'; break;
	case '\\': *p++ = '\\'; break;
	case '\n': *p++ = 'n'; break;
	case '\t': *p++ = 't'; break;
	case '\r': *p++ = 'r'; break;
	default:
		memcpy(p, "u00", 3);
		p[3] = hex[c >> 4];
		p[4] = hex[c & 15];
		p += 5;
	}
	return p;
}

/* True when none of the 8 bytes needs escaping (< 0x20, '"', '\\', >= 0x80). */
static inline bool word_is_plain(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t ctl = (x - ones * 0x20) & ~x;                  /* bytes < 0x20 */
	uint64_t quote = ((x ^ (ones * '"')) - ones) & ~(x ^ (ones * '"'));
	uint64_t bslash = ((x ^ (ones * '\\')) - ones) & ~(x ^ (ones * '\\'));

	return !((ctl | quote | bslash | x) & highs);
}

/*
 * Most strings need no escaping: check them a word at a time and store each
 * word as it passes (the last word overlaps the one before it, so a string
 * of 4 bytes or more takes no byte loop). At the first word that needs care,
 * the byte loop goes on from that word.
 */
char *jsonw_put_str(char *p, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	*p++ = '"';
	if (n >= 8) {
		uint64_t word;

		for (; i + 8 <= n; i += 8) {
			memcpy(&word, s + i, 8);
			if (!word_is_plain(word))
				goto slow;
			memcpy(p + i, &word, 8);
		}
		memcpy(&word, s + n - 8, 8);
		if (i < n && word_is_plain(word)) {
			memcpy(p + n - 8, &word, 8);
			i = n;
		}
	} else if (n >= 4) {
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		if (word_is_plain(a | (uint64_t)b << 32)) {
			memcpy(p, &a, 4);
			memcpy(p + n - 4, &b, 4);
			i = n;
		}
	}
slow:
	p += i;
	while (i < n) {
		uint64_t word;

		if (n - i >= 8) {
			memcpy(&word, s + i, 8);
			if (word_is_plain(word)) {
				memcpy(p, &word, 8);
				p += 8;
				i += 8;
				continue;
			}
		}
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*p++ = (char)c;
			i++;
		} else if (c < 0x80) {
			p = put_escape_char(p, c);
			i++;
		} else {
			size_t l;

			p = utf8_copy_or_replace(p, s + i, n - i, &l);
			i += l;
		}
	}
	*p++ = '"';
	return p;
}

char *jsonw_reserve_grow(struct jsonw *w, size_t n)
{
	return reserve(w, n) ? w->buf + w->len : NULL;
}

static void put_escaped(struct jsonw *w, const char *str, size_t n)
{
	char *p = jsonw_reserve(w, jsonw_escaped_max(n));

	if (p)
		jsonw_commit(w, jsonw_put_str(p, str, n));
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

const char jsonw_digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				    "8081828384858687888990919293949596979899";

const uint64_t jsonw_pow10[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
	1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
	1000000000000000000ULL, 10000000000000000000ULL,
};

#if !defined(__SSE2__)
#define HEX_ROW(h) h "0" h "1" h "2" h "3" h "4" h "5" h "6" h "7" h "8" h "9" h "a" h "b" h "c" h "d" h "e" h "f"
const char jsonw_hex_pairs[513] = HEX_ROW("0") HEX_ROW("1") HEX_ROW("2") HEX_ROW("3") HEX_ROW("4") HEX_ROW("5")
	HEX_ROW("6") HEX_ROW("7") HEX_ROW("8") HEX_ROW("9") HEX_ROW("a") HEX_ROW("b") HEX_ROW("c") HEX_ROW("d")
	HEX_ROW("e") HEX_ROW("f");
#endif

char *jsonw_put_hex_str(char *p, uint64_t v)
{
	*p++ = '"';
	p = jsonw_put_hex(p, v);
	*p++ = '"';
	return p;
}

/* A scalar value: comma if needed, then what put() writes (at most max bytes). */
#define PUT_VALUE(w, max, expr)                            \
	do {                                               \
		char *p_;                                  \
		value_prefix(w);                           \
		p_ = jsonw_reserve((w), (max));            \
		if (p_) {                                  \
			char *p = p_;                      \
			jsonw_commit((w), (expr));         \
		}                                          \
	} while (0)

void jsonw_u64(struct jsonw *w, uint64_t v)
{
	PUT_VALUE(w, 20, jsonw_put_u64(p, v));
}

void jsonw_i64(struct jsonw *w, int64_t v)
{
	PUT_VALUE(w, 21, jsonw_put_i64(p, v));
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
	PUT_VALUE(w, 18, jsonw_put_hex_str(p, v));
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

/* ---- fields ---------------------------------------------------------------- */

/* "key": and, when !present, null: false then, the value is written */
static bool key_or_null(struct jsonw *w, const char *key, bool present)
{
	jsonw_key(w, key);
	if (!present)
		jsonw_null(w);
	return present;
}

bool jsonw_kv_obj_or_null(struct jsonw *w, const char *key, bool present)
{
	if (!key_or_null(w, key, present))
		return false;
	jsonw_obj_open(w);
	return true;
}

void jsonw_kv_hex(struct jsonw *w, const char *key, uint64_t v)
{
	jsonw_key(w, key);
	jsonw_hex_str(w, v);
}

void jsonw_kv_str_or_null(struct jsonw *w, const char *key, const char *s)
{
	if (key_or_null(w, key, s != NULL))
		jsonw_str(w, s);
}

void jsonw_kv_u64_or_null(struct jsonw *w, const char *key, bool has, uint64_t v)
{
	if (key_or_null(w, key, has))
		jsonw_u64(w, v);
}

void jsonw_kv_i64_or_null(struct jsonw *w, const char *key, bool has, int64_t v)
{
	if (key_or_null(w, key, has))
		jsonw_i64(w, v);
}

void jsonw_kv_double_exact(struct jsonw *w, const char *key, double v)
{
	char b[64];
	int n = snprintf(b, sizeof(b), "%.17g", isfinite(v) ? v : 0.0);

	jsonw_key(w, key);
	value_prefix(w);
	jsonw_raw(w, b, (size_t)n < sizeof(b) ? (size_t)n : sizeof(b) - 1);
}

void jsonw_kv_str_array(struct jsonw *w, const char *key, const char *const *s, size_t n)
{
	jsonw_key(w, key);
	jsonw_arr_open(w);
	for (size_t i = 0; i < n; i++)
		jsonw_str(w, s[i]);
	jsonw_arr_close(w);
}

void jsonw_kv_u32_array(struct jsonw *w, const char *key, const uint32_t *v, size_t n)
{
	jsonw_key(w, key);
	jsonw_arr_open(w);
	for (size_t i = 0; i < n; i++)
		jsonw_u64(w, v[i]);
	jsonw_arr_close(w);
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The key of one member path of JSONW_KV_U64S's text ("r->syms.dsos_loaded":
 * "dsos_loaded"), the text moved past it and its comma. False when the item
 * is not a path of member names. */
static bool next_member_key(const char **text, const char **key, size_t *len)
{
	const char *p = *text, *start;

	while (*p == ' ')
		p++;
	start = p;
	*key = p;
	while (*p && *p != ',') {
		if (p[0] == '-' && p[1] == '>') {
			p += 2;
			*key = p;
		} else if (*p == '.') {
			*key = ++p;
		} else if (ident_char(*p) || *p == ' ') {
			p++;
		} else {
			return false;
		}
	}
	*len = (size_t)(p - *key);
	while (*len && (*key)[*len - 1] == ' ')
		(*len)--;
	*text = *p ? p + 1 : p;
	if (*key == start || !*len)
		return false;
	for (size_t i = 0; i < *len; i++)
		if (!ident_char((*key)[i]))
			return false;
	return true;
}

void jsonw_kv_u64s(struct jsonw *w, const char *members, const uint64_t *v, size_t n)
{
	const char *text = members, *key;
	char name[128];
	size_t i, len;

	for (i = 0; i < n; i++) {
		if (!next_member_key(&text, &key, &len) || len >= sizeof(name)) {
			fprintf(stderr, "jsonw_kv_u64s: '%s': item %zu is not a member path\n", members, i + 1);
			abort();
		}
		memcpy(name, key, len);
		name[len] = '\0';
		jsonw_kv_u64(w, name, v[i]);
	}
}

/* ---- files of one object --------------------------------------------------- */

void jsonw_file_open(struct jsonw *w)
{
	jsonw_init(w);
	jsonw_obj_open(w);
}

void jsonw_summary_open(struct jsonw *w)
{
	jsonw_file_open(w);
	jsonw_kv_str(w, "tool", "scxprof");
	jsonw_kv_str(w, "version", SCXPROF_VERSION);
}

int jsonw_file_close(struct jsonw *w, FILE *f, const char *what)
{
	int rc;

	jsonw_obj_close(w);
	jsonw_newline(w);
	rc = jsonw_flush_to(w, f, what);
	jsonw_free(w);
	return rc;
}
