/*
 * llc_mitosis_print.c - the scx_mitosis model's layout as text (extract
 * -v) and in the JSON sidecar (schemas/llc-sharing.schema.json "model",
 * "layout"): each cell's cgroup and CPU run, each subcell's run, the LLCs
 * it spans and its share of each, its demand and threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonw.h"
#include "llc/llc_mitosis_print.h"

/* "LLC 0 1/2, LLC 1 1/2" style: each LLC the run touches with its share. */
static void llcs_text(FILE *f, const struct llc_share_result *r, size_t place)
{
	const float *d = &r->mitosis.dist[place * r->mitosis.stride];
	bool first = true;

	for (size_t l = 0; l < r->map->nr_llcs; l++)
		if (d[l] > 0) {
			fprintf(f, "%sLLC %lld", first ? "" : " + ", (long long)r->map->llc_id[l]);
			if (d[l] < 0.9999f)
				fprintf(f, " %.0f%%", d[l] * 100);
			first = false;
		}
}

const char *llc_model_name(const struct llc_share_result *r)
{
	return r->model == LLC_MODEL_MITOSIS ? MITOSIS_MODEL_NAME : "LLC-packing";
}

void llc_mitosis_print(FILE *f, const struct llc_share_result *r)
{
	const struct llc_mitosis_result *m = &r->mitosis;
	char buf[1024];

	fprintf(f, "  %s model (%s; %s weights, LLC %s", MITOSIS_MODEL_NAME, MITOSIS_MODEL_VERSION,
		m->opts.rebalancing ? "utilisation" : "equal", m->opts.llc_aware ? "aware" : "unaware");
	if (m->opts.vllc_min)
		fprintf(f, ", --virt-llc %u-%u: %zu LLC domains", m->opts.vllc_min, m->opts.vllc_max, m->layout.nr_domains);
	if (m->ran && m->opts.rebalancing)
		fprintf(f, m->layout.converged ? ", settled after %u reconfigurations" : ", not settled after %u reconfigurations",
			m->layout.rounds);
	fprintf(f, ")");
	if (!m->ran) {
		fprintf(f, ": scx_mitosis would refuse this layout: %s; no prediction\n", m->why);
		return;
	}
	fprintf(f, ":");
	for (size_t i = 0; i < m->cells.nr; i++) {
		const struct mitosis_cell_out *c = &m->layout.cells[i];

		fprintf(f, "%s cell %zu %s CPUs %s:", i ? ";" : "", i, m->cells.path[i],
			mitosis_cpulist(buf, sizeof(buf), c->cpus.cpus, c->cpus.n));
		for (size_t j = 0; j < c->nr_subs; j++) {
			size_t p = m->base[i] + j;

			fprintf(f, "%s %s %s (", j ? "," : "", m->sub_name[p] ? m->sub_name[p] : "?",
				mitosis_cpulist(buf, sizeof(buf), c->subs[j].cpus, c->subs[j].n));
			llcs_text(f, r, p);
			fprintf(f, ") %.2f CPUs %zu thread%s", m->sub_demand[p], m->sub_threads[p],
				m->sub_threads[p] == 1 ? "" : "s");
		}
	}
	fprintf(f, "\n");
}

static bool reordered(const struct llc_order *o)
{
	for (size_t j = 0; j < o->nr; j++)
		if (o->order[j] != j)
			return true;
	return false;
}

/* The written order's names, or the best order's: "a, b, c". */
static void order_text(FILE *f, const struct llc_order *o, bool best)
{
	for (size_t j = 0; j < o->nr; j++)
		fprintf(f, "%s%s", j ? ", " : "", o->name[best ? o->order[j] : j]);
}

void llc_mitosis_print_orders(FILE *f, const struct llc_share_result *r)
{
	for (size_t i = 0; i < r->nr_orders; i++) {
		const struct llc_order *o = &r->orders[i];

		fprintf(f, "  subcell order for scx_mitosis (cell %s, %zu orders tried): %s order ", o->cell_name, o->tried,
			o->applied ? "the clustering's" : "written");
		order_text(f, o, false);
		fprintf(f, " -> predicted %.1f%%", o->written * 100);
		if (!reordered(o)) {
			fprintf(f, ", the best\n");
			continue;
		}
		fprintf(f, "; best ");
		order_text(f, o, true);
		fprintf(f, " -> %.1f%%%s\n", o->best * 100,
			o->applied ? " (written: --order-subcells)" : " (--order-subcells writes it)");
	}
}

void llc_mitosis_write_json(struct jsonw *w, const struct llc_share_result *r)
{
	const struct llc_mitosis_result *m = &r->mitosis;
	char buf[4096];

	jsonw_key(w, "model");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "predicted", r->model == LLC_MODEL_MITOSIS ? "scx_mitosis" : "llc_packing");
	jsonw_kv_str(w, "name", MITOSIS_MODEL_NAME);
	jsonw_kv_str(w, "version", MITOSIS_MODEL_VERSION);
	jsonw_kv_bool(w, "rebalancing", m->opts.rebalancing);
	jsonw_kv_bool(w, "llc_aware", m->opts.llc_aware);
	snprintf(buf, sizeof(buf), "%u-%u", m->opts.vllc_min, m->opts.vllc_max);
	jsonw_kv_str_or_null(w, "virt_llc", m->opts.vllc_min ? buf : NULL);
	jsonw_kv_str_or_null(w, "refused", m->ran ? NULL : m->why);
	jsonw_kv_u64_or_null(w, "llc_domains", m->ran, m->layout.nr_domains);
	jsonw_kv_u64_or_null(w, "rounds", m->ran, m->layout.rounds);
	jsonw_kv_bool(w, "settled", m->ran && m->layout.converged);
	jsonw_obj_close(w);
	jsonw_key(w, "orders");
	jsonw_arr_open(w);
	for (size_t i = 0; i < r->nr_orders; i++) {
		const struct llc_order *o = &r->orders[i];
		const char **best = calloc(o->nr + 1, sizeof(char *));

		jsonw_obj_open(w);
		jsonw_kv_str(w, "cell", o->cell_name);
		jsonw_kv_str_array(w, "clustering", (const char *const *)o->name, o->nr);
		for (size_t j = 0; best && j < o->nr; j++)
			best[j] = o->name[o->order[j]];
		jsonw_kv_str_array(w, "best", best ? best : (const char **)o->name, o->nr);
		free(best);
		jsonw_key(w, "clustering_share");
		jsonw_double(w, o->written, 4);
		jsonw_key(w, "best_share");
		jsonw_double(w, o->best, 4);
		jsonw_kv_u64(w, "tried", o->tried);
		jsonw_kv_bool(w, "written_best", o->applied || !reordered(o));
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_key(w, "layout");
	jsonw_arr_open(w);
	for (size_t i = 0; m->ran && i < m->cells.nr; i++) {
		const struct mitosis_cell_out *c = &m->layout.cells[i];

		jsonw_obj_open(w);
		jsonw_kv_u64(w, "cell", i);
		jsonw_kv_str(w, "cgroup", m->cells.path[i]);
		jsonw_kv_str_or_null(w, "spec", m->cells.spec[i] >= 0 ? r->cells[m->cells.spec[i]].name : NULL);
		jsonw_kv_str(w, "cpus", mitosis_cpulist(buf, sizeof(buf), c->cpus.cpus, c->cpus.n));
		jsonw_key(w, "subcells");
		jsonw_arr_open(w);
		for (size_t j = 0; j < c->nr_subs; j++) {
			size_t p = m->base[i] + j;
			const float *d = &m->dist[p * m->stride];

			jsonw_obj_open(w);
			jsonw_kv_u64(w, "id", j);
			jsonw_kv_str(w, "name", m->sub_name[p] ? m->sub_name[p] : "");
			jsonw_kv_str(w, "cpus", mitosis_cpulist(buf, sizeof(buf), c->subs[j].cpus, c->subs[j].n));
			jsonw_key(w, "llcs");
			jsonw_arr_open(w);
			for (size_t l = 0; l < r->map->nr_llcs; l++)
				if (d[l] > 0) {
					jsonw_obj_open(w);
					jsonw_kv_i64(w, "llc", r->map->llc_id[l]);
					jsonw_key(w, "share");
					jsonw_double(w, d[l], 4);
					jsonw_obj_close(w);
				}
			jsonw_arr_close(w);
			jsonw_key(w, "demand_cpus");
			jsonw_double(w, m->sub_demand[p], 4);
			jsonw_kv_u64(w, "threads", m->sub_threads[p]);
			jsonw_key(w, "weight");
			jsonw_double(w, c->sub_weight[j], 4);
			jsonw_obj_close(w);
		}
		jsonw_arr_close(w);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}
