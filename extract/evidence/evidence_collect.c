/*
 * evidence_collect.c - one recording's evidence from extract mem's cells
 * (see evidence.h): for each cell, its units as the config has
 * them, and for each pair the statistics sharing_pair_evidence_at()
 * computes before it decides anything (extract/sharing/sharing.h), so that the
 * decision can be taken again on their sums over recordings.
 */
#include "extract/evidence/evidence.h"

#include <stdlib.h>
#include <string.h>

#include "extract/sharing/sharing.h"
#include "lib/error.h"

static char *dup_or_fail(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		scx_fail("out of memory");
	return d;
}

static int copy_unit(const struct unit *u, const struct evidence *e, double demand, struct evf_unit *out)
{
	size_t i;

	out->name = dup_or_fail(u->name);
	out->comm = dup_or_fail(u->comm ? u->comm->name : u->name);
	out->clauses = calloc(u->nr_clauses ? u->nr_clauses : 1, sizeof(*out->clauses));
	if (!out->name || !out->comm || !out->clauses)
		return scx_fail("out of memory");
	for (i = 0; i < u->nr_clauses; i++) {
		out->clauses[i] = u->clauses[i];
		out->clauses[i].comm_prefix = NULL;
		if (u->clauses[i].comm_prefix && !(out->clauses[i].comm_prefix = dup_or_fail(u->clauses[i].comm_prefix)))
			return -1;
		out->nr_clauses++;
	}
	out->by_hint = u->by_hint;
	out->hint = u->hint;
	out->samples = u->count;
	for (i = sharing_first_line_key(e); i < e->n; i++)
		out->line_samples += e->samples[i];
	out->weight = e->total;
	out->demand = demand;
	return 0;
}

/* The pair's statistics; false when all are zero (nothing in common). */
static bool pair_stats(const struct pair_evidence *pe, size_t a, size_t b, struct evf_pair *o)
{
	const struct line_estimate *l = &pe->line;

	*o = (struct evf_pair){
		.a = a, .b = b,
		/* sharing_pair_evidence_at() adds the line hits to the page counts: take them out */
		.keys = pe->keys - l->lines, .samples_a = pe->samples_a - l->ha, .samples_b = pe->samples_b - l->hb,
		.wa = pe->page_wa, .wb = pe->page_wb,
		.na_r = l->na_r, .nb_r = l->nb_r, .ja = l->ja, .jb = l->jb, .ha = l->ha, .hb = l->hb, .ra = l->ra,
		.rb = l->rb, .ra_blk = l->ra_blk, .rb_blk = l->rb_blk, .lines = l->lines, .lwa = l->wa, .lwb = l->wb,
	};
	return o->keys || o->samples_a || o->samples_b || o->wa > 0 || o->wb > 0 || o->na_r || o->nb_r || o->ja ||
	       o->jb || o->ha || o->hb || o->ra || o->rb || o->ra_blk || o->rb_blk || o->lines || o->lwa > 0 ||
	       o->lwb > 0;
}

static int collect_units(const struct extract_mem_cell *c, struct evf_cell *out)
{
	const struct unit_list *u = c->units;
	const struct sharing_params *sp = c->sp;
	struct evidence *ev = calloc(u->n + 1, sizeof(*ev));
	struct u64map df;
	size_t i, j, n = u->n;
	int rc = -1;

	u64map_init_cap(&df, U64MAP_SMALL);
	out->units = calloc(n + 1, sizeof(*out->units));
	out->pairs = calloc(n * (n ? n - 1 : 0) / 2 + 1, sizeof(*out->pairs));
	if (!ev || !out->units || !out->pairs) {
		scx_fail("out of memory");
		goto done;
	}
	if (n > EVF_MAX_UNITS) {
		scx_fail("cell %s has %zu units, evidence files hold at most %d", c->name, n, EVF_MAX_UNITS);
		goto done;
	}
	for (i = 0; i < n; i++) {
		double demand = sp->demand ? sp->demand[i]
					   : sp->total_samples ? (double)u->v[i].count / (double)sp->total_samples * sp->online_cpus : 0;

		if (sharing_evidence_of_unit(c->agg, &u->v[i], &ev[i]) < 0)
			goto done;
		out->nr_units++;
		if (copy_unit(&u->v[i], &ev[i], demand, &out->units[i]) < 0)
			goto done;
	}
	if (sharing_evidence_df(ev, n, &df) < 0) {
		scx_fail("out of memory");
		goto done;
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			struct pair_evidence pe;

			sharing_pair_evidence_at(&ev[i], &ev[j], &df, n, sp, &pe);
			if (pair_stats(&pe, i, j, &out->pairs[out->nr_pairs]))
				out->nr_pairs++;
		}
	rc = 0;
done:
	for (i = 0; ev && i < n; i++)
		sharing_evidence_free(&ev[i]);
	free(ev);
	u64map_free(&df);
	return rc;
}

static int on_cell(void *ctx, const struct extract_mem_cell *cell)
{
	struct evidence_collect *c = ctx;
	struct evf_recording *r = &c->rec;
	const struct mem_agg *a = cell->agg;
	struct evf_cell *out;

	if (r->nr_cells >= EVF_KINDS)
		return scx_fail("more than 3 top-level cells");
	out = &r->cells[r->nr_cells++];
	out->kind = cell->kind == GROUP_ALLOTMENT ? EVF_ALLOTMENT : cell->kind == GROUP_WORKLOAD ? EVF_WORKLOAD : EVF_REST;
	if (!(out->name = dup_or_fail(cell->name)))
		return -1;
	if (out->kind != EVF_REST && !(out->match = dup_or_fail(out->kind == EVF_ALLOTMENT ? a->o.allotment_re : a->o.workload)))
		return -1;
	r->samples = a->total;
	r->fault_samples = a->fault_samples;
	r->duration_s = a->last_ns > a->first_ns ? (double)(a->last_ns - a->first_ns) / 1e9 : 0;
	r->line_granularity = a->o.line_granularity;
	if (!cell->sp || !cell->units || !cell->units->n)
		return 0;
	r->cap_cpus = cell->sp->cap_cpus;
	r->online_cpus = cell->sp->online_cpus;
	return collect_units(cell, out);
}

int evidence_collect_init(struct evidence_collect *c, const struct extract_mem_opts *o, const char *source)
{
	memset(c, 0, sizeof(*c));
	if (o->cluster != CLUSTER_SHARING)
		return scx_fail("evidence over recordings needs --cluster sharing");
	c->rec.use_hints = o->use_hints;
	c->rec.min_share = o->min_share > 0 ? o->min_share : SIGNIFICANT_PCT;
	if (!(c->rec.source = dup_or_fail(source)) || !(c->rec.cells = calloc(EVF_KINDS, sizeof(*c->rec.cells))))
		return scx_fail("out of memory");
	c->obs.on_cell = on_cell;
	c->obs.ctx = c;
	return 0;
}
