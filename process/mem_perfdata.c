/*
 * mem_perfdata.c - the perf.data input path of `process`: walks the data
 * section, orders records by time within rounds (like perf script), replays
 * side-band records into the session and turns samples into perf.jsonl lines.
 */
#include "mem_perfdata.h"

#include <string.h>
#include <time.h>

#include "lib/error.h"
#include "lib/perfdata.h"
#include "process/order.h"
#include "process/process_warn.h"
#include "process/kernel_match.h"
#include "process/record_kernel.h"
#include "process/session.h"
#include "process/sym/symbols.h"

struct walk {
	struct emitter *e;
	struct pd_file *f;
	struct session *s;
	struct order_queue q;
	bool ordered;
	uint64_t since_release;
	uint64_t kernel_samples; /* kept samples in kernel mode: they need kernel symbols */
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

/* Every attr must sample TIME for ordering; note the clock of the first. */
static void inspect_attrs(struct walk *wk)
{
	struct process_result *res = wk->e->res;
	size_t i;

	wk->ordered = wk->f->sample_id_all && wk->f->nr_attrs > 0;
	for (i = 0; i < wk->f->nr_attrs; i++)
		if (!(wk->f->attrs[i].attr.sample_type & PERF_SAMPLE_TIME))
			wk->ordered = false;
	res->ordered = wk->ordered;
	if (wk->f->nr_attrs && wk->f->attrs[0].attr.use_clockid) {
		res->clock_known = true;
		res->clockid = wk->f->attrs[0].attr.clockid;
	}
	if (!wk->ordered && wk->e->opts->verbose && wk->e->opts->log)
		fprintf(wk->e->opts->log, "%s: no sample_id_all/time on every event: samples in file order\n",
			wk->f->path);
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

static int deliver_sample(struct walk *wk, const struct perf_event_header *h)
{
	struct emitter *e = wk->e;
	struct pd_sample smp;
	struct session_thread *t;
	struct session_resolved where;
	struct session_data data;
	struct mem_record r = {0};
	const char *cg = "";

	if (pd_parse_sample(wk->f, h, &smp) < 0)
		return -1;
	/* also checked here: the ordered queue's final drain delivers without walking */
	if ((++e->res->total & 0xfff) == 0 && e->opts->stop && *e->opts->stop)
		return scx_fail("interrupted");
	t = session_thread(wk->s, (int32_t)smp.pid, (int32_t)smp.tid);
	if (!t)
		return -1;
	struct skip_view v = {.comm = t->comm, .pid = (int32_t)smp.pid, .tid = (int32_t)smp.tid,
			      .time_ns = smp.time, .addr = smp.addr, .ip = smp.ip};

	if (emitter_filter(e, &v, smp.present & PERF_SAMPLE_PHYS_ADDR, smp.phys_addr) != KEEP)
		return 0;
	session_resolve_ip(wk->s, t, smp.misc & PERF_RECORD_MISC_CPUMODE_MASK, smp.ip, &where);
	if ((smp.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		wk->kernel_samples++;
	if (smp.present & PERF_SAMPLE_CGROUP) {
		cg = session_cgroup(wk->s, smp.cgroup);
		if (!cg)
			cg = "unknown";
	}
	r.comm = t->comm;
	r.tid = (int32_t)smp.tid;
	r.pid = (int32_t)smp.pid;
	r.time_ns = smp.time;
	r.addr = smp.addr;
	r.cgroup = cg;
	r.ip = smp.ip;
	r.sym = where.sym;
	r.dso = where.dso;
	r.phys_addr = smp.phys_addr;
	r.data_page_size = smp.data_page_size;
	r.event = smp.attr && smp.attr->name[0] ? smp.attr->name : NULL;
	r.has_cpu = smp.present & PERF_SAMPLE_CPU;
	r.cpu = smp.cpu;
	r.has_time_ns = smp.present & PERF_SAMPLE_TIME;
	r.has_period = smp.present & PERF_SAMPLE_PERIOD;
	r.period = smp.period;
	r.has_weight = smp.present & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT);
	r.weight = smp.weight;
	r.has_weight_struct = smp.present & PERF_SAMPLE_WEIGHT_STRUCT;
	r.var1 = smp.weight_var1;
	r.var2 = smp.weight_var2;
	r.var3 = smp.weight_var3;
	r.has_data_src = smp.present & PERF_SAMPLE_DATA_SRC;
	r.data_src = smp.data_src;
	session_resolve_data(wk->s, t, (int32_t)smp.pid, smp.addr, smp.phys_addr, &data);
	r.data_map = data.map;
	r.data_id = data.id;
	r.data_sym = data.sym;
	r.stable_names = true; /* interned by the session and symbol cache, alive until the end */
	return emitter_write(e, &r);
}

static int deliver(struct walk *wk, const struct perf_event_header *h)
{
	size_t body;

	if (h->type == PERF_RECORD_SAMPLE)
		return deliver_sample(wk, h);
	body = pd_body_size(wk->f, h);
	count_kernel_record(wk, h, body);
	if (session_apply(wk->s, h, body) < 0)
		return scx_fail_prefix("%s: record at offset %llu", wk->f->path,
				       (unsigned long long)pd_offset_of(wk->f, h));
	return 0;
}

/* Time of a kernel record for ordering; false when it has none. */
static int record_time(struct walk *wk, const struct perf_event_header *h, uint64_t *time, bool *has)
{
	int rc = pd_record_time(wk->f, h, time);

	*has = rc > 0;
	return rc < 0 ? -1 : 0;
}

static int drain(struct walk *wk)
{
	struct order_item it;

	while (order_pop(&wk->q, &it))
		if (deliver(wk, it.rec) < 0)
			return -1;
	return 0;
}

/* Give back file pages nothing queued still points into. */
static void release_pages(struct walk *wk, uint64_t cursor_pos)
{
	const void *low = order_lowest_rec(&wk->q);
	uint64_t upto = cursor_pos;

	if (low)
		upto = pd_offset_of(wk->f, low);
	pd_release_before(wk->f, upto);
}

static int on_record(struct walk *wk, const struct perf_event_header *h, uint64_t pos)
{
	uint64_t time;
	bool has_time;

	if (h->type < PROCESS_RECORD_TYPES)
		wk->e->res->records[h->type]++;
	if (h->type == PD_RECORD_FINISHED_ROUND) {
		wk->e->res->rounds++;
		if (!wk->ordered)
			return 0;
		if (order_round(&wk->q) < 0 || drain(wk) < 0)
			return -1;
		if (++wk->since_release >= 16) {
			wk->since_release = 0;
			release_pages(wk, pos);
		}
		return 0;
	}
	if (h->type >= PD_RECORD_HEADER_ATTR)
		return 0; /* perf tool records: nothing we need */
	if (pd_id_is_unknown(wk->f, h)) {
		wk->e->res->unknown_id_records++; /* as perf: skipped, counted */
		return 0;
	}
	if (!wk->ordered)
		return deliver(wk, h);
	if (record_time(wk, h, &time, &has_time) < 0)
		return -1;
	if (!has_time)
		return deliver(wk, h);
	return order_push(&wk->q, time, h);
}

static int walk_records(struct walk *wk)
{
	struct pd_cursor c;
	const struct perf_event_header *h;
	uint64_t n = 0;
	int r;

	pd_cursor_init(&c, wk->f);
	while ((r = pd_next(&c, &h)) > 0) {
		if ((++n & 0xfff) == 0 && wk->e->opts->stop && *wk->e->opts->stop)
			return scx_fail("interrupted");
		if (on_record(wk, h, c.pos) < 0)
			return -1;
		if (!wk->ordered && (n & 0xffff) == 0)
			pd_release_before(wk->f, c.pos);
	}
	if (r < 0)
		return -1;
	if (wk->ordered && !wk->e->res->rounds && wk->e->opts->verbose && wk->e->opts->log)
		fprintf(wk->e->opts->log, "%s: no FINISHED_ROUND records: all %zu records were held "
			"until the end to sort them\n", wk->f->path, wk->q.n - wk->q.head);
	if (order_finish(&wk->q) < 0)
		return -1;
	return drain(wk);
}

/*
 * Kernel symbols: the profile's kallsyms snapshot first (warning when it does
 * not fit the recording), else /proc/kallsyms when the recording was made on
 * the running kernel (process/kernel_match.h), else none. Why not goes to
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

int mem_perfdata_read(struct emitter *e)
{
	struct pd_file f;
	struct session s;
	struct sym_cache *syms;
	struct walk wk = {.e = e, .f = &f, .s = &s};
	char kernel_note[1200];
	int rc;

	if (pd_open(&f, e->opts->in->mem_path) < 0)
		return -1;
	syms = open_symbols(e, &f, kernel_note, sizeof(kernel_note));
	if (!syms) {
		pd_close(&f);
		return -1;
	}
	sym_cache_prefetch_kernel(syms);
	if (session_init(&s, syms) < 0) {
		session_free(&s);
		sym_cache_free(syms);
		pd_close(&f);
		return -1;
	}
	s.build_id_of = noted_build_id;
	s.build_id_ctx = &f;
	order_init(&wk.q);
	inspect_attrs(&wk);
	rc = walk_records(&wk);
	if (rc == 0)
		rc = emitter_flush(e);
	e->res->peak_queued = wk.q.peak;
	e->res->late_records = wk.q.late;
	e->res->threads = s.stats.threads;
	e->res->cgroups = s.stats.cgroups;
	e->res->dsos = s.stats.dsos;
	sym_cache_stats(syms, &e->res->syms);
	e->res->kernel_symbols = e->res->syms.kernel_symbols > 0;
	if (rc == 0 && kernel_note[0] && wk.kernel_samples)
		process_warn(e->res, "%s", kernel_note);
	if (rc == 0 && e->res->unknown_id_records)
		process_warn(e->res, "%s: %llu records carry a sample id of no event in the file; skipped "
			     "(perf script skips them too)", f.path, (unsigned long long)e->res->unknown_id_records);
	if (rc == 0 && e->res->has_hints && (!e->res->clock_known || e->res->clockid != CLOCK_MONOTONIC))
		process_warn(e->res, "%s was recorded on %s, hints on CLOCK_MONOTONIC: hint times may be skewed",
			     f.path, e->res->clock_known ? clock_name(e->res->clockid) : "perf's default clock");
	order_free(&wk.q);
	session_free(&s);
	sym_cache_free(syms);
	pd_close(&f);
	return rc;
}
