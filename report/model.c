/*
 * model.c - fills the report's model from extract mem's per-cell results
 * (see model.h): copies what the page needs out of extract's structures,
 * which live only during the callback, and computes the affinity matrix
 * and each merge's evidence from the same evidence vectors the clustering
 * used (extract/sharing.h).
 */
#include "report/model.h"

#include <stdlib.h>
#include <string.h>

#include "extract/mem_agg.h"
#include "extract/mem_groups.h"
#include "extract/sharing.h"
#include "lib/error.h"

static char *dup_or_fail(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		scx_fail("out of memory");
	return d;
}

static uint64_t kind_samples(const struct mem_agg *a, int kind)
{
	uint64_t n = 0;
	size_t g;

	for (g = 0; g < a->nr_groups; g++)
		if ((int)a->groups[g].kind == kind)
			n += a->groups[g].count;
	return n;
}

static int copy_units(struct model_cell *c, const struct unit_list *u)
{
	size_t i;

	if (!(c->units = calloc(u->n ? u->n : 1, sizeof(*c->units))))
		return scx_fail("out of memory");
	c->nunits = u->n;
	for (i = 0; i < u->n; i++) {
		struct model_unit *m = &c->units[i];

		if (!(m->name = dup_or_fail(u->v[i].name)) || !(m->comm = dup_or_fail(u->v[i].comm->name)))
			return -1;
		m->by_hint = u->v[i].by_hint;
		m->hint = u->v[i].hint;
		m->samples = u->v[i].count;
	}
	return 0;
}

/* Evidence of every unit of the cell (raw weights, sorted by key). */
static struct evidence *all_evidence(const struct mem_agg *a, const struct unit_list *u)
{
	struct evidence *ev = calloc(u->n ? u->n : 1, sizeof(*ev));
	size_t i;

	if (!ev) {
		scx_fail("out of memory");
		return NULL;
	}
	for (i = 0; i < u->n; i++)
		if (evidence_of_unit(a, &u->v[i], &ev[i]) < 0) {
			while (i--)
				evidence_free(&ev[i]);
			free(ev);
			return NULL;
		}
	return ev;
}

/* Keep the MODEL_TOP_KEYS heaviest keys, heaviest first. */
static void put_top(struct model_merge *g, uint64_t key, double w, size_t units)
{
	unsigned shift = (unsigned)(key & 63);
	size_t i;

	if (g->ntop < MODEL_TOP_KEYS)
		i = g->ntop++;
	else if (w > g->top[MODEL_TOP_KEYS - 1].weight)
		i = MODEL_TOP_KEYS - 1;
	else
		return;
	g->top[i].addr = (key >> 6) << shift;
	g->top[i].size = 1ULL << shift;
	g->top[i].weight = w;
	g->top[i].units = units;
	for (; i > 0 && g->top[i - 1].weight < g->top[i].weight; i--) {
		struct model_shared_key t = g->top[i - 1];

		g->top[i - 1] = g->top[i];
		g->top[i] = t;
	}
}

/*
 * The evidence of one merged cluster: which keys two or more members
 * touched, each member's share of its weight on them, the heaviest ones.
 */
static int merge_evidence(const struct unit_cluster *cl, const struct evidence *ev, const double *aff,
			  size_t nunits, struct model_merge *g)
{
	struct u64cnt members, weight;
	size_t i, j, pairs = 0;
	uint64_t k, v, *slot;
	size_t pos = 0;
	int rc = -1;

	u64cnt_init(&members);
	u64cnt_init(&weight);
	if (!(g->m = calloc(cl->n, sizeof(*g->m)))) {
		scx_fail("out of memory");
		goto out;
	}
	g->nm = cl->n;
	g->min_pair_affinity = 1;
	for (i = 0; i < cl->n; i++) {
		const struct evidence *e = &ev[cl->members[i]];

		g->m[i].unit = cl->members[i];
		g->m[i].keys = e->n;
		for (j = 0; j < e->n; j++) {
			if (!(slot = u64cnt_slot(&members, e->keys[j])))
				goto oom;
			(*slot)++;
			if (!(slot = u64cnt_slot(&weight, e->keys[j])))
				goto oom;
			*slot += (uint64_t)e->w[j];
		}
		for (j = i + 1; j < cl->n; j++) {
			double x = aff[cl->members[i] * nunits + cl->members[j]];

			g->mean_pair_affinity += x;
			g->min_pair_affinity = x < g->min_pair_affinity ? x : g->min_pair_affinity;
			pairs++;
		}
	}
	if (pairs)
		g->mean_pair_affinity /= (double)pairs;
	for (i = 0; i < cl->n; i++) {
		const struct evidence *e = &ev[cl->members[i]];
		double on_shared = 0;

		for (j = 0; j < e->n; j++)
			if (*u64cnt_find(&members, e->keys[j]) >= 2) {
				on_shared += e->w[j];
				g->m[i].shared++;
			}
		g->m[i].share = e->total > 0 ? on_shared / e->total : 0;
	}
	while (u64cnt_next(&members, &pos, &k, &v))
		if (v >= 2) {
			g->shared_keys++;
			put_top(g, k, (double)*u64cnt_find(&weight, k), (size_t)v);
		}
	rc = 0;
	goto out;
oom:
	scx_fail("out of memory");
out:
	u64cnt_free(&members);
	u64cnt_free(&weight);
	return rc;
}

static int add_sched(struct model *m, struct model_cell *c, const struct extract_mem_cell *x)
{
	struct mem_sched_line *v;
	size_t n, i;

	if (!x->sched)
		return 0;
	m->sched_duration_ns = x->sched->st.duration_ns;
	if (!m->has_tids) {
		size_t pos = 0;
		uint64_t key, count, *slot, *best_count;
		struct u64cnt best;

		/* a thread's kind: the group holding most of its samples (as mem_sched charges it) */
		u64cnt_init(&m->tid_kind);
		u64cnt_init(&best);
		m->has_tids = true;
		while (u64cnt_next(&x->agg->tid_groups, &pos, &key, &count)) {
			uint64_t tid = key >> 20, g = key & ((1u << 20) - 1);

			if (!(best_count = u64cnt_slot(&best, tid)) || !(slot = u64cnt_slot(&m->tid_kind, tid))) {
				u64cnt_free(&best);
				return scx_fail("out of memory");
			}
			if (count > *best_count) {
				*best_count = count;
				*slot = (uint64_t)x->agg->groups[g].kind + 1;
			}
		}
		u64cnt_free(&best);
	}
	if (mem_sched_lines(x->sched, x->agg, (enum group_kind)x->kind, x->units, x->cl, &v, &n) < 0)
		return -1;
	c->has_sched = true;
	c->sched = v[0];
	for (i = 1; i < n && i - 1 < c->nsubs; i++) {
		c->subs[i - 1].has_sched = true;
		c->subs[i - 1].sched = v[i];
		c->subs[i - 1].sched.name = NULL;
	}
	c->sched.name = NULL;
	mem_sched_lines_free(v, n);
	return 0;
}

/* Subcells: one per cluster (or unit), then "rest" when there are units. */
static int add_subcells(struct model *m, struct model_cell *c, const struct extract_mem_cell *x,
			const struct evidence *ev)
{
	const struct unit_list *u = x->units;
	size_t ns = x->cl ? x->cl->n : u->n, i, j;
	uint64_t in_units = 0;

	if (!u->n)
		return 0;
	if (!(c->subs = calloc(ns + 1, sizeof(*c->subs))))
		return scx_fail("out of memory");
	c->nsubs = ns + 1;
	for (i = 0; i < ns; i++) {
		struct model_subcell *s = &c->subs[i];
		size_t n = x->cl ? x->cl->v[i].n : 1;

		s->series = (long)m->nseries++;
		s->name = x->cl ? unit_cluster_name(u, &x->cl->v[i]) : strdup(u->v[i].name);
		if (!s->name || !(s->units = calloc(n, sizeof(size_t))))
			return scx_fail("out of memory");
		s->nunits = n;
		for (j = 0; j < n; j++) {
			s->units[j] = x->cl ? x->cl->v[i].members[j] : i;
			s->samples += u->v[s->units[j]].count;
			c->units[s->units[j]].subcell = i;
		}
		in_units += s->samples;
		if (x->cl) {
			s->demand = x->cl->v[i].demand;
			if (n > 1) {
				if (!(s->merge = calloc(1, sizeof(*s->merge))))
					return scx_fail("out of memory");
				if (merge_evidence(&x->cl->v[i], ev, c->aff, u->n, s->merge) < 0)
					return -1;
			}
		}
	}
	c->subs[ns].series = -1;
	if (!(c->subs[ns].name = dup_or_fail("rest")))
		return -1;
	c->subs[ns].samples = c->samples > in_units ? c->samples - in_units : 0;
	return 0;
}

int model_collect_cell(void *ctx, const struct extract_mem_cell *x)
{
	struct model *m = ctx;
	struct model_cell *c, *grown = realloc(m->cells, (m->ncells + 1) * sizeof(*m->cells));
	struct evidence *ev = NULL;
	size_t i;
	int rc = -1;

	if (!grown)
		return scx_fail("out of memory");
	m->cells = grown;
	c = &m->cells[m->ncells++];
	memset(c, 0, sizeof(*c));
	m->total_samples = x->agg->total;
	m->evidence_level = x->agg->level;
	m->line_granularity = x->agg->o.line_granularity;
	c->kind = x->kind;
	c->samples = kind_samples(x->agg, x->kind);
	if (!(c->name = dup_or_fail(x->name)) || copy_units(c, x->units) < 0)
		return -1;
	if (x->cl) {
		c->clustered = true;
		c->threshold = x->sp->threshold;
		c->cap_cpus = x->sp->cap_cpus;
		if (!(ev = all_evidence(x->agg, x->units)))
			return -1;
		if (!(c->aff = affinity_matrix(ev, x->units->n, x->sp->min_keys, x->sp->min_samples)))
			goto out;
	}
	if (add_subcells(m, c, x, ev) < 0 || add_sched(m, c, x) < 0)
		goto out;
	rc = 0;
out:
	for (i = 0; ev && i < x->units->n; i++)
		evidence_free(&ev[i]);
	free(ev);
	return rc;
}

static long unit_series(const struct model_cell *c, const char *comm, size_t len, uint64_t hint)
{
	size_t i;

	for (i = 0; i < c->nunits; i++) {
		const struct model_unit *u = &c->units[i];

		if (strlen(u->comm) == len && !memcmp(u->comm, comm, len) && (!u->by_hint || u->hint == hint))
			return c->subs[u->subcell].series;
	}
	return -1;
}

long model_series_of(void *ctx, int64_t tid, const char *comm, uint64_t hint)
{
	const struct model *m = ctx;
	size_t len = normalize_comm(comm, strlen(comm)), ci;
	const uint64_t *kind = m->has_tids ? u64cnt_find(&m->tid_kind, (uint64_t)tid) : NULL;
	long s;

	if (m->has_tids && !kind)
		return -1;
	for (ci = 0; ci < m->ncells; ci++) {
		if (kind && (uint64_t)m->cells[ci].kind + 1 != *kind)
			continue;
		if ((s = unit_series(&m->cells[ci], comm, len, hint)) >= 0 || kind)
			return s;
	}
	return -1;
}

void model_free(struct model *m)
{
	size_t ci, i;

	for (ci = 0; ci < m->ncells; ci++) {
		struct model_cell *c = &m->cells[ci];

		for (i = 0; i < c->nunits; i++) {
			free(c->units[i].name);
			free(c->units[i].comm);
		}
		for (i = 0; i < c->nsubs; i++) {
			free(c->subs[i].name);
			free(c->subs[i].units);
			if (c->subs[i].merge)
				free(c->subs[i].merge->m);
			free(c->subs[i].merge);
		}
		free(c->units);
		free(c->subs);
		free(c->aff);
		free(c->name);
	}
	free(m->cells);
	if (m->has_tids)
		u64cnt_free(&m->tid_kind);
	memset(m, 0, sizeof(*m));
}
