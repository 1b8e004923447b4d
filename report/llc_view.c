/*
 * llc_view.c - the report's cross-LLC section (see llc_view.h).
 */
#include "report/llc_view.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/mempool.h"
#include "report/html.h"

#define CHART_MAX_ROWS 16

static int add_row(struct llc_view *v, const char *name, int level, const struct llc_share_scope *s,
		   const struct llc_share_fig *f, const struct llc_share_result *r)
{
	struct llc_view_row *row = &v->rows[v->nrows];

	memset(row, 0, sizeof(*row));
	if (!(row->name = mempool_strdup(&v->mem, name)))
		return scx_fail("out of memory");
	row->level = level;
	row->f = *f;
	row->llc = -2;
	if (s && level == 2) {
		row->merged = s->merged;
		row->demand = s->demand;
		row->llc = s->llc >= 0 ? (long)r->map->llc_id[s->llc] : -1;
	}
	v->nrows++;
	return 0;
}

/* What print writes of r, as a string into *out (v's pool owns it). */
static int as_text(struct llc_view *v, char **out, void (*print)(FILE *f, const struct llc_share_result *r),
		   const struct llc_share_result *r)
{
	size_t len = 0;
	FILE *m = open_memstream(out, &len);

	if (!m)
		return scx_fail("out of memory");
	print(m, r);
	if (fclose(m) != 0) {
		free(*out);
		*out = NULL;
	}
	if (!*out || mempool_adopt(&v->mem, *out) < 0) {
		*out = NULL;
		return scx_fail("out of memory");
	}
	return 0;
}

int llc_view_collect(void *ctx, const struct llc_share_result *r)
{
	struct llc_view *v = ctx;
	size_t c, i;

	llc_view_free(v);
	v->present = true;
	snprintf(v->source, sizeof(v->source), "%s", r->map->source);
	v->cpus = r->map->online;
	v->nr_llcs = r->map->nr_llcs;
	v->nr_nodes = r->map->nr_nodes;
	v->measured_samples = r->with_key;
	v->no_cpu = r->seen.no_cpu;
	v->by_runtime = r->demand_by_runtime;
	v->timelines_from_samples = r->timeline_samples > 0;
	v->model = r->model;
	v->mitosis_refused = !r->mitosis.ran;
	if (r->map->nr_llcs > 1 && as_text(v, &v->layout, llc_mitosis_print, r) < 0) /* -v's layout line */
		return -1;
	if (r->allot.n && as_text(v, &v->allot_cost, llc_share_print_allot_cost, r) < 0) /* -v's union-cost line */
		return -1;
	if (!(v->rows = mempool_calloc(&v->mem, 1 + r->nr_cells + r->nr_subs, sizeof(*v->rows))))
		return scx_fail("out of memory");
	if (add_row(v, "profile", 0, NULL, &r->total, r) < 0)
		return -1;
	for (c = 0; c < r->nr_cells; c++) {
		if (add_row(v, r->cells[c].name, 1, &r->cells[c], &r->cells[c].f, r) < 0)
			return -1;
		for (i = 0; i < r->nr_subs; i++)
			if (r->subs[i].cell == (long)c && r->subs[i].sub >= 0 &&
			    add_row(v, r->subs[i].name, 2, &r->subs[i], &r->subs[i].f, r) < 0)
				return -1;
	}
	return 0;
}

void llc_view_free(struct llc_view *v)
{
	mempool_free(&v->mem);
	memset(v, 0, sizeof(*v));
}

/* "12.3% [lo-hi]", or the bounds alone when no pair is decided shared. */
static void write_est(FILE *f, const struct llc_est_fig *g)
{
	if (g->state == LLC_EST_NONE)
		fputs("-", f);
	else if (g->state == LLC_EST_TOO_FEW)
		fprintf(f, "%.1f-%.1f%% <small>(too few to say: bounds if anything is shared; %s)</small>", g->low * 100,
			g->high * 100, llc_est_why_text(g->why));
	else
		fprintf(f, "%.1f%% <small>[%.1f-%.1f]</small>", g->share * 100, g->low * 100, g->high * 100);
}

/* A model's figure, or "refused" when scx_mitosis would refuse the layout. */
static void write_model_est(FILE *f, const struct llc_view *v, bool mitosis, const struct llc_est_fig *g)
{
	if (mitosis && v->mitosis_refused)
		fputs("- <small>(scx_mitosis would refuse the layout)</small>", f);
	else
		write_est(f, g);
}

/* Rows shown in the chart: the profile, cells and merged subcells with a figure. */
static bool charted(const struct llc_view_row *row)
{
	return row->f.llc_measured.state != LLC_EST_NONE && (row->level < 2 || row->merged);
}

static void write_bar(FILE *f, double y, const struct llc_est_fig *g, const char *cls, const char *color)
{
	const double x0 = 230, w = 360, h = 10;

	if (g->state == LLC_EST_POINT)
		fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"/>",
			cls, x0, y, g->share * w, h, color);
	/* the interval as a whisker (alone when no pair is decided shared) */
	if (g->state != LLC_EST_NONE)
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#222\" stroke-width=\"1.5\"/>",
			x0 + g->low * w, x0 + g->high * w, y + h / 2, y + h / 2);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%s ", x0 + w + 8, y + 9, cls);
	if (g->state == LLC_EST_POINT)
		fprintf(f, "%.1f%%", g->share * 100);
	else if (g->state == LLC_EST_TOO_FEW)
		fprintf(f, "too few to say (%.0f-%.0f%%)", g->low * 100, g->high * 100);
	else
		fputs("-", f);
	fputs("</text>", f);
}

static void write_chart(FILE *f, const struct llc_view *v)
{
	size_t i, n = 0;
	double y;

	for (i = 0; i < v->nrows; i++)
		n += charted(&v->rows[i]) && n < CHART_MAX_ROWS;
	fprintf(f, "<svg id=\"llc-chart\" role=\"img\" width=\"720\" height=\"%zu\" "
		   "aria-label=\"cross-LLC share of accesses to shared data, measured and predicted\">", n * 46 + 30);
	fputs("<text x=\"230\" y=\"12\" font-size=\"10\">0%</text>"
	      "<text x=\"590\" y=\"12\" font-size=\"10\" text-anchor=\"end\">100%</text>", f);
	for (i = 0, n = 0, y = 20; i < v->nrows && n < CHART_MAX_ROWS; i++) {
		const struct llc_view_row *row = &v->rows[i];

		if (!charted(row))
			continue;
		n++;
		fputs("<g class=\"llc-bar\"><text x=\"0\" font-size=\"11\" y=\"", f);
		fprintf(f, "%.1f\">", y + 14);
		html_esc_cut(f, row->name, 34);
		fputs("</text>", f);
		write_bar(f, y, &row->f.llc_measured, "measured", "#d62728");
		write_bar(f, y + 13, &row->f.llc_predicted, "predicted", "#1f77b4");
		write_bar(f, y + 26, &row->f.llc_other, v->model == LLC_MODEL_MITOSIS ? "LLC-packing" : "scx_mitosis",
			  "#7f7f7f");
		fputs("</g>", f);
		y += 46;
	}
	fputs("<line x1=\"230\" x2=\"230\" y1=\"16\" y2=\"100%\" stroke=\"#999\"/></svg>\n", f);
}

void llc_view_write(FILE *f, const struct llc_view *v)
{
	size_t i;

	fputs("<section id=\"llc\"><h2>What the config buys: cross-LLC sharing</h2>\n", f);
	if (!v->present) {
		fputs("<p class=\"note\">Not computed.</p>\n</section>\n", f);
		return;
	}
	fputs("<p>Of the accesses to data another thread also uses, the share whose previous access by another "
	      "thread came from another last-level cache. Estimated per pair of threads from the line estimate "
	      "(the share of each one's accesses on 64-byte lines the other uses; the sample rate cancels), each "
	      "thread's samples, and where the partner last ran while the thread ran: <b>measured</b> from ", f);
	fputs(v->timelines_from_samples ? "the scheduling trace, or the samples' CPUs where it has no thread"
					: "the scheduling trace",
	      f);
	fputs(v->model == LLC_MODEL_MITOSIS
		      ? ", and <b>predicted</b> for the layout scx_mitosis --cell-config applies (cells and subcells on runs "
			"of consecutive CPU numbers, each thread on the LLCs of its subcell's run; docs/llc-sharing.md "
			"\"The scx_mitosis model\"), beside <b>LLC-packing</b>: each subcell on one LLC (worst fit by CPU "
			"demand), what a scheduler packing subcells into LLCs would add ("
		      : ", and <b>predicted</b> with each subcell of the config on one LLC (worst fit by CPU demand), "
			"beside <b>scx_mitosis</b>, the layout scx_mitosis --cell-config applies (",
	      f);
	fputs(v->by_runtime ? "runtime / trace duration"
			     : "sample share x CPUs, at most each thread's time seen (100 ms bins)",
	      f);
	fputs("). Brackets and whiskers: intervals from the pairs' intervals; \"too few to say\" when no pair is "
	      "decided shared (the clustering's line rule). See docs/llc-sharing.md for the definition, its "
	      "assumptions and what it does not capture (capacity misses, memory bandwidth, the scheduler's "
	      "overheads).</p>\n<p>Topology: ",
	      f);
	html_esc(f, v->source);
	fprintf(f, ", %u CPUs, %zu LLC%s, %zu node%s; %llu samples measured, %llu without a CPU.</p>\n", v->cpus,
		v->nr_llcs, v->nr_llcs == 1 ? "" : "s", v->nr_nodes, v->nr_nodes == 1 ? "" : "s",
		(unsigned long long)v->measured_samples, (unsigned long long)v->no_cpu);
	if (v->nr_llcs <= 1) {
		fputs("<p class=\"note\" id=\"llc-one\">One LLC: every CPU shares it, so no access crosses LLCs, measured "
		      "or predicted; the config gains nothing here from LLC locality (--topology FILE evaluates "
		      "another host).</p>\n</section>\n", f);
		return;
	}
	if (!v->measured_samples) {
		fputs("<p class=\"note\">No sample is on data with an identity (A:/F:): not measured.</p>\n</section>\n", f);
		return;
	}
	if (v->layout) {
		fputs("<p id=\"llc-layout\">", f);
		html_esc(f, v->layout);
		fputs("</p>\n", f);
	}
	if (v->allot_cost) {
		fputs("<p id=\"llc-allotments\">", f);
		html_esc(f, v->allot_cost);
		fputs("</p>\n", f);
	}
	write_chart(f, v);
	fputs("<table id=\"llc-table\"><tr><th>scope</th><th>samples on data</th><th>on shared data (est.)</th>"
	      "<th>partners (shared/apart/cannot tell)</th><th>cross-LLC measured</th>"
	      "<th>cross-LLC predicted</th>", f);
	fputs(v->model == LLC_MODEL_MITOSIS ? "<th>cross-LLC LLC-packing</th>" : "<th>cross-LLC scx_mitosis</th>", f);
	if (v->nr_nodes > 1)
		fputs("<th>cross-node measured</th><th>cross-node predicted</th>", f);
	fputs("<th>LLC-packing places it on</th></tr>\n", f);
	for (i = 0; i < v->nrows; i++) {
		const struct llc_view_row *row = &v->rows[i];

		fprintf(f, "<tr class=\"llc-row\" data-level=\"%d\" data-samples=\"%llu\" data-measured=\"%.4f\" "
			   "data-predicted=\"%.4f\" data-other=\"%.4f\"><td>", row->level, (unsigned long long)row->f.samples,
			row->f.llc_measured.state == LLC_EST_POINT ? row->f.llc_measured.share : -1,
			row->f.llc_predicted.state == LLC_EST_POINT ? row->f.llc_predicted.share : -1,
			row->f.llc_other.state == LLC_EST_POINT ? row->f.llc_other.share : -1);
		html_esc(f, row->name);
		if (row->merged)
			fputs("<span class=\"merged\">merged</span>", f);
		fprintf(f, "</td><td>%llu</td><td>%.0f</td><td>%zu (%zu/%zu/%zu)</td><td>", (unsigned long long)row->f.samples,
			row->f.shared, row->f.pairs, row->f.pairs_shared, row->f.pairs_apart,
			row->f.pairs - row->f.pairs_shared - row->f.pairs_apart);
		write_est(f, &row->f.llc_measured);
		fputs("</td><td>", f);
		write_model_est(f, v, v->model == LLC_MODEL_MITOSIS, &row->f.llc_predicted);
		fputs("</td><td>", f);
		write_model_est(f, v, v->model != LLC_MODEL_MITOSIS, &row->f.llc_other);
		if (v->nr_nodes > 1) {
			fputs("</td><td>", f);
			write_est(f, &row->f.node_measured);
			fputs("</td><td>", f);
			write_est(f, &row->f.node_predicted);
		}
		fputs("</td><td>", f);
		if (row->llc >= 0)
			fprintf(f, "LLC %ld (%.2f CPUs)", row->llc, row->demand);
		else if (row->llc == -1)
			fprintf(f, "thread by thread (%.2f CPUs: larger than every LLC)", row->demand);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n</section>\n", f);
}
