/*
 * sched_stats_pass.c - the one pass of sched_stats (see
 * sched_stats_internal.h): each record into per-thread and per-CPU
 * accumulators (runtime, switches, wakeups, migrations, wakeup-to-run
 * latencies), broken switch chains, the thread table with its bound
 * (threads folded, dropped by keep()).
 */
#include "extract/sched/sched_stats_internal.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extract/sched/sched_events.h"
#include "lib/error.h"
#include "lib/grow.h"
#include "lib/u64map.h"

static int lat_add(struct acc *a, uint64_t v)
{
	if (a->nlat == a->caplat && !GROW(a->lat, a->caplat, 16))
		return scx_fail("out of memory");
	a->lat[a->nlat++] = v;
	return 0;
}

int sched_stats_acc_merge(struct acc *to, const struct acc *from)
{
	to->runtime += from->runtime;
	to->vol += from->vol;
	to->invol += from->invol;
	to->wakeups += from->wakeups;
	to->wakings += from->wakings;
	to->migrations += from->migrations;
	for (size_t i = 0; i < from->nlat; i++)
		if (lat_add(to, from->lat[i]) < 0)
			return -1;
	return 0;
}

/* t ran on cpu in [start, end): merged into its last run on that CPU while the span stays short */
static int run_add(struct stats *s, struct thread *t, int64_t cpu, uint64_t start, uint64_t end)
{
	struct sched_run *r = t->nruns ? &t->runs[t->nruns - 1] : NULL;

	if (!s->runs || t->ignored || end <= start)
		return 0;
	if (r && r->cpu == cpu && start >= r->end && end - r->start <= SCHED_RUN_SPAN_NS) {
		r->end = end;
		r->runtime += end - start;
		return 0;
	}
	if (t->nruns == t->capruns && !GROW(t->runs, t->capruns, 1))
		return scx_fail("out of memory");
	t->runs[t->nruns++] = (struct sched_run){start, end, end - start, cpu};
	return 0;
}

static bool is_dropped(const struct stats *s, int64_t tid)
{
	if ((uint64_t)tid < SCHED_TID_BITS)
		return s->dropped_bits && (s->dropped_bits[(uint64_t)tid >> 3] >> (tid & 7) & 1);
	return u64map_find(&s->dropped_big, (uint64_t)tid) != NULL;
}

/* The stand-in of every dropped thread, as a thread never seen before except for its runtime. */
static struct thread *ignored_thread(struct stats *s)
{
	struct thread *t = &s->ignored;

	t->ignored = true;
	t->pending = false;
	t->last_cpu = t->running_cpu = -1;
	t->a.nlat = 0;
	return t;
}

static int keep_live(uint64_t tid, void *map)
{
	return u64map_get(map, tid) != NULL;
}

/*
 * threads[] without the NULLs (order kept) and tmap without the tids that
 * map to NULL: always with force, else once as many are dead as live.
 */
static int compact_threads(struct stats *s, bool force)
{
	size_t i, n = 0, gone;

	if (!s->dead || (!force && (s->dead < 1024 || s->dead < s->live)))
		return 0;
	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i]) {
			s->threads[i]->idx = n;
			s->threads[n++] = s->threads[i];
		}
	s->nthreads = n;
	s->dead = 0;
	return u64map_filter(&s->tmap, keep_live, &s->tmap, &gone);
}

/* Take t out of the table (its tid maps to NULL) and free it. */
static void thread_remove(struct stats *s, struct thread *t)
{
	u64map_put(&s->tmap, (uint64_t)t->tid, NULL); /* an existing key: cannot fail */
	s->threads[t->idx] = NULL;
	s->live--;
	s->dead++;
	free(t->comm);
	free(t->a.lat);
	free(t->runs);
	free(t);
}

/* keep() refused t: remember its tid, its runtime so far goes to the stand-in. */
static int thread_drop(struct stats *s, struct thread *t)
{
	uint64_t tid = (uint64_t)t->tid;

	if (tid < SCHED_TID_BITS) {
		if (!s->dropped_bits && !(s->dropped_bits = calloc(SCHED_TID_BITS / 8, 1)))
			return scx_fail("out of memory");
		s->dropped_bits[tid >> 3] |= (unsigned char)(1u << (tid & 7));
	} else if (!u64map_slot(&s->dropped_big, tid)) {
		return -1;
	}
	s->ignored.a.runtime += t->a.runtime;
	s->dropped++;
	thread_remove(s, t);
	return compact_threads(s, false);
}

static int cmp_fold(const void *x, const void *y)
{
	const struct thread *a = *(struct thread *const *)x, *b = *(struct thread *const *)y;

	if (a->pending != b->pending)
		return a->pending ? 1 : -1;
	if (a->a.runtime != b->a.runtime)
		return a->a.runtime < b->a.runtime ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/*
 * The table holds max_threads threads: fold half of them, those not
 * running, waiting for no wakeup first, least runtime first. Their counts
 * go to s->folds; a folded tid seen again starts anew.
 */
static int fold_threads(struct stats *s)
{
	struct thread **v = malloc(s->live * sizeof(*v));
	size_t i, n = 0, target = s->max_threads / 2;

	if (!v)
		return scx_fail("out of memory (folding threads)");
	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i] && s->threads[i]->running_cpu < 0)
			v[n++] = s->threads[i];
	qsort(v, n, sizeof(*v), cmp_fold);
	for (i = 0; i < n && s->live > target; i++) {
		s->folds.count++;
		s->folds.runtime_ns += v[i]->a.runtime;
		s->folds.max_runtime_ns = v[i]->a.runtime > s->folds.max_runtime_ns ? v[i]->a.runtime
										     : s->folds.max_runtime_ns;
		thread_remove(s, v[i]);
	}
	free(v);
	s->folds.rounds++;
	return compact_threads(s, false);
}

static struct thread *thread_get(struct stats *s, int64_t tid)
{
	uint64_t *slot = u64map_find(&s->tmap, (uint64_t)tid);
	struct thread *t = slot ? (struct thread *)(uintptr_t)*slot : NULL;

	if (t)
		return t;
	if (s->keep && is_dropped(s, tid))
		return ignored_thread(s);
	if (s->max_threads && s->live >= s->max_threads && fold_threads(s) < 0)
		return NULL;
	if (s->nthreads == s->capthreads) {
		size_t cap = s->capthreads ? 2 * s->capthreads : 64;
		struct thread **v = realloc(s->threads, cap * sizeof(*v));

		if (!v)
			goto oom;
		s->threads = v;
		s->capthreads = cap;
	}
	if (!(t = calloc(1, sizeof(*t))))
		goto oom;
	t->tid = tid;
	t->pid = -1;
	t->last_cpu = t->running_cpu = -1;
	if (u64map_put(&s->tmap, (uint64_t)tid, t) < 0) {
		free(t);
		return NULL;
	}
	t->idx = s->nthreads;
	s->threads[s->nthreads++] = t;
	s->live++;
	return t;
oom:
	scx_fail("out of memory");
	return NULL;
}

static int set_comm(struct thread *t, const char *comm)
{
	if (!comm || t->ignored || (t->comm && !strcmp(t->comm, comm)))
		return 0;
	free(t->comm);
	if (!(t->comm = strdup(comm)))
		return scx_fail("out of memory");
	return 0;
}

static struct cpu *cpu_get(struct stats *s, int64_t cpu)
{
	if (cpu < 0 || cpu >= (1 << 20)) {
		scx_fail("%s: cpu %lld is out of range", s->o->path, (long long)cpu);
		return NULL;
	}
	if (!grow_to((void **)&s->cpus, &s->ncpus, (size_t)cpu + 1, sizeof(*s->cpus), 16)) {
		scx_fail("out of memory");
		return NULL;
	}
	return &s->cpus[cpu];
}

static void mark_wakeup(struct thread *t, uint64_t now)
{
	if (!t->pending && t->running_cpu < 0) {
		t->pending = true;
		t->pending_t = now;
	}
}

static bool is_idle(int64_t pid, const char *comm)
{
	return pid == 0 || (comm && !strncmp(comm, "swapper", 7));
}

/*
 * A switch whose prev is not what the CPU's last switch put there: an
 * event is missing in between (seen for threads of PID 1, which perf also
 * never shows switched out). Who ran in [since, now) is unknown, so the
 * gap is credited to nobody: neither the thread the last switch put there
 * (it would get the idle time after its lost switch-out) nor prev.
 */
static void chain_break(struct stats *s, const struct sched_event *ev, struct cpu *c, int64_t prev)
{
	struct sched_chain_breaks *b = &s->breaks;
	uint64_t gap = c->running && ev->time_ns >= c->since ? ev->time_ns - c->since : 0;

	if (b->count < SCHED_CHAIN_BREAKS_KEPT)
		b->first[b->count] = (struct sched_chain_break){ev->cpu, ev->time_ns, c->cur_pid, prev, gap};
	b->count++;
	b->uncredited_ns += gap;
	c->running = false;
}

static int on_switch(struct stats *s, const struct sched_event *ev, struct cpu *c)
{
	uint64_t now = ev->time_ns;
	int64_t prev = ev->prev_pid >= 0 ? ev->prev_pid : ev->tid, next = ev->next_pid;
	bool next_idle = next == 0 || (ev->next_comm && !strncmp(ev->next_comm, "swapper", 7));
	struct thread *t;

	if (c->chained && (is_idle(prev, ev->prev_comm) ? 0 : prev) != c->cur_pid) {
		if (c->running && (t = u64map_get(&s->tmap, (uint64_t)c->cur)) && t->running_cpu == (int64_t)ev->cpu)
			t->running_cpu = -1;
		chain_break(s, ev, c, prev);
	}
	c->chained = next != INT64_MIN;
	c->cur_pid = next_idle ? 0 : next;
	if (c->running && now >= c->since) {
		if (!(t = thread_get(s, c->cur)) || run_add(s, t, ev->cpu, c->since, now) < 0)
			return -1;
		t->a.runtime += now - c->since;
		c->a.runtime += now - c->since;
	}
	if (c->running && (t = u64map_get(&s->tmap, (uint64_t)c->cur)) && t->running_cpu == (int64_t)ev->cpu)
		t->running_cpu = -1;
	if (prev > 0) {
		bool invol = ev->prev_state && (!strcmp(ev->prev_state, "R") || !strcmp(ev->prev_state, "R+"));

		if (!(t = thread_get(s, prev)) || set_comm(t, ev->prev_comm) < 0)
			return -1;
		if (invol) {
			t->a.invol++;
			c->a.invol++;
		} else {
			t->a.vol++;
			c->a.vol++;
		}
		if (t->running_cpu == (int64_t)ev->cpu)
			t->running_cpu = -1;
	}
	c->running = false;
	if (next_idle || next == INT64_MIN)
		return 0;
	if (!(t = thread_get(s, next)) || set_comm(t, ev->next_comm) < 0)
		return -1;
	if (t->last_cpu >= 0 && t->last_cpu != (int64_t)ev->cpu) {
		t->a.migrations++;
		c->a.migrations++;
	}
	t->last_cpu = t->running_cpu = ev->cpu;
	if (t->pending) {
		uint64_t lat = now >= t->pending_t ? now - t->pending_t : 0;

		t->pending = false;
		if (lat_add(&t->a, lat) < 0 || lat_add(&c->a, lat) < 0)
			return -1;
	}
	c->running = true;
	c->cur = next;
	c->since = now;
	return 0;
}

static int process(struct stats *s, const struct sched_event *ev)
{
	struct cpu *c = cpu_get(s, ev->cpu), *tc;
	struct thread *t;

	if (!c)
		return -1;
	c->seen = true;
	c->last_seen = ev->time_ns;
	if (ev->tid > 0) {
		if (!(t = thread_get(s, ev->tid)) || set_comm(t, ev->comm) < 0)
			return -1;
		t->pid = ev->pid;
		if (!t->ignored && !t->asked) {
			t->asked = true;
			t->asked_pid = ev->pid;
			if (s->keep && !s->keep(t->tid, t->pid, s->keep_ctx) && thread_drop(s, t) < 0)
				return -1;
		}
	}
	switch (ev->kind) {
	case SEV_SWITCH:
		return ev->has_fields ? on_switch(s, ev, c) : 0;
	case SEV_WAKEUP:
	case SEV_WAKEUP_NEW:
	case SEV_WAKING:
		if (ev->f_pid <= 0)
			return 0;
		if (!(t = thread_get(s, ev->f_pid)))
			return -1;
		if (!(tc = cpu_get(s, ev->kind != SEV_WAKING && ev->target_cpu >= 0 ? ev->target_cpu : ev->cpu)))
			return -1;
		c = &s->cpus[ev->cpu]; /* cpu_get may have moved the array */
		if (ev->kind == SEV_WAKING) {
			t->a.wakings++;
			tc->a.wakings++;
		} else {
			t->a.wakeups++;
			tc->a.wakeups++;
		}
		mark_wakeup(t, ev->time_ns);
		return 0;
	case SEV_EXIT:
	case SEV_EXEC:
		if (ev->f_pid > 0 && (t = u64map_get(&s->tmap, (uint64_t)ev->f_pid)))
			t->pending = false;
		if (ev->kind == SEV_EXEC && ev->tid > 0 && (t = u64map_get(&s->tmap, (uint64_t)ev->tid)))
			t->pending = false;
		return 0;
	default:
		return 0;
	}
}

/*
 * A thread's results never depend on another thread's being dropped (the
 * stand-in only gathers the dropped ones' runtime), so asking late drops
 * the same threads with the same runtime as asking at each first record.
 */
int sched_stats_set_keep(struct stats *s, sched_thread_keep_fn keep, void *ctx)
{
	struct thread **refused;
	size_t i, n = 0;
	int rc = 0;

	s->keep = keep;
	s->keep_ctx = ctx;
	if (!keep || !s->live)
		return 0;
	if (!(refused = malloc(s->live * sizeof(*refused))))
		return scx_fail("out of memory");
	for (i = 0; i < s->nthreads; i++) /* first all, then drop: a drop may compact threads[] */
		if (s->threads[i] && s->threads[i]->asked && !keep(s->threads[i]->tid, s->threads[i]->asked_pid, ctx))
			refused[n++] = s->threads[i];
	for (i = 0; i < n && rc == 0; i++)
		rc = thread_drop(s, refused[i]);
	free(refused);
	return rc;
}

void sched_stats_state_free(struct stats *s)
{
	size_t i;

	for (i = 0; i < s->nthreads; i++) {
		if (!s->threads[i])
			continue;
		free(s->threads[i]->comm);
		free(s->threads[i]->a.lat);
		free(s->threads[i]->runs);
		free(s->threads[i]);
	}
	free(s->threads);
	free(s->ignored.comm);
	free(s->ignored.a.lat);
	free(s->dropped_bits);
	u64map_free(&s->dropped_big);
	for (i = 0; i < s->ncpus; i++)
		free(s->cpus[i].a.lat);
	free(s->cpus);
	u64map_free(&s->tmap);
	memset(s, 0, sizeof(*s));
}

void sched_stats_collect_begin(struct stats *s)
{
	u64map_init(&s->tmap);
	u64map_init_cap(&s->dropped_big, U64MAP_SMALL);
}

int sched_stats_collect_event(struct stats *s, const struct sched_event *ev)
{
	if (!ev->time_ok)
		return 0;
	if (!s->started) {
		s->started = true;
		s->start = ev->time_ns;
	}
	s->end = ev->time_ns;
	return process(s, ev);
}

/* After the last event: running threads' time so far; *dur and *cpu_count of the trace. */
int sched_stats_collect_end(struct stats *s, const char *path, uint64_t *dur, size_t *cpu_count)
{
	size_t i;

	*cpu_count = 0;
	if (!s->started)
		return scx_fail("%s: no sched records", path);
	for (i = 0; i < s->ncpus; i++) {
		struct cpu *c = &s->cpus[i];
		struct thread *t;

		*cpu_count += c->seen;
		if (c->running && c->last_seen > c->since) {
			if (!(t = thread_get(s, c->cur)) || run_add(s, t, (int64_t)i, c->since, c->last_seen) < 0)
				return -1;
			t->a.runtime += c->last_seen - c->since;
			c->a.runtime += c->last_seen - c->since;
		}
	}
	*dur = s->end > s->start ? s->end - s->start : 0;
	return compact_threads(s, true);
}

/* One pass over the input into s; *dur and *cpu_count of the trace. */
int sched_stats_collect(struct stats *s, FILE *in, const char *path, uint64_t *dur, size_t *cpu_count)
{
	struct sched_reader *r;
	struct sched_event ev;
	int rc = -1, n;

	sched_stats_collect_begin(s);
	*cpu_count = 0;
	if (!(r = sched_events_open(in, path)))
		return -1;
	while ((n = sched_events_next(r, &ev)) > 0)
		if (sched_stats_collect_event(s, &ev) < 0)
			goto out;
	if (n == 0)
		rc = sched_stats_collect_end(s, path, dur, cpu_count);
out:
	sched_events_close(r);
	return rc;
}
