/*
 * mem_perfdata.c - the perf.data input path of `process`: takes the file's
 * records in perf script's order (process/order/order.h), replays side-band records
 * into the session and turns samples into perf.jsonl lines.
 */
#include "process/mem/mem_decode.h"

#include <string.h>
#include <time.h>

#include "lib/error.h"
#include "lib/perfdata.h"
#include "process/order/order.h"
#include "process/sched/sched_decode.h"
#include "process/process_warn.h"
#include "process/mem/kernel_match.h"
#include "process/summary/summary.h"
#include "process/spe/spe.h"
#include "process/sym/symbols.h"

struct walk {
	struct emitter *e;
	struct pd_file *f;
	struct session *s;
	uint64_t kernel_samples; /* kept samples in kernel mode: they need kernel symbols */
	int names_loaded;        /* 0: not yet; 1: names holds the sched stream's names */
	struct thread_names names;
	struct spe_trace spe;    /* Arm SPE AUX data (spe.present), delivered between records */
};

static const char *clock_name(int clockid)
{
	switch (clockid) {
	case CLOCK_REALTIME: return "CLOCK_REALTIME";
	case CLOCK_MONOTONIC: return "CLOCK_MONOTONIC";
	case CLOCK_MONOTONIC_RAW: return "CLOCK_MONOTONIC_RAW";
	case CLOCK_BOOTTIME: return "CLOCK_BOOTTIME";
	case CLOCK_TAI: return "CLOCK_TAI";
	default: return "unknown clock";
	}
}

/* The clock of the first attr, when it says. */
static void inspect_clock(const struct pd_file *f, struct process_result *res)
{
	if (f->nr_attrs && f->attrs[0].attr.use_clockid) {
		res->clock_known = true;
		res->clockid = f->attrs[0].attr.clockid;
	}
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void count_kernel_record(struct walk *wk, const struct perf_event_header *h, size_t body)
{
	struct process_result *res = wk->e->res;
	const uint8_t *b = (const uint8_t *)(h + 1);

	switch (h->type) {
	case PERF_RECORD_LOST:
		res->lost_records++;
		if (body >= 16)
			res->lost_events += u64_at(b + 8);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (body >= 8)
			res->lost_samples += u64_at(b);
		break;
	case PERF_RECORD_THROTTLE:
		res->throttle++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		res->unthrottle++;
		break;
	default:
		break;
	}
}

static int noted_build_id(void *ctx, const char *name, uint8_t bid[20], size_t *size)
{
	return pd_build_id_for(ctx, name, bid, size);
}

_Static_assert(sizeof(((struct session_thread *)0)->comm) >= EMIT_POOL_COMM_SIZE,
	       "emitter_record's comm buffer size");
/* deliver_sample sets each of mem_record's fields: a new one must be set there too */
_Static_assert(sizeof(void *) != 8 || sizeof(struct mem_record) == 216,
	       "struct mem_record changed: set every field in deliver_sample");

/*
 * A thread perf.data never named (its COMM and FORK records lost: perf says
 * ":TID") takes the name the scheduling stream gives it at the sample's time.
 * The sched input is read for names the first time this is needed only.
 */
static int name_from_sched(struct walk *wk, struct session_thread *t, uint64_t time_ns)
{
	const char *name;

	if (!wk->names_loaded) {
		wk->names_loaded = 1;
		if (process_sched_names(wk->e->opts, &wk->names) < 0)
			return -1;
	}
	name = thread_names_lookup(&wk->names, t->tid, time_ns);
	if (!name)
		return 0;
	snprintf(t->comm, sizeof(t->comm), "%s", name);
	if (!t->comm_from_sched) {
		t->comm_from_sched = true;
		wk->e->res->threads_named_from_sched++;
		if (wk->e->opts->verbose && wk->e->opts->log)
			fprintf(wk->e->opts->log, "thread %d has no COMM record in %s: named '%s' by %s\n",
				t->tid, wk->e->opts->in->mem_name, name, wk->e->opts->in->sched_name);
	}
	return 0;
}

/* A sample, read from a SAMPLE record or made from SPE data. */
static int deliver_parsed(struct walk *wk, const struct pd_sample *sp)
{
	struct emitter *e = wk->e;
	struct pd_sample smp = *sp;
	struct session_thread *t;
	struct session_resolved where;
	struct session_data data;
	struct mem_record *r;
	const char *cg = "";

	e->res->total++;
	t = session_thread(wk->s, (int32_t)smp.pid, (int32_t)smp.tid);
	if (!t)
		return -1;
	if (!t->comm_set && t->tid > 0 && e->opts->in->sched_kind != SCHED_IN_NONE &&
	    name_from_sched(wk, t, smp.time) < 0)
		return -1;
	struct skip_view v = {.comm = t->comm, .pid = (int32_t)smp.pid, .tid = (int32_t)smp.tid,
			      .time_ns = smp.time, .addr = smp.addr, .ip = smp.ip};

	if (emitter_filter(e, &v, smp.present & PERF_SAMPLE_PHYS_ADDR, smp.phys_addr) != KEEP)
		return 0;
	if (e->opts->sink) /* a config needs no instruction symbols */
		where.sym = where.dso = "[unknown]";
	else
		session_resolve_ip(wk->s, t, smp.misc & PERF_RECORD_MISC_CPUMODE_MASK, smp.ip, &where);
	if ((smp.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		wk->kernel_samples++;
	if (smp.present & PERF_SAMPLE_CGROUP) {
		cg = session_cgroup(wk->s, smp.cgroup);
		if (!cg)
			cg = "unknown";
	}
	session_resolve_data(wk->s, t, (int32_t)smp.pid, smp.addr, smp.phys_addr, &data);
	/* built where it is queued (no copy, no zeroing): every field is set
	 * (the size check below fails when a field is added) */
	if (!(r = emitter_record(e)))
		return -1;
	r->comm = t->comm;
	r->tid = (int32_t)smp.tid;
	r->pid = (int32_t)smp.pid;
	r->time_ns = smp.time;
	r->addr = smp.addr;
	r->cgroup = cg;
	r->ip = smp.ip;
	r->sym = where.sym;
	r->dso = where.dso;
	r->phys_addr = smp.phys_addr;
	r->data_page_size = smp.data_page_size;
	r->hint = 0;
	r->event = smp.attr && smp.attr->name[0] ? smp.attr->name : NULL;
	r->has_cpu = smp.present & PERF_SAMPLE_CPU;
	r->has_time_ns = smp.present & PERF_SAMPLE_TIME;
	r->has_period = smp.present & PERF_SAMPLE_PERIOD;
	r->has_weight = smp.present & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT);
	r->has_weight_struct = smp.present & PERF_SAMPLE_WEIGHT_STRUCT;
	r->has_data_src = smp.present & PERF_SAMPLE_DATA_SRC;
	r->cpu = smp.cpu;
	r->period = smp.period;
	r->weight = smp.weight;
	r->data_src = smp.data_src;
	r->var1 = smp.weight_var1;
	r->var2 = smp.weight_var2;
	r->var3 = smp.weight_var3;
	r->data_map = data.map;
	r->data_id = data.id;
	r->data_sym = data.sym;
	r->stable_names = true; /* interned by the session and symbol cache, alive until the end */
	return emitter_commit(e, r);
}

static int deliver_sample(struct walk *wk, const struct perf_event_header *h)
{
	struct pd_sample smp;

	if (pd_parse_sample(wk->f, h, &smp) < 0)
		return -1;
	return deliver_parsed(wk, &smp);
}

/* An SPE memory sample as perf synthesizes it: the arm_spe event's
 * sample_type with IP, TID, TIME, ADDR, PERIOD (1), DATA_SRC and WEIGHT. */
static int deliver_spe(void *ctx, const struct spe_sample *ss)
{
	struct walk *wk = ctx;
	const struct spe_trace *t = &wk->spe;
	struct pd_sample smp;

	memset(&smp, 0, sizeof(smp));
	smp.attr = t->attr;
	smp.present = (t->attr->attr.sample_type & (PERF_SAMPLE_CPU | PERF_SAMPLE_PHYS_ADDR)) |
		      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD |
		      PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT | (t->timeless ? 0 : PERF_SAMPLE_TIME);
	smp.misc = ss->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	smp.pid = (uint32_t)ss->pid;
	smp.tid = (uint32_t)ss->tid;
	smp.cpu = (uint32_t)ss->cpu;
	smp.time = ss->time;
	smp.ip = ss->ip;
	smp.addr = ss->addr;
	smp.phys_addr = ss->phys_addr;
	smp.data_src = ss->data_src;
	smp.weight = ss->weight;
	smp.period = 1;
	return deliver_parsed(wk, &smp);
}

/* The pid the session knows for tid (a thread made on first sight). */
static int32_t spe_thread_pid(void *ctx, int32_t pid, int32_t tid)
{
	struct walk *wk = ctx;
	struct session_thread *t = session_thread(wk->s, pid, tid);

	return t ? t->pid : pid;
}

/* What the SPE decoder did (process.json "spe"), its losses as warnings,
 * its counts with -v. */
static void spe_summary(struct emitter *e, const struct spe_trace *t, const char *path)
{
	struct process_result *res = e->res;
	const struct spe_counts *c = &t->counts;

	res->spe.present = true;
	res->spe.midr = t->nr_queues ? t->queues[0].midr : t->midr; /* a CPU's, when the header has them */
	res->spe.neoverse = spe_midr_is_neoverse(res->spe.midr);
	res->spe.header_v2 = t->header_v2;
	res->spe.context = t->use_context;
	res->spe.counts = *c;
	if (c->aux_truncated)
		process_warn(res, "%s: Arm SPE AUX data lost %llu times out of %llu AUX records (truncated)",
			     path, (unsigned long long)c->aux_truncated, (unsigned long long)c->aux_records);
	if (c->aux_partial || c->aux_collision)
		process_warn(res, "%s: Arm SPE AUX data had gaps %llu times and collisions %llu times out of %llu AUX records",
			     path, (unsigned long long)c->aux_partial, (unsigned long long)c->aux_collision,
			     (unsigned long long)c->aux_records);
	if (c->bad_bytes || c->bad_ops || c->unfinished)
		process_warn(res, "%s: Arm SPE data: %llu bytes of no packet skipped, %llu records cut short "
			     "(kept, as perf keeps them, but %llu before their CPU's first whole record), %llu "
			     "left unfinished at the end of the data (dropped)",
			     path, (unsigned long long)c->bad_bytes, (unsigned long long)c->cut_records,
			     (unsigned long long)c->dropped_first, (unsigned long long)c->unfinished);
	if (c->samples && !res->spe.midr)
		process_warn(res, "%s: no CPUID (MIDR) of the recording host: Arm SPE data source levels "
			     "from the events packet, as for a core other than Neoverse N1/N2/V1", path);
	if (c->samples && t->timeless)
		process_warn(res, "%s: no event samples its time: Arm SPE samples have time 0 and no thread "
			     "(tid -1), as perf makes them", path);
	else if (c->samples && !t->use_context)
		process_warn(res, "%s: Arm SPE data has no CONTEXT packets: samples attributed to threads by "
			     "the CPUs' switch records (%llu samples), which may be inexact",
			     path, (unsigned long long)c->switch_samples);
	if (e->opts->verbose && e->opts->log)
		fprintf(e->opts->log, "%s: Arm SPE: %llu AUX buffers (%llu bytes), %llu records, %llu memory samples "
			"(%llu not loads or stores), threads by %s, MIDR 0x%llx (%s data source)\n",
			path, (unsigned long long)c->aux_buffers, (unsigned long long)c->aux_bytes,
			(unsigned long long)c->records, (unsigned long long)c->samples,
			(unsigned long long)c->not_memory, t->use_context ? "CONTEXT packets" : "switch records",
			(unsigned long long)res->spe.midr, res->spe.neoverse ? "Neoverse" : "generic");
}

/* Kernel symbols are read (on a second thread) once a sample needs them:
 * reading /proc/kallsyms costs the kernel about 30 ms of formatting, a tenth
 * of a 500k-sample run, and a recording of user mode only has no use for
 * it. A user-mode ip in the kernel half (vsyscall) still loads them on its
 * lookup. */
static void first_kernel_sample(void *ctx)
{
	struct walk *wk = ctx;

	sym_cache_prefetch_kernel(wk->s->syms);
}

static int deliver(void *ctx, const struct perf_event_header *h)
{
	struct walk *wk = ctx;
	size_t body;

	if (wk->spe.present && spe_trace_before(&wk->spe, wk->f, h) < 0)
		return -1;
	if (h->type == PERF_RECORD_SAMPLE)
		return deliver_sample(wk, h);
	body = pd_body_size(wk->f, h);
	count_kernel_record(wk, h, body);
	if (session_apply(wk->s, h, body) < 0)
		return scx_fail_prefix("%s: record at offset %llu", wk->f->path,
				       (unsigned long long)pd_offset_of(wk->f, h));
	return 0;
}

/*
 * Kernel symbols: the profile's kallsyms snapshot first (warning when it does
 * not fit the recording), else /proc/kallsyms when the recording was made on
 * the running kernel (process/mem/kernel_match.h), else none. Why not goes to
 * kernel_note, warned about when kernel samples needed the symbols.
 */
static struct sym_cache *open_symbols(struct emitter *e, const struct pd_file *f, char *kernel_note,
				      size_t note_size)
{
	const struct process_inputs *in = e->opts->in;
	struct sym_cache_opts so = {.symfs = e->opts->symfs};
	uint8_t vdso_bid[20];
	size_t vdso_bid_size = 0;
	uint8_t snap_bid[20];
	int n = 0;
	char why[1024];

	kernel_note[0] = '\0';
	if (in->has_vdso)
		so.vdso_path = in->vdso_path;
	if (in->has_kallsyms) {
		so.kallsyms_path = in->kallsyms_path;
		e->res->kallsyms_source = "snapshot";
		if (in->has_metadata && (n = record_kernel_build_id(in->metadata_path, snap_bid)) < 0) {
			process_warn(e->res, "cannot tell which kernel the kallsyms snapshot is from: %s",
				     scx_errmsg());
			n = 0;
		}
		if (!kernel_match_snapshot(f, in->kallsyms_path, snap_bid, n > 0 ? (size_t)n : 0, why, sizeof(why)))
			snprintf(kernel_note, note_size, "%s: kernel symbols may be wrong", why);
	} else {
		so.allow_proc_kallsyms = kernel_match_running(f, "/sys/kernel/notes", "/proc/kallsyms",
							      why, sizeof(why));
		e->res->kallsyms_source = so.allow_proc_kallsyms ? "/proc/kallsyms" : "none";
		if (!so.allow_proc_kallsyms)
			snprintf(kernel_note, note_size, "%s, and the profile has no kallsyms snapshot: "
				 "kernel symbols shown as [unknown]", why);
	}
	if (pd_build_id_for(f, "[vdso]", vdso_bid, &vdso_bid_size) > 0) {
		so.vdso_build_id = vdso_bid;
		so.vdso_build_id_size = vdso_bid_size;
	}
	return sym_cache_new(&so);
}

#define WITHOUT_SYMBOLS_NAMED 5 /* DSOs named in warnings; process.json counts them all */

static void warn_one_without_symbols(void *ctx, const char *file, const char *why)
{
	process_warn(ctx, "%s: %s: its samples have no symbols", file, why);
}

/* perf's "Failed to open FILE, continuing without symbols", for the DSOs samples fell in */
static void warn_without_symbols(struct process_result *res, struct sym_cache *syms)
{
	size_t n = sym_cache_without_symbols(syms, WITHOUT_SYMBOLS_NAMED, warn_one_without_symbols, res);

	if (n > WITHOUT_SYMBOLS_NAMED)
		process_warn(res, "and %zu more DSOs whose samples have no symbols (--symfs DIR: where their files are)",
			     n - WITHOUT_SYMBOLS_NAMED);
}

int mem_perfdata_read(struct emitter *e)
{
	struct pd_file f;
	struct session s;
	struct sym_cache *syms;
	struct walk wk = {.e = e, .f = &f, .s = &s};
	struct order_walk ow;
	char kernel_note[1200];
	int rc;

	thread_names_init(&wk.names);

	if (pd_open(&f, e->opts->in->mem_path) < 0)
		return -1;
	syms = open_symbols(e, &f, kernel_note, sizeof(kernel_note));
	if (!syms) {
		pd_close(&f);
		return -1;
	}
	if (session_init(&s, syms) < 0 || spe_trace_load(&wk.spe, &f) < 0) {
		session_free(&s);
		sym_cache_free(syms);
		pd_close(&f);
		return -1;
	}
	wk.spe.thread_pid = spe_thread_pid;
	wk.spe.deliver = deliver_spe;
	wk.spe.ctx = &wk;
	s.no_data_syms = e->opts->sink && !e->opts->sink->data_symbols;
	s.build_id_of = noted_build_id;
	s.build_id_ctx = &f;
	inspect_clock(&f, e->res);
	if (emitter_start_pool(e) < 0) {
		spe_trace_free(&wk.spe);
		session_free(&s);
		sym_cache_free(syms);
		pd_close(&f);
		return -1;
	}
	order_walk_init(&ow, &f, deliver, &wk);
	ow.stop = e->opts->stop;
	ow.log = e->opts->verbose ? e->opts->log : NULL;
	ow.type_counts = e->res->records;
	ow.nr_type_counts = PROCESS_RECORD_TYPES;
	if (!e->opts->sink) /* a config needs no instruction symbols */
		ow.first_kernel_sample = first_kernel_sample;
	e->res->ordered = ow.ordered;
	rc = order_walk_run(&ow);
	if (rc == 0)
		rc = spe_trace_finish(&wk.spe);
	if (rc == 0)
		rc = emitter_flush(e);
	/* formatting threads stop before the names they read are freed */
	emit_pool_free(e->pool);
	e->pool = NULL;
	e->res->rounds = ow.rounds;
	e->res->unknown_id_records = ow.unknown_id_records;
	e->res->peak_queued = order_walk_peak_queued(&ow);
	e->res->late_records = order_walk_late_records(&ow);
	e->res->threads = s.stats.threads;
	e->res->cgroups = s.stats.cgroups;
	e->res->dsos = s.stats.dsos;
	sym_cache_stats(syms, &e->res->syms);
	if (rc == 0 && !e->opts->sink)
		warn_without_symbols(e->res, syms);
	e->res->kernel_symbols = e->res->syms.kernel_symbols > 0;
	if (rc == 0 && kernel_note[0] && wk.kernel_samples && !e->opts->sink)
		process_warn(e->res, "%s", kernel_note);
	if (rc == 0 && e->res->total && e->res->skipped_no_phys == e->res->total && !e->opts->sink)
		process_warn(e->res, "%s: none of its %llu samples has a physical address (perf mem or c2c record without "
			     "--phys-data?), so none is kept, as upstream drops them; --no-filter keeps them (their data "
			     "identities come from the data address and the memory maps)",
			     f.path, (unsigned long long)e->res->total);
	if (rc == 0 && e->res->unknown_id_records)
		process_warn(e->res, "%s: %llu records carry a sample id of no event in the file; skipped "
			     "(perf 6.1's perf script stops at the first instead)", f.path, (unsigned long long)e->res->unknown_id_records);
	if (rc == 0 && e->res->has_hints && (!e->res->clock_known || e->res->clockid != CLOCK_MONOTONIC))
		process_warn(e->res, "%s was recorded on %s, hints on CLOCK_MONOTONIC: hint times may be skewed",
			     f.path, e->res->clock_known ? clock_name(e->res->clockid) : "perf's default clock");
	if (rc == 0 && e->opts->verbose && e->opts->log && e->res->threads_named_from_sched)
		fprintf(e->opts->log, "%llu threads had no COMM record in %s: named by %s\n",
			(unsigned long long)e->res->threads_named_from_sched, e->opts->in->mem_name,
			e->opts->in->sched_name);
	if (rc == 0 && wk.spe.present)
		spe_summary(e, &wk.spe, f.path);
	spe_trace_free(&wk.spe);
	order_walk_free(&ow);
	session_free(&s);
	sym_cache_free(syms);
	pd_close(&f);
	thread_names_free(&wk.names);
	return rc;
}
