/*
 * sample_conv.c - a process-stage sample as extract's parsed perf.jsonl
 * line (see sample_conv.h).
 */
#include "pipeline/sample_conv.h"

#include <linux/perf_event.h>
#include <string.h>

#include "lib/utf8.h"
#include "lib/data_id.h"
#include "lib/data_src.h"

/* s as lib/jsonw writes it and the scanner decodes it: invalid UTF-8 -> U+FFFD. */
static char *put_text(char *p, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		size_t l;

		if (u[i] < 0x80) {
			*p++ = (char)u[i++];
			continue;
		}
		p = utf8_copy_or_replace(p, u + i, n - i, &l);
		i += l;
	}
	return p;
}

size_t sample_conv_max(const struct mem_record *r)
{
	size_t n = strlen(r->comm) + strlen(r->cgroup);

	n += r->data_map ? strlen(r->data_map) : 0;
	n += r->data_sym ? strlen(r->data_sym) : 0;
	return 3 * n + DATA_ID_JSON_MAX;
}

bool sample_conv_peer(bool has_data_src, uint64_t v)
{
	uint64_t snoop = (v >> PERF_MEM_SNOOP_SHIFT) & 0x1f, snoopx = (v >> PERF_MEM_SNOOPX_SHIFT) & 0x3;

	if (!has_data_src || data_src_is_unknown(v))
		return false;
	return (snoop & PERF_MEM_SNOOP_HITM) || (snoopx & PERF_MEM_SNOOPX_PEER);
}

size_t sample_conv(const struct mem_record *r, bool data_syms, struct mem_sample *s, char *arena)
{
	char *p = arena, *e;

	memset(s, 0, sizeof(*s));
	s->comm = p;
	p = put_text(p, r->comm, strlen(r->comm));
	s->comm_len = (size_t)(p - s->comm);
	s->cgroup = p;
	p = put_text(p, r->cgroup, strlen(r->cgroup));
	s->cgroup_len = (size_t)(p - s->cgroup);
	s->tid = r->tid;
	s->pid = r->pid;
	s->phys_addr = r->phys_addr;
	s->addr = r->addr;
	s->data_page_size = r->data_page_size;
	s->hint = r->hint;
	s->has_weight = r->has_weight;
	s->weight = r->has_weight ? r->weight : 0;
	s->time_ns = r->time_ns; /* "time" is its seconds.nanoseconds text, "time_ns" the number */
	s->has_cpu = r->has_cpu; /* the cross-LLC measure (llc/llc_share.h) */
	s->cpu = r->cpu;
	s->fault = r->event && jsonl_event_is_fault(r->event, strlen(r->event));
	if (r->data_id.kind != DATA_ID_NONE) {
		e = data_id_put(p, &r->data_id); /* "TEXT", quoted */
		s->data_id = p + 1;
		s->data_id_len = (size_t)(e - p) - 2;
		p = e;
	}
	if (r->data_map) {
		s->data_map = p;
		p = put_text(p, r->data_map, strlen(r->data_map));
		s->data_map_len = (size_t)(p - s->data_map);
	}
	if (r->data_sym && data_syms) {
		s->data_sym = p;
		p = put_text(p, r->data_sym, strlen(r->data_sym));
		s->data_sym_len = (size_t)(p - s->data_sym);
	}
	s->peer = sample_conv_peer(r->has_data_src, r->data_src);
	return (size_t)(p - arena);
}
