/*
 * mem_jsonl.c - formats one perf.jsonl line (see mem_jsonl.h). This is the
 * hot path of the process stage: the whole line is written into one
 * reservation of the output buffer, keys as literals, stable names copied
 * from their cached escaped form, the seconds of the time reused while they
 * do not change.
 */
#include "mem_jsonl.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_MAX (64u << 20) /* the cache starts over past this */
#define CHUNK_MIN (64u << 10)
#define COPY_SLACK 32         /* copies run in 32-byte steps: room past the end */

struct mem_jsonl_chunk {
	struct mem_jsonl_chunk *next;
	char text[];
};

struct mem_jsonl_ctx *mem_jsonl_ctx_new(void)
{
	return calloc(1, sizeof(struct mem_jsonl_ctx));
}

static void free_chunks(struct mem_jsonl_chunk *k)
{
	while (k) {
		struct mem_jsonl_chunk *next = k->next;

		free(k);
		k = next;
	}
}

void mem_jsonl_ctx_free(struct mem_jsonl_ctx *c)
{
	if (c) {
		free_chunks(c->chunks);
		free_chunks(c->retired);
		free(c);
	}
}

/* Drop every cached form; their chunks stay readable until the next line. */
static void start_over(struct mem_jsonl_ctx *c)
{
	struct mem_jsonl_chunk **tail = &c->retired;

	while (*tail)
		tail = &(*tail)->next;
	*tail = c->chunks;
	c->chunks = NULL;
	c->free_at = NULL;
	c->free_len = 0;
	c->arena_len = 0;
	c->starts++;
	memset(c->esc, 0, sizeof(c->esc));
}

/* Escape s into the cache; NULL when memory is short (the caller escapes
 * directly then). */
static const char *cache_escaped(struct mem_jsonl_ctx *c, size_t slot, const char *s, size_t *len)
{
	size_t n = strlen(s), need = jsonw_escaped_max(n) + COPY_SLACK;
	char *end;

	if (c->arena_len + need > ARENA_MAX)
		start_over(c);
	if (c->free_len < need) {
		size_t size = need > CHUNK_MIN ? need : CHUNK_MIN;
		struct mem_jsonl_chunk *k = malloc(sizeof(*k) + size);

		if (!k)
			return NULL;
		k->next = c->chunks;
		c->chunks = k;
		c->free_at = k->text;
		c->free_len = size;
	}
	end = jsonw_put_str(c->free_at, s, n);
	c->esc[slot].key = s;
	c->esc[slot].text = c->free_at;
	c->esc[slot].len = (size_t)(end - c->free_at);
	/* the next form starts here: COPY_SLACK readable bytes stay past this one */
	c->free_len -= c->esc[slot].len;
	c->free_at = end;
	c->arena_len += c->esc[slot].len;
	*len = c->esc[slot].len;
	return c->esc[slot].text;
}

/* Escaped form of a stable string, from the cache or made now. */
static inline const char *escaped(struct mem_jsonl_ctx *c, const char *s, size_t *len)
{
	size_t slot = (((uintptr_t)s >> 3) * 0x9e3779b97f4a7c15ULL >> 52) & (ESCAPE_CACHE - 1);

	if (c->esc[slot].key == s) {
		*len = c->esc[slot].len;
		return c->esc[slot].text;
	}
	return cache_escaped(c, slot, s, len);
}

/* A name of the line: its escaped form (p, n bytes) when cached, else the
 * string (s, n bytes) to escape here. */
struct name {
	const char *p, *s;
	size_t n;
};

/* Copy a cached form in 32-byte steps: it has COPY_SLACK readable bytes
 * past it, and the line's bound has room past the copy. */
static inline char *copy_cached(char *p, const char *q, size_t n)
{
	for (size_t i = 0; i < n; i += 32)
		memcpy(p + i, q + i, 32);
	return p + n;
}

static inline char *put_name(char *p, const struct name *e)
{
	if (e->p)
		return copy_cached(p, e->p, e->n);
	return jsonw_put_str(p, e->s, e->n);
}

/* One of the line's names: cached when the record says it is stable, else
 * measured; the most bytes it takes. */
static inline size_t name_of(const char *s, bool stable, struct mem_jsonl_ctx *c, struct name *e)
{
	e->s = s;
	e->n = 0;
	e->p = NULL;
	if (!s)
		return 0;
	if (stable && (e->p = escaped(c, s, &e->n)))
		return e->n;
	e->n = strlen(s);
	return jsonw_escaped_max(e->n);
}

/*
 * The line's names (sym, dso, event, data_map, data_sym, in that order) and
 * the most bytes they take. A start-over while later names are cached
 * leaves the earlier ones readable (their chunks are only retired).
 */
static inline size_t names_of(const struct mem_record *r, struct mem_jsonl_ctx *c, struct name *e)
{
	bool st = r->stable_names;

	return name_of(r->sym, st, c, &e[0]) + name_of(r->dso, st, c, &e[1]) + name_of(r->event, st, c, &e[2]) +
	       name_of(r->data_map, st, c, &e[3]) + name_of(r->data_sym, st, c, &e[4]);
}

/* The same n bytes (n < THREAD_COMM_MAX), without a call: words, the last
 * one overlapping. */
static inline bool same_comm(const char *a, const char *b, size_t n)
{
	uint64_t x, y, diff = 0;

	if (n >= 8) {
		for (size_t i = 0; i + 8 <= n; i += 8) {
			memcpy(&x, a + i, 8), memcpy(&y, b + i, 8);
			diff |= x ^ y;
		}
		memcpy(&x, a + n - 8, 8), memcpy(&y, b + n - 8, 8);
		return !(diff | (x ^ y));
	}
	if (n >= 4) {
		uint32_t u, v, w, z;

		memcpy(&u, a, 4), memcpy(&v, b, 4), memcpy(&w, a + n - 4, 4), memcpy(&z, b + n - 4, 4);
		return !((u ^ v) | (w ^ z));
	}
	for (size_t i = 0; i < n; i++)
		diff |= (uint64_t)(a[i] ^ b[i]);
	return !diff;
}

static inline char *put_hex_str(char *p, uint64_t v)
{
	*p++ = '"';
	p = jsonw_put_hex(p, v);
	*p++ = '"';
	return p;
}

/* {"comm":...,"tid":...,"pid":... */
static char *put_thread(char *p, const struct mem_record *r, size_t comm_len)
{
	p = JSONW_PUT_KV_STR(p, "{\"comm\":", r->comm, comm_len);
	p = JSONW_PUT_KV_I64(p, ",\"tid\":", r->tid);
	return JSONW_PUT_KV_I64(p, ",\"pid\":", r->pid);
}

/* The line's start, kept per thread while its comm, tid and pid repeat. */
static char *put_thread_cached(char *p, const struct mem_record *r, size_t comm_len, struct mem_jsonl_ctx *c)
{
	size_t slot = ((uint64_t)r->tid * 0x9e3779b97f4a7c15ULL) >> 32;
	__typeof__(c->thread[0]) *t = &c->thread[slot & (THREAD_CACHE - 1)];

	if (comm_len >= THREAD_COMM_MAX)
		return put_thread(p, r, comm_len);
	if (!t->len || t->tid != r->tid || t->pid != r->pid || t->comm_len != comm_len ||
	    !same_comm(t->comm, r->comm, comm_len)) {
		t->tid = r->tid;
		t->pid = r->pid;
		t->comm_len = comm_len;
		memcpy(t->comm, r->comm, comm_len);
		t->len = (size_t)(put_thread(t->text, r, comm_len) - t->text);
	}
	return copy_cached(p, t->text, t->len);
}

/* Seconds with 9 decimals, the seconds' digits reused while they repeat;
 * *frac: where the 9 decimals went. */
static char *put_time(char *p, struct mem_jsonl_ctx *c, uint64_t ns, const char **frac)
{
	uint64_t secs = ns / 1000000000ULL;

	if (secs != c->secs || !c->secs_len) {
		c->secs = secs;
		c->secs_len = (size_t)(jsonw_put_u64(c->secs_text, secs) - c->secs_text);
	}
	*p++ = '"';
	memcpy(p, c->secs_text, sizeof(c->secs_text));
	p += c->secs_len;
	*p++ = '.';
	*frac = p;
	p = jsonw_put_9digits(p, (uint32_t)(ns - secs * 1000000000ULL));
	*p++ = '"';
	return p;
}

/* time_ns: with at least a second, the time's digits without the dot. */
static char *put_time_ns(char *p, uint64_t ns, const struct mem_jsonl_ctx *c, const char *frac)
{
	if (ns < 1000000000ULL)
		return jsonw_put_u64(p, ns);
	memcpy(p, c->secs_text, sizeof(c->secs_text));
	p += c->secs_len;
	memcpy(p, frac, 9);
	return p + 9;
}

/* The data id: its head (kind and mapping fields) kept per mapping, then
 * the page. */
static char *put_data_id(char *p, const struct data_id *d, struct mem_jsonl_ctx *c)
{
	uint64_t key = d->ino ^ d->ino_gen * 0x100000001b3ULL ^ (uint64_t)(uint32_t)d->pid << 24 ^
		       (uint64_t)d->maj << 44 ^ (uint64_t)d->min << 52 ^ (uint64_t)d->kind;
	__typeof__(c->id[0]) *e = &c->id[((key * 0x9e3779b97f4a7c15ULL) >> 32) & (ID_CACHE - 1)];

	if (d->kind == DATA_ID_NONE)
		return data_id_put(p, d);
	if (!e->len || d->kind != e->id.kind || d->pid != e->id.pid || d->maj != e->id.maj || d->min != e->id.min ||
	    d->ino != e->id.ino || d->ino_gen != e->id.ino_gen) {
		e->len = (size_t)(data_id_put_head(e->head, d) - e->head);
		if (!e->len) /* a kind without a head */
			return data_id_put(p, d);
		e->id = *d;
	}
	memcpy(p, e->head, sizeof(e->head));
	p = jsonw_put_hex(p + e->len, d->page);
	*p++ = '"';
	return p;
}

static char *identity(char *p, const struct mem_record *r, const struct name *e, struct mem_jsonl_ctx *c)
{
	if (r->data_map) {
		p = JSONW_PUT_LIT(p, ",\"data_map\":");
		p = put_name(p, &e[3]);
	}
	p = JSONW_PUT_LIT(p, ",\"data_id\":");
	p = put_data_id(p, &r->data_id, c);
	if (r->data_sym) {
		p = JSONW_PUT_LIT(p, ",\"data_sym\":");
		p = put_name(p, &e[4]);
	}
	return p;
}

static char *extras(char *p, const struct mem_record *r, const struct name *e, struct mem_jsonl_ctx *c,
		    const char *frac)
{
	if (r->event) {
		p = JSONW_PUT_LIT(p, ",\"event\":");
		p = put_name(p, &e[2]);
	}
	if (r->has_cpu) {
		p = JSONW_PUT_KV_U64(p, ",\"cpu\":", r->cpu);
	}
	if (r->has_time_ns) {
		p = JSONW_PUT_LIT(p, ",\"time_ns\":");
		p = put_time_ns(p, r->time_ns, c, frac);
	}
	if (r->has_period) {
		p = JSONW_PUT_KV_U64(p, ",\"period\":", r->period);
	}
	if (r->has_weight) {
		p = JSONW_PUT_KV_U64(p, ",\"weight\":", r->weight);
	}
	if (r->has_weight_struct) {
		p = JSONW_PUT_KV_U64(p, ",\"weight_struct\":{\"var1\":", r->var1);
		p = JSONW_PUT_KV_U64(p, ",\"var2\":", r->var2);
		p = JSONW_PUT_KV_U64(p, ",\"var3\":", r->var3);
		*p++ = '}';
	}
	if (r->has_data_src && r->data_src != c->unknown_src) {
		size_t n;
		const char *t;

		if (data_src_is_unknown(r->data_src)) {
			c->unknown_src = r->data_src; /* left out, as long as it repeats */
			return p;
		}
		t = data_src_text(&c->data_src, r->data_src, &n);
		p = JSONW_PUT_LIT(p, ",\"data_src\":");
		memcpy(p, t, n);
		p += n;
	}
	return p;
}

/*
 * Most bytes of a line besides its strings: every key (245 bytes), the
 * numbers at their longest (265: 20 digits, a sign, quotes), the data_src
 * object and the data id (its cached head copied whole), and room for the
 * 16- and 32-byte stores (hex digits, cached names and thread starts) past
 * the end.
 */
#define LINE_FIXED_MAX (640 + DATA_SRC_TEXT_MAX + DATA_ID_JSON_MAX)

void mem_jsonl_line(struct jsonw *w, const struct mem_record *r, struct mem_jsonl_ctx *c)
{
	size_t comm_len = strlen(r->comm), cgroup_len = strlen(r->cgroup);
	struct name e[5];
	const char *frac;
	char *p;

	if (c->retired) { /* the last line is written: what a start-over dropped can go */
		free_chunks(c->retired);
		c->retired = NULL;
	}
	p = jsonw_reserve(w, LINE_FIXED_MAX + names_of(r, c, e) + jsonw_escaped_max(comm_len + cgroup_len));
	if (!p)
		return;
	p = put_thread_cached(p, r, comm_len, c);
	p = JSONW_PUT_LIT(p, ",\"time\":");
	p = put_time(p, c, r->time_ns, &frac);
	p = JSONW_PUT_LIT(p, ",\"addr\":");
	p = put_hex_str(p, r->addr);
	p = JSONW_PUT_KV_STR(p, ",\"cgroup\":", r->cgroup, cgroup_len);
	p = JSONW_PUT_LIT(p, ",\"ip\":");
	p = put_hex_str(p, r->ip);
	p = JSONW_PUT_LIT(p, ",\"sym\":");
	p = put_name(p, &e[0]);
	p = JSONW_PUT_LIT(p, ",\"dso\":");
	p = put_name(p, &e[1]);
	p = JSONW_PUT_LIT(p, ",\"phys_addr\":");
	p = put_hex_str(p, r->phys_addr);
	p = JSONW_PUT_KV_U64(p, ",\"data_page_size\":", r->data_page_size);
	p = JSONW_PUT_KV_U64(p, ",\"hint\":", r->hint);
	p = extras(p, r, e, c, frac);
	p = identity(p, r, e, c);
	p = JSONW_PUT_LIT(p, "}\n");
	jsonw_commit(w, p);
}
