/*
 * sched_stats_rows.c - the keys of sched_stats (see
 * sched_stats_internal.h): thread, process, comm, cpu, llc and node rows
 * rolled up from the pass's threads and CPUs (llc and node from
 * topology.json), sorted, and each printed as one JSON object with its
 * exact latency percentiles.
 */
#include "extract/sched/sched_stats_internal.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extract/rec_topology.h"
#include "lib/error.h"
#include "lib/jsonw.h"
#include "lib/u64map.h"

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

void sched_stats_put_row(struct jsonw *w, const struct stats *s, struct row *r, uint64_t dur)
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

/* The recording's topology (or --topology's): cpu -> llc and node; -1 for CPUs it does not list */
static int load_topology(const struct sched_stats_opts *o, int64_t **llc, int64_t **node, size_t *n)
{
	struct rec_topology topo;
	size_t i, m;

	*llc = *node = NULL;
	*n = 0;
	if (rec_topology_load(o->path, o->topology, &topo) < 0)
		return -1;
	if (!topo.found)
		return scx_fail("--by %s: the recording has no topology (%s); give --topology FILE, or --topology host "
				"for this machine's", o->by == BY_LLC ? "llc" : "node", topo.none);
	m = (size_t)topo.t.cpus[topo.t.n - 1].cpu + 1; /* ascending, at least one */
	*llc = malloc(m * sizeof(int64_t));
	*node = malloc(m * sizeof(int64_t));
	if (!*llc || !*node) {
		free(*llc);
		free(*node);
		*llc = *node = NULL;
		rec_topology_unload(&topo);
		return scx_fail("out of memory");
	}
	for (i = 0; i < m; i++)
		(*llc)[i] = (*node)[i] = -1;
	for (i = 0; i < topo.t.n; i++) {
		(*llc)[topo.t.cpus[i].cpu] = topo.t.cpus[i].llc;
		(*node)[topo.t.cpus[i].cpu] = topo.t.cpus[i].node;
	}
	*n = m;
	rec_topology_unload(&topo);
	return 0;
}

int sched_stats_build_rows(struct stats *s, struct row **rows_out, size_t *nrows_out)
{
	enum sched_stats_by by = s->o->by;
	struct row *rows = NULL;
	size_t nrows = 0, i;
	struct u64map idx;
	int64_t *llc = NULL, *node = NULL;
	size_t ntopo = 0;
	int rc = -1;

	u64map_init(&idx);
	if ((by == BY_LLC || by == BY_NODE) && load_topology(s->o, &llc, &node, &ntopo) < 0)
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
			if (sched_stats_acc_merge(&r->a, &t->a) < 0)
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
			if (sched_stats_acc_merge(&r->a, &c->a) < 0)
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

void sched_stats_sort_rows(struct row *rows, size_t nrows, enum sched_stats_by by)
{
	sort_by = by;
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), cmp_row);
}

uint64_t sched_stats_lat_rank(const uint64_t *sorted, size_t n, unsigned pct)
{
	return n ? rank(sorted, n, pct) : 0;
}
