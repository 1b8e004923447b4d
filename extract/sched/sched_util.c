/*
 * sched_util.c - `extract sched util` (see extract_sched.h): a per-CPU state
 * machine turns records into busy intervals, each added to fixed windows
 * (total, uncategorized, per category) as it is produced; windows are
 * checked and printed at the end. Memory: per CPU state, and
 * (2 + categories) counters per window.
 */
#include "extract/sched/extract_sched.h"
#include "extract/sched/sched_util_internal.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "extract/sched/sched_events.h"
#include "lib/error.h"
#include "lib/grow.h"
#include "lib/jsonw.h"

/* what runs: a task (comm, hint) or a system section, or nothing */
struct active {
	bool busy;
	int sys;    /* SYS_NONE: task */
	char *comm; /* task only, owned */
	uint64_t hint;
	int64_t tid; /* task only */
};

struct cpu_state {
	bool seen;
	uint64_t seg_start, last_seen;
	bool running;
	int64_t run_tid;
	char *run_comm;
	uint64_t run_hint;
	int *stack;
	size_t nstack, capstack;
	struct active act;
};

struct util {
	const struct sched_util_opts *o;
	struct cats cats;
	uint64_t trace_start, window_ns;
	size_t stride;     /* counters per window: total, uncategorized, categories */
	uint64_t *buckets; /* nbuckets * stride */
	size_t nbuckets;
	size_t intervals;
	struct cpu_state *cpus;
	size_t ncpus;
	size_t *matched; /* scratch, cats.n */
	const struct sched_util_series_opts *series; /* instead of cats: the caller classifies */
};

static int grow_buckets(struct util *u, size_t idx)
{
	size_t n = u->nbuckets, want;
	uint64_t *b;

	if (idx < n)
		return 0;
	want = n ? n : 64;
	while (want <= idx)
		want *= 2;
	if (want > (SIZE_MAX / sizeof(uint64_t)) / u->stride || want * u->stride > (1ULL << 31))
		return scx_fail("%s: trace spans too many windows (%zu); use a larger --window-ms", u->o->path, idx + 1);
	b = realloc(u->buckets, want * u->stride * sizeof(uint64_t));
	if (!b)
		return scx_fail("out of memory");
	memset(b + n * u->stride, 0, (want - n) * u->stride * sizeof(uint64_t));
	u->buckets = b;
	u->nbuckets = want;
	return 0;
}

/* one busy interval of comm/hint (system sections: their category name, hint 0) */
static int on_interval(struct util *u, uint64_t start, uint64_t end, const char *comm, uint64_t hint, int64_t tid,
		       bool task)
{
	size_t nm = 0, i, idx, first, last;
	long sel;

	if (start < u->trace_start)
		start = u->trace_start;
	if (end <= start)
		return 0;
	first = (size_t)((start - u->trace_start) / u->window_ns);
	last = (size_t)((end - u->trace_start - 1) / u->window_ns);
	if (grow_buckets(u, last) < 0)
		return -1;
	if (u->series) {
		sel = task ? u->series->classify(u->series->ctx, tid, comm, hint) : -1;
		if (sel >= 0 && (size_t)sel < u->series->nseries)
			u->matched[nm++] = (size_t)sel;
	}
	for (i = 0; i < u->cats.n; i++) {
		const struct category *c = &u->cats.v[i];

		if (c->has_hint && c->hint != hint)
			continue;
		if (c->glob ? sched_util_glob_match(c->comm, comm) : !strcmp(c->comm, comm))
			u->matched[nm++] = i;
	}
	for (idx = first; idx <= last; idx++) {
		uint64_t bs = u->trace_start + idx * u->window_ns, be = bs + u->window_ns;
		uint64_t ov = (end < be ? end : be) - (start > bs ? start : bs);
		uint64_t *b = u->buckets + idx * u->stride;

		if (!ov)
			continue;
		b[0] += ov;
		if (!nm)
			b[1] += ov;
		for (i = 0; i < nm; i++)
			b[2 + u->matched[i]] += ov;
	}
	u->intervals++;
	return 0;
}

static void active_of(const struct cpu_state *s, struct active *a)
{
	a->busy = true;
	a->comm = NULL;
	a->hint = 0;
	a->tid = -1;
	if (s->nstack) {
		a->sys = s->stack[s->nstack - 1];
	} else if (s->running) {
		if (!strncmp(s->run_comm, "ksoftirqd/", 10)) {
			a->sys = SYS_SOFT_OTHER;
		} else {
			a->sys = SYS_NONE;
			a->comm = s->run_comm; /* borrowed until copied */
			a->hint = s->run_hint;
			a->tid = s->run_tid;
		}
	} else {
		a->busy = false;
		a->sys = SYS_NONE;
	}
}

static bool active_eq(const struct active *a, const struct active *b)
{
	if (a->busy != b->busy)
		return false;
	if (!a->busy)
		return true;
	if (a->sys != b->sys)
		return false;
	return a->sys != SYS_NONE || (a->hint == b->hint && !strcmp(a->comm, b->comm));
}

/* end the current interval at end; the next one starts there */
static int flush(struct util *u, struct cpu_state *s, uint64_t end)
{
	uint64_t start = s->seg_start;
	int rc = 0;

	s->seg_start = end;
	if (s->act.busy && end > start)
		rc = on_interval(u, start, end, s->act.sys == SYS_NONE ? s->act.comm : sys_names[s->act.sys],
				 s->act.sys == SYS_NONE ? s->act.hint : 0, s->act.tid, s->act.sys == SYS_NONE);
	return rc;
}

/* recompute what runs; if it changed, close the interval at t */
static int sync_state(struct util *u, struct cpu_state *s, uint64_t t)
{
	struct active next;

	active_of(s, &next);
	/* series are classified per thread: a switch between two threads of one comm splits too */
	if (active_eq(&s->act, &next) && (!u->series || s->act.tid == next.tid))
		return 0;
	if (flush(u, s, t) < 0)
		return -1;
	free(s->act.comm);
	if (next.comm && !(next.comm = strdup(next.comm)))
		return scx_fail("out of memory");
	s->act = next;
	return 0;
}

static int push(struct cpu_state *s, int sys)
{
	if (s->nstack == s->capstack && !GROW(s->stack, s->capstack, 8))
		return scx_fail("out of memory");
	s->stack[s->nstack++] = sys;
	return 0;
}

/* remove the latest entry that is hardirq (softirq=false) or any softirq */
static void pop(struct cpu_state *s, bool softirq)
{
	for (size_t i = s->nstack; i-- > 0;) {
		int v = s->stack[i];

		if (softirq ? (v == SYS_SOFT_RX || v == SYS_SOFT_TX || v == SYS_SOFT_OTHER) : v == SYS_HARDIRQ) {
			memmove(s->stack + i, s->stack + i + 1, (s->nstack - i - 1) * sizeof(int));
			s->nstack--;
			return;
		}
	}
}

/* "delta_ns: N" in the trace of an nmi:* event */
static bool nmi_delta(const struct sched_event *ev, uint64_t *delta)
{
	const char *p;
	char tok[64];
	size_t n = 0;

	if (strncmp(ev->event, "nmi:", 4) || !(p = strstr(ev->trace, "delta_ns:")))
		return false;
	p += 9;
	while (isspace((unsigned char)*p))
		p++;
	while (*p && !isspace((unsigned char)*p) && n < sizeof(tok) - 1)
		tok[n++] = *p++;
	while (n && tok[n - 1] == ',')
		n--;
	tok[n] = 0;
	return n && sched_util_parse_u64(tok, delta) == 0;
}

static struct cpu_state *cpu_get(struct util *u, uint32_t cpu)
{
	if (cpu >= (1u << 20)) {
		scx_fail("%s: cpu %u is out of range (at most %u)", u->o->path, cpu, (1u << 20) - 1);
		return NULL;
	}
	if (!grow_to((void **)&u->cpus, &u->ncpus, (size_t)cpu + 1, sizeof(*u->cpus), 16)) {
		scx_fail("out of memory");
		return NULL;
	}
	return &u->cpus[cpu];
}

static int process(struct util *u, const struct sched_event *ev)
{
	struct cpu_state *s = cpu_get(u, ev->cpu);
	uint64_t t = ev->time_ns, d;
	int sys;

	if (!s)
		return -1;
	if (!s->seen) {
		s->seen = true;
		s->seg_start = t;
	}
	s->last_seen = t;
	if (s->running && ev->tid == s->run_tid && ev->hint != s->run_hint) {
		s->run_hint = ev->hint;
		if (sync_state(u, s, t) < 0)
			return -1;
	}
	switch (ev->kind) {
	case SEV_SWITCH:
		if (!ev->has_fields)
			return 0;
		free(s->run_comm);
		s->run_comm = NULL;
		s->running = false;
		if (!(ev->next_pid == 0 || (ev->next_comm && !strncmp(ev->next_comm, "swapper", 7)))) {
			s->running = true;
			s->run_tid = ev->next_pid >= INT32_MIN && ev->next_pid <= INT32_MAX ? ev->next_pid : 0;
			s->run_hint = ev->next_hint;
			if (!(s->run_comm = strdup(ev->next_comm ? ev->next_comm : "")))
				return scx_fail("out of memory");
		}
		return sync_state(u, s, t);
	case SEV_IRQ_ENTRY:
		return push(s, SYS_HARDIRQ) < 0 ? -1 : sync_state(u, s, t);
	case SEV_IRQ_EXIT:
		pop(s, false);
		return sync_state(u, s, t);
	case SEV_SOFTIRQ_ENTRY:
		sys = !strcmp(ev->action, "NET_RX") ? SYS_SOFT_RX : !strcmp(ev->action, "NET_TX") ? SYS_SOFT_TX
												: SYS_SOFT_OTHER;
		return push(s, sys) < 0 ? -1 : sync_state(u, s, t);
	case SEV_SOFTIRQ_EXIT:
		pop(s, true);
		return sync_state(u, s, t);
	default:
		if (!nmi_delta(ev, &d))
			return 0;
		d = d < t ? t - d : 0;
		if (flush(u, s, d) < 0 || on_interval(u, d, t, sys_names[SYS_NMI], 0, -1, false) < 0)
			return -1;
		s->seg_start = t;
		return 0;
	}
}

/*
 * Every percentage has SCHED_UTIL_DECIMALS decimals, whatever the window:
 * 0.0001% is 1 ns of a 1 ms window on one CPU, so short windows lose
 * nothing and long ones do not print float noise (33.065061199999995).
 */
static void put_pct(struct jsonw *w, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", SCHED_UTIL_DECIMALS, v);
	jsonw_raw(w, buf, strlen(buf));
	w->need_comma = true; /* jsonw_raw does not count as a value */
}

static int finish(struct util *u, uint64_t trace_end, size_t cpu_count, FILE *out, FILE *err)
{
	uint64_t dur = trace_end - u->trace_start;
	uint64_t nb = dur / u->window_ns + (dur % u->window_ns != 0);
	struct jsonw w;
	size_t i, c;

	for (i = 0; i < u->ncpus; i++) {
		struct cpu_state *s = &u->cpus[i];

		if (s->seen && flush(u, s, s->last_seen > s->seg_start ? s->last_seen : s->seg_start) < 0)
			return -1;
	}
	if (nb && grow_buckets(u, (size_t)nb - 1) < 0)
		return -1;
	/* check every window before printing anything, as upstream */
	for (i = 0; i < nb; i++) {
		const uint64_t *b = u->buckets + i * u->stride;
		uint64_t sum = 0;

		for (c = 0; c < u->cats.n; c++)
			sum += b[2 + c];
		if (sum + b[1] != b[0]) {
			char list[2048] = "";
			size_t len = 0;

			for (c = 0; c < u->cats.n && len < sizeof(list) - 1; c++)
				if (b[2 + c])
					len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s=%lluns",
								len ? ", " : "", u->cats.v[c].name,
								(unsigned long long)b[2 + c]);
			return scx_fail("sched util categories are not mutually exclusive in the window starting at "
					"%llums: total=%lluns uncategorized=%lluns categorized_sum=%lluns [%s]. Fix "
					"--categories so each busy interval matches at most one category",
					(unsigned long long)(i * u->window_ns / 1000000), (unsigned long long)b[0],
					(unsigned long long)b[1], (unsigned long long)sum, list);
		}
	}
	if (u->o->verbose)
		fprintf(err, "sched util: %zu intervals, %llu buckets, %zu cpus, %zu categories\n", u->intervals,
			(unsigned long long)nb, cpu_count, u->cats.n);
	jsonw_init(&w);
	for (i = 0; i < nb; i++) {
		const uint64_t *b = u->buckets + i * u->stride;
		uint64_t bs = u->trace_start + i * u->window_ns, be = bs + u->window_ns;
		uint64_t cap;
		double scale;

		if (be > trace_end)
			be = trace_end;
		cap = (be - bs) * cpu_count;
		scale = cap ? 100.0 / (double)cap : 0.0;
		jsonw_obj_open(&w);
		jsonw_kv_u64(&w, "time_ms", i * u->window_ns / 1000000);
		jsonw_kv_u64(&w, "window_ms", u->o->window_ms);
		jsonw_kv_u64(&w, "cpu_count", cpu_count);
		jsonw_key(&w, "total");
		put_pct(&w, (double)b[0] * scale);
		jsonw_key(&w, "uncategorized");
		put_pct(&w, (double)b[1] * scale);
		jsonw_key(&w, "categories");
		jsonw_obj_open(&w);
		for (c = 0; c < u->cats.n; c++) {
			jsonw_key(&w, u->cats.v[c].name);
			put_pct(&w, (double)b[2 + c] * scale);
		}
		jsonw_obj_close(&w);
		jsonw_obj_close(&w);
		jsonw_newline(&w);
		if (w.len > (1 << 16) && jsonw_flush_to(&w, out, "stdout") < 0) {
			jsonw_free(&w);
			return -1;
		}
	}
	c = jsonw_flush_to(&w, out, "stdout") < 0;
	jsonw_free(&w);
	return c ? -1 : 0;
}

/* Feed every record of in to u; the trace's end and the CPUs seen. -1 with scx_fail. */
static int read_stream(struct util *u, FILE *in, const char *path, volatile int *stop, uint64_t *trace_end,
		       size_t *cpu_count)
{
	struct sched_reader *r = sched_events_open(in, path);
	struct sched_event ev;
	bool started = false, saw_switch = false;
	size_t i;
	int n, rc = -1;

	*trace_end = 0;
	*cpu_count = 0;
	if (!r)
		return scx_fail("out of memory");
	while ((n = sched_events_next(r, &ev)) > 0) {
		if (stop && *stop) {
			scx_fail("interrupted");
			goto out;
		}
		if (!ev.time_ok)
			continue;
		if (!started) {
			started = true;
			u->trace_start = ev.time_ns;
		}
		*trace_end = ev.time_ns;
		saw_switch |= ev.kind == SEV_SWITCH;
		if (process(u, &ev) < 0)
			goto out;
	}
	if (n < 0)
		goto out;
	if (!saw_switch) {
		scx_fail("%s: no sched:sched_switch events found", path);
		goto out;
	}
	if (*trace_end <= u->trace_start) {
		scx_fail("%s: non-positive sched trace duration", path);
		goto out;
	}
	for (i = 0; i < u->ncpus; i++)
		*cpu_count += u->cpus[i].seen;
	rc = 0;
out:
	sched_events_close(r);
	return rc;
}

static void util_free(struct util *u)
{
	size_t i;

	for (i = 0; i < u->ncpus; i++) {
		free(u->cpus[i].run_comm);
		free(u->cpus[i].stack);
		free(u->cpus[i].act.comm);
	}
	free(u->cpus);
	free(u->buckets);
	free(u->matched);
	sched_util_cats_free(&u->cats);
}

int sched_util_run(const struct sched_util_opts *o, FILE *in, FILE *out, FILE *err)
{
	struct util u = {.o = o};
	uint64_t trace_end;
	size_t cpu_count;
	int rc = -1;

	if (sched_util_check_opts(o) < 0 || sched_util_parse_categories(o->categories, &u.cats) < 0)
		return -1;
	u.window_ns = o->window_ms * 1000000;
	u.stride = 2 + u.cats.n;
	if (!(u.matched = calloc(u.cats.n, sizeof(size_t)))) {
		scx_fail("out of memory");
		goto out;
	}
	if (read_stream(&u, in, o->path, NULL, &trace_end, &cpu_count) < 0)
		goto out;
	rc = finish(&u, trace_end, cpu_count, out, err);
out:
	util_free(&u);
	return rc;
}

int sched_util_series(const struct sched_util_series_opts *o, FILE *in, struct sched_util_windows *out)
{
	struct sched_util_opts uo = {.path = o->path, .window_ms = 1};
	struct util u = {.o = &uo, .series = o};
	uint64_t trace_end, dur;
	size_t i, c, nb;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (o->window_ns == 0)
		return scx_fail("sched util: zero window");
	u.window_ns = o->window_ns;
	u.stride = 2 + o->nseries;
	if (!(u.matched = calloc(1, sizeof(size_t)))) {
		scx_fail("out of memory");
		goto out;
	}
	if (read_stream(&u, in, o->path, o->stop, &trace_end, &out->cpu_count) < 0)
		goto out;
	for (i = 0; i < u.ncpus; i++) {
		struct cpu_state *s = &u.cpus[i];

		if (s->seen && flush(&u, s, s->last_seen > s->seg_start ? s->last_seen : s->seg_start) < 0)
			goto out;
	}
	dur = trace_end - u.trace_start;
	nb = (size_t)(dur / u.window_ns + (dur % u.window_ns != 0));
	if (nb && grow_buckets(&u, nb - 1) < 0)
		goto out;
	if (!(out->busy = calloc(nb * (1 + o->nseries) + 1, sizeof(uint64_t)))) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < nb; i++) {
		out->busy[i * (1 + o->nseries)] = u.buckets[i * u.stride];
		for (c = 0; c < o->nseries; c++)
			out->busy[i * (1 + o->nseries) + 1 + c] = u.buckets[i * u.stride + 2 + c];
	}
	out->trace_start_ns = u.trace_start;
	out->trace_end_ns = trace_end;
	out->window_ns = u.window_ns;
	out->nwindows = nb;
	out->nseries = o->nseries;
	rc = 0;
out:
	util_free(&u);
	if (rc)
		sched_util_windows_free(out);
	return rc;
}

void sched_util_windows_free(struct sched_util_windows *w)
{
	free(w->busy);
	memset(w, 0, sizeof(*w));
}
