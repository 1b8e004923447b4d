/*
 * thread_demand.c - every thread's CPU demand from the scheduling trace,
 * sampled or not, and where the config's reader puts it (see thread_demand.h).
 */
#include "llc/thread_demand.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/* Samples of one (tid or pid, cgroup), for the cgroup with the most. */
struct owner_cg {
	int64_t id;
	uint32_t cgroup;
	uint64_t samples;
	size_t actor; /* its actor with the most samples (the comm and hint of an unnamed thread) */
};

static int by_id_cgroup(const void *x, const void *y)
{
	const struct owner_cg *a = x, *b = y;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->cgroup < b->cgroup ? -1 : a->cgroup > b->cgroup;
}

/*
 * by[id] = index + 1 into v of the (id, cgroup) with the most samples
 * (ties: the lowest cgroup index), ids the actors' tids or pids. v is
 * sorted and summed in place; *nv its entries. -1 on OOM.
 */
static int best_cgroups(const struct llc_share *s, bool by_pid, struct owner_cg *v, size_t *nv, struct u64map *by)
{
	size_t i, n = 0, g;

	for (i = 0; i < s->nr_actors; i++) {
		int64_t id = by_pid ? s->actors[i].pid : s->actors[i].tid;

		if (id > 0)
			v[n++] = (struct owner_cg){id, s->actors[i].cgroup, s->actors[i].samples, i};
	}
	if (n)
		qsort(v, n, sizeof(*v), by_id_cgroup);
	for (g = 0, i = 0; i < n; g++) { /* sum each (id, cgroup) into v[g] */
		size_t j = i;

		v[g] = v[i];
		for (j = i + 1; j < n && v[j].id == v[i].id && v[j].cgroup == v[i].cgroup; j++) {
			v[g].samples += v[j].samples;
			if (s->actors[v[j].actor].samples > s->actors[v[g].actor].samples)
				v[g].actor = v[j].actor;
		}
		i = j;
	}
	*nv = g;
	for (i = 0; i < g; i++) {
		uint64_t *slot = u64map_slot(by, (uint64_t)v[i].id);

		if (!slot)
			return -1;
		if (!*slot || v[i].samples > v[*slot - 1].samples)
			*slot = i + 1;
	}
	return 0;
}

int llc_thread_demands(const struct llc_share *s, const struct sched_threads *st, const struct config_matcher *cm,
		       struct llc_thread_demand **out, size_t *n)
{
	struct owner_cg *tids = malloc((s->nr_actors + 1) * sizeof(*tids)), *pids = malloc((s->nr_actors + 1) * sizeof(*pids));
	struct llc_thread_demand *v = calloc(st->n + 1, sizeof(*v));
	struct u64map by_tid, by_pid;
	size_t i, ntid = 0, npid = 0, k = 0;
	int rc = -1;

	*out = NULL;
	*n = 0;
	u64map_init(&by_tid);
	u64map_init(&by_pid);
	if (!tids || !pids || !v) {
		scx_fail("out of memory");
		goto out;
	}
	if (best_cgroups(s, false, tids, &ntid, &by_tid) < 0 || best_cgroups(s, true, pids, &npid, &by_pid) < 0) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < st->n; i++) {
		const struct sched_thread_stats *t = &st->v[i];
		const uint64_t *own = t->tid > 0 ? u64map_find(&by_tid, (uint64_t)t->tid) : NULL;
		const uint64_t *proc = !own && t->pid > 0 ? u64map_find(&by_pid, (uint64_t)t->pid) : NULL;
		const struct owner_cg *o = own ? &tids[*own - 1] : proc ? &pids[*proc - 1] : NULL;
		const struct llc_actor *a;
		struct llc_thread_demand *d = &v[k];
		const char *cg;

		if (!o)
			continue; /* neither it nor its process was sampled: no cgroup, no cell */
		a = &s->actors[o->actor];
		cg = s->cgroup_names[o->cgroup];
		*d = (struct llc_thread_demand){.tid = t->tid, .pid = t->pid, .cgroup = cg, .runtime_ns = t->runtime,
						.by_process = !own};
		d->comm = t->comm ? t->comm : own ? a->comm : "";
		d->comm_len = t->comm ? strlen(t->comm) : own ? a->comm_len : 0;
		d->hint = own ? a->hint : 0;
		d->cpus = st->duration_ns ? (double)t->runtime / (double)st->duration_ns : 0;
		if (config_match(cm, cg, strlen(cg), d->comm, d->comm_len, d->hint, &d->cell, &d->sub) < 0)
			goto out;
		k++;
	}
	*out = v;
	*n = k;
	v = NULL;
	rc = 0;
out:
	free(v);
	free(tids);
	free(pids);
	u64map_free(&by_tid);
	u64map_free(&by_pid);
	return rc;
}
