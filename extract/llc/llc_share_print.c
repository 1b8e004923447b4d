/*
 * llc_share_print.c - the cross-LLC figures as text (extract -v) and as
 * the JSON sidecar (schemas/llc-sharing.schema.json), with their 95%
 * Wilson intervals (see llc_share.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "extract/llc/llc_share.h"
#include "lib/error.h"
#include "lib/jsonw.h"

void llc_share_wilson(uint64_t x, uint64_t n, struct llc_share_ratio *r)
{
	double z = LLC_SHARE_Z95, p, d, c, h;

	memset(r, 0, sizeof(*r));
	r->x = x;
	r->n = n;
	if (!n)
		return;
	p = (double)x / (double)n;
	d = 1 + z * z / (double)n;
	c = (p + z * z / (2 * (double)n)) / d;
	h = z * sqrt(p * (1 - p) / (double)n + z * z / (4 * (double)n * (double)n)) / d;
	r->share = p;
	r->low = c - h < 0 ? 0 : c - h;
	r->high = c + h > 1 ? 1 : c + h;
	if (x == 0)
		r->low = 0;
	if (x == n)
		r->high = 1;
}

static const char *ratio_text(char *buf, size_t len, uint64_t x, uint64_t n)
{
	struct llc_share_ratio r;

	llc_share_wilson(x, n, &r);
	if (!n)
		snprintf(buf, len, "-");
	else if (n < LLC_SHARE_MIN_POINT)
		snprintf(buf, len, "between %.1f%% and %.1f%% (%llu of %llu: too few for a point)", r.low * 100,
			 r.high * 100, (unsigned long long)x, (unsigned long long)n);
	else
		snprintf(buf, len, "%.1f%% (95%% CI %.1f-%.1f%%, %llu of %llu)", r.share * 100, r.low * 100,
			 r.high * 100, (unsigned long long)x, (unsigned long long)n);
	return buf;
}

static void print_scope(FILE *f, const struct llc_share_result *r, const char *name, const struct llc_share_fig *g)
{
	char a[128], b[128];

	fprintf(f, "  %s: %llu accesses on shared data", name, (unsigned long long)g->shared);
	if (!g->shared) {
		fprintf(f, "\n");
		return;
	}
	fprintf(f, "; cross-LLC measured %s, predicted %s", ratio_text(a, sizeof(a), g->llc_measured, g->shared),
		ratio_text(b, sizeof(b), g->llc_predicted, g->shared));
	if (r->map->nr_nodes > 1)
		fprintf(f, "; cross-node measured %s, predicted %s",
			ratio_text(a, sizeof(a), g->node_measured, g->shared),
			ratio_text(b, sizeof(b), g->node_predicted, g->shared));
	fprintf(f, "\n");
}

void llc_share_print(FILE *f, const struct llc_share_result *r)
{
	const struct llc_map *m = r->map;
	size_t i, c;

	fprintf(f, "\nCross-LLC sharing (%s: %u CPUs, %zu LLC%s, %zu node%s):\n", m->source, m->online, m->nr_llcs,
		m->nr_llcs == 1 ? "" : "s", m->nr_nodes, m->nr_nodes == 1 ? "" : "s");
	fprintf(f, "  samples: %llu with a CPU and evidence of data, %llu without a CPU, %llu no evidence (R: or no "
		   "address), %llu on CPUs the topology does not list",
		(unsigned long long)r->with_key, (unsigned long long)r->no_cpu, (unsigned long long)r->no_key,
		(unsigned long long)r->unmapped);
	if (r->level)
		fprintf(f, ", identities sampled 1 in %llu", 1ULL << r->level);
	if (r->dropped)
		fprintf(f, ", %llu samples of threads beyond the first %zu", (unsigned long long)r->dropped,
			LLC_SHARE_MAX_ACTORS);
	fprintf(f, "\n");
	if (m->nr_llcs <= 1) {
		fprintf(f, "  one LLC: every CPU shares it, so no access crosses LLCs, measured or predicted: "
			   "the config gains nothing here from LLC locality (--topology FILE evaluates another host)\n");
		return;
	}
	if (!r->with_key) {
		fprintf(f, "  no sample has a CPU and evidence of data (upstream's files have no \"cpu\"): not measured\n");
		return;
	}
	fprintf(f, "  on shared data = samples on data another thread touched within the clustering's window (lines: 15 "
		   "s either side; pages: the same or adjacent epoch); measured = of those, data also touched from another "
		   "LLC in the same epoch, on the CPUs the samples were taken on; "
		   "predicted = the same with each subcell's threads on one LLC (worst fit by CPU demand, %s; a "
		   "subcell larger than every LLC placed thread by thread)\n",
		r->demand_by_runtime ? "runtime / trace duration" : "sample share x CPUs");
	fprintf(f, "  placement:");
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
	print_scope(f, r, "profile", &r->total);
	for (c = 0; c < r->nr_cells; c++) {
		print_scope(f, r, r->cells[c].name, &r->cells[c].f);
		for (i = 0; i < r->nr_subs; i++)
			if (r->subs[i].cell == (long)c && r->subs[i].sub >= 0 && (r->subs[i].f.shared || r->subs[i].merged))
				print_scope(f, r, r->subs[i].name, &r->subs[i].f);
	}
}

static void json_ratio(struct jsonw *w, const char *key, uint64_t x, uint64_t n)
{
	struct llc_share_ratio r;

	llc_share_wilson(x, n, &r);
	jsonw_key(w, key);
	jsonw_obj_open(w);
	jsonw_kv_u64(w, "accesses", x);
	jsonw_key(w, "share");
	if (n >= LLC_SHARE_MIN_POINT)
		jsonw_double(w, r.share, 4);
	else
		jsonw_null(w);
	jsonw_key(w, "low");
	if (n)
		jsonw_double(w, r.low, 4);
	else
		jsonw_null(w);
	jsonw_key(w, "high");
	if (n)
		jsonw_double(w, r.high, 4);
	else
		jsonw_null(w);
	jsonw_obj_close(w);
}

static void json_gain(struct jsonw *w, const char *key, uint64_t m, uint64_t p, uint64_t n, bool possible)
{
	jsonw_key(w, key);
	if (possible && n >= LLC_SHARE_MIN_POINT)
		jsonw_double(w, ((double)m - (double)p) / (double)n, 4);
	else
		jsonw_null(w);
}

static void json_fig(struct jsonw *w, const struct llc_share_result *r, const struct llc_share_fig *g)
{
	bool llcs = r->map->nr_llcs > 1, nodes = r->map->nr_nodes > 1;

	jsonw_kv_u64(w, "shared_accesses", g->shared);
	jsonw_key(w, "measured");
	jsonw_obj_open(w);
	json_ratio(w, "llc", g->llc_measured, g->shared);
	json_ratio(w, "node", g->node_measured, g->shared);
	jsonw_obj_close(w);
	jsonw_key(w, "predicted");
	jsonw_obj_open(w);
	json_ratio(w, "llc", g->llc_predicted, g->shared);
	json_ratio(w, "node", g->node_predicted, g->shared);
	jsonw_obj_close(w);
	jsonw_key(w, "gain");
	jsonw_obj_open(w);
	json_gain(w, "llc", g->llc_measured, g->llc_predicted, g->shared, llcs);
	json_gain(w, "node", g->node_measured, g->node_predicted, g->shared, nodes);
	jsonw_obj_close(w);
}

int llc_share_write_json(FILE *f, const struct llc_share_result *r)
{
	const struct llc_map *m = r->map;
	struct jsonw w;
	size_t i, c;
	int rc;

	jsonw_init(&w);
	jsonw_obj_open(&w);
	jsonw_kv_u64(&w, "version", 1);
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
	jsonw_kv_u64(&w, "total", r->samples);
	jsonw_kv_u64(&w, "measured", r->with_key);
	jsonw_kv_u64(&w, "no_cpu", r->no_cpu);
	jsonw_kv_u64(&w, "no_evidence", r->no_key);
	jsonw_kv_u64(&w, "unlisted_cpu", r->unmapped);
	jsonw_kv_u64(&w, "dropped_threads", r->dropped);
	jsonw_kv_u64(&w, "sampling_level", r->level);
	jsonw_obj_close(&w);
	jsonw_key(&w, "recorded_cpus");
	jsonw_double(&w, r->online_cpus, 0);
	jsonw_kv_str(&w, "demand", r->demand_by_runtime ? "runtime" : "samples");
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
	jsonw_obj_close(&w);
	jsonw_newline(&w);
	rc = jsonw_flush_to(&w, f, "the LLC sharing JSON");
	jsonw_free(&w);
	return rc;
}
