/*
 * llc_share_print.c - the cross-LLC figures as text (extract -v) and as
 * the JSON sidecar (schemas/llc-sharing.schema.json), each a share with
 * its interval, or bounds only ("too few to say"), see llc_share.h.
 */
#include <stdio.h>
#include <string.h>

#include "lib/error.h"
#include "lib/jsonw.h"
#include "llc/llc_mitosis_print.h"
#include "llc/llc_share.h"

const char *llc_share_fig_text(char *buf, size_t len, const struct llc_est_fig *g)
{
	if (g->state == LLC_EST_POINT)
		snprintf(buf, len, "%.1f%% (95%% %.1f-%.1f%%)", g->share * 100, g->low * 100, g->high * 100);
	else if (g->state == LLC_EST_TOO_FEW)
		snprintf(buf, len, "too few to say (%.1f-%.1f%% if anything is shared: %s)", g->low * 100, g->high * 100,
			 llc_est_why_text(g->why));
	else
		snprintf(buf, len, "-");
	return buf;
}

/* A model's figure, or why there is none: scx_mitosis refusing the layout. */
static const char *model_text(char *buf, size_t len, const struct llc_share_result *r, bool mitosis,
			      const struct llc_est_fig *g)
{
	if (mitosis && !r->mitosis.ran)
		return "none (scx_mitosis would refuse the layout)";
	return llc_share_fig_text(buf, len, g);
}

static void print_scope(FILE *f, const struct llc_share_result *r, const char *name, const struct llc_share_fig *g)
{
	char a[128], b[128];

	fprintf(f, "  %s: %llu samples on data", name, (unsigned long long)g->samples);
	if (!g->pairs) {
		fprintf(f, ", no line or region of them sampled from another thread too (nothing shared, or too few "
			   "samples to see it)\n");
		return;
	}
	fprintf(f, ", about %.0f on data another thread uses (%zu partner%s: %zu shared, %zu apart, %zu cannot tell)",
		g->shared, g->pairs, g->pairs == 1 ? "" : "s", g->pairs_shared, g->pairs_apart,
		g->pairs - g->pairs_shared - g->pairs_apart);
	if (g->llc_measured.state == LLC_EST_NONE) {
		fprintf(f, ": nothing shared\n");
		return;
	}
	bool mit = r->model == LLC_MODEL_MITOSIS;

	fprintf(f, "; cross-LLC measured %s, predicted (%s) %s", llc_share_fig_text(a, sizeof(a), &g->llc_measured),
		llc_model_name(r), model_text(b, sizeof(b), r, mit, &g->llc_predicted));
	fprintf(f, ", %s %s", mit ? "LLC-packing" : MITOSIS_MODEL_NAME, model_text(a, sizeof(a), r, !mit, &g->llc_other));
	if (r->map->nr_nodes > 1) {
		fprintf(f, "; cross-node measured %s, predicted %s", llc_share_fig_text(a, sizeof(a), &g->node_measured),
			model_text(b, sizeof(b), r, mit, &g->node_predicted));
		fprintf(f, ", %s %s", mit ? "LLC-packing" : MITOSIS_MODEL_NAME,
			model_text(a, sizeof(a), r, !mit, &g->node_other));
	}
	fprintf(f, "\n");
}

/* What the choices that met the reader's limits cost, in predicted cross-LLC share of the profile. */
static void print_fit_cost(FILE *f, const struct llc_share_result *r)
{
	const struct llc_est_fig *w = &r->fit_wanted_llc, *p = &r->total.llc_predicted;
	char a[96], b[96];

	if (!r->fit || !r->fit->n)
		return;
	fprintf(f, "reader fit (%s): %zu choice%s changed the clustering's config; predicted cross-LLC share of the "
		   "profile %s as written, %s as the clustering wanted it",
		r->fit->reader, r->fit->n, r->fit->n == 1 ? "" : "s", llc_share_fig_text(a, sizeof(a), p),
		llc_share_fig_text(b, sizeof(b), w));
	if (w->state == LLC_EST_POINT && p->state == LLC_EST_POINT)
		fprintf(f, " (cost %+.1f points)", (p->share - w->share) * 100.0);
	fprintf(f, "\n");
}

/* What the union allotment spec costs against one spec per allotment (llc_allot_cost.c). */
void llc_share_print_allot_cost(FILE *f, const struct llc_share_result *r)
{
	const struct llc_allot_costs *c = &r->allot;
	char a[96], b[96];

	if (!c->n)
		return;
	fprintf(f, "  allotments running different programs (%s): predicted cross-LLC share of the profile %s with the "
		   "union spec (each allotment a cell holding every subcell), %s with one spec per allotment",
		MITOSIS_MODEL_NAME, llc_share_fig_text(a, sizeof(a), &c->union_total),
		llc_share_fig_text(b, sizeof(b), &c->own_total));
	if (c->union_total.state == LLC_EST_POINT && c->own_total.state == LLC_EST_POINT)
		fprintf(f, " (the union costs %+.1f points)", (c->union_total.share - c->own_total.share) * 100.0);
	fprintf(f, "; per allotment, union -> own:");
	for (size_t i = 0; i < c->n; i++)
		fprintf(f, "%s %s (%zu -> %zu subcells) %s -> %s", i ? ";" : "", c->v[i].cgroup, c->v[i].union_subcells,
			c->v[i].own_subcells, llc_share_fig_text(a, sizeof(a), &c->v[i].union_llc),
			llc_share_fig_text(b, sizeof(b), &c->v[i].own_llc));
	fprintf(f, "\n");
}

void llc_share_print(FILE *f, const struct llc_share_result *r)
{
	const struct llc_map *m = r->map;
	size_t i, c;

	fprintf(f, "\nCross-LLC sharing (%s: %u CPUs, %zu LLC%s, %zu node%s%s):\n", m->source, m->online, m->nr_llcs,
		m->nr_llcs == 1 ? "" : "s", m->nr_nodes, m->nr_nodes == 1 ? "" : "s",
		m->llc_by_package ? "; it names no cache: each package taken as one LLC" : "");
	fprintf(f, "  samples: %llu on data (A:/F: lines), %llu on kernel pages or without a data_id (not estimated), "
		   "%llu no evidence (R: or no address), %llu without a CPU, %llu on CPUs the topology does not list",
		(unsigned long long)r->with_key, (unsigned long long)r->page_keys, (unsigned long long)r->seen.no_key,
		(unsigned long long)r->seen.no_cpu, (unsigned long long)r->unmapped);
	if (r->level)
		fprintf(f, ", identities sampled 1 in %llu", 1ULL << r->level);
	if (r->seen.dropped)
		fprintf(f, ", %llu samples of threads beyond the first %zu", (unsigned long long)r->seen.dropped,
			LLC_SHARE_MAX_ACTORS);
	fprintf(f, "\n");
	if (m->nr_llcs <= 1) {
		fprintf(f, "  one LLC: every CPU shares it, so no access crosses LLCs, measured or predicted: "
			   "the config gains nothing here from LLC locality (--topology FILE evaluates another host)\n");
		print_fit_cost(f, r);
		llc_share_print_allot_cost(f, r);
		return;
	}
	if (!r->with_key) {
		fprintf(f, "  no sample is on data with an identity (A:/F:, the data_id process writes): not measured\n");
		print_fit_cost(f, r);
		llc_share_print_allot_cost(f, r);
		return;
	}
	fprintf(f, "  measured = of the accesses to data another thread also uses, the share whose previous access by "
		   "another thread came from another LLC: per pair the line estimate of how much each uses the other's "
		   "lines, weighted by its samples, and where the partner last ran when the thread ran (%s); "
		   "predicted = the same under %s: %s; demand %s\n",
		r->timeline_samples || r->timeline_none ? "the scheduling trace where it has the thread, else its samples' "
							  "CPUs per 100 ms"
							: "the scheduling trace",
		llc_model_name(r),
		r->model == LLC_MODEL_MITOSIS
			? "each thread on the LLCs of its subcell's CPU run as scx_mitosis lays it out (runs of consecutive "
			  "CPU numbers, the catch-all first; a thread's share of an LLC is the run's); LLC-packing = each "
			  "subcell's threads on one LLC (worst fit by CPU demand; a subcell larger than every LLC placed "
			  "thread by thread), what a scheduler that packs subcells into LLCs would add"
			: "each subcell's threads on one LLC (worst fit by CPU demand; a subcell larger than every LLC "
			  "placed thread by thread); scx_mitosis = each thread on the LLCs of its subcell's CPU run",
		r->demand_by_runtime ? "runtime / trace duration"
				     : "sample share x CPUs, at most each thread's time seen (100 ms bins)");
	fprintf(f, "  timelines: %zu thread%s from the scheduling trace, %zu from their samples' CPUs, %zu with none",
		r->timeline_sched, r->timeline_sched == 1 ? "" : "s", r->timeline_samples, r->timeline_none);
	if (r->first_touch)
		fprintf(f, "; the samples are page faults (first touches): a pair without recaptures cannot tell");
	fprintf(f, "\n");
	fprintf(f, "  LLC-packing placement:");
	for (i = 0; i < r->nr_subs; i++) {
		const struct llc_share_scope *s = &r->subs[i];

		if (s->llc >= 0)
			fprintf(f, "%s %s %.2f CPUs -> LLC %lld", i ? ";" : "", s->name, s->demand,
				(long long)m->llc_id[s->llc]);
		else
			fprintf(f, "%s %s %.2f CPUs, larger than every LLC: its %zu thread%s placed one by one",
				i ? ";" : "", s->name, s->demand, s->threads, s->threads == 1 ? "" : "s");
	}
	fprintf(f, "\n");
	llc_mitosis_print(f, r);
	llc_mitosis_print_orders(f, r);
	print_scope(f, r, "profile", &r->total);
	for (c = 0; c < r->nr_cells; c++) {
		print_scope(f, r, r->cells[c].name, &r->cells[c].f);
		for (i = 0; i < r->nr_subs; i++)
			if (r->subs[i].cell == (long)c && r->subs[i].sub >= 0 && (r->subs[i].f.pairs || r->subs[i].merged))
				print_scope(f, r, r->subs[i].name, &r->subs[i].f);
	}
	print_fit_cost(f, r);
	llc_share_print_allot_cost(f, r);
}

/* "allotment_specs": the union allotment spec's cost against one spec per allotment */
static void json_est(struct jsonw *w, const char *key, const struct llc_est_fig *g);

/* KEY: {KA: a, KB: b}, two figures */
static void json_est_obj(struct jsonw *w, const char *key, const char *ka, const struct llc_est_fig *a, const char *kb,
			 const struct llc_est_fig *b)
{
	jsonw_key(w, key);
	jsonw_obj_open(w);
	json_est(w, ka, a);
	json_est(w, kb, b);
	jsonw_obj_close(w);
}

static void json_allot(struct jsonw *w, const struct llc_share_result *r)
{
	const struct llc_allot_costs *c = &r->allot;

	jsonw_key(w, "allotment_specs");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "model", MITOSIS_MODEL_NAME);
	json_est_obj(w, "profile", "union", &c->union_total, "own", &c->own_total);
	jsonw_key(w, "allotments");
	jsonw_arr_open(w);
	for (size_t i = 0; i < c->n; i++) {
		jsonw_obj_open(w);
		jsonw_kv_str(w, "cgroup", c->v[i].cgroup);
		jsonw_kv_u64(w, "union_subcells", c->v[i].union_subcells);
		jsonw_kv_u64(w, "own_subcells", c->v[i].own_subcells);
		json_est(w, "union", &c->v[i].union_llc);
		json_est(w, "own", &c->v[i].own_llc);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

static const char *state_name(enum llc_est_state s)
{
	return s == LLC_EST_POINT ? "point" : s == LLC_EST_TOO_FEW ? "too_few" : "none";
}

static void json_num_or_null(struct jsonw *w, const char *key, bool has, double v)
{
	jsonw_key(w, key);
	if (has)
		jsonw_double(w, v, 4);
	else
		jsonw_null(w);
}

static void json_est(struct jsonw *w, const char *key, const struct llc_est_fig *g)
{
	jsonw_key(w, key);
	jsonw_obj_open(w);
	jsonw_kv_str(w, "state", state_name(g->state));
	json_num_or_null(w, "share", g->state == LLC_EST_POINT, g->share);
	json_num_or_null(w, "low", g->state != LLC_EST_NONE, g->low);
	json_num_or_null(w, "high", g->state != LLC_EST_NONE, g->high);
	jsonw_key(w, "why");
	if (g->state == LLC_EST_TOO_FEW && llc_est_why_name(g->why))
		jsonw_str(w, llc_est_why_name(g->why));
	else
		jsonw_null(w);
	jsonw_obj_close(w);
}

static void json_gain(struct jsonw *w, const char *key, const struct llc_est_fig *m, const struct llc_est_fig *p,
		      bool possible)
{
	json_num_or_null(w, key, possible && m->state == LLC_EST_POINT && p->state == LLC_EST_POINT, m->share - p->share);
}

static void json_fig(struct jsonw *w, const struct llc_share_result *r, const struct llc_share_fig *g)
{
	bool llcs = r->map->nr_llcs > 1, nodes = r->map->nr_nodes > 1;

	jsonw_kv_u64(w, "samples", g->samples);
	jsonw_key(w, "shared_samples");
	jsonw_double(w, g->shared, 1);
	jsonw_key(w, "partners");
	jsonw_obj_open(w);
	jsonw_kv_u64(w, "total", g->pairs);
	jsonw_kv_u64(w, "shared", g->pairs_shared);
	jsonw_kv_u64(w, "apart", g->pairs_apart);
	jsonw_kv_u64(w, "cannot_tell", g->pairs - g->pairs_shared - g->pairs_apart);
	jsonw_obj_close(w);
	json_est_obj(w, "measured", "llc", &g->llc_measured, "node", &g->node_measured);
	json_est_obj(w, "predicted", "llc", &g->llc_predicted, "node", &g->node_predicted);
	jsonw_key(w, "gain");
	jsonw_obj_open(w);
	json_gain(w, "llc", &g->llc_measured, &g->llc_predicted, llcs);
	json_gain(w, "node", &g->node_measured, &g->node_predicted, nodes);
	jsonw_obj_close(w);
	jsonw_key(w, "models"); /* both models' predictions, whichever is "predicted" */
	jsonw_obj_open(w);
	for (int k = 0; k < 2; k++) {
		bool mine = (k == 0) == (r->model == LLC_MODEL_MITOSIS);

		json_est_obj(w, k == 0 ? "scx_mitosis" : "llc_packing", "llc", mine ? &g->llc_predicted : &g->llc_other,
			     "node", mine ? &g->node_predicted : &g->node_other);
	}
	jsonw_obj_close(w);
}

/* "reader_fit": the choices that met the reader's limits and their cost */
static void json_fit(struct jsonw *w, const struct llc_share_result *r)
{
	const struct llc_est_fig *wl = &r->fit_wanted_llc, *pl = &r->total.llc_predicted;

	jsonw_key(w, "reader_fit");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "reader", r->fit->reader);
	jsonw_key(w, "choices");
	jsonw_arr_open(w);
	for (size_t i = 0; i < r->fit->n; i++) {
		const struct reader_fit_entry *e = &r->fit->v[i];

		jsonw_obj_open(w);
		jsonw_kv_str(w, "cell", e->cell);
		jsonw_kv_str(w, "subcell", e->subcell);
		jsonw_kv_str(w, "kind", reader_fit_kind_name(e->kind));
		jsonw_kv_str(w, "detail", e->detail);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	json_est_obj(w, "wanted_predicted", "llc", wl, "node", &r->fit_wanted_node);
	json_num_or_null(w, "cost_llc", wl->state == LLC_EST_POINT && pl->state == LLC_EST_POINT, pl->share - wl->share);
	jsonw_obj_close(w);
}

int llc_share_write_json(FILE *f, const struct llc_share_result *r)
{
	const struct llc_map *m = r->map;
	struct jsonw w;
	size_t i, c;

	jsonw_file_open(&w);
	jsonw_kv_u64(&w, "version", 5);
	jsonw_key(&w, "topology");
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "source", m->source);
	jsonw_kv_u64(&w, "cpus", m->online);
	jsonw_kv_u64(&w, "nodes", m->nr_nodes);
	jsonw_key(&w, "llcs");
	jsonw_arr_open(&w);
	for (i = 0; i < m->nr_llcs; i++) {
		jsonw_obj_open(&w);
		jsonw_kv_i64(&w, "llc", m->llc_id[i]);
		jsonw_kv_u64(&w, "cpus", m->llc_cpus[i]);
		jsonw_kv_i64(&w, "node", m->node_id[m->llc_node[i]]);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_kv_bool(&w, "one_llc", m->nr_llcs <= 1);
	jsonw_key(&w, "samples");
	jsonw_obj_open(&w);
	jsonw_kv_u64(&w, "total", r->seen.samples);
	jsonw_kv_u64(&w, "measured", r->with_key);
	jsonw_kv_u64(&w, "page_keys", r->page_keys);
	jsonw_kv_u64(&w, "no_cpu", r->seen.no_cpu);
	jsonw_kv_u64(&w, "no_evidence", r->seen.no_key);
	jsonw_kv_u64(&w, "unlisted_cpu", r->unmapped);
	jsonw_kv_u64(&w, "dropped_threads", r->seen.dropped);
	jsonw_kv_u64(&w, "sampling_level", r->level);
	jsonw_obj_close(&w);
	jsonw_kv_bool(&w, "first_touch", r->first_touch);
	jsonw_key(&w, "timelines");
	jsonw_obj_open(&w);
	jsonw_kv_u64(&w, "sched", r->timeline_sched);
	jsonw_kv_u64(&w, "samples", r->timeline_samples);
	jsonw_kv_u64(&w, "none", r->timeline_none);
	jsonw_obj_close(&w);
	jsonw_key(&w, "recorded_cpus");
	jsonw_double(&w, r->online_cpus, 0);
	jsonw_kv_str(&w, "demand", r->demand_by_runtime ? "runtime" : "samples");
	llc_mitosis_write_json(&w, r);
	jsonw_key(&w, "profile");
	jsonw_obj_open(&w);
	json_fig(&w, r, &r->total);
	jsonw_obj_close(&w);
	jsonw_key(&w, "cells");
	jsonw_arr_open(&w);
	for (c = 0; c < r->nr_cells; c++) {
		jsonw_obj_open(&w);
		jsonw_kv_str(&w, "name", r->cells[c].name);
		json_fig(&w, r, &r->cells[c].f);
		jsonw_key(&w, "subcells");
		jsonw_arr_open(&w);
		for (i = 0; i < r->nr_subs; i++) {
			const struct llc_share_scope *s = &r->subs[i];

			if (s->cell != (long)c)
				continue;
			jsonw_obj_open(&w);
			jsonw_kv_str(&w, "name", s->sub >= 0 ? strchr(s->name, '/') + 1 : s->name);
			jsonw_kv_bool(&w, "merged", s->merged);
			jsonw_kv_u64(&w, "threads", s->threads);
			jsonw_key(&w, "demand_cpus");
			jsonw_double(&w, s->demand, 4);
			jsonw_key(&w, "llc");
			if (s->llc >= 0)
				jsonw_i64(&w, m->llc_id[s->llc]);
			else
				jsonw_null(&w);
			json_fig(&w, r, &s->f);
			jsonw_obj_close(&w);
		}
		jsonw_arr_close(&w);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	if (r->fit && r->fit->n)
		json_fit(&w, r);
	if (r->allot.n)
		json_allot(&w, r);
	return jsonw_file_close(&w, f, "the LLC sharing JSON");
}
