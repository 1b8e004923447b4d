/*
 * jsonw.h - a small, fast JSON text builder for the files we write.
 *
 * Output is appended to a growable byte buffer; the caller flushes it to a
 * FILE* (jsonw_flush_to) when it suits it, e.g. once per JSONL line batch.
 * It does no validation of structure: callers emit keys and values in the
 * order the schema says. Strings are escaped per RFC 8259 (control characters
 * as \u00XX; invalid UTF-8 bytes are replaced by U+FFFD so the output is
 * always valid JSON).
 */
#ifndef SCX_JSONW_H
#define SCX_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

struct jsonw {
	char *buf;
	size_t len, cap;
	bool need_comma; /* a value was written at the current nesting level */
	int oom;         /* an allocation failed; further writes are dropped */
};

void jsonw_init(struct jsonw *w);
void jsonw_free(struct jsonw *w);
void jsonw_reset(struct jsonw *w);

void jsonw_obj_open(struct jsonw *w);
void jsonw_obj_close(struct jsonw *w);
void jsonw_arr_open(struct jsonw *w);
void jsonw_arr_close(struct jsonw *w);
void jsonw_key(struct jsonw *w, const char *key);

void jsonw_str(struct jsonw *w, const char *s);
void jsonw_strn(struct jsonw *w, const char *s, size_t n);
void jsonw_u64(struct jsonw *w, uint64_t v);
void jsonw_i64(struct jsonw *w, int64_t v);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
void jsonw_double(struct jsonw *w, double v, int decimals);
/* Lower-case hex without 0x and without padding, as a JSON string. */
void jsonw_hex_str(struct jsonw *w, uint64_t v);

/* key + value in one call */
void jsonw_kv_str(struct jsonw *w, const char *key, const char *s);
void jsonw_kv_u64(struct jsonw *w, const char *key, uint64_t v);
void jsonw_kv_i64(struct jsonw *w, const char *key, int64_t v);
void jsonw_kv_bool(struct jsonw *w, const char *key, bool v);

/*
 * Fields: the one way the files we write (metadata.json, process.json, the
 * evidence files) write a key and its value.
 */
/* A section that may be absent: "key":{ opened (true; close it), or
 * "key":null when !present (false). */
bool jsonw_kv_obj_or_null(struct jsonw *w, const char *key, bool present);
/* v as jsonw_hex_str writes it: "key":"1f" */
void jsonw_kv_hex(struct jsonw *w, const char *key, uint64_t v);
/* s, or null when s is NULL */
void jsonw_kv_str_or_null(struct jsonw *w, const char *key, const char *s);
/* v, or null when !has */
void jsonw_kv_u64_or_null(struct jsonw *w, const char *key, bool has, uint64_t v);
void jsonw_kv_i64_or_null(struct jsonw *w, const char *key, bool has, int64_t v);
/* v with 17 significant digits (%.17g: read back, it is v); not finite: 0 */
void jsonw_kv_double_exact(struct jsonw *w, const char *key, double v);
void jsonw_kv_str_array(struct jsonw *w, const char *key, const char *const *s, size_t n);
void jsonw_kv_u32_array(struct jsonw *w, const char *key, const uint32_t *v, size_t n);
/*
 * JSONW_KV_U64S(w, p->a, p->b, q.c, ...): each value (converted to
 * uint64_t) as a field named after its member, "a", "b", "c", in order: the
 * counters of a struct written under their own names. Each argument must be
 * a path of member names (p->a.b); anything else aborts with the text (a
 * mistake in the source, found by the first test that writes the file).
 */
#define JSONW_KV_U64S(w, ...)                                                    \
	jsonw_kv_u64s((w), #__VA_ARGS__, (const uint64_t[]){__VA_ARGS__},          \
		      sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))
void jsonw_kv_u64s(struct jsonw *w, const char *members, const uint64_t *v, size_t n);

/*
 * JSONW_KV_LINES(w, "key", v, n, write_one): "key": [...] with v[0..n) each
 * on a line of its own, written by write_one(w, &v[i]) (the evidence file's
 * cells, units and pairs: a long file that reads and diffs line by line).
 */
#define JSONW_KV_LINES(w, key, v, n, write_one)                                  \
	do {                                                                     \
		jsonw_key((w), (key));                                           \
		jsonw_arr_open(w);                                               \
		for (size_t jsonw_i_ = 0; jsonw_i_ < (n); jsonw_i_++) {          \
			jsonw_raw((w), "\n", 1);                                 \
			write_one((w), &(v)[jsonw_i_]);                          \
		}                                                                \
		jsonw_arr_close(w);                                              \
	} while (0)

/*
 * A file of one JSON object on one line (metadata.json, process.json, the
 * evidence and --llc-json files): jsonw_file_open() starts w and the object,
 * jsonw_file_close() closes it, ends the line, writes it all to f and frees
 * w (jsonw_flush_to's result). jsonw_summary_open() starts it with the
 * "tool" and "version" fields of the summary files.
 */
void jsonw_file_open(struct jsonw *w);
void jsonw_summary_open(struct jsonw *w);
int jsonw_file_close(struct jsonw *w, FILE *f, const char *what);

/* End a JSONL line: '\n' and a fresh top level. */
void jsonw_newline(struct jsonw *w);

/*
 * Fast path for hot formatters: reserve room for n bytes and get a pointer
 * to write into; then jsonw_commit() the bytes actually written. Returns
 * NULL when out of memory. The jsonw_put_* helpers write into such a
 * pointer and return the end of what they wrote; jsonw_escaped_max() is the
 * most bytes jsonw_put_str() can write for a string of n bytes.
 */
char *jsonw_reserve_grow(struct jsonw *w, size_t n); /* the slow path: grows the buffer */
static inline char *jsonw_reserve(struct jsonw *w, size_t n)
{
	if (!w->oom && n <= w->cap - w->len)
		return w->buf + w->len;
	return jsonw_reserve_grow(w, n);
}
static inline void jsonw_commit(struct jsonw *w, char *end)
{
	w->len = (size_t)(end - w->buf);
}
static inline size_t jsonw_escaped_max(size_t n) { return 6 * n + 2; }
char *jsonw_put_str(char *p, const char *str, size_t n);

/* Decimal digits: "00".."99", and 10^0..10^19 */
extern const char jsonw_digit_pairs[201];
extern const uint64_t jsonw_pow10[20];

/* v's decimal digits ending at end (written backwards, two at a time). */
static inline void jsonw_digits_back(char *end, uint64_t v)
{
	while (v >= 100) {
		end -= 2;
		memcpy(end, jsonw_digit_pairs + (v % 100) * 2, 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(end - 2, jsonw_digit_pairs + v * 2, 2);
	else
		end[-1] = (char)('0' + v);
}

static inline char *jsonw_put_u64(char *p, uint64_t v)
{
	/* digits: floor(log10 v) + 1, from the bit length (1233/4096 ~ log10 2) */
	int t = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;
	int n = t - (v < jsonw_pow10[t]) + 1 + (v == 0);

	jsonw_digits_back(p + n, v);
	return p + n;
}

static inline char *jsonw_put_i64(char *p, int64_t v)
{
	uint64_t u = (uint64_t)v;

	if (v < 0) {
		*p++ = '-';
		u = 0 - u;
	}
	return jsonw_put_u64(p, u);
}

/*
 * The hot formatters' fields: a literal's bytes (no NUL) at p, and a key
 * literal (quotes, colon and any leading comma: ",\"pid\":") followed by
 * its value; each gives the end of what it wrote.
 */
#define JSONW_PUT_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)
#define JSONW_PUT_KV_U64(p, key, v) jsonw_put_u64(JSONW_PUT_LIT(p, key), (v))
#define JSONW_PUT_KV_I64(p, key, v) jsonw_put_i64(JSONW_PUT_LIT(p, key), (v))
#define JSONW_PUT_KV_STR(p, key, s, n) jsonw_put_str(JSONW_PUT_LIT(p, key), (s), (n))

/* v < 10^9 as exactly 9 digits, leading zeros kept (the ns of a time). */
static inline char *jsonw_put_9digits(char *p, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000; /* 5 + 4 digits */

	p[0] = (char)('0' + hi / 10000);
	hi %= 10000;
	memcpy(p + 1, jsonw_digit_pairs + (hi / 100) * 2, 2);
	memcpy(p + 3, jsonw_digit_pairs + (hi % 100) * 2, 2);
	memcpy(p + 5, jsonw_digit_pairs + (lo / 100) * 2, 2);
	memcpy(p + 7, jsonw_digit_pairs + (lo % 100) * 2, 2);
	return p + 9;
}
/* Writes up to 17 bytes at p whatever the value (see jsonw_put_hex). */
char *jsonw_put_hex_str(char *p, uint64_t v);

/*
 * v in lower-case hex, no quotes, no 0x, no padding (data ids write five of
 * these a line). It stores 16 bytes at p whatever v's length: the bytes past
 * the digits are scratch for the caller's next write, so p needs room for
 * 16 (the line bounds of our writers have it). With SSE2 (every x86-64) the
 * 16 digits are made at once, without a loop or a branch.
 */
#if defined(__SSE2__)
static inline char *jsonw_put_hex(char *p, uint64_t v)
{
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
	uint64_t top = v << (4 * (16 - n)); /* the first digit in the top nibble */
	const __m128i low4 = _mm_set1_epi8(0x0f);
	__m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(top)); /* first byte: the top one */
	__m128i nib = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), low4), _mm_and_si128(x, low4));
	__m128i letters = _mm_and_si128(_mm_cmpgt_epi8(nib, _mm_set1_epi8(9)), _mm_set1_epi8('a' - '0' - 10));

	_mm_storeu_si128((__m128i *)(void *)p, _mm_add_epi8(nib, _mm_add_epi8(letters, _mm_set1_epi8('0'))));
	return p + n;
}
#else
extern const char jsonw_hex_pairs[513]; /* "000102...ff" */
static inline char *jsonw_put_hex(char *p, uint64_t v)
{
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1, i;

	for (i = n; i >= 2; i -= 2, v >>= 8)
		memcpy(p + i - 2, jsonw_hex_pairs + (v & 0xff) * 2, 2);
	if (i == 1)
		p[0] = jsonw_hex_pairs[(v & 15) * 2 + 1];
	return p + n;
}
#endif

/* Raw bytes (already valid JSON or a newline). */
void jsonw_raw(struct jsonw *w, const char *s, size_t n);

/* Write the buffer to f and empty it. -1 (scx_fail naming what) on error or OOM. */
int jsonw_flush_to(struct jsonw *w, FILE *f, const char *what);

#endif
