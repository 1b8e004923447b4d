/*
 * model.c - fills the report's model from extract mem's per-cell results
 * (see model.h): copies what the page needs out of extract's structures,
 * which live only during the callback: the affinity matrix, each merge's
 * evidence and the pairs that cannot tell, as extract's clustering hands
 * them out (extract/sharing/sharing.h's struct clustering).
 */
#include "report/model.h"

#include <stdlib.h>
#include <string.h>

#include "extract/extract.h"
#include "lib/error.h"

/* A copy of s ("" for NULL) that m's pool owns; NULL with scx_fail. */
static char *model_strdup(struct model *m, const char *s)
{
	char *d = mempool_strdup(&m->mem, s ? s : "");

	if (!d)
		scx_fail("out of memory");
	return d;
}

static int copy_units(struct model *mo, struct model_cell *c, const struct unit_list *u)
{
	size_t i;

	if (!(c->units = mempool_calloc(&mo->mem, u->n, sizeof(*c->units))))
		return scx_fail("out of memory");
	c->nunits = u->n;
	for (i = 0; i < u->n; i++) {
		struct model_unit *m = &c->units[i];

		if (!(m->name = model_strdup(mo, u->v[i].name)) || !(m->comm = model_strdup(mo, u->v[i].comm->name)))
			return -1;
		m->by_hint = u->v[i].by_hint;
		m->hint = u->v[i].hint;
		m->samples = u->v[i].count;
	}
	return 0;
}

/*
 * The evidence of one merged cluster, as extract's clustering hands it out:
 * each merge that built it with its strongest link (cl->merges), and the
 * mean and least affinity of its member pairs in the clustering's matrix.
 */
static int merge_evidence(struct model *mo, const struct extract_mem_cell *x, const struct unit_cluster *cl,
			  const double *aff, struct model_merge *g)
{
	const struct mem_agg *agg = x->agg;
	size_t n = x->units->n, i, k;

	if (!(g->links = mempool_calloc(&mo->mem, cl->nmerges + 1, sizeof(*g->links))))
		return scx_fail("out of memory");
	g->min_pair_affinity = cl->min_pair_affinity;
	g->mean_pair_affinity = cl->mean_pair_affinity;
	for (k = 0; k < cl->nmerges; k++) {
		const struct sharing_merge *m = &cl->merges[k];
		struct model_link *l = &g->links[g->nlinks++];

		*l = (struct model_link){.affinity = m->affinity, .demand = m->demand, .a = m->x, .b = m->y,
					 .keys = m->pe.keys, .samples_a = m->pe.samples_a, .samples_b = m->pe.samples_b,
					 .share_a = m->pe.share_a, .share_b = m->pe.share_b,
					 .unit_affinity = aff[m->x * n + m->y]};
		for (i = 0; i < m->nobj && i < sizeof(l->top) / sizeof(l->top[0]); i++) {
			l->top[i].share = m->obj_total > 0 ? m->obj[i].weight / m->obj_total : 0;
			if (m->obj[i].obj && !(l->top[i].name = model_strdup(mo, mem_agg_object_name(agg, m->obj[i].obj))))
				return -1;
			l->ntop++;
		}
	}
	return 0;
}

static int add_sched(struct model *m, struct model_cell *c, const struct extract_mem_cell *x)
{
	struct sched_cells_line *v;
	size_t n, i;

	if (!x->sched)
		return 0;
	m->sched_duration_ns = x->sched->st.duration_ns;
	if (!m->has_tids) {
		if (mem_agg_tid_kinds(x->agg, &m->tid_kind) < 0)
			return -1;
		m->has_tids = true;
	}
	if (sched_cells_lines(x->sched, x->agg, (enum group_kind)x->kind, x->units, x->cl, &v, &n) < 0)
		return -1;
	c->has_sched = true;
	c->sched = v[0];
	for (i = 1; i < n && i - 1 < c->nsubs; i++) {
		c->subs[i - 1].has_sched = true;
		c->subs[i - 1].sched = v[i];
		c->subs[i - 1].sched.name = NULL;
	}
	c->sched.name = NULL;
	sched_cells_lines_free(v, n);
	return 0;
}

/* Subcells: one per cluster (or unit), then "rest" when there are units. */
static int add_subcells(struct model *m, struct model_cell *c, const struct extract_mem_cell *x)
{
	const struct unit_list *u = x->units;
	size_t ns = x->cl ? x->cl->n : u->n, i, j;
	uint64_t in_units = 0;

	if (!u->n)
		return 0;
	if (!(c->subs = mempool_calloc(&m->mem, ns + 1, sizeof(*c->subs))))
		return scx_fail("out of memory");
	c->nsubs = ns + 1;
	for (i = 0; i < ns; i++) {
		struct model_subcell *s = &c->subs[i];
		size_t n = x->cl ? x->cl->v[i].n : 1;

		s->series = (long)m->nseries++;
		s->name = x->cl ? sharing_cluster_name(u, &x->cl->v[i]) : mempool_strdup(&m->mem, u->v[i].name);
		if (!s->name || (x->cl && mempool_adopt(&m->mem, s->name) < 0) ||
		    !(s->units = mempool_calloc(&m->mem, n, sizeof(size_t))))
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
				if (!(s->merge = mempool_calloc(&m->mem, 1, sizeof(*s->merge))))
					return scx_fail("out of memory");
				if (merge_evidence(m, x, &x->cl->v[i], c->aff, s->merge) < 0)
					return -1;
			}
		}
	}
	c->subs[ns].series = -1;
	if (!(c->subs[ns].name = model_strdup(m, "rest")))
		return -1;
	c->subs[ns].samples = c->samples > in_units ? c->samples - in_units : 0;
	return 0;
}

/*
 * The pairs whose line evidence cannot decide, as extract's clustering
 * hands them out (clustering.undecided), in -v's words (c->undecided).
 */
static int undecided_pairs(struct model *m, struct model_cell *c, const struct extract_mem_cell *x)
{
	const struct clustering *cl = x->cl;
	size_t n = x->units->n, len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	if (!f || !(c->unknown = mempool_calloc(&m->mem, n * n + 1, 1))) {
		if (f)
			fclose(f);
		free(buf);
		return scx_fail("out of memory");
	}
	for (size_t k = 0; k < cl->nr_undecided; k++) {
		size_t i = cl->undecided[k].a, j = cl->undecided[k].b;

		if (c->aff[i * n + j] <= 0 && c->aff[j * n + i] <= 0)
			c->unknown[i * n + j] = c->unknown[j * n + i] = 1;
		fprintf(f, "%s ~ %s\n", x->units->v[i].name, x->units->v[j].name);
		sharing_log_line_detail(f, "  ", &cl->undecided[k].pe, x->sp, cl->duration_s);
	}
	if (fclose(f) != 0) {
		free(buf);
		return scx_fail("out of memory");
	}
	if (!len) {
		free(buf);
		return 0;
	}
	if (mempool_adopt(&m->mem, buf) < 0)
		return scx_fail("out of memory");
	c->undecided = buf;
	return 0;
}

int model_collect_cell(void *ctx, const struct extract_mem_cell *x)
{
	struct model *m = ctx;
	struct model_cell *c, *grown = realloc(m->cells, (m->ncells + 1) * sizeof(*m->cells));

	if (!grown)
		return scx_fail("out of memory");
	m->cells = grown;
	c = &m->cells[m->ncells++];
	memset(c, 0, sizeof(*c));
	m->input = x->input;
	c->kind = x->kind;
	c->samples = x->samples;
	if (!(c->name = model_strdup(m, x->name)) || copy_units(m, c, x->units) < 0)
		return -1;
	if (x->cl) {
		c->clustered = true;
		c->threshold = x->sp->threshold;
		c->cap_cpus = x->sp->cap_cpus;
		/* the matrix the clustering used, as extract hands it out */
		if (!(c->aff = mempool_calloc(&m->mem, x->units->n * x->units->n + 1, sizeof(*c->aff))))
			return scx_fail("out of memory");
		memcpy(c->aff, x->cl->unit_aff, x->units->n * x->units->n * sizeof(*c->aff));
		if (undecided_pairs(m, c, x) < 0)
			return -1;
	}
	if (add_subcells(m, c, x) < 0 || add_sched(m, c, x) < 0)
		return -1;
	return 0;
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
	size_t len = comm_name_normalize(comm, strlen(comm)), ci;
	const uint64_t *kind = m->has_tids ? u64map_find(&m->tid_kind, (uint64_t)tid) : NULL;
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
	mempool_free(&m->mem);
	free(m->cells);
	if (m->has_tids)
		u64map_free(&m->tid_kind);
	memset(m, 0, sizeof(*m));
}
