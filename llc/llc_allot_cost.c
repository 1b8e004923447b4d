/*
 * llc_allot_cost.c - what the union allotment spec costs when the recorded
 * allotments run different programs (see llc.h): each allotment's cell and
 * the profile under the scx_mitosis model, with the union's subcells and
 * with only its own.
 */
#include "llc/llc.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/* The scx_mitosis model's figure of a scope, whichever model is the predicted one. */
static struct llc_est_fig mitosis_llc(const struct llc_share_result *r, const struct llc_share_fig *f)
{
	return r->model == LLC_MODEL_MITOSIS ? f->llc_predicted : f->llc_other;
}

/* cfg with its cell allot replaced by specs' cells, each with the union's subcells (shallow: free .cells only). */
static int replaced(const struct cell_config *cfg, size_t allot, const struct cell_config *specs, bool union_subs,
		    struct cell_config *out)
{
	out->nr_cells = 0;
	if (!(out->cells = malloc((cfg->nr_cells + specs->nr_cells) * sizeof(struct cell))))
		return scx_fail("out of memory");
	for (size_t i = 0; i < cfg->nr_cells; i++) {
		if (i != allot) {
			out->cells[out->nr_cells++] = cfg->cells[i];
			continue;
		}
		for (size_t k = 0; k < specs->nr_cells; k++) {
			struct cell c = specs->cells[k];

			if (union_subs) {
				c.subcells = cfg->cells[allot].subcells;
				c.nr_subcells = cfg->cells[allot].nr_subcells;
			}
			out->cells[out->nr_cells++] = c;
		}
	}
	return 0;
}

int llc_allot_cost(const struct llc_share *s, const struct llc_share_eval *e, const struct cell_config *cfg,
		   size_t allot, const struct cell_config *specs, struct llc_share_result *r)
{
	struct cell_config u = {0}, o = {0};
	struct llc_share_result ur, own;
	struct llc_share_eval w = *e;
	int rc = -1;

	memset(&ur, 0, sizeof(ur));
	memset(&own, 0, sizeof(own));
	if (allot >= cfg->nr_cells || specs->nr_cells < 2)
		return 0;
	if (replaced(cfg, allot, specs, true, &u) < 0 || replaced(cfg, allot, specs, false, &o) < 0)
		goto out;
	w.cfg = &u;
	if (llc_share_evaluate(s, &w, &ur) < 0)
		goto out;
	w.cfg = &o;
	if (llc_share_evaluate(s, &w, &own) < 0)
		goto out;
	if (!(r->allot.v = calloc(specs->nr_cells, sizeof(*r->allot.v)))) {
		scx_fail("out of memory");
		goto out;
	}
	/* the specs are cells allot .. allot + n - 1 of both configs */
	for (size_t k = 0; k < specs->nr_cells; k++) {
		struct llc_allot_cost *c = &r->allot.v[r->allot.n];

		if (!(c->cgroup = strdup(specs->cells[k].name))) {
			scx_fail("out of memory");
			goto out;
		}
		r->allot.n++;
		c->union_subcells = cfg->cells[allot].nr_subcells;
		c->own_subcells = specs->cells[k].nr_subcells;
		c->union_llc = mitosis_llc(&ur, &ur.cells[allot + k].f);
		c->own_llc = mitosis_llc(&own, &own.cells[allot + k].f);
	}
	r->allot.union_total = mitosis_llc(r, &r->total);
	r->allot.own_total = mitosis_llc(&own, &own.total);
	rc = 0;
out:
	llc_share_result_free(&ur);
	llc_share_result_free(&own);
	free(u.cells);
	free(o.cells);
	return rc;
}
