/*
 * process_summary.c - writes process.json, the record of what the process
 * stage read and decided (schemas/process-summary.schema.json).
 */
#include "process/summary/summary.h"

#include <string.h>

#include "lib/error.h"
#include "lib/jsonw.h"
#include "lib/perfdata.h"
#include "lib/version.h"

static void kv_path_or_null(struct jsonw *w, const char *key, bool present, const char *path)
{
	const char *base = strrchr(path, '/');

	jsonw_key(w, key);
	if (present)
		jsonw_str(w, base ? base + 1 : path);
	else
		jsonw_null(w);
}

static void inputs_json(struct jsonw *w, const struct process_inputs *in)
{
	jsonw_key(w, "inputs");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "profile", in->dir);
	jsonw_key(w, "mem");
	if (in->mem_kind == MEM_NONE) {
		jsonw_null(w);
	} else {
		jsonw_obj_open(w);
		jsonw_kv_str(w, "file", in->mem_name);
		jsonw_kv_str(w, "format", in->mem_kind == MEM_PERF_DATA ? "perf.data" : "perf-script-text");
		jsonw_obj_close(w);
	}
	jsonw_key(w, "sched");
	if (in->sched_kind == SCHED_IN_NONE) {
		jsonw_null(w);
	} else {
		jsonw_obj_open(w);
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
	jsonw_kv_u64(w, "total", r->total);
	jsonw_kv_u64(w, "kept", r->kept);
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
	jsonw_kv_u64(w, "lost_records", r->lost_records);
	jsonw_kv_u64(w, "lost_events", r->lost_events);
	jsonw_kv_u64(w, "lost_samples", r->lost_samples);
	jsonw_kv_u64(w, "throttle", r->throttle);
	jsonw_kv_u64(w, "unthrottle", r->unthrottle);
	jsonw_kv_u64(w, "unknown_id_records", r->unknown_id_records);
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
	jsonw_kv_u64(w, "aux_buffers", c->aux_buffers);
	jsonw_kv_u64(w, "aux_bytes", c->aux_bytes);
	jsonw_kv_u64(w, "aux_records", c->aux_records);
	jsonw_kv_u64(w, "aux_truncated", c->aux_truncated);
	jsonw_kv_u64(w, "aux_partial", c->aux_partial);
	jsonw_kv_u64(w, "aux_collision", c->aux_collision);
	jsonw_kv_u64(w, "records", c->records);
	jsonw_kv_u64(w, "samples", c->samples);
	jsonw_kv_u64(w, "not_memory", c->not_memory);
	jsonw_kv_u64(w, "cut_records", c->cut_records);
	jsonw_kv_u64(w, "bad_bytes", c->bad_bytes);
	jsonw_kv_u64(w, "bad_ops", c->bad_ops);
	jsonw_kv_u64(w, "unfinished", c->unfinished);
	jsonw_kv_u64(w, "dropped_first", c->dropped_first);
	jsonw_kv_u64(w, "context_samples", c->context_samples);
	jsonw_kv_u64(w, "switch_samples", c->switch_samples);
	jsonw_kv_u64(w, "unknown_thread", c->unknown_thread);
	jsonw_obj_close(w);
}

static void sched_json(struct jsonw *w, const struct process_sched_result *r)
{
	size_t i;

	jsonw_key(w, "sched");
	if (!r->present) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_open(w);
	jsonw_kv_u64(w, "total", r->total);
	jsonw_kv_u64(w, "parsed", r->parsed);
	jsonw_kv_u64(w, "unparseable", r->unparseable);
	jsonw_kv_u64(w, "hinted", r->hinted);
	jsonw_kv_u64(w, "first_ns", r->first_ns);
	jsonw_kv_u64(w, "last_ns", r->last_ns);
	jsonw_kv_u64(w, "truncated_bytes", r->truncated_bytes);
	jsonw_kv_u64(w, "unknown_types", r->unknown_types);
	jsonw_key(w, "events");
	jsonw_obj_open(w);
	for (i = 0; i < r->nr_events; i++)
		jsonw_kv_u64(w, r->events[i].name, r->events[i].count);
	jsonw_obj_close(w);
	jsonw_kv_u64(w, "other_events", r->other_events);
	jsonw_obj_close(w);
}

static void u32_list(struct jsonw *w, const char *key, const uint32_t *v, size_t n)
{
	size_t i;

	jsonw_key(w, key);
	jsonw_arr_open(w);
	for (i = 0; i < n; i++)
		jsonw_u64(w, v[i]);
	jsonw_arr_close(w);
}

static void hints_json(struct jsonw *w, const struct process_result *r)
{
	const struct hints_stats *h = &r->hints;

	jsonw_key(w, "hints");
	if (!r->has_hints) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_open(w);
	jsonw_kv_u64(w, "updates", h->updates);
	jsonw_kv_u64(w, "tids", h->tids);
	jsonw_kv_u64(w, "first_timestamp", h->first_timestamp);
	jsonw_kv_u64(w, "last_timestamp", h->last_timestamp);
	jsonw_kv_u64(w, "unordered_updates", h->unordered_updates);
	u32_list(w, "unordered_update_tids", h->unordered_update_tids, h->nr_unordered_update_tids);
	jsonw_kv_u64(w, "lookups", h->lookups);
	jsonw_kv_u64(w, "hinted", h->hinted);
	jsonw_kv_u64(w, "nonzero", h->nonzero);
	jsonw_kv_u64(w, "unordered_lookups", h->unordered_lookups);
	u32_list(w, "unordered_lookup_tids", h->unordered_lookup_tids, h->nr_unordered_lookup_tids);
	jsonw_obj_close(w);
}

static void decoding_json(struct jsonw *w, const struct process_result *r)
{
	jsonw_key(w, "clock");
	if (r->clock_known) {
		jsonw_obj_open(w);
		jsonw_kv_i64(w, "clockid", r->clockid);
		jsonw_kv_bool(w, "monotonic", r->clockid == 1);
		jsonw_obj_close(w);
	} else {
		jsonw_null(w);
	}
	jsonw_key(w, "ordering");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "mode", r->ordered ? "time" : "file");
	jsonw_kv_u64(w, "rounds", r->rounds);
	jsonw_kv_u64(w, "peak_queued", r->peak_queued);
	jsonw_kv_u64(w, "late_records", r->late_records);
	jsonw_obj_close(w);
	jsonw_key(w, "symbols");
	jsonw_obj_open(w);
	jsonw_kv_u64(w, "dsos_loaded", r->syms.dsos_loaded);
	jsonw_kv_u64(w, "dsos_without_symbols", r->syms.dsos_without_symbols);
	jsonw_kv_u64(w, "kernel_symbols", r->syms.kernel_symbols);
	jsonw_kv_str(w, "kallsyms_source", r->kallsyms_source ? r->kallsyms_source : "none");
	jsonw_obj_close(w);
	jsonw_kv_u64(w, "threads", r->threads);
	jsonw_kv_u64(w, "threads_named_from_sched", r->threads_named_from_sched);
	jsonw_kv_u64(w, "cgroups", r->cgroups);
}

int process_summary_write(FILE *f, const struct process_inputs *in, const struct process_result *r)
{
	struct jsonw w;
	size_t i;
	int rc;

	jsonw_init(&w);
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "tool", "scxprof");
	jsonw_kv_str(&w, "version", SCXPROF_VERSION);
	inputs_json(&w, in);
	samples_json(&w, r);
	if (in->mem_kind == MEM_PERF_DATA)
		records_json(&w, r);
	if (r->spe.present)
		spe_json(&w, r);
	hints_json(&w, r);
	sched_json(&w, &r->sched);
	decoding_json(&w, r);
	jsonw_key(&w, "warnings");
	jsonw_arr_open(&w);
	for (i = 0; i < r->warnings.nr; i++)
		jsonw_str(&w, r->warnings.line[i]);
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_newline(&w);
	rc = jsonw_flush_to(&w, f, "process.json");
	jsonw_free(&w);
	return rc;
}
