/*
 * process_summary.c - writes process.json, the record of what the process
 * stage read and decided (schemas/process-summary.schema.json).
 */
#include "process/summary/summary.h"

#include <string.h>

#include "lib/error.h"
#include "lib/jsonw.h"
#include "lib/perfdata.h"
#include "lib/warnings.h"

static void kv_path_or_null(struct jsonw *w, const char *key, bool present, const char *path)
{
	const char *base = strrchr(path, '/');

	jsonw_kv_str_or_null(w, key, !present ? NULL : base ? base + 1 : path);
}

static void inputs_json(struct jsonw *w, const struct process_inputs *in)
{
	jsonw_key(w, "inputs");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "profile", in->dir);
	if (jsonw_kv_obj_or_null(w, "mem", in->mem_kind != MEM_NONE)) {
		jsonw_kv_str(w, "file", in->mem_name);
		jsonw_kv_str(w, "format", in->mem_kind == MEM_PERF_DATA ? "perf.data" : "perf-script-text");
		jsonw_obj_close(w);
	}
	if (jsonw_kv_obj_or_null(w, "sched", in->sched_kind != SCHED_IN_NONE)) {
		jsonw_kv_str(w, "file", in->sched_name);
		jsonw_kv_str(w, "format", in->sched_kind == SCHED_IN_DATA ? "sched.data" :
				  in->sched_kind == SCHED_IN_PERF_DATA ? "perf.data" : "perf-script-text");
		jsonw_obj_close(w);
	}
	kv_path_or_null(w, "hints", in->has_hints, in->hints_path);
	kv_path_or_null(w, "kallsyms", in->has_kallsyms, in->kallsyms_path);
	kv_path_or_null(w, "metadata", in->has_metadata, in->metadata_path);
	kv_path_or_null(w, "vdso", in->has_vdso, in->vdso_path);
	jsonw_obj_close(w);
}

static void samples_json(struct jsonw *w, const struct process_result *r)
{
	jsonw_key(w, "samples");
	jsonw_obj_open(w);
	JSONW_KV_U64S(w, r->total, r->kept);
	jsonw_key(w, "skipped");
	jsonw_obj_open(w);
	jsonw_kv_u64(w, "no_phys_addr", r->skipped_no_phys);
	jsonw_kv_u64(w, "filtered_comm", r->skipped_comm);
	jsonw_kv_u64(w, "recorder", r->skipped_recorder);
	jsonw_obj_close(w);
	jsonw_kv_u64(w, "unparseable", r->unparseable);
	jsonw_obj_close(w);
}

static void records_json(struct jsonw *w, const struct process_result *r)
{
	size_t t;

	jsonw_key(w, "records");
	jsonw_obj_open(w);
	for (t = 0; t < PROCESS_RECORD_TYPES; t++)
		if (r->records[t])
			jsonw_kv_u64(w, pd_record_name((uint32_t)t), r->records[t]);
	jsonw_obj_close(w);
	jsonw_key(w, "kernel");
	jsonw_obj_open(w);
	JSONW_KV_U64S(w, r->lost_records, r->lost_events, r->lost_samples, r->throttle, r->unthrottle,
		      r->unknown_id_records);
	jsonw_obj_close(w);
}

/* Arm SPE AUX data: what was decoded, lost and skipped (perf.data with SPE only). */
static void spe_json(struct jsonw *w, const struct process_result *r)
{
	const struct spe_counts *c = &r->spe.counts;
	char midr[32];

	snprintf(midr, sizeof(midr), "0x%llx", (unsigned long long)r->spe.midr);
	jsonw_key(w, "spe");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "midr", midr);
	jsonw_kv_str(w, "data_source", r->spe.neoverse ? "neoverse" : "generic");
	jsonw_kv_str(w, "threads_from", r->spe.context ? "context" : "switch");
	jsonw_kv_bool(w, "versioned_header", r->spe.header_v2);
	JSONW_KV_U64S(w, c->aux_buffers, c->aux_bytes, c->aux_records, c->aux_truncated, c->aux_partial,
		      c->aux_collision, c->records, c->samples, c->not_memory, c->cut_records, c->bad_bytes,
		      c->bad_ops, c->unfinished, c->dropped_first, c->context_samples, c->switch_samples,
		      c->unknown_thread);
	jsonw_obj_close(w);
}

static void sched_json(struct jsonw *w, const struct process_sched_result *r)
{
	size_t i;

	if (!jsonw_kv_obj_or_null(w, "sched", r->present))
		return;
	JSONW_KV_U64S(w, r->total, r->parsed, r->unparseable, r->hinted, r->first_ns, r->last_ns,
		      r->truncated_bytes, r->unknown_types);
	jsonw_key(w, "events");
	jsonw_obj_open(w);
	for (i = 0; i < r->nr_events; i++)
		jsonw_kv_u64(w, r->events[i].name, r->events[i].count);
	jsonw_obj_close(w);
	jsonw_kv_u64(w, "other_events", r->other_events);
	jsonw_obj_close(w);
}

static void hints_json(struct jsonw *w, const struct process_result *r)
{
	const struct hints_stats *h = &r->hints;

	if (!jsonw_kv_obj_or_null(w, "hints", r->has_hints))
		return;
	JSONW_KV_U64S(w, h->updates, h->tids, h->first_timestamp, h->last_timestamp, h->unordered_updates);
	jsonw_kv_u32_array(w, "unordered_update_tids", h->unordered_update_tids, h->nr_unordered_update_tids);
	JSONW_KV_U64S(w, h->lookups, h->hinted, h->nonzero, h->unordered_lookups);
	jsonw_kv_u32_array(w, "unordered_lookup_tids", h->unordered_lookup_tids, h->nr_unordered_lookup_tids);
	jsonw_obj_close(w);
}

static void decoding_json(struct jsonw *w, const struct process_result *r)
{
	if (jsonw_kv_obj_or_null(w, "clock", r->clock_known)) {
		jsonw_kv_i64(w, "clockid", r->clockid);
		jsonw_kv_bool(w, "monotonic", r->clockid == 1);
		jsonw_obj_close(w);
	}
	jsonw_key(w, "ordering");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "mode", r->ordered ? "time" : "file");
	JSONW_KV_U64S(w, r->rounds, r->peak_queued, r->late_records);
	jsonw_obj_close(w);
	jsonw_key(w, "symbols");
	jsonw_obj_open(w);
	JSONW_KV_U64S(w, r->syms.dsos_loaded, r->syms.dsos_without_symbols, r->syms.kernel_symbols);
	jsonw_kv_str(w, "kallsyms_source", r->kallsyms_source ? r->kallsyms_source : "none");
	jsonw_obj_close(w);
	JSONW_KV_U64S(w, r->threads, r->threads_named_from_sched, r->cgroups);
}

int process_summary_write(FILE *f, const struct process_inputs *in, const struct process_result *r)
{
	struct jsonw w;

	jsonw_summary_open(&w);
	inputs_json(&w, in);
	samples_json(&w, r);
	if (in->mem_kind == MEM_PERF_DATA)
		records_json(&w, r);
	if (r->spe.present)
		spe_json(&w, r);
	hints_json(&w, r);
	sched_json(&w, &r->sched);
	decoding_json(&w, r);
	warnings_kv_json(&w, "warnings", &r->warnings);
	return jsonw_file_close(&w, f, "process.json");
}
