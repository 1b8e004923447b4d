/*
 * script_text.c - parses one line of `perf script` text for a memory sample
 * (perf.mem.script / perf.script in upstream archives) into a struct.
 *
 * Layout perf prints for -F comm,tid,pid,time,cgroup,ip,addr,phys_addr,
 * data_page_size,dso,sym (fields are separated by runs of whitespace):
 *
 *   COMM PID/TID [CPU] SECS.FRAC: ADDR [ASYM (ADSO)] [CGROUP] IP SYM (DSO)
 *       PHYS PAGESIZE [CGROUP]
 *
 *  - COMM is everything before the first token "PID/TID" (trimmed; it
 *    may contain spaces). That token is pid/tid, in that order, each an
 *    int32 as perf prints it with %d: -1 for a task the kernel had no id
 *    for (comm ":-1"), as the sched text parser accepts.
 *  - The time token ends in ':'; its fraction has 1..9 digits (6 without
 *    --ns, 9 with it); time_ns is computed exactly, in integers.
 *  - ASYM (ADSO): perf resolves the data address to a symbol only for
 *    events whose address correlates with code (page faults, branches), not
 *    for perf mem samples. Detected as a whitespace-delimited parenthesized
 *    group after at least one token, followed by [CGROUP] IP.
 *  - CGROUP is one token ("/a/b.slice" or perf's "unknown"): between the
 *    address and IP in perf >= 6.5 (and stable backports), at the end of the
 *    line in the perf versions that first had the field. A non-hex token
 *    where IP is expected is the cgroup.
 *  - (DSO) is the last whitespace-delimited balanced parenthesized group, so
 *    SYM may contain spaces and parentheses (C++) and DSO may too
 *    ("(/memfd:x (deleted))"). SYM is the text between IP and (DSO).
 *  - PHYS is hex; when missing, has_phys_addr is false (upstream then skips
 *    the sample as "no phys_addr" rather than calling it unparseable).
 *    PAGESIZE is "N/A" (0) or a number with an optional B/K/M/G/T suffix
 *    (perf prints 4K, 2M, and a 1G page as "1024M"); missing means 0.
 *  - Strings longer than their struct field are truncated.
 *
 * Differences from upstream's parser (which takes the three tokens after the
 * time as addr, cgroup, ip): we also parse lines without a cgroup, with the
 * address's own symbol, or with the cgroup at the end; we reject non-hex
 * addresses, bad times and bad page sizes, which upstream passes through.
 */
#include "process/mem/script_text.h"

#include "lib/error.h"

#include <string.h>

#define MAX_TOKENS 512

struct tok {
	size_t b, e; /* [b, e) in the line */
};

struct line_ctx {
	const char *s;
	struct tok t[MAX_TOKENS];
	size_t n;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hex_val(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int tokenize(struct line_ctx *c, const char *s, size_t len)
{
	size_t i = 0;

	c->s = s;
	c->n = 0;
	for (;;) {
		while (i < len && is_space(s[i]))
			i++;
		if (i >= len)
			return 0;
		if (c->n == MAX_TOKENS)
			return scx_fail("too many fields");
		c->t[c->n].b = i;
		while (i < len && !is_space(s[i]))
			i++;
		c->t[c->n++].e = i;
	}
}

static size_t tok_len(const struct line_ctx *c, size_t i)
{
	return c->t[i].e - c->t[i].b;
}

static const char *tok_str(const struct line_ctx *c, size_t i)
{
	return c->s + c->t[i].b;
}

static void copy_text(char *dst, size_t cap, const char *src, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void copy_tok(char *dst, size_t cap, const struct line_ctx *c, size_t i)
{
	copy_text(dst, cap, tok_str(c, i), tok_len(c, i));
}

/* ---- numbers --------------------------------------------------------- */

static bool parse_dec(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!is_digit(s[i]) || v > (max - (uint64_t)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

static bool parse_hex(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		int d = hex_val(s[i]);

		if (d < 0 || v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

static bool tok_is_hex(const struct line_ctx *c, size_t i)
{
	uint64_t v;

	return parse_hex(tok_str(c, i), tok_len(c, i), &v);
}

/* A pid or tid as perf script prints it: the sample's u32 with %d, so an
 * int32, -1 where the kernel had no id for the task (perf_event_pid_type:
 * a thread sampled past its unhashing in exit). The same rule as the sched
 * text parser (sched_script.c) and the perf.data reader's int32 cast; a
 * value perf cannot print (above INT32_MAX, below INT32_MIN) is refused. */
static bool parse_id32(const char *s, size_t len, int64_t *out)
{
	bool neg = len > 0 && s[0] == '-';
	uint64_t v;

	if (!parse_dec(s + neg, len - neg, neg ? (uint64_t)INT32_MAX + 1 : INT32_MAX, &v))
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/* "PID/TID", each an int32 as perf prints it. */
static bool parse_pid_tid(const char *s, size_t len, int64_t *pid, int64_t *tid)
{
	const char *slash = memchr(s, '/', len);
	int64_t p, t;

	if (!slash)
		return false;
	if (!parse_id32(s, (size_t)(slash - s), &p) ||
	    !parse_id32(slash + 1, len - (size_t)(slash - s) - 1, &t))
		return false;
	*pid = p;
	*tid = t;
	return true;
}

/* "SECS[.FRAC]:" with 1..9 fraction digits, exactly into ns. */
static int parse_time(const char *s, size_t len, struct script_mem_sample *out)
{
	const char *dot;
	uint64_t secs, frac = 0;
	size_t nfrac = 0;

	if (len < 2 || s[len - 1] != ':')
		return scx_fail("bad time (no ':')");
	len--;
	if (len >= sizeof(out->time))
		return scx_fail("bad time (too long)");
	dot = memchr(s, '.', len);
	if (dot) {
		nfrac = len - (size_t)(dot - s) - 1;
		if (nfrac < 1 || nfrac > 9 || !parse_dec(dot + 1, nfrac, UINT64_MAX, &frac))
			return scx_fail("bad time");
	}
	if (!parse_dec(s, dot ? (size_t)(dot - s) : len, UINT64_MAX / 1000000000u, &secs))
		return scx_fail("bad time");
	for (size_t i = nfrac; i < 9; i++)
		frac *= 10;
	if (secs * 1000000000u > UINT64_MAX - frac)
		return scx_fail("bad time (too large)");
	out->time_ns = secs * 1000000000u + frac;
	copy_text(out->time, sizeof(out->time), s, len);
	return 0;
}

/* "N/A" -> 0; "4K", "2M", "1024M", "8192", "512B" -> bytes. */
static int parse_page_size(const char *s, size_t len, uint64_t *out)
{
	static const char units[] = "BKMGT";
	const char *u;
	uint64_t v;
	unsigned shift = 0;

	if (len == 3 && memcmp(s, "N/A", 3) == 0) {
		*out = 0;
		return 0;
	}
	if (len > 1 && !is_digit(s[len - 1])) {
		char c = s[len - 1] & ~0x20; /* upper case */

		u = c ? strchr(units, c) : NULL;
		if (!u)
			return scx_fail("bad data_page_size '%.*s'", (int)len, s);
		shift = 10 * (unsigned)(u - units);
		len--;
	}
	if (!parse_dec(s, len, UINT64_MAX >> shift, &v))
		return scx_fail("bad data_page_size '%.*s'", (int)len, s);
	*out = v << shift;
	return 0;
}

/* ---- structure ------------------------------------------------------- */

/* Token index of the first "pid/tid" token, or n. */
static size_t find_pid_tid(const struct line_ctx *c, struct script_mem_sample *out)
{
	for (size_t i = 0; i < c->n; i++)
		if (parse_pid_tid(tok_str(c, i), tok_len(c, i), &out->pid, &out->tid))
			return i;
	return c->n;
}

/*
 * The parenthesized group starting at token g: the token index where its
 * balanced ')' ends a token, or (size_t)-1. Searched no further than token lim.
 */
static size_t group_end_fwd(const struct line_ctx *c, size_t g, size_t lim)
{
	int depth = 0;

	for (size_t i = g; i < lim; i++) {
		for (size_t k = c->t[i].b; k < c->t[i].e; k++) {
			depth += c->s[k] == '(' ? 1 : c->s[k] == ')' ? -1 : 0;
			if (depth == 0)
				return k + 1 == c->t[i].e ? i : (size_t)-1;
			if (depth < 0)
				return (size_t)-1;
		}
	}
	return (size_t)-1;
}

/* Token index where the group ending at token last (with ')') starts, or -1. */
static size_t group_start_bwd(const struct line_ctx *c, size_t last, size_t lo)
{
	int depth = 0;

	for (size_t i = last + 1; i-- > lo;) {
		for (size_t k = c->t[i].e; k-- > c->t[i].b;) {
			depth += c->s[k] == ')' ? 1 : c->s[k] == '(' ? -1 : 0;
			if (depth == 0)
				return k == c->t[i].b ? i : (size_t)-1;
		}
	}
	return (size_t)-1;
}

/* After the address part: "[CGROUP] IP" then at least one more token. */
static bool ip_follows(const struct line_ctx *c, size_t j, size_t d)
{
	if (j < d && !tok_is_hex(c, j))
		j++;
	return j + 1 < d && tok_is_hex(c, j);
}

/* Token index just after the address's "SYM (DSO)" when present, else a+1. */
static size_t skip_addr_sym(const struct line_ctx *c, size_t a, size_t d)
{
	for (size_t g = a + 2; g < d; g++) {
		size_t e;

		if (tok_str(c, g)[0] != '(')
			continue;
		e = group_end_fwd(c, g, d);
		if (e != (size_t)-1 && ip_follows(c, e + 1, d))
			return e + 1;
	}
	return a + 1;
}

/* Tokens [a, d): ADDR [ASYM (ADSO)] [CGROUP] IP SYM... */
static int parse_head(const struct line_ctx *c, size_t a, size_t d,
		      struct script_mem_sample *out)
{
	size_t j;

	if (a >= d)
		return scx_fail("missing addr");
	if (!parse_hex(tok_str(c, a), tok_len(c, a), &out->addr))
		return scx_fail("bad addr '%.*s'", (int)tok_len(c, a), tok_str(c, a));
	j = skip_addr_sym(c, a, d);
	if (j < d && !tok_is_hex(c, j))
		copy_tok(out->cgroup, sizeof(out->cgroup), c, j++);
	if (j >= d)
		return scx_fail("missing ip");
	if (!parse_hex(tok_str(c, j), tok_len(c, j), &out->ip))
		return scx_fail("bad ip '%.*s'", (int)tok_len(c, j), tok_str(c, j));
	if (j + 1 < d)
		copy_text(out->sym, sizeof(out->sym), tok_str(c, j + 1),
			  c->t[d - 1].e - c->t[j + 1].b);
	return 0;
}

/* Tokens [t, n): [PHYS [PAGESIZE [CGROUP]]] */
static int parse_tail(const struct line_ctx *c, size_t t, struct script_mem_sample *out)
{
	size_t left = c->n - t;

	if (left >= 1) {
		if (!parse_hex(tok_str(c, t), tok_len(c, t), &out->phys_addr))
			return scx_fail("bad phys_addr '%.*s'", (int)tok_len(c, t), tok_str(c, t));
		out->has_phys_addr = true;
	}
	if (left >= 2 && parse_page_size(tok_str(c, t + 1), tok_len(c, t + 1),
					 &out->data_page_size))
		return -1;
	if (left >= 3) {
		if (left > 3 || out->cgroup[0])
			return scx_fail("unexpected text after data_page_size");
		copy_tok(out->cgroup, sizeof(out->cgroup), c, t + 2);
	}
	return 0;
}

/* Tokens [a, n): everything after the time. */
static int parse_fields(const struct line_ctx *c, size_t a, struct script_mem_sample *out)
{
	size_t last = c->n, d;

	while (last-- > a) {
		if (c->s[c->t[last].e - 1] == ')')
			break;
	}
	if (last == (size_t)-1 || last < a)
		return scx_fail("no (dso) field");
	d = group_start_bwd(c, last, a);
	if (d == (size_t)-1 || d <= a)
		return scx_fail("unbalanced (dso) field");
	copy_text(out->dso, sizeof(out->dso), tok_str(c, d) + 1,
		  c->t[last].e - c->t[d].b - 2);
	if (parse_head(c, a, d, out))
		return -1;
	return parse_tail(c, last + 1, out);
}

static bool is_cpu_tok(const struct line_ctx *c, size_t i)
{
	const char *s = tok_str(c, i);
	size_t len = tok_len(c, i);
	uint64_t v;

	return len >= 3 && s[0] == '[' && s[len - 1] == ']' && parse_dec(s + 1, len - 2, UINT32_MAX, &v);
}

int script_text_parse_mem_line(const char *line, size_t len, struct script_mem_sample *out)
{
	struct line_ctx c;
	size_t k, i;

	memset(out, 0, sizeof(*out));
	if (memchr(line, '\0', len)) /* perf prints none; a comm or symbol cut at it would be wrong */
		return scx_fail("NUL byte in the line");
	if (tokenize(&c, line, len))
		return -1;
	if (c.n == 0)
		return scx_fail("empty line");
	if (line[c.t[0].b] == '#')
		return scx_fail("comment");
	k = find_pid_tid(&c, out);
	if (k == c.n)
		return scx_fail("no pid/tid field");
	if (k > 0)
		copy_text(out->comm, sizeof(out->comm), line + c.t[0].b, c.t[k - 1].e - c.t[0].b);
	i = k + 1;
	if (i < c.n && is_cpu_tok(&c, i))
		i++;
	if (i >= c.n)
		return scx_fail("missing time");
	if (parse_time(tok_str(&c, i), tok_len(&c, i), out))
		return -1;
	return parse_fields(&c, i + 1, out);
}
