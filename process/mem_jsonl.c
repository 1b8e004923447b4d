/*
 * mem_jsonl.c - formats one perf.jsonl line (see mem_jsonl.h). This is the
 * hot path of the process stage: the whole line is written into one
 * reservation of the output buffer, keys as literals.
 */
#include "mem_jsonl.h"

#include <string.h>

#define LIT(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* Most bytes the line can take, so one reservation fits it. */
static size_t line_max(const struct mem_record *r, size_t *lens)
{
	lens[0] = strlen(r->comm);
	lens[1] = strlen(r->cgroup);
	lens[2] = strlen(r->sym);
	lens[3] = strlen(r->dso);
	lens[4] = r->event ? strlen(r->event) : 0;
	return 512 + DATA_SRC_TEXT_MAX + jsonw_escaped_max(lens[0] + lens[1] + lens[2] + lens[3] + lens[4]);
}

static char *extras(char *p, const struct mem_record *r, size_t event_len, struct data_src_cache *dc)
{
	if (r->event) {
		p = LIT(p, ",\"event\":");
		p = jsonw_put_str(p, r->event, event_len);
	}
	if (r->has_cpu) {
		p = LIT(p, ",\"cpu\":");
		p = jsonw_put_u64(p, r->cpu);
	}
	if (r->has_time_ns) {
		p = LIT(p, ",\"time_ns\":");
		p = jsonw_put_u64(p, r->time_ns);
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
		const char *t = data_src_text(dc, r->data_src, &n);

		p = LIT(p, ",\"data_src\":");
		memcpy(p, t, n);
		p += n;
	}
	return p;
}

void mem_jsonl_line(struct jsonw *w, const struct mem_record *r, struct data_src_cache *dc)
{
	size_t lens[5];
	char *p = jsonw_reserve(w, line_max(r, lens));

	if (!p)
		return;
	p = LIT(p, "{\"comm\":");
	p = jsonw_put_str(p, r->comm, lens[0]);
	p = LIT(p, ",\"tid\":");
	p = jsonw_put_i64(p, r->tid);
	p = LIT(p, ",\"pid\":");
	p = jsonw_put_i64(p, r->pid);
	p = LIT(p, ",\"time\":");
	p = jsonw_put_time_str(p, r->time_ns);
	p = LIT(p, ",\"addr\":");
	p = jsonw_put_hex_str(p, r->addr);
	p = LIT(p, ",\"cgroup\":");
	p = jsonw_put_str(p, r->cgroup, lens[1]);
	p = LIT(p, ",\"ip\":");
	p = jsonw_put_hex_str(p, r->ip);
	p = LIT(p, ",\"sym\":");
	p = jsonw_put_str(p, r->sym, lens[2]);
	p = LIT(p, ",\"dso\":");
	p = jsonw_put_str(p, r->dso, lens[3]);
	p = LIT(p, ",\"phys_addr\":");
	p = jsonw_put_hex_str(p, r->phys_addr);
	p = LIT(p, ",\"data_page_size\":");
	p = jsonw_put_u64(p, r->data_page_size);
	p = LIT(p, ",\"hint\":");
	p = jsonw_put_u64(p, r->hint);
	p = extras(p, r, lens[4], dc);
	p = LIT(p, "}\n");
	jsonw_commit(w, p);
}
