/*
 * llc_order.c - the subcell order that minimises the predicted cross-LLC
 * share under the scx_mitosis model (see llc_order.h). The objective is
 * the profile figure's point from its pair directions: sum w (1 - p_i .
 * p_j) / sum w, p an actor's LLC shares in the layout of that order.
 */
#include "llc/llc_order.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

void llc_order_free(struct llc_share_result *r)
{
	for (size_t i = 0; i < r->nr_orders; i++) {
		for (size_t j = 0; r->orders[i].name && j < r->orders[i].nr; j++)
			free(r->orders[i].name[j]);
		free(r->orders[i].name);
		free(r->orders[i].cell_name);
		free(r->orders[i].order);
	}
	free(r->orders);
	r->orders = NULL;
	r->nr_orders = 0;
}

/* An actor, for the config cell being ordered. */
struct search_actor {
	bool mine;            /* in a cell of spec */
	unsigned mask;        /* the subcells (bits over u) its comm matches; when mine */
};

struct search {
	const struct llc_share *s;
	const struct llc_share_eval *e;
	struct llc_share_result *r;
	const double *demand;
	long spec;            /* the config cell being ordered */
	size_t n;             /* its non-catch-all subcells */
	size_t u[LLC_ORDER_MAX_SUBS]; /* their file indexes */
	struct search_actor *actor;
	const struct llc_pair_w **pw; /* the directions touching an actor of spec */
	size_t npw;
	double fixed_w, fixed_wp; /* the other directions: sum w, sum w P (whatever the order) */
	struct mitosis_layout lay;   /* rebalancing: the layout of the order being tried */
	float *ta, *tb;       /* the objective's scratch: a direction's two places' shares (nr_llcs) */
	double *sub_demand;   /* and, rebalancing, each place's demand */
};

/* An actor's place (index into r->mitosis' places) when spec's subcells are in order perm (positions). */
static size_t place_of(const struct search *q, size_t a, const size_t *rank)
{
	const struct llc_mitosis_result *m = &q->r->mitosis;
	size_t cell = (size_t)m->cells.cell_of[q->s->actors[a].cgroup], best = 0, bestrank = (size_t)-1;

	if (!q->actor[a].mine) {
		const struct cell *sp = m->cells.spec[cell] >= 0 ? &q->e->cfg->cells[m->cells.spec[cell]] : NULL;

		return m->base[cell] + (sp ? mitosis_match_subcell(sp, q->s->actors[a].comm, q->s->actors[a].comm_len) : 0);
	}
	for (size_t k = 0; k < q->n; k++)
		if ((q->actor[a].mask >> k & 1) && rank[k] < bestrank) {
			bestrank = rank[k];
			best = rank[k] + 1;
		}
	return m->base[cell] + best;
}

/* The shares of place p: from the model's layout, or (rebalancing) the order's own. */
static const float *dist_of(const struct search *q, size_t p, float *tmp)
{
	const struct llc_mitosis_result *m = &q->r->mitosis;
	size_t cell = 0;

	if (!q->e->mitosis.rebalancing)
		return &m->dist[p * m->stride];
	while (cell + 1 < m->cells.nr && m->base[cell + 1] <= p)
		cell++;
	{
		const struct llc_map *map = q->e->map;
		struct mitosis_topo t = {map->nr_cpus, map->llc_of, map->node_of, NULL, map->nr_llcs, map->nr_nodes};

		mitosis_run_dist(&t, &q->lay.cells[cell].subs[p - m->base[cell]], tmp, NULL);
	}
	return tmp;
}

/* The objective of one order (rank[k]: position of u[k]); -1 (scx_fail) when the layout fails. */
static double objective(struct search *q, const size_t *rank)
{
	const struct llc_mitosis_result *m = &q->r->mitosis;
	double w = q->fixed_w, wp = q->fixed_wp;

	if (q->e->mitosis.rebalancing) { /* the demands follow the subcells to their new ids */
		const struct llc_map *map = q->e->map;
		struct mitosis_topo t = {map->nr_cpus, map->llc_of, map->node_of, NULL, map->nr_llcs, map->nr_nodes};
		struct mitosis_cell_in *in = calloc(m->cells.nr + 1, sizeof(*in));
		int rc;

		if (!in)
			return scx_fail("out of memory");
		memset(q->sub_demand, 0, m->base[m->cells.nr] * sizeof(double));
		for (size_t a = 0; a < q->s->nr_actors; a++)
			q->sub_demand[place_of(q, a, rank)] += q->demand[a];
		for (size_t i = 0; i < m->cells.nr; i++)
			in[i] = (struct mitosis_cell_in){NULL, 0, m->base[i + 1] - m->base[i], &q->sub_demand[m->base[i]]};
		mitosis_layout_free(&q->lay);
		rc = mitosis_layout(&t, &q->e->mitosis, in, m->cells.nr, &q->lay);
		free(in);
		if (rc < 0)
			return -1;
	}
	for (size_t k = 0; k < q->npw; k++) {
		const struct llc_pair_w *d = q->pw[k];
		const float *a = dist_of(q, place_of(q, d->i, rank), q->ta), *b = dist_of(q, place_of(q, d->j, rank), q->tb);

		w += d->w;
		wp += d->w * mitosis_pcross(a, b, q->e->map->nr_llcs);
	}
	return w > 0 ? wp / w : 0;
}

static bool next_perm(size_t *v, size_t n)
{
	size_t i, j;

	if (n < 2)
		return false;
	for (i = n - 1; i > 0 && v[i - 1] >= v[i]; i--)
		;
	if (!i)
		return false;
	for (j = n - 1; v[j] <= v[i - 1]; j--)
		;
	size_t t = v[i - 1];
	v[i - 1] = v[j];
	v[j] = t;
	for (j = n - 1; i < j; i++, j--)
		t = v[i], v[i] = v[j], v[j] = t;
	return true;
}

/* Order config cell spec; its entry into r->orders. */
static int order_spec(struct search *q, struct llc_order *out)
{
	const struct cell *c = &q->e->cfg->cells[q->spec];
	size_t perm[LLC_ORDER_MAX_SUBS], rank[LLC_ORDER_MAX_SUBS], best[LLC_ORDER_MAX_SUBS], k;
	double bestv = 2;

	if (!(out->order = calloc(c->nr_subcells + 1, sizeof(size_t))))
		return scx_fail("out of memory");
	for (k = 0; k < q->n; k++)
		perm[k] = k; /* perm[pos] = k: u[k] is written at position pos */
	do {
		double v;

		for (k = 0; k < q->n; k++)
			rank[perm[k]] = k;
		if ((v = objective(q, rank)) < 0)
			return -1;
		if (!out->tried)
			out->written = v;
		out->tried++;
		if (v < bestv - 1e-12) { /* ties: the earliest order (the written one first) */
			bestv = v;
			memcpy(best, perm, sizeof(best));
		}
	} while (next_perm(perm, q->n));
	out->best = bestv;
	out->cell = q->spec;
	out->nr = c->nr_subcells;
	if (!(out->name = calloc(c->nr_subcells + 1, sizeof(char *))) || !(out->cell_name = strdup(c->name)))
		return scx_fail("out of memory");
	for (size_t j = 0; j < c->nr_subcells; j++)
		if (!(out->name[j] = strdup(c->subcells[j].name)))
			return scx_fail("out of memory");
	/* the written order with the non-catch-all subcells' positions taken in the best order */
	for (size_t j = 0, pos = 0; j < c->nr_subcells; j++) {
		bool ca = true;

		for (k = 0; k < q->n; k++)
			ca &= q->u[k] != j;
		out->order[j] = ca ? j : q->u[best[pos++]];
	}
	return 0;
}

int llc_order_choose(const struct llc_share *s, const struct llc_share_eval *e, const double *demand,
		     struct llc_share_result *r)
{
	const struct llc_mitosis_result *m = &r->mitosis;
	struct search q = {.s = s, .e = e, .r = r, .demand = demand};
	int rc = -1;

	if (!m->ran || !r->npw)
		return 0;
	if (!(q.actor = calloc(s->nr_actors + 1, sizeof(*q.actor))) || !(q.pw = calloc(r->npw + 1, sizeof(*q.pw))) ||
	    !(q.ta = malloc((e->map->nr_llcs + 1) * sizeof(float))) || !(q.tb = malloc((e->map->nr_llcs + 1) * sizeof(float))) ||
	    !(q.sub_demand = calloc(m->base[m->cells.nr] + 1, sizeof(double))) ||
	    !(r->orders = calloc(e->cfg->nr_cells + 1, sizeof(*r->orders)))) {
		scx_fail("out of memory");
		goto out;
	}
	for (size_t ci = 0; ci < e->cfg->nr_cells; ci++) {
		const struct cell *c = &e->cfg->cells[ci];
		long *id = calloc(c->nr_subcells + 1, sizeof(long));
		size_t nr;

		if (!id) {
			scx_fail("out of memory");
			goto out;
		}
		mitosis_subcell_ids(c, id, &nr);
		q.n = 0;
		for (size_t j = 0; j < c->nr_subcells && q.n <= LLC_ORDER_MAX_SUBS; j++)
			if (id[j] > 0 && q.n < LLC_ORDER_MAX_SUBS + 1)
				q.u[q.n < LLC_ORDER_MAX_SUBS ? q.n : 0] = j, q.n++;
		free(id);
		if (q.n < 2 || q.n > LLC_ORDER_MAX_SUBS)
			continue;
		q.spec = (long)ci;
		/* each actor of a cell of this spec: the subcells its comm matches */
		for (size_t a = 0; a < s->nr_actors; a++) {
			const struct llc_actor *ac = &s->actors[a];
			size_t cell = (size_t)m->cells.cell_of[ac->cgroup];

			q.actor[a].mine = m->cells.spec[cell] == (long)ci;
			q.actor[a].mask = 0;
			for (size_t k = 0; q.actor[a].mine && k < q.n; k++) {
				const struct cell *sc = &c->subcells[q.u[k]];

				for (size_t x = 0; x < sc->nr_clauses; x++) {
					const char *p = sc->clauses[x].comm_prefix;
					size_t pl = p ? strnlen(p, 15) : 0, cl = ac->comm_len < 15 ? ac->comm_len : 15;

					if (p && pl <= cl && !memcmp(ac->comm, p, pl))
						q.actor[a].mask |= 1u << k;
				}
			}
		}
		q.npw = 0;
		q.fixed_w = q.fixed_wp = 0;
		for (size_t k = 0; k < r->npw; k++) {
			const struct llc_pair_w *d = &r->pw[k];

			if (q.actor[d->i].mine || q.actor[d->j].mine) {
				q.pw[q.npw++] = d;
			} else {
				const float *a = &m->dist[place_of(&q, d->i, NULL) * m->stride],
					    *b = &m->dist[place_of(&q, d->j, NULL) * m->stride];

				q.fixed_w += d->w;
				q.fixed_wp += d->w * mitosis_pcross(a, b, e->map->nr_llcs);
			}
		}
		r->nr_orders++;
		if (order_spec(&q, &r->orders[r->nr_orders - 1]) < 0)
			goto out;
	}
	rc = 0;
out:
	mitosis_layout_free(&q.lay);
	free(q.actor);
	free(q.pw);
	free(q.ta);
	free(q.tb);
	free(q.sub_demand);
	return rc;
}
