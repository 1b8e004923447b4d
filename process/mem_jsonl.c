/*
 * mem_jsonl.c - formats one perf.jsonl line (see mem_jsonl.h).
 */
#include "mem_jsonl.h"

#include "process/data_src.h"

static void extras(struct jsonw *w, const struct mem_record *r)
{
	if (r->event)
		jsonw_kv_str(w, "event", r->event);
	if (r->has_cpu)
		jsonw_kv_u64(w, "cpu", r->cpu);
	if (r->has_time_ns)
		jsonw_kv_u64(w, "time_ns", r->time_ns);
	if (r->has_period)
		jsonw_kv_u64(w, "period", r->period);
	if (r->has_weight)
		jsonw_kv_u64(w, "weight", r->weight);
	if (r->has_weight_struct) {
		jsonw_key(w, "weight_struct");
		jsonw_obj_open(w);
		jsonw_kv_u64(w, "var1", r->var1);
		jsonw_kv_u64(w, "var2", r->var2);
		jsonw_kv_u64(w, "var3", r->var3);
		jsonw_obj_close(w);
	}
	if (r->has_data_src) {
		jsonw_key(w, "data_src");
		data_src_json(w, r->data_src);
	}
}

void mem_jsonl_line(struct jsonw *w, const struct mem_record *r)
{
	jsonw_obj_open(w);
	jsonw_kv_str(w, "comm", r->comm);
	jsonw_kv_i64(w, "tid", r->tid);
	jsonw_kv_i64(w, "pid", r->pid);
	jsonw_key(w, "time");
	jsonw_time_str(w, r->time_ns);
	jsonw_key(w, "addr");
	jsonw_hex_str(w, r->addr);
	jsonw_kv_str(w, "cgroup", r->cgroup);
	jsonw_key(w, "ip");
	jsonw_hex_str(w, r->ip);
	jsonw_kv_str(w, "sym", r->sym);
	jsonw_kv_str(w, "dso", r->dso);
	jsonw_key(w, "phys_addr");
	jsonw_hex_str(w, r->phys_addr);
	jsonw_kv_u64(w, "data_page_size", r->data_page_size);
	jsonw_kv_u64(w, "hint", r->hint);
	extras(w, r);
	jsonw_obj_close(w);
	jsonw_newline(w);
}
