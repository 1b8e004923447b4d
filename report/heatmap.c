/*
 * heatmap.c - the sharing heatmap (see heatmap.h): choose and order the
 * rows, then write one <rect class="hm-cell"> per displayed pair, the
 * labels, the outlines of merged subcells and a colour legend.
 */
#include "report/heatmap.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "report/html.h"

#define LABEL_CHARS 28
#define CHAR_PX 7.0

struct rows {
	size_t *unit;   /* displayed units in order */
	size_t m;       /* displayed units */
	bool *folded;   /* per unit */
	size_t nfolded;
};

static const struct heatmap_in *order_in; /* qsort context */

static int by_group_then_index(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	size_t ga = order_in->group[a], gb = order_in->group[b];

	if (ga != gb)
		return ga < gb ? -1 : 1;
	return (a > b) - (a < b);
}

/* Which units are shown: all, or whole subcells by samples up to max - 1 (one row for "others"). */
static int choose_rows(const struct heatmap_in *in, size_t max, struct rows *r)
{
	size_t i, g, ngroups = 0, shown = 0;
	uint64_t *gsamples = NULL;
	size_t *gsize = NULL, *gorder = NULL;
	bool *gkeep = NULL;
	int rc = -1;

	r->unit = calloc(in->n + 1, sizeof(size_t));
	r->folded = calloc(in->n + 1, sizeof(bool));
	if (!r->unit || !r->folded)
		return scx_fail("out of memory");
	for (i = 0; i < in->n; i++)
		ngroups = in->group[i] + 1 > ngroups ? in->group[i] + 1 : ngroups;
	if (in->n > max) {
		gsamples = calloc(ngroups + 1, sizeof(*gsamples));
		gsize = calloc(ngroups + 1, sizeof(*gsize));
		gorder = calloc(ngroups + 1, sizeof(*gorder));
		gkeep = calloc(ngroups + 1, sizeof(*gkeep));
		if (!gsamples || !gsize || !gorder || !gkeep) {
			scx_fail("out of memory");
			goto out;
		}
		for (i = 0; i < in->n; i++) {
			gsamples[in->group[i]] += in->samples[i];
			gsize[in->group[i]]++;
		}
		for (g = 0; g < ngroups; g++)
			gorder[g] = g;
		/* largest subcells first (insertion sort: few subcells) */
		for (g = 1; g < ngroups; g++)
			for (i = g; i > 0 && gsamples[gorder[i]] > gsamples[gorder[i - 1]]; i--) {
				size_t t = gorder[i];

				gorder[i] = gorder[i - 1];
				gorder[i - 1] = t;
			}
		for (g = 0; g < ngroups; g++)
			if (gsize[gorder[g]] && shown + gsize[gorder[g]] <= max - 1) {
				gkeep[gorder[g]] = true;
				shown += gsize[gorder[g]];
			}
		for (i = 0; i < in->n; i++)
			if (!gkeep[in->group[i]]) {
				r->folded[i] = true;
				r->nfolded++;
			}
	}
	for (i = 0; i < in->n; i++)
		if (!r->folded[i])
			r->unit[r->m++] = i;
	order_in = in;
	qsort(r->unit, r->m, sizeof(size_t), by_group_then_index);
	rc = 0;
out:
	free(gsamples);
	free(gsize);
	free(gorder);
	free(gkeep);
	return rc;
}

static bool unknown(const struct heatmap_in *in, size_t i, size_t j)
{
	return in->unknown && in->unknown[i * in->n + j];
}

/*
 * Affinity of displayed rows a and b (index r->m is "others"); -1 when the
 * pair cannot tell, or every folded pair behind the cell cannot.
 */
static double cell_value(const struct heatmap_in *in, const struct rows *r, size_t a, size_t b)
{
	double sum = 0;
	size_t i, j, k = 0, u_k = 0;

	if (a < r->m && b < r->m)
		return unknown(in, r->unit[a], r->unit[b]) ? -1 : in->aff[r->unit[a] * in->n + r->unit[b]];
	if (a < r->m || b < r->m) {
		size_t u = r->unit[a < r->m ? a : b];

		for (i = 0; i < in->n; i++)
			if (r->folded[i] && unknown(in, u, i))
				u_k++;
			else if (r->folded[i]) {
				sum += in->aff[u * in->n + i];
				k++;
			}
		return k ? sum / (double)k : u_k ? -1 : 0;
	}
	for (i = 0; i < in->n; i++)
		for (j = 0; j < in->n; j++)
			if (i != j && r->folded[i] && r->folded[j] && unknown(in, i, j))
				u_k++;
			else if (i != j && r->folded[i] && r->folded[j]) {
				sum += in->aff[i * in->n + j];
				k++;
			}
	return k ? sum / (double)k : u_k ? -1 : 1;
}

/* White to dark blue; sqrt so that small affinities (0.05-0.3) stay visible. */
static void colour(double v, char *out, size_t size)
{
	double t = sqrt(v < 0 ? 0 : v > 1 ? 1 : v);

	snprintf(out, size, "#%02x%02x%02x", (unsigned)lround(247 + t * (8.0 - 247)),
		 (unsigned)lround(251 + t * (48.0 - 251)), (unsigned)lround(255 + t * (107.0 - 255)));
}

static void write_label_text(FILE *f, const struct heatmap_in *in, const struct rows *r, size_t a)
{
	if (a < r->m)
		html_esc_cut(f, in->names[r->unit[a]], LABEL_CHARS);
	else
		fprintf(f, "others (%zu units)", r->nfolded);
}

static void write_label_title(FILE *f, const struct heatmap_in *in, const struct rows *r, size_t a)
{
	if (a < r->m) {
		html_esc(f, in->names[r->unit[a]]);
		fprintf(f, ": %llu samples", (unsigned long long)in->samples[r->unit[a]]);
	} else {
		fprintf(f, "%zu smaller units folded together", r->nfolded);
	}
}

static void write_name_attr(FILE *f, const struct heatmap_in *in, const struct rows *r, size_t a)
{
	if (a < r->m)
		html_esc(f, in->names[r->unit[a]]);
	else
		fputs("others", f);
}

/* A label's text element from its data-name on: the name, its tooltip,
 * its text and the closing tag */
static void write_label_rest(FILE *f, const struct heatmap_in *in, const struct rows *r, size_t a)
{
	write_name_attr(f, in, r, a);
	fputs("\"><title>", f);
	write_label_title(f, in, r, a);
	fputs("</title>", f);
	write_label_text(f, in, r, a);
	fputs("</text>\n", f);
}

/* The names of rows a and b with sep between them (a cell's two ends) */
static void write_name_pair(FILE *f, const struct heatmap_in *in, const struct rows *r, size_t a, const char *sep,
			    size_t b)
{
	write_name_attr(f, in, r, a);
	fputs(sep, f);
	write_name_attr(f, in, r, b);
}

static void write_outlines(FILE *f, const struct heatmap_in *in, const struct rows *r, double x0, double y0,
			   double cell)
{
	size_t a = 0, b;

	while (a < r->m) {
		size_t g = in->group[r->unit[a]];

		for (b = a; b < r->m && in->group[r->unit[b]] == g; b++)
			;
		if (b - a > 1)
			fprintf(f,
				"<rect class=\"hm-cluster\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"none\" stroke=\"#d62728\" stroke-width=\"2.5\"/>\n",
				x0 + (double)a * cell, y0 + (double)a * cell, (double)(b - a) * cell,
				(double)(b - a) * cell);
		a = b;
	}
}

static void write_legend(FILE *f, double x, double y)
{
	static const double stops[] = {0, 0.01, 0.05, 0.1, 0.2, 0.4, 0.7, 1};
	char c[24];
	size_t i;

	fprintf(f, "<g class=\"hm-legend\"><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">affinity</text>\n", x,
		y - 6);
	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		colour(stops[i], c, sizeof(c));
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\" stroke=\"#999\" "
			"stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%g</text>\n",
			x, y + (double)i * 16, c, x + 18, y + (double)i * 16 + 11, stops[i]);
	}
	fprintf(f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"url(#hm-unknown)\" stroke=\"#999\" "
		"stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">cannot tell</text>\n",
		x, y + (double)i * 16, x + 18, y + (double)i * 16 + 11);
	fputs("</g>\n", f);
}

int heatmap_write(FILE *f, const struct heatmap_in *in)
{
	struct rows r = {0};
	size_t max = in->max_units ? in->max_units : HEATMAP_MAX_UNITS, m, a, b, longest = 0;
	double cell, label_px, x0, y0, width, height;
	char c[24];

	if (max < 2)
		max = 2;
	if (choose_rows(in, max, &r) < 0) {
		free(r.unit);
		free(r.folded);
		return -1;
	}
	m = r.m + (r.nfolded ? 1 : 0);
	for (a = 0; a < in->n; a++) {
		size_t len = strlen(in->names[a]);

		longest = len > longest ? len : longest;
	}
	longest = longest > LABEL_CHARS ? LABEL_CHARS + 3 : longest;
	longest = longest < 16 && r.nfolded ? 16 : longest;
	cell = m ? 640.0 / (double)m : 32;
	cell = cell > 40 ? 40 : cell < 12 ? 12 : cell;
	label_px = (double)longest * CHAR_PX + 12;
	x0 = label_px;
	y0 = label_px;
	width = x0 + (double)m * cell + 90;
	height = y0 + (double)m * cell + 10;
	height = height < y0 + 150 ? y0 + 150 : height;
	if (r.nfolded)
		fprintf(f,
			"<p class=\"fold-note\">%zu units: the %zu smaller ones (whole subcells, fewest samples) are "
			"folded into one &quot;others&quot; row and column (mean affinity of the folded pairs).</p>\n",
			in->n, r.nfolded);
	fprintf(f,
		"<svg class=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" data-units=\"%zu\" data-rows=\"%zu\">\n",
		width, height, width, height, in->n, m);
	/* a pair the samples cannot decide: hatched grey, not the white of 0 (which reads as "apart") */
	fputs("<defs><pattern id=\"hm-unknown\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
	      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#e5e5e5\"/>"
	      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999\" stroke-width=\"2\"/></pattern></defs>\n",
	      f);
	for (a = 0; a < m; a++) {
		fprintf(f,
			"<text class=\"hm-label hm-row\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
			"dominant-baseline=\"middle\" font-size=\"%.0f\" data-name=\"",
			x0 - 4, y0 + ((double)a + 0.5) * cell, cell < 14 ? 10.0 : 12.0);
		write_label_rest(f, in, &r, a);
		fprintf(f,
			"<text class=\"hm-label hm-col\" transform=\"translate(%.1f,%.1f) rotate(-90)\" "
			"dominant-baseline=\"middle\" font-size=\"%.0f\" data-name=\"",
			x0 + ((double)a + 0.5) * cell, y0 - 4, cell < 14 ? 10.0 : 12.0);
		write_label_rest(f, in, &r, a);
	}
	for (a = 0; a < m; a++)
		for (b = 0; b < m; b++) {
			double v = cell_value(in, &r, a, b);

			if (a == b && a < r.m)
				snprintf(c, sizeof(c), "#d9d9d9");
			else if (v < 0)
				snprintf(c, sizeof(c), "url(#hm-unknown)");
			else
				colour(v, c, sizeof(c));
			fprintf(f,
				"<rect class=\"hm-cell\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.5\" data-row=\"",
				x0 + (double)b * cell, y0 + (double)a * cell, cell, cell, c);
			write_name_pair(f, in, &r, a, "\" data-col=\"", b);
			if (v < 0)
				fputs("\" data-affinity=\"unknown\"><title>", f);
			else
				fprintf(f, "\" data-affinity=\"%.3f\"><title>", v);
			write_name_pair(f, in, &r, a, " ~ ", b);
			if (v < 0)
				fputs(": cannot tell (too few line coincidences; see the list below)</title></rect>\n", f);
			else
				fprintf(f, ": affinity %.3f</title></rect>\n", v);
		}
	write_outlines(f, in, &r, x0, y0, cell);
	write_legend(f, x0 + (double)m * cell + 16, y0 + 14);
	fputs("</svg>\n", f);
	free(r.unit);
	free(r.folded);
	return 0;
}
