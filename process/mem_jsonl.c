/*
 * mem_jsonl.c - formats one perf.jsonl line (see mem_jsonl.h). This is the
 * hot path of the process stage: the whole line is written into one
 * reservation of the output buffer, keys as literals.
 */
#include "mem_jsonl.h"

#include <stdlib.h>
#include <string.h>

#define LIT(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

struct mem_jsonl_ctx *mem_jsonl_ctx_new(void)
{
	return calloc(1, sizeof(struct mem_jsonl_ctx));
}

void mem_jsonl_ctx_free(struct mem_jsonl_ctx *c)
{
	if (c) {
		free(c->arena);
		free(c);
	}
}

/* Escaped form of a stable string, from the cache or made now; NULL when
 * memory is short (the caller escapes directly then). */
static const char *escaped(struct mem_jsonl_ctx *c, const char *s, size_t *len)
{
	size_t slot = ((uintptr_t)s >> 3) * 0x9e3779b97f4a7c15ULL >> 52, n, need;
	char *end;

	slot &= ESCAPE_CACHE - 1;
	if (c->esc[slot].key == s) {
		*len = c->esc[slot].len;
		return c->arena + c->esc[slot].off;
	}
	n = strlen(s);
	need = jsonw_escaped_max(n);
	if (c->arena_len + need > c->arena_cap) {
		size_t cap = c->arena_cap ? c->arena_cap * 2 : 1 << 16;
		char *a;

		if (cap > (64u << 20)) { /* start over rather than grow without bound */
			memset(c->esc, 0, sizeof(c->esc));
			c->arena_len = 0;
			c->starts++;
			cap = c->arena_cap;
		}
		while (cap < c->arena_len + need)
			cap *= 2;
		if (cap != c->arena_cap) {
			if (!(a = realloc(c->arena, cap)))
				return NULL;
			c->arena = a;
			c->arena_cap = cap;
		}
	}
	end = jsonw_put_str(c->arena + c->arena_len, s, n);
	c->esc[slot].key = s;
	c->esc[slot].off = (uint32_t)c->arena_len;
	c->esc[slot].len = (uint32_t)(end - (c->arena + c->arena_len));
	c->arena_len += c->esc[slot].len;
	*len = c->esc[slot].len;
	return c->arena + c->esc[slot].off;
}

/* A name of the line: escaped in the cache (e->p, when the line is stable
 * and memory allowed) or escaped here (its length n). */
struct esc {
	const char *p;
	size_t n;
};

static char *put_name(char *p, const struct esc *e, const char *s, size_t n)
{
	if (!e->p)
		return jsonw_put_str(p, s, n);
	memcpy(p, e->p, e->n);
	return p + e->n;
}

/* Most bytes the line can take, so one reservation fits it. */
static size_t line_max(const struct mem_record *r, size_t *lens)
{
	lens[0] = strlen(r->comm);
	lens[1] = strlen(r->cgroup);
	lens[2] = strlen(r->sym);
	lens[3] = strlen(r->dso);
	lens[4] = r->event ? strlen(r->event) : 0;
	lens[5] = r->data_map ? strlen(r->data_map) : 0;
	lens[6] = r->data_sym ? strlen(r->data_sym) : 0;
	return 512 + DATA_SRC_TEXT_MAX + DATA_ID_JSON_MAX +
	       jsonw_escaped_max(lens[0] + lens[1] + lens[2] + lens[3] + lens[4] + lens[5] + lens[6]);
}

/* The same bound when sym, dso, event, data_map and data_sym come from the
 * escape cache (e[0..4], in that order; all p NULL when one is not). */
static size_t line_max_stable(const struct mem_record *r, struct mem_jsonl_ctx *c, size_t *lens, struct esc *e)
{
	const char *names[5] = {r->sym, r->dso, r->event, r->data_map, r->data_sym};
	size_t sum = 0, off[5] = {0};
	unsigned long starts;
	int tries = 0;

	/*
	 * escaped() may move the arena (realloc) or start it over while later
	 * names are cached: keep offsets and make the pointers at the end, and
	 * redo the line's names once after a start-over (it overwrote them).
	 */
again:
	sum = 0;
	for (int i = 0; i < 5; i++) {
		const char *q = NULL;

		e[i].p = NULL, e[i].n = 0;
		starts = c->starts;
		if (names[i] && !(q = escaped(c, names[i], &e[i].n))) {
			for (int j = 0; j < 5; j++)
				e[j].p = NULL;
			return line_max(r, lens);
		}
		/* started over: the earlier names' bytes are gone (counted, as a long
		 * name can leave the arena longer than before) */
		if (c->starts != starts && i > 0) {
			if (++tries > 1) {
				for (int j = 0; j < 5; j++)
					e[j].p = NULL;
				return line_max(r, lens);
			}
			goto again;
		}
		if (names[i])
			off[i] = (size_t)(q - c->arena);
		sum += e[i].n;
	}
	for (int i = 0; i < 5; i++)
		e[i].p = names[i] ? c->arena + off[i] : NULL;
	lens[0] = strlen(r->comm);
	lens[1] = strlen(r->cgroup);
	lens[2] = lens[3] = lens[4] = lens[5] = lens[6] = 0; /* unused: cached */
	return 512 + DATA_SRC_TEXT_MAX + DATA_ID_JSON_MAX + jsonw_escaped_max(lens[0] + lens[1]) + sum;
}

static char *identity(char *p, const struct mem_record *r, const size_t *lens, const struct esc *e)
{
	if (r->data_map) {
		p = LIT(p, ",\"data_map\":");
		p = put_name(p, &e[3], r->data_map, lens[5]);
	}
	p = LIT(p, ",\"data_id\":");
	p = data_id_put(p, &r->data_id);
	if (r->data_sym) {
		p = LIT(p, ",\"data_sym\":");
		p = put_name(p, &e[4], r->data_sym, lens[6]);
	}
	return p;
}

/* time_ns from the "time" string already written ("SECS.NNNNNNNNN" at t):
 * with at least a second, its digits are the same without the dot. */
static char *put_time_ns(char *p, uint64_t ns, const char *t)
{
	size_t secs;

	if (ns < 1000000000ULL)
		return jsonw_put_u64(p, ns);
	secs = strchr(t, '.') - t;
	memcpy(p, t, secs);
	memcpy(p + secs, t + secs + 1, 9);
	return p + secs + 9;
}

static char *extras(char *p, const struct mem_record *r, size_t event_len, const struct esc *e,
		    struct mem_jsonl_ctx *c, const char *time)
{
	if (r->event) {
		p = LIT(p, ",\"event\":");
		p = put_name(p, &e[2], r->event, event_len);
	}
	if (r->has_cpu) {
		p = LIT(p, ",\"cpu\":");
		p = jsonw_put_u64(p, r->cpu);
	}
	if (r->has_time_ns) {
		p = LIT(p, ",\"time_ns\":");
		p = put_time_ns(p, r->time_ns, time);
	}
	if (r->has_period) {
		p = LIT(p, ",\"period\":");
		p = jsonw_put_u64(p, r->period);
	}
	if (r->has_weight) {
		p = LIT(p, ",\"weight\":");
		p = jsonw_put_u64(p, r->weight);
	}
	if (r->has_weight_struct) {
		p = LIT(p, ",\"weight_struct\":{\"var1\":");
		p = jsonw_put_u64(p, r->var1);
		p = LIT(p, ",\"var2\":");
		p = jsonw_put_u64(p, r->var2);
		p = LIT(p, ",\"var3\":");
		p = jsonw_put_u64(p, r->var3);
		*p++ = '}';
	}
	if (r->has_data_src && !data_src_is_unknown(r->data_src)) {
		size_t n;
		const char *t = data_src_text(&c->data_src, r->data_src, &n);

		p = LIT(p, ",\"data_src\":");
		memcpy(p, t, n);
		p += n;
	}
	return p;
}

void mem_jsonl_line(struct jsonw *w, const struct mem_record *r, struct mem_jsonl_ctx *c)
{
	size_t lens[7];
	struct esc e[5] = {{0}};
	const char *time;
	char *p;

	p = jsonw_reserve(w, r->stable_names ? line_max_stable(r, c, lens, e) : line_max(r, lens));

	if (!p)
		return;
	p = LIT(p, "{\"comm\":");
	p = jsonw_put_str(p, r->comm, lens[0]);
	p = LIT(p, ",\"tid\":");
	p = jsonw_put_i64(p, r->tid);
	p = LIT(p, ",\"pid\":");
	p = jsonw_put_i64(p, r->pid);
	p = LIT(p, ",\"time\":");
	time = p + 1;
	p = jsonw_put_time_str(p, r->time_ns);
	p = LIT(p, ",\"addr\":");
	p = jsonw_put_hex_str(p, r->addr);
	p = LIT(p, ",\"cgroup\":");
	p = jsonw_put_str(p, r->cgroup, lens[1]);
	p = LIT(p, ",\"ip\":");
	p = jsonw_put_hex_str(p, r->ip);
	p = LIT(p, ",\"sym\":");
	p = put_name(p, &e[0], r->sym, lens[2]);
	p = LIT(p, ",\"dso\":");
	p = put_name(p, &e[1], r->dso, lens[3]);
	p = LIT(p, ",\"phys_addr\":");
	p = jsonw_put_hex_str(p, r->phys_addr);
	p = LIT(p, ",\"data_page_size\":");
	p = jsonw_put_u64(p, r->data_page_size);
	p = LIT(p, ",\"hint\":");
	p = jsonw_put_u64(p, r->hint);
	p = extras(p, r, lens[4], e, c, time);
	p = identity(p, r, lens, e);
	p = LIT(p, "}\n");
	jsonw_commit(w, p);
}
