/*
 * jsonl_scan.c - the perf.jsonl line scanner (see mem_agg.h). One pass
 * over the bytes: a cursor struct, one function per JSON value kind, and a
 * dispatch on the key name. Nothing is allocated.
 */
#include "extract/mem/mem_agg.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/utf8.h"

struct cursor {
	char *p, *end;
	char *err;
	size_t errlen;
};

static int scan_fail(struct cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int scan_fail(struct cursor *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_ws(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
		c->p++;
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		unsigned ch = (unsigned char)p[i], l = ch | 0x20;

		if (ch >= '0' && ch <= '9')
			v = v << 4 | (ch - '0');
		else if (l >= 'a' && l <= 'f')
			v = v << 4 | (l - 'a' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* After "\u" at c->p: decode one code point (a surrogate pair counts as one). */
static int scan_unicode_escape(struct cursor *c, unsigned *cp)
{
	unsigned hi, lo;

	if (c->end - c->p < 4 || hex4(c->p, &hi) < 0)
		return scan_fail(c, "bad \\u escape in string");
	c->p += 4;
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return scan_fail(c, "lone low surrogate \\u%04x in string", hi);
	if (hi >= 0xd800 && hi <= 0xdbff) {
		if (c->end - c->p < 6 || c->p[0] != '\\' || c->p[1] != 'u' || hex4(c->p + 2, &lo) < 0 ||
		    lo < 0xdc00 || lo > 0xdfff)
			return scan_fail(c, "lone high surrogate \\u%04x in string", hi);
		c->p += 6;
		hi = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (hi == 0)
		return scan_fail(c, "\\u0000 in string is not supported");
	*cp = hi;
	return 0;
}

/*
 * The bytes of w that are '"', '\\' or a control character, as their high
 * bits (SWAR). Borrows can also mark bytes above the first real one, never
 * below it, so the lowest mark is exact.
 */
static inline uint64_t word_special(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');

	return (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w)) & high;
}

/*
 * At the opening quote: scan a string, decoding escapes in place. *out and
 * *out_len receive the decoded bytes; c->p ends after the closing quote.
 */
static int scan_string(struct cursor *c, const char **out, size_t *out_len)
{
	char *start = ++c->p, *o;

	/* fast path: no escapes; 8 plain bytes at a time, then straight to the
	 * first special byte (little-endian: the lowest mark is the first byte) */
	while (c->end - c->p >= 8) {
		uint64_t w, special;

		memcpy(&w, c->p, 8);
		special = word_special(w);
		if (special) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			unsigned shift = (unsigned)__builtin_ctzll(special) & ~7u;

			c->p += shift >> 3;
			if ((unsigned char)(w >> shift) == '"') { /* the usual end: no reload */
				*out = start;
				*out_len = (size_t)(c->p - start);
				c->p++;
				return 0;
			}
#endif
			break;
		}
		c->p += 8;
	}
	while (c->p < c->end) {
		unsigned char ch = (unsigned char)*c->p;

		if (ch == '"') {
			*out = start;
			*out_len = (size_t)(c->p - start);
			c->p++;
			return 0;
		}
		if (ch == '\\')
			break;
		if (ch < 0x20)
			return scan_fail(c, "control character in string");
		c->p++;
	}
	o = c->p;
	while (c->p < c->end) {
		unsigned char ch = (unsigned char)*c->p;
		unsigned cp = 0;

		if (ch == '"') {
			*out = start;
			*out_len = (size_t)(o - start);
			c->p++;
			return 0;
		}
		if (ch < 0x20)
			return scan_fail(c, "control character in string");
		if (ch != '\\') {
			*o++ = *c->p++;
			continue;
		}
		if (++c->p >= c->end)
			break;
		switch (*c->p++) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (scan_unicode_escape(c, &cp) < 0)
				return -1;
			o = utf8_put(o, cp);
			break;
		default:
			return scan_fail(c, "bad escape \\%c in string", c->p[-1]);
		}
	}
	return scan_fail(c, "unterminated string");
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* A JSON number (syntax only); *is_int tells whether it has no fraction/exponent. */
static int scan_number_syntax(struct cursor *c, bool *is_int)
{
	char *p = c->p;

	*is_int = true;
	if (p < c->end && *p == '-')
		p++;
	if (p >= c->end || !is_digit(*p))
		return scan_fail(c, "bad value");
	if (*p == '0')
		p++;
	else
		while (p < c->end && is_digit(*p))
			p++;
	if (p < c->end && *p == '.') {
		*is_int = false;
		if (++p >= c->end || !is_digit(*p))
			return scan_fail(c, "bad number");
		while (p < c->end && is_digit(*p))
			p++;
	}
	if (p < c->end && (*p == 'e' || *p == 'E')) {
		*is_int = false;
		p++;
		if (p < c->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= c->end || !is_digit(*p))
			return scan_fail(c, "bad number");
		while (p < c->end && is_digit(*p))
			p++;
	}
	c->p = p;
	return 0;
}

static int scan_u64(struct cursor *c, const char *key, uint64_t *v)
{
	uint64_t x = 0;
	char *p = c->p;

	if (p >= c->end || !is_digit(*p))
		return scan_fail(c, "\"%s\": expected a non-negative integer", key);
	while (p < c->end && is_digit(*p)) {
		unsigned d = (unsigned)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return scan_fail(c, "\"%s\": integer out of range", key);
		x = x * 10 + d;
		p++;
	}
	if (p < c->end && (*p == '.' || *p == 'e' || *p == 'E'))
		return scan_fail(c, "\"%s\": expected an integer", key);
	c->p = p;
	*v = x;
	return 0;
}

static int scan_i64(struct cursor *c, const char *key, int64_t *v)
{
	bool neg = c->p < c->end && *c->p == '-';
	uint64_t x;

	if (neg)
		c->p++;
	if (scan_u64(c, key, &x) < 0)
		return -1;
	if (x > (uint64_t)INT64_MAX + neg)
		return scan_fail(c, "\"%s\": integer out of range", key);
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

/* s[0..n) as hex (optionally 0x, "" meaning 0): 0, -1 not hex, -2 out of range */
static int parse_hex(const char *s, size_t n, uint64_t *v)
{
	size_t i = n >= 2 && s[0] == '0' && (s[1] | 0x20) == 'x' ? 2 : 0;
	uint64_t x = 0;

	for (; i < n; i++) {
		unsigned ch = (unsigned char)s[i], d = is_digit((char)ch) ? ch - '0' : (ch | 0x20) - 'a' + 10;

		if (!is_digit((char)ch) && ((ch | 0x20) < 'a' || (ch | 0x20) > 'f'))
			return -1;
		if (x >> 60)
			return -2;
		x = x << 4 | d;
	}
	*v = x;
	return 0;
}

/* phys_addr: a hex string (optionally 0x), "" meaning 0. */
static int scan_hex_string(struct cursor *c, const char *key, uint64_t *v)
{
	const char *s;
	size_t n;
	int rc;

	if (c->p >= c->end || *c->p != '"')
		return scan_fail(c, "\"%s\": expected a hex string", key);
	if (scan_string(c, &s, &n) < 0)
		return -1;
	if ((rc = parse_hex(s, n, v)) == -1)
		return scan_fail(c, "\"%s\": '%.*s' is not hex", key, (int)n, s);
	if (rc < 0)
		return scan_fail(c, "\"%s\": hex value out of range", key);
	return 0;
}

static int scan_value(struct cursor *c, int depth);

static int scan_literal(struct cursor *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
		return scan_fail(c, "bad value");
	c->p += n;
	return 0;
}

/* At '{' or '[': a nested container, syntax-checked and skipped. */
static int scan_container(struct cursor *c, int depth)
{
	char close = *c->p == '{' ? '}' : ']';
	bool object = close == '}', first = true;

	if (depth > 64)
		return scan_fail(c, "nesting too deep");
	c->p++;
	for (;;) {
		skip_ws(c);
		if (c->p >= c->end)
			return scan_fail(c, "unterminated %s", object ? "object" : "array");
		if (*c->p == close && first) {
			c->p++;
			return 0;
		}
		if (object) {
			const char *k;
			size_t kn;

			if (*c->p != '"' || scan_string(c, &k, &kn) < 0)
				return *c->err ? -1 : scan_fail(c, "expected a key");
			skip_ws(c);
			if (c->p >= c->end || *c->p != ':')
				return scan_fail(c, "expected ':'");
			c->p++;
			skip_ws(c);
		}
		if (scan_value(c, depth + 1) < 0)
			return -1;
		skip_ws(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			first = false;
			continue;
		}
		if (c->p < c->end && *c->p == close) {
			c->p++;
			return 0;
		}
		return scan_fail(c, "expected ',' or '%c'", close);
	}
}

static int scan_value(struct cursor *c, int depth)
{
	const char *s;
	size_t n;
	bool is_int;

	if (c->p >= c->end)
		return scan_fail(c, "missing value");
	switch (*c->p) {
	case '"':
		return scan_string(c, &s, &n);
	case '{':
	case '[':
		return scan_container(c, depth);
	case 't':
		return scan_literal(c, "true");
	case 'f':
		return scan_literal(c, "false");
	case 'n':
		return scan_literal(c, "null");
	default:
		return scan_number_syntax(c, &is_int);
	}
}

enum key_id {
	K_OTHER, K_COMM, K_TID, K_PID, K_CGROUP, K_PHYS, K_PAGE_SIZE, K_HINT, K_WEIGHT,
	K_TIME, K_TIME_NS, K_DATA_ID, K_DATA_MAP, K_DATA_SYM, K_DATA_SRC, K_ADDR, K_CPU, K_EVENT
};
enum { REQUIRED = 1 << K_COMM | 1 << K_TID | 1 << K_PID | 1 << K_CGROUP | 1 << K_PHYS | 1 << K_PAGE_SIZE };

static enum key_id key_of(const char *k, size_t n)
{
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(k, lit, n))
	if (IS("comm")) return K_COMM;
	if (IS("tid")) return K_TID;
	if (IS("pid")) return K_PID;
	if (IS("cgroup")) return K_CGROUP;
	if (IS("phys_addr")) return K_PHYS;
	if (IS("data_page_size")) return K_PAGE_SIZE;
	if (IS("hint")) return K_HINT;
	if (IS("weight")) return K_WEIGHT;
	if (IS("time")) return K_TIME;
	if (IS("time_ns")) return K_TIME_NS;
	if (IS("data_id")) return K_DATA_ID;
	if (IS("data_map")) return K_DATA_MAP;
	if (IS("data_sym")) return K_DATA_SYM;
	if (IS("data_src")) return K_DATA_SRC;
	if (IS("addr")) return K_ADDR;
	if (IS("cpu")) return K_CPU;
	if (IS("event")) return K_EVENT;
	return K_OTHER;
#undef IS
}

static const char *key_name(int id)
{
	static const char *names[] = {"", "comm", "tid", "pid", "cgroup", "phys_addr", "data_page_size",
				      "hint", "weight"};

	return names[id];
}

static int scan_string_key(struct cursor *c, const char *key, const char **s, size_t *n)
{
	if (c->p >= c->end || *c->p != '"')
		return scan_fail(c, "\"%s\": expected a string", key);
	return scan_string(c, s, n);
}

/* upstream's "time": seconds with a fraction, as a string ("12.000000001"); other forms are ignored */
static int scan_time_string(struct cursor *c, struct mem_sample *s)
{
	const char *t;
	size_t n, i = 0;
	uint64_t sec = 0, frac = 0, scale = 1000000000ULL;

	if (c->p >= c->end || *c->p != '"')
		return scan_value(c, 1);
	if (scan_string(c, &t, &n) < 0)
		return -1;
	for (; i < n && is_digit(t[i]) && sec < 1000000000000ULL; i++)
		sec = sec * 10 + (uint64_t)(t[i] - '0');
	if (i < n && t[i] == '.')
		for (i++; i < n && is_digit(t[i]) && scale > 1; i++) {
			scale /= 10;
			frac += (uint64_t)(t[i] - '0') * scale;
		}
	if (!s->time_ns)
		s->time_ns = sec * 1000000000ULL + frac;
	return 0;
}

/* data_id: a string, or null */
static int scan_nullable_string(struct cursor *c, const char *key, const char **v, size_t *n)
{
	if (c->p < c->end && *c->p == 'n') {
		*v = NULL;
		*n = 0;
		return scan_literal(c, "null");
	}
	return scan_string_key(c, key, v, n);
}

/* A value that matters only as a string: 1 and *t, *n when it is one,
 * 0 when it is anything else (checked and skipped), -1 on a syntax error. */
static int scan_if_string(struct cursor *c, const char **t, size_t *n)
{
	if (c->p >= c->end || *c->p != '"')
		return scan_value(c, 1) < 0 ? -1 : 0;
	return scan_string(c, t, n) < 0 ? -1 : 1;
}

/* addr (the virtual data address, hex string; anything else gives 0): the line when phys_addr has none */
static int scan_addr(struct cursor *c, struct mem_sample *s)
{
	const char *t;
	size_t n;
	int rc = scan_if_string(c, &t, &n);

	if (rc <= 0)
		return rc;
	if (parse_hex(t, n, &s->addr) < 0)
		s->addr = 0; /* not a hex address: no line */
	return 0;
}

/* data_src: an object; only "hitm" (local/remote) and "snoop" (…PEER…) matter. */
static int scan_data_src(struct cursor *c, struct mem_sample *s)
{
	if (c->p >= c->end || *c->p != '{')
		return scan_value(c, 1);
	c->p++;
	skip_ws(c);
	if (c->p < c->end && *c->p == '}') {
		c->p++;
		return 0;
	}
	for (;;) {
		const char *k, *v;
		size_t kn, vn;

		skip_ws(c);
		if (c->p >= c->end || *c->p != '"' || scan_string(c, &k, &kn) < 0)
			return *c->err ? -1 : scan_fail(c, "data_src: expected a key");
		skip_ws(c);
		if (c->p >= c->end || *c->p != ':')
			return scan_fail(c, "data_src: expected ':'");
		c->p++;
		skip_ws(c);
		if (c->p < c->end && *c->p == '"' && ((kn == 4 && !memcmp(k, "hitm", 4)) || (kn == 5 && !memcmp(k, "snoop", 5)))) {
			if (scan_string(c, &v, &vn) < 0)
				return -1;
			if (kn == 4)
				s->peer |= (vn == 5 && !memcmp(v, "local", 5)) || (vn == 6 && !memcmp(v, "remote", 6));
			else
				s->peer |= memmem(v, vn, "PEER", 4) != NULL;
		} else if (scan_value(c, 2) < 0) {
			return -1;
		}
		skip_ws(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			continue;
		}
		if (c->p < c->end && *c->p == '}') {
			c->p++;
			return 0;
		}
		return scan_fail(c, "data_src: expected ',' or '}'");
	}
}

bool jsonl_event_is_fault(const char *name, size_t len)
{
	const char *colon = memchr(name, ':', len);

	if (colon)
		len = (size_t)(colon - name);
#define IS(lit) (len == sizeof(lit) - 1 && !memcmp(name, lit, len))
	return IS("page-faults") || IS("faults") || IS("minor-faults") || IS("major-faults");
#undef IS
}

/* event (optional, upstream has it): only whether it names a page-fault event matters */
static int scan_event(struct cursor *c, struct mem_sample *s)
{
	const char *t;
	size_t n;
	int rc = scan_if_string(c, &t, &n);

	if (rc <= 0)
		return rc;
	s->fault = jsonl_event_is_fault(t, n);
	return 0;
}

static int scan_member(struct cursor *c, enum key_id id, struct mem_sample *s)
{
	switch (id) {
	case K_COMM: return scan_string_key(c, "comm", &s->comm, &s->comm_len);
	case K_CGROUP: return scan_string_key(c, "cgroup", &s->cgroup, &s->cgroup_len);
	case K_TID: return scan_i64(c, "tid", &s->tid);
	case K_PID: return scan_i64(c, "pid", &s->pid);
	case K_PHYS: return scan_hex_string(c, "phys_addr", &s->phys_addr);
	case K_PAGE_SIZE: return scan_u64(c, "data_page_size", &s->data_page_size);
	case K_HINT: return scan_u64(c, "hint", &s->hint);
	case K_WEIGHT:
		s->has_weight = true;
		return scan_u64(c, "weight", &s->weight);
	case K_TIME_NS: return scan_u64(c, "time_ns", &s->time_ns);
	case K_TIME: return scan_time_string(c, s);
	case K_DATA_ID: return scan_nullable_string(c, "data_id", &s->data_id, &s->data_id_len);
	case K_DATA_MAP: return scan_string_key(c, "data_map", &s->data_map, &s->data_map_len);
	case K_DATA_SYM: return scan_string_key(c, "data_sym", &s->data_sym, &s->data_sym_len);
	case K_DATA_SRC: return scan_data_src(c, s);
	case K_ADDR: return scan_addr(c, s);
	case K_CPU: /* optional (upstream has none): anything but an integer >= 0 is skipped, as before it was read */
		if (c->p >= c->end || !is_digit(*c->p))
			return scan_value(c, 1);
		s->has_cpu = true;
		return scan_i64(c, "cpu", &s->cpu);
	case K_EVENT: return scan_event(c, s);
	default: return scan_value(c, 1);
	}
}

int jsonl_scan_mem(char *line, size_t len, struct mem_sample *s, char *err, size_t errlen)
{
	struct cursor c = {line, line + len, err, errlen};
	unsigned seen = 0;
	int id;

	memset(s, 0, sizeof(*s));
	err[0] = '\0';
	skip_ws(&c);
	if (c.p >= c.end)
		return scan_fail(&c, "empty line");
	if (*c.p != '{')
		return scan_fail(&c, "not a JSON object");
	c.p++;
	skip_ws(&c);
	if (c.p < c.end && *c.p == '}') {
		c.p++;
	} else {
		for (;;) {
			const char *k;
			size_t kn;
			enum key_id kid;

			skip_ws(&c);
			if (c.p >= c.end || *c.p != '"')
				return scan_fail(&c, "expected a key");
			if (scan_string(&c, &k, &kn) < 0)
				return -1;
			kid = key_of(k, kn);
			skip_ws(&c);
			if (c.p >= c.end || *c.p != ':')
				return scan_fail(&c, "expected ':' after key \"%.*s\"", (int)kn, k);
			c.p++;
			skip_ws(&c);
			if (scan_member(&c, kid, s) < 0)
				return -1;
			seen |= 1u << kid;
			skip_ws(&c);
			if (c.p < c.end && *c.p == ',') {
				c.p++;
				continue;
			}
			if (c.p < c.end && *c.p == '}') {
				c.p++;
				break;
			}
			return scan_fail(&c, "expected ',' or '}'");
		}
	}
	skip_ws(&c);
	if (c.p != c.end)
		return scan_fail(&c, "trailing characters after the object");
	for (id = K_COMM; id <= K_DATA_SRC; id++)
		if ((REQUIRED & (1 << id)) && !(seen & (1u << id)))
			return scan_fail(&c, "missing key \"%s\"", key_name(id));
	return 0;
}
