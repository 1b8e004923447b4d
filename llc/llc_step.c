/*
 * llc_step.c - extract mem's cross-LLC step (see llc.h).
 */
#include "llc/llc.h"

#include <stdlib.h>
#include <string.h>

#include "extract/rec_topology.h"
#include "lib/error.h"
#include "llc/llc_map.h"

/* What the step needs of extract mem's options, and its counts. */
struct llc_step {
	const char *path;      /* the input: topology.json next to it */
	const char *topology;  /* --topology FILE or "host"; NULL: the recording's (rec_topology.h) */
	bool print;            /* the -v section */
	bool required;         /* no topology is an error (--llc-json), not a -v line */
	enum llc_sched_model model;   /* whose prediction the predicted figures are */
	struct mitosis_opts mitosis;  /* the scx_mitosis model's options */
	bool order_subcells;          /* write cfg's subcells in the best order for the scx_mitosis layout */
	int (*on_llc)(void *ctx, const struct llc_share_result *r); /* may be NULL */
	void *ctx;
	struct llc_share s;
};

static int on_sample(void *ctx, const struct mem_sample *s)
{
	return llc_share_add(ctx, s);
}

struct runtimes {
	struct u64map tid; /* tid -> index + 1 in st.v */
	const struct sched_threads *st;
};

static double thread_cpus(void *ctx, int64_t tid)
{
	const struct runtimes *rt = ctx;
	const uint64_t *v = u64map_find(&rt->tid, (uint64_t)tid);

	if (!v || !rt->st->duration_ns)
		return 0;
	return (double)rt->st->v[*v - 1].runtime / (double)rt->st->duration_ns;
}

static const struct sched_run *thread_runs(void *ctx, int64_t tid, size_t *n)
{
	const struct runtimes *rt = ctx;
	const uint64_t *v = u64map_find(&rt->tid, (uint64_t)tid);

	*n = v ? rt->st->v[*v - 1].nruns : 0;
	return v ? rt->st->v[*v - 1].runs : NULL;
}

static int runtimes_init(struct runtimes *rt, const struct sched_threads *st)
{
	size_t i;

	rt->st = st;
	u64map_init(&rt->tid);
	for (i = 0; i < st->n; i++) {
		uint64_t *v = u64map_slot(&rt->tid, (uint64_t)st->v[i].tid);

		if (!v)
			return -1;
		*v = i + 1;
	}
	return 0;
}

/* extract_mem_step.start: the cross-LLC figures for -v in sharing mode
 * (--cluster comm's text stays upstream's), --order-subcells or an
 * observer's on_llc; else none. */
static int step_start(const struct extract_mem_opts *eo, struct mem_agg_opts *ao, void **state)
{
	const struct extract_mem_observer *obs = eo->observer;
	struct llc_step *o;
	bool print = eo->verbose && eo->cluster == CLUSTER_SHARING;
	bool order = eo->order_subcells && eo->cluster == CLUSTER_SHARING;

	*state = NULL;
	if (!print && !order && !(obs && obs->on_llc))
		return 0;
	if (!(o = calloc(1, sizeof(*o))))
		return scx_fail("out of memory");
	*o = (struct llc_step){
		.path = eo->path, .topology = eo->topology, .print = print, .required = obs && obs->llc_required,
		.model = (enum llc_sched_model)eo->sched_model,
		.mitosis = {eo->mitosis_rebalancing, !eo->mitosis_no_llc_aware, eo->mitosis_vllc_min, eo->mitosis_vllc_max},
		.order_subcells = order, .on_llc = obs ? obs->on_llc : NULL, .ctx = obs ? obs->ctx : NULL,
	};
	llc_share_init(&o->s, eo->line_granularity, eo->max_keys / 4);
	ao->on_sample = on_sample;
	ao->on_sample_ctx = &o->s;
	*state = o;
	return 0;
}

static void step_end(void *state)
{
	struct llc_step *o = state;

	llc_share_free(&o->s);
	free(o);
}

int llc_step_fit_cost(const struct llc_share *s, const struct llc_share_eval *e, const struct cell_config *wanted,
		     const struct reader_fit_log *fit, struct llc_share_result *r)
{
	struct llc_share_eval w = *e;
	struct llc_share_result wr;
	int rc;

	r->fit = fit;
	if (!wanted || !fit || !fit->n)
		return 0;
	w.cfg = wanted;
	rc = llc_share_evaluate(s, &w, &wr);
	if (rc == 0) {
		r->fit_wanted_llc = wr.total.llc_predicted;
		r->fit_wanted_node = wr.total.node_predicted;
	}
	llc_share_result_free(&wr);
	return rc;
}

/* cfg's subcells in the orders r chose; true when any moved. -1 on OOM. */
static int reorder(struct cell_config *cfg, struct llc_share_result *r)
{
	int moved = 0;

	for (size_t i = 0; i < r->nr_orders; i++) {
		struct llc_order *o = &r->orders[i];
		struct cell *c = &cfg->cells[o->cell];
		struct cell *v = malloc((c->nr_subcells + 1) * sizeof(*v));

		if (!v)
			return scx_fail("out of memory");
		for (size_t j = 0; j < c->nr_subcells; j++) {
			v[j] = c->subcells[o->order[j]];
			moved |= o->order[j] != j;
		}
		memcpy(c->subcells, v, c->nr_subcells * sizeof(*v));
		free(v);
	}
	return moved;
}

/* The orders of the first evaluation, kept in the second (whose own are of the config as written). */
static void keep_orders(struct llc_share_result *r, struct llc_share_result *first)
{
	struct llc_order *o = r->orders;
	size_t n = r->nr_orders;

	r->orders = first->orders;
	r->nr_orders = first->nr_orders;
	first->orders = o;
	first->nr_orders = n;
	for (size_t i = 0; i < r->nr_orders; i++)
		r->orders[i].applied = true;
}

/* extract_mem_step.finish: evaluate b->cfg (see llc.h). */
static int step_finish(void *state, const struct mem_agg_opts *ao, const struct extract_mem_built *b, FILE *log)
{
	struct llc_step *o = state;
	const struct llc_share *s = &o->s;
	struct cell_config *cfg = b->cfg;
	const struct cell_config *wanted = b->wanted;
	const struct reader_fit_log *fit = b->fits;
	const struct sched_cells *sched = b->sched;
	struct runtimes rt;
	struct llc_share_result r;
	struct llc_map map;
	struct rec_topology rec, eval;
	struct llc_share_eval e = {.cfg = cfg, .workload = ao->workload, .allotment_re = ao->allotment_re, .map = &map,
				   .model = o->model, .mitosis = o->mitosis};
	int rc = -1;

	/* demand is in CPUs of the recording (its own topology), the LLCs those of --topology when given */
	if (rec_topology_load(o->path, NULL, &rec) < 0)
		return -1;
	if (o->topology && rec_topology_load(o->path, o->topology, &eval) < 0) {
		rec_topology_unload(&rec);
		return -1;
	}
	if (!o->topology)
		eval = rec;
	for (size_t i = 0; log && o->topology && i < eval.warnings.nr; i++) /* --topology host's cpusets */
		fprintf(log, "WARNING: --topology %s: %s\n", o->topology, eval.warnings.line[i]);
	if (!eval.found) {
		if (log && o->print)
			fprintf(log, "\nCross-LLC sharing: not computed: the recording has no topology (%s); "
				     "--topology FILE evaluates a topology.json, --topology host this machine's\n",
				rec.none);
		rc = o->required ? scx_fail("the recording has no topology (%s): no cross-LLC figures; give "
					    "--topology FILE, or --topology host for this machine's", rec.none)
				 : 0;
		rec_topology_unload(&rec);
		return rc;
	}
	e.online_cpus = (unsigned)(rec.found ? rec.t.n : eval.t.n);
	if (sched) {
		if (runtimes_init(&rt, &sched->st) < 0) {
			u64map_free(&rt.tid);
			goto out_topo;
		}
		e.thread_cpus = thread_cpus;
		e.thread_runs = thread_runs;
		e.thread_ctx = &rt;
		e.threads = &sched->st;
	}
	if (llc_map_from_topology(&eval.t, eval.source, &map) < 0)
		goto out_rt;
	if (llc_share_evaluate(s, &e, &r) < 0 || llc_step_fit_cost(s, &e, wanted, fit, &r) < 0) {
		llc_share_result_free(&r);
		goto out;
	}
	if (o->order_subcells) {
		struct llc_share_result first = r;
		int moved = reorder(cfg, &first);

		if (moved < 0) {
			llc_share_result_free(&first);
			goto out;
		}
		if (moved) { /* the figures of the config as it is written */
			if (llc_share_evaluate(s, &e, &r) < 0 || llc_step_fit_cost(s, &e, wanted, fit, &r) < 0) {
				llc_share_result_free(&r);
				llc_share_result_free(&first);
				goto out;
			}
			keep_orders(&r, &first);
			llc_share_result_free(&first);
		}
	}
	if (b->allot_specs && llc_allot_cost(s, &e, cfg, b->allot_cell, b->allot_specs, &r) < 0) {
		llc_share_result_free(&r);
		goto out;
	}
	if (log && o->print)
		llc_share_print(log, &r);
	rc = o->on_llc ? o->on_llc(o->ctx, &r) : 0;
	llc_share_result_free(&r);
out:
	llc_map_free(&map);
out_rt:
	if (sched)
		u64map_free(&rt.tid);
out_topo:
	if (o->topology)
		rec_topology_unload(&eval);
	rec_topology_unload(&rec);
	return rc;
}

const struct extract_mem_step llc_extract_step = {.start = step_start, .finish = step_finish, .end = step_end};
