/*
 * sched_stats.c - `extract sched stats` (see sched_stats.h). One pass
 * accumulates per thread and per CPU; process, comm, llc and node keys are
 * rolled up from those at the end. Latencies are stored (8 bytes per
 * wakeup-to-run latency) so percentiles are exact.
 */
#include "extract/sched_stats.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extract/sched_events.h"
#include "extract/topology.h"
#include "lib/error.h"
#include "lib/jsonw.h"
#include "lib/u64map.h"

struct acc {
	uint64_t runtime, vol, invol, wakeups, wakings, migrations;
	uint64_t *lat;
	size_t nlat, caplat;
};

struct thread {
	int64_t tid, pid; /* pid: tgid, -1 until a record of the thread shows it */
	char *comm;
	struct acc a;
	int64_t last_cpu, running_cpu;
	bool pending;
	uint64_t pending_t;
	size_t idx;       /* in stats.threads */
	bool asked;       /* keep() was asked (a record of its own showed its pid) */
	bool ignored;     /* stats.ignored: stands for every dropped thread */
};

/* Dropped tids below this are a bitmap (pid_max is at most 2^22). */
#define SCHED_TID_BITS ((uint64_t)1 << 22)

struct cpu {
	bool seen, running;
	bool chained;    /* a sched_switch said what runs here (cur_pid) */
	int64_t cur;
	int64_t cur_pid; /* the next_pid of the last switch, 0 when idle */
	uint64_t since, last_seen;
	struct acc a;
};

struct stats {
	const struct sched_stats_opts *o;
	struct u64map tmap;       /* tid -> thread; NULL once dropped or folded */
	struct thread **threads;  /* in creation order; NULL where dropped or folded until compacted */
	size_t nthreads, capthreads;
	size_t live, dead;        /* threads; NULL entries in tmap and threads */
	struct cpu *cpus;
	size_t ncpus;
	struct sched_chain_breaks breaks;
	/* sched_stats_threads_read's filter: a thread keep() refuses is dropped */
	sched_thread_keep_fn keep;
	void *keep_ctx;
	unsigned char *dropped_bits; /* tids < SCHED_TID_BITS dropped */
	struct u64map dropped_big;   /* other tids dropped */
	struct thread ignored;       /* thread_get's answer for them: gathers their runtime */
	uint64_t dropped;
	/* sched stats' bound on live threads (0: none) and what it folded */
	size_t max_threads;
	struct sched_thread_folds folds;
	bool started;             /* an event with a valid time was seen: the first one at start */
	uint64_t start, end;
};

struct row {
	int64_t num;      /* numeric key (tid, pid, cpu, llc, node) */
	const char *comm; /* comm keys, and the comm of thread/process rows */
	int64_t tid, pid;
	unsigned ncpus;   /* capacity for CPU-like keys */
	struct acc a;
};

int sched_stats_parse_by(const char *s, enum sched_stats_by *by)
{
	static const char *const names[] = {"thread", "process", "comm", "cpu", "llc", "node"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return *by = (enum sched_stats_by)i, 0;
	return -1;
}

static int lat_add(struct acc *a, uint64_t v)
{
	if (a->nlat == a->caplat) {
		size_t cap = a->caplat ? 2 * a->caplat : 16;
		uint64_t *l = realloc(a->lat, cap * sizeof(*l));

		if (!l)
			return scx_fail("out of memory");
		a->lat = l;
		a->caplat = cap;
	}
	a->lat[a->nlat++] = v;
	return 0;
}

static int acc_merge(struct acc *to, const struct acc *from)
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
	if ((size_t)cpu >= s->ncpus) {
		size_t n = s->ncpus ? s->ncpus : 16;
		struct cpu *c;

		while (n <= (size_t)cpu)
			n *= 2;
		if (!(c = realloc(s->cpus, n * sizeof(*c)))) {
			scx_fail("out of memory");
			return NULL;
		}
		memset(c + s->ncpus, 0, (n - s->ncpus) * sizeof(*c));
		s->cpus = c;
		s->ncpus = n;
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
		if (!(t = thread_get(s, c->cur)))
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
		if (s->keep && !t->ignored && !t->asked) {
			t->asked = true;
			if (!s->keep(t->tid, t->pid, s->keep_ctx) && thread_drop(s, t) < 0)
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t rank(const uint64_t *v, size_t n, unsigned pct)
{
	size_t k = (n * pct + 99) / 100; /* nearest rank: ceil(p/100 * n) */

	return v[k ? k - 1 : 0];
}

static void put_row(struct jsonw *w, const struct stats *s, struct row *r, uint64_t dur)
{
	enum sched_stats_by by = s->o->by;
	struct acc *a = &r->a;
	static const char *const names[] = {"thread", "process", "comm", "cpu", "llc", "node"};

	jsonw_obj_open(w);
	if (by == BY_COMM)
		jsonw_kv_str(w, "comm", r->comm ? r->comm : "");
	else
		jsonw_kv_i64(w, names[by], r->num);
	if (by == BY_THREAD) {
		jsonw_kv_i64(w, "pid", r->pid);
		jsonw_kv_str(w, "comm", r->comm ? r->comm : "");
	} else if (by == BY_PROCESS) {
		jsonw_kv_str(w, "comm", r->comm ? r->comm : "");
	}
	if (by >= BY_CPU)
		jsonw_kv_u64(w, "cpus", r->ncpus);
	jsonw_kv_u64(w, "runtime_ns", a->runtime);
	jsonw_key(w, "util_pct");
	jsonw_double(w, dur ? (double)a->runtime * 100.0 / ((double)dur * (by >= BY_CPU && r->ncpus ? r->ncpus : 1)) : 0.0, 3);
	jsonw_key(w, "switches");
	jsonw_obj_open(w);
	jsonw_kv_u64(w, "total", a->vol + a->invol);
	jsonw_kv_u64(w, "voluntary", a->vol);
	jsonw_kv_u64(w, "involuntary", a->invol);
	jsonw_obj_close(w);
	jsonw_kv_u64(w, "wakeups", a->wakeups);
	jsonw_kv_u64(w, "wakings", a->wakings);
	jsonw_kv_u64(w, "migrations", a->migrations);
	jsonw_key(w, "latency_ns");
	jsonw_obj_open(w);
	jsonw_kv_u64(w, "count", a->nlat);
	if (a->nlat) {
		uint64_t sum = 0;

		if (a->nlat)
			qsort(a->lat, a->nlat, sizeof(uint64_t), cmp_u64);
		for (size_t i = 0; i < a->nlat; i++)
			sum += a->lat[i];
		jsonw_kv_u64(w, "min", a->lat[0]);
		jsonw_key(w, "avg");
		jsonw_double(w, (double)sum / (double)a->nlat, 1);
		jsonw_kv_u64(w, "p50", rank(a->lat, a->nlat, 50));
		jsonw_kv_u64(w, "p99", rank(a->lat, a->nlat, 99));
		jsonw_kv_u64(w, "max", a->lat[a->nlat - 1]);
	} else {
		const char *k[] = {"min", "avg", "p50", "p99", "max"};

		for (size_t i = 0; i < 5; i++) {
			jsonw_key(w, k[i]);
			jsonw_null(w);
		}
	}
	jsonw_obj_close(w);
	jsonw_obj_close(w);
}

static enum sched_stats_by sort_by;
static int cmp_row(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->a.runtime != b->a.runtime)
		return a->a.runtime > b->a.runtime ? -1 : 1;
	if (sort_by == BY_COMM)
		return strcmp(a->comm ? a->comm : "", b->comm ? b->comm : "");
	return a->num < b->num ? -1 : a->num > b->num;
}

static int cmp_thread_comm(const void *x, const void *y)
{
	const struct thread *a = *(struct thread *const *)x, *b = *(struct thread *const *)y;

	return strcmp(a->comm ? a->comm : "", b->comm ? b->comm : "");
}

/* topology.json: cpu -> llc and node; -1 for CPUs it does not list */
static int load_topology(const char *path, int64_t **llc, int64_t **node, size_t *n)
{
	struct topology topo;
	size_t i;
	int rc = -1;

	*llc = *node = NULL;
	*n = 0;
	if (topology_read(path, &topo) < 0)
		return -1;
	for (i = 0; i < topo.n; i++) {
		const struct topology_cpu *e = &topo.cpus[i];

		if (!e->has_cpu || e->cpu < 0 || e->cpu >= (1 << 20) || !e->has_llc || !e->has_node) {
			scx_fail("%s: cpus[%zu]: needs \"cpu\", \"llc\" and \"node\"", path, i);
			goto out;
		}
		if ((size_t)e->cpu >= *n) {
			size_t m = (size_t)e->cpu + 1;
			int64_t *a = realloc(*llc, m * sizeof(int64_t)), *b;

			if (!a)
				goto oom;
			*llc = a;
			if (!(b = realloc(*node, m * sizeof(int64_t))))
				goto oom;
			*node = b;
			for (size_t j = *n; j < m; j++)
				a[j] = b[j] = -1;
			*n = m;
		}
		(*llc)[e->cpu] = e->llc;
		(*node)[e->cpu] = e->node;
	}
	rc = 0;
	goto out;
oom:
	scx_fail("out of memory");
out:
	topology_free(&topo);
	if (rc) {
		free(*llc);
		free(*node);
		*llc = *node = NULL;
	}
	return rc;
}

static int build_rows(struct stats *s, struct row **rows_out, size_t *nrows_out)
{
	enum sched_stats_by by = s->o->by;
	struct row *rows = NULL;
	size_t nrows = 0, i;
	struct u64map idx;
	int64_t *llc = NULL, *node = NULL;
	size_t ntopo = 0;
	int rc = -1;

	u64map_init(&idx);
	if ((by == BY_LLC || by == BY_NODE) && load_topology(s->o->topology, &llc, &node, &ntopo) < 0)
		return -1;
	if (!(rows = calloc(s->nthreads + s->ncpus + 1, sizeof(*rows))))
		goto oom;
	if (by == BY_COMM)
		if (s->nthreads)
			qsort(s->threads, s->nthreads, sizeof(*s->threads), cmp_thread_comm);
	if (by <= BY_COMM) {
		for (i = 0; i < s->nthreads; i++) {
			struct thread *t = s->threads[i];
			struct row *r = NULL;
			int64_t key = by == BY_PROCESS ? (t->pid >= 0 ? t->pid : t->tid) : t->tid;

			if (by == BY_COMM && nrows && !strcmp(rows[nrows - 1].comm, t->comm ? t->comm : ""))
				r = &rows[nrows - 1];
			else if (by == BY_PROCESS && (r = u64map_get(&idx, (uint64_t)key)))
				r = &rows[(uintptr_t)r - 1];
			if (!r) {
				r = &rows[nrows++];
				r->num = key;
				r->tid = t->tid;
				r->pid = t->pid;
				r->comm = t->comm ? t->comm : "";
				if (by == BY_PROCESS && u64map_put(&idx, (uint64_t)key, (void *)(uintptr_t)nrows) < 0)
					goto out;
			}
			if (by == BY_PROCESS && t->tid == key && t->comm)
				r->comm = t->comm; /* the main thread names the process */
			if (acc_merge(&r->a, &t->a) < 0)
				goto out;
		}
	} else {
		for (i = 0; i < s->ncpus; i++) {
			struct cpu *c = &s->cpus[i];
			int64_t key = (int64_t)i;
			struct row *r;

			if (by != BY_CPU)
				key = i < ntopo ? (by == BY_LLC ? llc[i] : node[i]) : -1;
			if (by == BY_CPU && !c->seen)
				continue;
			/* CPUs the topology lists count in their group's capacity even if idle in the trace */
			if (by != BY_CPU && !c->seen && !(i < ntopo && (by == BY_LLC ? llc[i] : node[i]) != -1 &&
							   (by == BY_LLC ? llc[i] : node[i]) >= -1))
				continue;
			if ((r = u64map_get(&idx, (uint64_t)key))) {
				r = &rows[(uintptr_t)r - 1];
			} else {
				r = &rows[nrows++];
				r->num = key;
				if (u64map_put(&idx, (uint64_t)key, (void *)(uintptr_t)nrows) < 0)
					goto out;
			}
			r->ncpus++;
			if (acc_merge(&r->a, &c->a) < 0)
				goto out;
		}
		/* topology CPUs beyond the highest CPU seen */
		for (i = s->ncpus; i < ntopo; i++) {
			int64_t key = by == BY_LLC ? llc[i] : node[i];
			struct row *r = u64map_get(&idx, (uint64_t)key);

			if (key == -1 && !r)
				continue;
			if (r) {
				r = &rows[(uintptr_t)r - 1];
			} else {
				struct row *nr = realloc(rows, (nrows + 1) * sizeof(*rows) + sizeof(*rows));

				if (!nr)
					goto oom;
				rows = nr;
				memset(&rows[nrows], 0, sizeof(*rows));
				r = &rows[nrows++];
				r->num = key;
				if (u64map_put(&idx, (uint64_t)key, (void *)(uintptr_t)nrows) < 0)
					goto out;
			}
			r->ncpus++;
		}
	}
	*rows_out = rows;
	*nrows_out = nrows;
	rows = NULL;
	rc = 0;
	goto out;
oom:
	scx_fail("out of memory");
out:
	if (rows) {
		for (i = 0; i < nrows; i++)
			free(rows[i].a.lat);
		free(rows);
	}
	u64map_free(&idx);
	free(llc);
	free(node);
	return rc;
}

static void stats_free(struct stats *s)
{
	size_t i;

	for (i = 0; i < s->nthreads; i++) {
		if (!s->threads[i])
			continue;
		free(s->threads[i]->comm);
		free(s->threads[i]->a.lat);
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

static void collect_begin(struct stats *s)
{
	u64map_init(&s->tmap);
	u64map_init_cap(&s->dropped_big, U64MAP_SMALL);
}

static int collect_event(struct stats *s, const struct sched_event *ev)
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
static int collect_end(struct stats *s, const char *path, uint64_t *dur, size_t *cpu_count)
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
			if (!(t = thread_get(s, c->cur)))
				return -1;
			t->a.runtime += c->last_seen - c->since;
			c->a.runtime += c->last_seen - c->since;
		}
	}
	*dur = s->end > s->start ? s->end - s->start : 0;
	return compact_threads(s, true);
}

/* One pass over the input into s; *dur and *cpu_count of the trace. */
static int collect(struct stats *s, FILE *in, const char *path, uint64_t *dur, size_t *cpu_count)
{
	struct sched_reader *r;
	struct sched_event ev;
	int rc = -1, n;

	collect_begin(s);
	*cpu_count = 0;
	if (!(r = sched_events_open(in, path)))
		return -1;
	while ((n = sched_events_next(r, &ev)) > 0)
		if (collect_event(s, &ev) < 0)
			goto out;
	if (n == 0)
		rc = collect_end(s, path, dur, cpu_count);
out:
	sched_events_close(r);
	return rc;
}

/* -v: the count and the first breaks, each with its uncredited gap. */
static void log_breaks(FILE *log, const struct sched_chain_breaks *b)
{
	size_t i;

	fprintf(log, "sched stats: %llu broken switch chains (a switch's prev_pid is not the task the CPU's last switch put there), %.3f ms credited to no thread\n",
		(unsigned long long)b->count, (double)b->uncredited_ns / 1e6);
	for (i = 0; i < b->count && i < SCHED_CHAIN_BREAKS_KEPT; i++)
		fprintf(log, "  cpu %lld at %.6f s: prev_pid %lld, expected %lld; %.3f ms not credited\n",
			(long long)b->first[i].cpu, (double)b->first[i].time_ns / 1e9, (long long)b->first[i].prev_pid,
			(long long)b->first[i].expected_pid, (double)b->first[i].gap_ns / 1e6);
	if (b->count > SCHED_CHAIN_BREAKS_KEPT)
		fprintf(log, "  ... %llu more\n", (unsigned long long)(b->count - SCHED_CHAIN_BREAKS_KEPT));
}

/* -v: the threads the bound folded, and why. */
static void log_folds(FILE *log, const struct stats *s)
{
	fprintf(log, "sched stats: folded %llu threads with %.3f ms runtime (the most a folded thread had: %.3f ms) in %llu rounds: more than %zu threads live (--max-threads); a round folds half, none running, those waiting for no wakeup and with the least runtime first; they are in no key (folded_threads), a folded tid seen again counts anew\n",
		(unsigned long long)s->folds.count, (double)s->folds.runtime_ns / 1e6,
		(double)s->folds.max_runtime_ns / 1e6, (unsigned long long)s->folds.rounds, s->max_threads);
}

int sched_stats_run(const struct sched_stats_opts *o, FILE *in, FILE *out, FILE *log)
{
	static const char *const names[] = {"thread", "process", "comm", "cpu", "llc", "node"};
	struct stats s = {.o = o, .max_threads = o->max_threads ? o->max_threads : SCHED_STATS_DEFAULT_MAX_THREADS};
	struct row *rows = NULL;
	size_t nrows = 0, i, cpu_count = 0, shown;
	uint64_t dur = 0;
	struct jsonw w;
	int rc = -1;

	if (collect(&s, in, o->path, &dur, &cpu_count) < 0)
		goto out;
	if (build_rows(&s, &rows, &nrows) < 0)
		goto out;
	if (o->verbose && log)
		log_breaks(log, &s.breaks);
	if (o->verbose && log && s.folds.count)
		log_folds(log, &s);
	sort_by = o->by;
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), cmp_row);
	shown = o->limit > 0 && (size_t)o->limit < nrows ? (size_t)o->limit : nrows;
	jsonw_init(&w);
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "by", names[o->by]);
	jsonw_kv_u64(&w, "duration_ns", dur);
	jsonw_kv_u64(&w, "cpu_count", cpu_count);
	jsonw_kv_u64(&w, "keys_total", nrows);
	jsonw_key(&w, "broken_chains");
	jsonw_obj_open(&w);
	jsonw_kv_u64(&w, "count", s.breaks.count);
	jsonw_kv_u64(&w, "uncredited_ns", s.breaks.uncredited_ns);
	jsonw_obj_close(&w);
	if (s.folds.count) { /* only when the bound folded some: the output is otherwise the same as unbounded */
		jsonw_key(&w, "folded_threads");
		jsonw_obj_open(&w);
		jsonw_kv_u64(&w, "count", s.folds.count);
		jsonw_kv_u64(&w, "runtime_ns", s.folds.runtime_ns);
		jsonw_obj_close(&w);
	}
	jsonw_key(&w, "keys");
	jsonw_arr_open(&w);
	for (i = 0; i < shown; i++)
		put_row(&w, &s, &rows[i], dur);
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_newline(&w);
	rc = jsonw_flush_to(&w, out, "stdout");
	jsonw_free(&w);
out:
	for (i = 0; i < nrows; i++)
		free(rows[i].a.lat);
	free(rows);
	stats_free(&s);
	return rc;
}

/* The per-thread results of s into out (comms and latencies moved). */
static int threads_result(struct stats *s, struct sched_threads *out)
{
	size_t i;

	out->breaks = s->breaks;
	out->dropped = s->dropped;
	out->dropped_runtime_ns = s->ignored.a.runtime;
	if (!(out->v = calloc(s->nthreads ? s->nthreads : 1, sizeof(*out->v))))
		return scx_fail("out of memory");
	for (i = 0; i < s->nthreads; i++) {
		struct thread *t = s->threads[i];
		struct sched_thread_stats *d = &out->v[out->n++];

		d->tid = t->tid;
		d->pid = t->pid;
		d->comm = t->comm; /* moved */
		t->comm = NULL;
		d->runtime = t->a.runtime;
		d->wakeups = t->a.wakeups;
		d->migrations = t->a.migrations;
		d->lat = t->a.lat; /* moved */
		d->nlat = t->a.nlat;
		t->a.lat = NULL;
	}
	return 0;
}

int sched_stats_threads_read(FILE *in, const char *path, sched_thread_keep_fn keep, void *ctx,
			     struct sched_threads *out)
{
	struct sched_stats_opts o = {.path = path, .by = BY_THREAD};
	struct stats s = {.o = &o, .keep = keep, .keep_ctx = ctx};
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (collect(&s, in, path, &out->duration_ns, &out->cpu_count) == 0)
		rc = threads_result(&s, out);
	stats_free(&s);
	if (rc)
		sched_stats_threads_free(out);
	return rc;
}

struct sched_stats_feed {
	struct sched_stats_opts o;
	struct stats s;
};

struct sched_stats_feed *sched_stats_feed_new(const char *path, sched_thread_keep_fn keep, void *ctx)
{
	struct sched_stats_feed *f = calloc(1, sizeof(*f));

	if (!f) {
		scx_fail("out of memory");
		return NULL;
	}
	f->o.path = path;
	f->o.by = BY_THREAD;
	f->s.o = &f->o;
	f->s.keep = keep;
	f->s.keep_ctx = ctx;
	collect_begin(&f->s);
	return f;
}

int sched_stats_feed_event(struct sched_stats_feed *f, const struct sched_event *ev)
{
	return collect_event(&f->s, ev);
}

int sched_stats_feed_end(struct sched_stats_feed *f, struct sched_threads *out)
{
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (collect_end(&f->s, f->o.path, &out->duration_ns, &out->cpu_count) == 0)
		rc = threads_result(&f->s, out);
	sched_stats_feed_free(f);
	if (rc)
		sched_stats_threads_free(out);
	return rc;
}

void sched_stats_feed_free(struct sched_stats_feed *f)
{
	if (f) {
		stats_free(&f->s);
		free(f);
	}
}

void sched_stats_threads_free(struct sched_threads *t)
{
	for (size_t i = 0; t->v && i < t->n; i++) {
		free(t->v[i].comm);
		free(t->v[i].lat);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

uint64_t sched_stats_lat_rank(const uint64_t *sorted, size_t n, unsigned pct)
{
	return n ? rank(sorted, n, pct) : 0;
}
