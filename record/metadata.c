/*
 * metadata.c - writes metadata.json (see metadata.h).
 */
#include "metadata.h"

#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/jsonw.h"
#include "lib/kernel_id.h"
#include "bpf/sched_batch.h"
#include "record/yield_prio.h"

static void attr_json(struct jsonw *w, const struct mem_event *ev)
{
	const struct perf_event_attr *a = &ev->attr;

	jsonw_obj_open(w);
	jsonw_kv_str(w, "name", ev->name);
	jsonw_kv_u64(w, "type", a->type);
	jsonw_kv_hex(w, "config", a->config);
	jsonw_kv_hex(w, "config1", a->config1);
	jsonw_kv_hex(w, "config2", a->config2);
	jsonw_kv_hex(w, "sample_type", a->sample_type);
	jsonw_kv_bool(w, "freq", a->freq);
	jsonw_kv_u64(w, "sample_period_or_freq", a->sample_period);
	jsonw_kv_u64(w, "precise_ip", a->precise_ip);
	jsonw_kv_i64(w, "leader", ev->leader);
	jsonw_kv_str(w, "cpus", ev->cpus);
	jsonw_obj_close(w);
}

static void host_json(struct jsonw *w)
{
	struct utsname u;
	char host[256] = "", model[256] = "", line[512], boot_id[64] = "", kernel_bid[KID_HEX_SIZE] = "";
	uint8_t bid[KID_BUILD_ID_MAX];
	int n;
	FILE *f;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	if ((f = fopen("/proc/cpuinfo", "re"))) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
				snprintf(model, sizeof(model), "%.*s", (int)strcspn(strchr(line, ':') + 2, "\n"),
					 strchr(line, ':') + 2);
				break;
			}
		fclose(f);
	}
	if ((f = fopen("/proc/sys/kernel/random/boot_id", "re"))) {
		if (fgets(boot_id, sizeof(boot_id), f))
			boot_id[strcspn(boot_id, "\n")] = '\0';
		fclose(f);
	}
	if ((n = kid_running_build_id("/sys/kernel/notes", bid)) > 0)
		kid_build_id_hex(bid, (size_t)n, kernel_bid);
	else
		scx_clear_error(); /* unknown: "" */
	jsonw_kv_str(w, "host", host);
	jsonw_kv_str(w, "kernel", u.release);
	jsonw_kv_str(w, "arch", u.machine);
	jsonw_kv_str(w, "cpu_model", model);
	jsonw_kv_u64(w, "online_cpus", (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
	jsonw_kv_str(w, "boot_id", boot_id);
	/* the kernel whose /proc/kallsyms the snapshot copied */
	jsonw_kv_str(w, "kernel_build_id", kernel_bid);
}

/* The decode backend's rate, decoder and counts; null for the others. */
static void decode_json(struct jsonw *w, const struct record_result *r)
{
	const struct decode_stats *d = &r->mem.decode;
	const struct perf_event_attr *a = &r->backend.ev[0].attr;
	size_t i;

	if (!jsonw_kv_obj_or_null(w, "decode", r->backend.kind == MEM_BACKEND_DECODE))
		return;
	jsonw_kv_str(w, "decoder", r->backend.decoder);
	jsonw_kv_str(w, "event", "cpu-clock");
	jsonw_kv_u64_or_null(w, "freq_hz", a->freq, a->sample_freq);
	jsonw_kv_u64_or_null(w, "period_ns", !a->freq, a->sample_period);
	jsonw_kv_hex(w, "regs_user_mask", a->sample_regs_user);
	jsonw_kv_hex(w, "output_sample_type", r->backend.out_attr.sample_type);
	JSONW_KV_U64S(w, d->ticks, d->decoded);
	jsonw_kv_u64(w, "decoded_previous", d->decoded_prev);
	JSONW_KV_U64S(w, d->accesses, d->loads, d->stores);
	jsonw_key(w, "skipped");
	jsonw_obj_open(w);
	for (i = 0; i < DECODE_SKIP_NR; i++)
		jsonw_kv_u64(w, decode_skip_name(i), d->skipped[i]);
	jsonw_obj_close(w);
	JSONW_KV_U64S(w, d->phys_resolved, d->phys_unresolved, d->decode_ns, d->text.maps_reads);
	jsonw_kv_u64(w, "dsos_mapped", d->text.dsos_opened);
	jsonw_kv_u64(w, "dsos_evicted", d->text.dsos_evicted);
	jsonw_kv_u64(w, "text_reads_from_file", d->text.from_file);
	jsonw_kv_u64(w, "text_reads_from_memory", d->text.from_memory);
	jsonw_kv_u64(w, "previous_walks", d->text.prev_walks);
	JSONW_KV_U64S(w, d->pm.pagemap_reads, d->pm.kpageflags_reads);
	jsonw_kv_u64(w, "drain_passes", d->passes);
	jsonw_obj_close(w);
}

/* Arm SPE: how samples get their thread, the AUX data and what the kernel's
 * PERF_RECORD_AUX flags say was lost; null for the other backends. */
static void arm_spe_json(struct jsonw *w, const struct record_result *r)
{
	const struct auxtrace_stats *a = &r->mem.aux;

	if (!jsonw_kv_obj_or_null(w, "arm_spe", r->backend.kind == MEM_BACKEND_ARM_SPE))
		return;
	jsonw_kv_str(w, "pid_method", r->backend.pid_method ? r->backend.pid_method : "");
	jsonw_kv_str(w, "pid_source", r->backend.pid_source);
	jsonw_kv_bool(w, "context_switch_records", r->backend.context_switch);
	jsonw_kv_bool(w, "physical_addresses", r->backend.phys_addr);
	jsonw_kv_u64(w, "aux_area_bytes", r->mem.aux_area_bytes);
	jsonw_kv_i64_or_null(w, "time_conv_adjust_ns", r->mem.time_conv_adjusted, r->mem.time_conv_adjust_ns);
	jsonw_kv_u64(w, "auxtrace_records", a->records);
	jsonw_kv_u64(w, "aux_bytes", a->bytes);
	jsonw_kv_u64(w, "aux_bytes_overwritten", a->bytes_overwritten);
	jsonw_kv_u64(w, "aux_records", a->aux_records);
	jsonw_kv_u64(w, "aux_truncated", a->truncated);
	jsonw_kv_u64(w, "aux_partial", a->partial);
	jsonw_kv_u64(w, "aux_collision", a->collision);
	jsonw_obj_close(w);
}

static void mem_json(struct jsonw *w, const struct record_opts *o, const struct record_result *r)
{
	const struct mem_stream_stats *m = &r->mem;
	size_t i;

	if (!jsonw_kv_obj_or_null(w, "mem", r->mem_on))
		return;
	jsonw_kv_str(w, "file", "perf.mem.data");
	jsonw_kv_str(w, "backend", mem_backend_name(r->backend.kind));
	jsonw_kv_str(w, "pmu", r->backend.pmu);
	jsonw_kv_str(w, "description", r->backend.description);
	jsonw_kv_u64(w, "ldlat", o->backend.ldlat);
	jsonw_kv_bool(w, "ldlat_applied", r->backend.ldlat_applied);
	jsonw_key(w, "events");
	jsonw_arr_open(w);
	for (i = 0; i < r->backend.nr_events; i++)
		attr_json(w, &r->backend.ev[i]);
	jsonw_arr_close(w);
	JSONW_KV_U64S(w, m->samples, m->records, m->lost_records, m->lost_events, m->lost_samples, m->throttle,
		      m->unthrottle);
	jsonw_kv_u64(w, "ksymbol_trailers_fixed", m->ksymbol_fixed);
	jsonw_key(w, "phys_addr");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "source", r->backend.kind == MEM_BACKEND_DECODE ? "/proc/PID/pagemap while draining"
				  : o->backend.want == MEM_BACKEND_SOFTWARE || r->backend.kind == MEM_BACKEND_SOFTWARE
					  ? "kernel, else /proc/PID/pagemap while draining" : "kernel");
	jsonw_kv_u64(w, "from_kernel", m->phys_kernel);
	jsonw_kv_u64(w, "from_pagemap", m->phys_resolved + m->decode.phys_resolved);
	jsonw_kv_u64(w, "unresolved", m->phys_unresolved + m->decode.phys_unresolved);
	jsonw_kv_u64(w, "unresolved_exited", m->phys_exited + m->decode.pm.exited);
	jsonw_obj_close(w);
	decode_json(w, r);
	arm_spe_json(w, r);
	jsonw_kv_u64(w, "first_sample_ns", m->first_time);
	jsonw_kv_u64(w, "last_sample_ns", m->last_time);
	jsonw_kv_u64(w, "rounds", m->rounds);
	jsonw_obj_close(w);
}

static void hints_json(struct jsonw *w, const struct record_opts *o, const struct record_result *r)
{
	if (!jsonw_kv_obj_or_null(w, "hints", r->hints_on))
		return;
	jsonw_kv_str(w, "file", "hints.jsonl");
	jsonw_kv_str(w, "map", o->hints_map);
	jsonw_kv_str(w, "mode", r->hints_mode);
	jsonw_kv_str(w, "why_not_fentry", r->hints_why_not_fentry);
	jsonw_kv_u64(w, "updates", r->hints_updates);
	jsonw_kv_u64(w, "drops", r->hints_drops);
	if (!strcmp(r->hints_mode, "iter-snapshot"))
		jsonw_kv_u64(w, "max_snapshot_gap_ns", r->hints_max_gap_ns);
	jsonw_kv_u64(w, "ring_mb", o->hints_ring_mb);
	jsonw_obj_close(w);
}

static void sched_json(struct jsonw *w, const struct record_result *r)
{
	const struct sched_stream_stats *s = &r->sched;
	size_t i;

	if (!jsonw_kv_obj_or_null(w, "sched", r->sched_on))
		return;
	jsonw_kv_str(w, "file", "sched.data");
	jsonw_kv_u64(w, "format_version", SCHED_DATA_VERSION);
	JSONW_KV_U64S(w, s->records, s->drops, s->drops_nmi, s->lost);
	jsonw_key(w, "hits_by_tracepoint");
	jsonw_obj_open(w);
	for (i = 0; i < s->nr_attached; i++)
		jsonw_kv_u64(w, s->attached[i], s->hits[i]);
	jsonw_obj_close(w);
	jsonw_kv_u64(w, "skipped_nested", sched_stream_skipped_total(s));
	jsonw_key(w, "skipped_nested_by_tracepoint");
	jsonw_obj_open(w);
	for (i = 0; i < s->nr_attached; i++)
		if (s->skipped_nested[i])
			jsonw_kv_u64(w, s->attached[i], s->skipped_nested[i]);
	jsonw_obj_close(w);
	JSONW_KV_U64S(w, s->ring_mb, s->start_ns);
	jsonw_kv_str_array(w, "attached", s->attached, s->nr_attached);
	jsonw_kv_str_array(w, "missing", s->missing, s->nr_missing);
	jsonw_obj_close(w);
}

/* The recorder's own process (its threads share the pid) and its command's
 * pid, so that process can drop the recorder's samples as upstream drops perf's. */
static void recorder_json(struct jsonw *w, const struct record_result *r)
{
	char comm[32] = "";
	FILE *f = fopen("/proc/self/comm", "re");

	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	jsonw_key(w, "recorder");
	jsonw_obj_open(w);
	jsonw_key(w, "pids");
	jsonw_arr_open(w);
	jsonw_i64(w, getpid());
	jsonw_arr_close(w);
	jsonw_kv_str(w, "comm", comm);
	jsonw_kv_i64_or_null(w, "command_pid", r->command_pid > 0, r->command_pid);
	jsonw_obj_close(w);
}

int metadata_write(FILE *out, const struct record_opts *o, const struct record_result *r)
{
	struct jsonw w;

	jsonw_summary_open(&w);
	jsonw_kv_str_array(&w, "command_line", (const char *const *)o->argv, (size_t)o->argc);
	host_json(&w);
	jsonw_kv_str(&w, "clock", "CLOCK_MONOTONIC");
	jsonw_kv_u64(&w, "start_ns", r->start_mono_ns);
	jsonw_kv_u64(&w, "end_ns", r->end_mono_ns);
	jsonw_kv_u64(&w, "start_wall_ns", r->start_wall_ns);
	jsonw_kv_u64(&w, "end_wall_ns", r->end_wall_ns);
	jsonw_kv_u64(&w, "timeout_s", o->timeout_s);
	jsonw_kv_u64_or_null(&w, "drain_nice", r->drain_yielded, YIELD_NICE);
	jsonw_kv_u64(&w, "drain_boosts", r->drain_boosts);
	recorder_json(&w, r);
	mem_json(&w, o, r);
	sched_json(&w, r);
	hints_json(&w, o, r);
	warnings_kv_json(&w, "warnings", &r->warnings);
	return jsonw_file_close(&w, out, "metadata.json");
}
