/*
 * sched_cells.c - sched.jsonl stats per extract mem cell, unit and subcell
 * (see extract_sched.h). Thread counts are small, so each question is a scan
 * over all threads.
 */
#include "extract/sched/extract_sched.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extract/mem/mem_agg.h"
#include "lib/error.h"

#define NOT_IN_CELL (-2)
#define CELL_REST (-1)

struct sampled {
	const struct mem_agg *a;
	struct u64map pids; /* pids with samples */
};

/* A thread with no samples of its own or of its process is never in a cell: no need to keep it. */
static bool sampled_thread(int64_t tid, int64_t pid, void *ctx)
{
	const struct sampled *x = ctx;

	return u64map_find(&x->a->tid_hint, (uint64_t)tid) || (pid > 0 && u64map_find(&x->pids, (uint64_t)pid));
}

/* The pids with samples, for sampled_thread. */
static int sampled_init(struct sampled *x, const struct mem_agg *a)
{
	size_t pos = 0;
	uint64_t k, v;

	x->a = a;
	u64map_init_cap(&x->pids, U64MAP_SMALL);
	while (u64map_next_u64(&a->pid_groups, &pos, &k, &v))
		if (!u64map_slot(&x->pids, MEM_AGG_TG_ID(k)))
			return -1;
	return 0;
}

int sched_cells_load(struct sched_cells *m, const char *path, const struct mem_agg *a)
{
	struct sampled x;
	FILE *f;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	m->path = path;
	if (sampled_init(&x, a) < 0)
		rc = -1;
	if (rc == 0 && !(f = fopen(path, "r")))
		rc = scx_fail_errno("%s: cannot open", path);
	else if (rc == 0) {
		rc = sched_stats_threads_read(f, path, sampled_thread, &x, &m->st);
		fclose(f);
	}
	u64map_free(&x.pids);
	return rc;
}

int sched_cells_begin(struct sched_cells *m, const char *label, const struct mem_agg *a)
{
	memset(m, 0, sizeof(*m));
	m->path = label;
	if (!(m->sampled = calloc(1, sizeof(*m->sampled))))
		return scx_fail("out of memory");
	if (sampled_init(m->sampled, a) < 0)
		return -1;
	if (!(m->feed = sched_stats_feed_new(label, sampled_thread, m->sampled)))
		return -1;
	return 0;
}

int sched_cells_begin_early(struct sched_cells *m, const char *label)
{
	memset(m, 0, sizeof(*m));
	m->path = label;
	if (!(m->feed = sched_stats_feed_new(label, NULL, NULL)))
		return -1;
	return 0;
}

int sched_cells_filter(struct sched_cells *m, const struct mem_agg *a)
{
	if (m->sampled)
		return 0; /* filtering since sched_cells_begin */
	if (!(m->sampled = calloc(1, sizeof(*m->sampled))))
		return scx_fail("out of memory");
	if (sampled_init(m->sampled, a) < 0)
		return -1;
	return sched_stats_feed_set_keep(m->feed, sampled_thread, m->sampled);
}

int sched_cells_event(struct sched_cells *m, const struct sched_event *ev)
{
	return sched_stats_feed_event(m->feed, ev);
}

int sched_cells_end(struct sched_cells *m)
{
	struct sched_stats_feed *f = m->feed;

	m->feed = NULL;
	return sched_stats_feed_end(f, &m->st);
}

void sched_cells_free(struct sched_cells *m)
{
	sched_stats_feed_free(m->feed);
	m->feed = NULL;
	if (m->sampled) {
		u64map_free(&m->sampled->pids);
		free(m->sampled);
		m->sampled = NULL;
	}
	sched_stats_threads_free(&m->st);
}

/*
 * Share of thread i's samples in the groups of kind, from its own samples,
 * else (never sampled) from its process's; *by_process says which. *major
 * is set when kind holds the largest share (ties: the first kind). 0 when
 * neither the thread nor its process was sampled.
 */
static double thread_share(const struct mem_agg *a, const struct sched_thread_stats *t, enum group_kind kind,
			   bool *major, bool *by_process)
{
	double per_kind[3] = {0, 0, 0}, total = 0;
	const struct u64map *map = &a->tid_groups;
	int64_t id = t->tid;
	size_t g;
	int k, best = 0;

	*by_process = false;
	for (int pass = 0; pass < 2 && total == 0; pass++) {
		if (pass == 1) {
			if (t->pid <= 0)
				break;
			map = &a->pid_groups;
			id = t->pid;
			*by_process = true;
		}
		for (g = 0; g < a->nr_groups; g++) {
			const uint64_t *c = u64map_find(map, MEM_AGG_TG_KEY(id, g));

			if (c) {
				per_kind[a->groups[g].kind] += (double)*c;
				total += (double)*c;
			}
		}
	}
	if (total == 0)
		*by_process = false;
	for (k = 1; k < 3; k++)
		if (per_kind[k] > per_kind[best])
			best = k;
	*major = total > 0 && best == (int)kind;
	return total > 0 ? per_kind[kind] / total : 0;
}

/* Unit index of thread i in the cell of kind, CELL_REST or NOT_IN_CELL; *share as above. */
static long thread_unit(const struct sched_cells *m, const struct mem_agg *a, enum group_kind kind,
			const struct unit_list *u, size_t i, double *share, bool *major)
{
	const struct sched_thread_stats *t = &m->st.v[i];
	const uint64_t *h;
	const char *comm = t->comm ? t->comm : "";
	size_t len, j;
	bool by_process;

	*share = thread_share(a, t, kind, major, &by_process);
	if (*share <= 0)
		return NOT_IN_CELL;
	h = u64map_find(&a->tid_hint, (uint64_t)t->tid);
	len = comm_name_normalize(comm, strlen(comm));
	for (j = 0; u && j < u->n; j++) {
		const struct unit *x = &u->v[j];

		if (strlen(x->comm->name) == len && !memcmp(x->comm->name, comm, len) &&
		    (!x->by_hint || (h && *h == x->hint)))
			return (long)j;
	}
	return CELL_REST;
}

int sched_cells_demand(const struct sched_cells *m, const struct mem_agg *a, enum group_kind kind,
		     const struct unit_list *u, double *demand)
{
	double dur = (double)m->st.duration_ns, share;
	size_t i;
	bool major;

	for (i = 0; i < u->n; i++)
		demand[i] = 0;
	for (i = 0; i < m->st.n; i++) {
		long k = thread_unit(m, a, kind, u, i, &share, &major);

		if (k >= 0 && dur > 0)
			demand[k] += (double)m->st.v[i].runtime * share / dur;
	}
	return 0;
}

/* At least this share of the traced CPU time unattributed: -v says what the cells' figures miss. */
#define UNATTRIBUTED_NOTE 0.25

int sched_cells_report_unattributed(FILE *log, const struct sched_cells *m, const struct mem_agg *a)
{
	size_t i, n = 0, by_pid = 0;
	uint64_t runtime = 0, pid_runtime = 0, all;
	bool major, by_process;

	for (i = 0, all = 0; i < m->st.n; i++) {
		const struct sched_thread_stats *t = &m->st.v[i];
		bool sampled = false;

		if (t->tid == 0)
			continue; /* the idle task */
		all += t->runtime;
		for (int k = 0; k < 3 && !sampled; k++)
			sampled = thread_share(a, t, (enum group_kind)k, &major, &by_process) > 0;
		if (!sampled) {
			n++;
			runtime += t->runtime;
		} else if (by_process) {
			by_pid++;
			pid_runtime += t->runtime;
		}
	}
	n += m->st.dropped; /* dropped while reading: neither they nor their process sampled */
	runtime += m->st.dropped_runtime_ns;
	fprintf(log, "\nsched attribution: %zu threads (%.1f ms) charged through their process (never sampled "
		     "themselves); unattributed (neither the thread nor its process sampled): %zu threads, %.1f ms\n",
		by_pid, (double)pid_runtime / 1e6, n, (double)runtime / 1e6);
	all += m->st.dropped_runtime_ns;
	if (all > 0 && (double)runtime >= UNATTRIBUTED_NOTE * (double)all)
		fprintf(log, "sched attribution: %.0f%% of the traced CPU time is unattributed, and the cpu and "
			     "runtime figures above leave it out (threads no sample names, e.g. processes that run "
			     "mostly in the kernel where the backend samples user mode only, as decode does); "
			     "`scxprof extract sched stats --by comm` on the sched JSONL names them\n",
			100.0 * (double)runtime / (double)all);
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/*
 * The numbers of the threads where sel[i] is set: runtime times share[i];
 * wakeups, migrations and latencies of the threads where major[i] is set.
 */
static int line_of(const struct sched_cells *m, const bool *sel, const double *share, const bool *major,
		   struct sched_cells_line *l)
{
	uint64_t *lat;
	size_t i, nlat = 0;
	double dur = (double)m->st.duration_ns;

	for (i = 0; i < m->st.n; i++)
		if (sel[i] && major[i])
			nlat += m->st.v[i].nlat;
	if (!(lat = malloc((nlat ? nlat : 1) * sizeof(*lat))))
		return scx_fail("out of memory");
	nlat = 0;
	for (i = 0; i < m->st.n; i++) {
		const struct sched_thread_stats *t = &m->st.v[i];

		if (!sel[i])
			continue;
		l->threads++;
		l->runtime_ns += (uint64_t)((double)t->runtime * share[i] + 0.5);
		if (!major[i])
			continue;
		l->wakeups += t->wakeups;
		l->migrations += t->migrations;
		if (t->nlat) /* a thread without wakeups has no list */
			memcpy(lat + nlat, t->lat, t->nlat * sizeof(*lat));
		nlat += t->nlat;
	}
	if (nlat) {
		qsort(lat, nlat, sizeof(*lat), cmp_u64);
		l->lat_p50_ns = sched_stats_lat_rank(lat, nlat, 50);
		l->lat_p99_ns = sched_stats_lat_rank(lat, nlat, 99);
	}
	l->nlat = nlat;
	l->cpus = dur > 0 ? (double)l->runtime_ns / dur : 0;
	l->cpu_pct = m->st.cpu_count ? l->cpus * 100.0 / (double)m->st.cpu_count : 0.0;
	free(lat);
	return 0;
}

void sched_cells_lines_free(struct sched_cells_line *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i].name);
	free(v);
}

int sched_cells_lines(const struct sched_cells *m, const struct mem_agg *a, enum group_kind kind,
		    const struct unit_list *u, const struct clustering *cl, struct sched_cells_line **out, size_t *n)
{
	size_t i, j, nsub = u ? (cl ? cl->n : u->n) : 0, nl = 1 + nsub + (nsub ? 1 : 0);
	long *of = calloc(m->st.n ? m->st.n : 1, sizeof(*of));
	bool *sel = calloc(m->st.n ? m->st.n : 1, sizeof(*sel)), *major = calloc(m->st.n ? m->st.n : 1, sizeof(*major));
	double *share = calloc(m->st.n ? m->st.n : 1, sizeof(*share));
	struct sched_cells_line *v = calloc(nl, sizeof(*v));
	int rc = -1;

	*out = NULL;
	*n = 0;
	if (!of || !sel || !major || !share || !v) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < m->st.n; i++) {
		of[i] = thread_unit(m, a, kind, u, i, &share[i], &major[i]);
		sel[i] = of[i] != NOT_IN_CELL;
	}
	if (line_of(m, sel, share, major, &v[0]) < 0)
		goto out;
	for (j = 0; j < nsub; j++) {
		for (i = 0; i < m->st.n; i++) {
			sel[i] = false;
			if (of[i] < 0)
				continue;
			if (!cl)
				sel[i] = (size_t)of[i] == j;
			else
				for (size_t k = 0; k < cl->v[j].n; k++)
					sel[i] = sel[i] || cl->v[j].members[k] == (size_t)of[i];
		}
		v[1 + j].name = cl ? sharing_cluster_name(u, &cl->v[j]) : strdup(u->v[j].name);
		if (!v[1 + j].name) {
			scx_fail("out of memory");
			goto out;
		}
		if (line_of(m, sel, share, major, &v[1 + j]) < 0)
			goto out;
	}
	if (nsub) {
		for (i = 0; i < m->st.n; i++)
			sel[i] = of[i] == CELL_REST;
		if (!(v[nl - 1].name = strdup("rest"))) {
			scx_fail("out of memory");
			goto out;
		}
		if (line_of(m, sel, share, major, &v[nl - 1]) < 0)
			goto out;
	}
	rc = 0;
	*out = v;
	*n = nl;
	v = NULL;
out:
	sched_cells_lines_free(v, nl);
	free(of);
	free(sel);
	free(major);
	free(share);
	return rc;
}

int sched_cells_report(FILE *log, const struct sched_cells *m, const struct mem_agg *a, enum group_kind kind,
		     const char *cell_name, const struct unit_list *u, const struct clustering *cl)
{
	struct sched_cells_line *v;
	size_t n, i;

	if (sched_cells_lines(m, a, kind, u, cl, &v, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		const struct sched_cells_line *l = &v[i];

		fprintf(log, "  sched %s%s%s: cpu %.2f (%.1f%%), runtime %.1f ms, wakeups %llu, ", cell_name,
			l->name ? "/" : "", l->name ? l->name : "", l->cpus, l->cpu_pct, (double)l->runtime_ns / 1e6,
			(unsigned long long)l->wakeups);
		if (l->nlat)
			fprintf(log, "latency p50 %.1f us p99 %.1f us", (double)l->lat_p50_ns / 1e3,
				(double)l->lat_p99_ns / 1e3);
		else
			fprintf(log, "latency p50 - p99 -");
		fprintf(log, ", migrations %llu\n", (unsigned long long)l->migrations);
	}
	sched_cells_lines_free(v, n);
	return 0;
}
