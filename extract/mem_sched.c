/*
 * mem_sched.c - sched.jsonl stats per extract mem cell, unit and subcell
 * (see mem_sched.h). Thread counts are small, so each question is a scan
 * over all threads.
 */
#include "extract/mem_sched.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

#define NOT_IN_CELL (-2)
#define CELL_REST (-1)

int mem_sched_load(struct mem_sched *m, const char *path)
{
	FILE *f = fopen(path, "r");
	int rc;

	memset(m, 0, sizeof(*m));
	m->path = path;
	if (!f)
		return scx_fail_errno("%s: cannot open", path);
	rc = sched_threads_read(f, path, &m->st);
	fclose(f);
	return rc;
}

void mem_sched_free(struct mem_sched *m)
{
	sched_threads_free(&m->st);
}

/* Unit index of thread i in the cell of kind, CELL_REST or NOT_IN_CELL. */
static long thread_unit(const struct mem_sched *m, const struct mem_agg *a, enum group_kind kind,
			const struct unit_list *u, size_t i)
{
	const struct sched_thread_stats *t = &m->st.v[i];
	const uint64_t *g = u64cnt_find(&a->tid_group, (uint64_t)t->tid), *h;
	const char *comm = t->comm ? t->comm : "";
	size_t len, j;

	if (!g || a->groups[*g - 1].kind != kind)
		return NOT_IN_CELL;
	h = u64cnt_find(&a->tid_hint, (uint64_t)t->tid);
	len = normalize_comm(comm, strlen(comm));
	for (j = 0; u && j < u->n; j++) {
		const struct unit *x = &u->v[j];

		if (strlen(x->comm->name) == len && !memcmp(x->comm->name, comm, len) &&
		    (!x->by_hint || (h && *h == x->hint)))
			return (long)j;
	}
	return CELL_REST;
}

int mem_sched_demand(const struct mem_sched *m, const struct mem_agg *a, enum group_kind kind,
		     const struct unit_list *u, double *demand)
{
	double dur = (double)m->st.duration_ns;
	size_t i;

	for (i = 0; i < u->n; i++)
		demand[i] = 0;
	for (i = 0; i < m->st.n; i++) {
		long k = thread_unit(m, a, kind, u, i);

		if (k >= 0 && dur > 0)
			demand[k] += (double)m->st.v[i].runtime / dur;
	}
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* Print the line of the threads where sel[i] is set. */
static int report_line(FILE *log, const struct mem_sched *m, const bool *sel, const char *cell, const char *sub)
{
	uint64_t runtime = 0, wakeups = 0, migrations = 0, *lat;
	size_t i, nlat = 0;
	double dur = (double)m->st.duration_ns, cpus;

	for (i = 0; i < m->st.n; i++)
		if (sel[i])
			nlat += m->st.v[i].nlat;
	if (!(lat = malloc((nlat ? nlat : 1) * sizeof(*lat))))
		return scx_fail("out of memory");
	nlat = 0;
	for (i = 0; i < m->st.n; i++) {
		const struct sched_thread_stats *t = &m->st.v[i];

		if (!sel[i])
			continue;
		runtime += t->runtime;
		wakeups += t->wakeups;
		migrations += t->migrations;
		if (t->nlat) /* a thread without wakeups has no list */
			memcpy(lat + nlat, t->lat, t->nlat * sizeof(*lat));
		nlat += t->nlat;
	}
	if (nlat)
		qsort(lat, nlat, sizeof(*lat), cmp_u64);
	cpus = dur > 0 ? (double)runtime / dur : 0;
	fprintf(log, "  sched %s%s%s: cpu %.2f (%.1f%%), runtime %.1f ms, wakeups %llu, ", cell, sub ? "/" : "",
		sub ? sub : "", cpus, m->st.cpu_count ? cpus * 100.0 / (double)m->st.cpu_count : 0.0,
		(double)runtime / 1e6, (unsigned long long)wakeups);
	if (nlat)
		fprintf(log, "latency p50 %.1f us p99 %.1f us", (double)sched_lat_rank(lat, nlat, 50) / 1e3,
			(double)sched_lat_rank(lat, nlat, 99) / 1e3);
	else
		fprintf(log, "latency p50 - p99 -");
	fprintf(log, ", migrations %llu\n", (unsigned long long)migrations);
	free(lat);
	return 0;
}

int mem_sched_report(FILE *log, const struct mem_sched *m, const struct mem_agg *a, enum group_kind kind,
		     const char *cell_name, const struct unit_list *u, const struct clustering *cl)
{
	size_t i, j, nsub = u ? (cl ? cl->n : u->n) : 0;
	long *of = calloc(m->st.n ? m->st.n : 1, sizeof(*of));
	bool *sel = calloc(m->st.n ? m->st.n : 1, sizeof(*sel));
	int rc = -1;

	if (!of || !sel) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < m->st.n; i++) {
		of[i] = thread_unit(m, a, kind, u, i);
		sel[i] = of[i] != NOT_IN_CELL;
	}
	if (report_line(log, m, sel, cell_name, NULL) < 0)
		goto out;
	for (j = 0; j < nsub; j++) {
		char *name;

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
		name = cl ? unit_cluster_name(u, &cl->v[j]) : strdup(u->v[j].name);
		if (!name) {
			scx_fail("out of memory");
			goto out;
		}
		rc = report_line(log, m, sel, cell_name, name);
		free(name);
		if (rc < 0)
			goto out;
		rc = -1;
	}
	if (nsub) {
		for (i = 0; i < m->st.n; i++)
			sel[i] = of[i] == CELL_REST;
		if (report_line(log, m, sel, cell_name, "rest") < 0)
			goto out;
	}
	rc = 0;
out:
	free(of);
	free(sel);
	return rc;
}
