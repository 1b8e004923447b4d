/*
 * cpu_chart.c - the per-cell CPU chart (see cpu_chart.h): stacked polygons
 * per subcell, a polyline for the host, axes with round ticks, a legend.
 */
#include "report/cpu_chart.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "report/html.h"

#define CHART_W 760.0
#define CHART_H 220.0
#define PAD_L 48.0
#define PAD_B 30.0
#define PAD_T 10.0

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
				      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define NCOLOURS (sizeof(palette) / sizeof(palette[0]))

uint64_t cpu_chart_window_ns(uint64_t duration_ns)
{
	static const uint64_t steps[] = {1, 2, 5};
	uint64_t scale = 1000000; /* 1 ms */
	size_t i;

	for (;;) {
		for (i = 0; i < 3; i++)
			if (duration_ns / (steps[i] * scale) < 240)
				return steps[i] * scale;
		scale *= 10;
	}
}

static double nice_ceil(double v)
{
	static const double steps[] = {1, 2, 2.5, 5, 10};
	double p;
	size_t i;

	if (v <= 0)
		return 1;
	p = pow(10, floor(log10(v)));
	for (i = 0; i < 5; i++)
		if (steps[i] * p >= v)
			return steps[i] * p;
	return 10 * p;
}

/* Percent of the window's capacity (width x CPUs) of busy ns. */
static double pct(const struct sched_util_windows *w, size_t i, uint64_t busy)
{
	uint64_t start = w->trace_start_ns + i * w->window_ns, end = start + w->window_ns;
	double cap;

	if (end > w->trace_end_ns)
		end = w->trace_end_ns;
	cap = (double)(end > start ? end - start : 0) * (double)w->cpu_count;
	return cap > 0 ? 100.0 * (double)busy / cap : 0;
}

static uint64_t busy_of(const struct sched_util_windows *w, size_t i, long series)
{
	return w->busy[i * (1 + w->nseries) + (series < 0 ? 0 : 1 + (size_t)series)];
}

static double xpos(const struct sched_util_windows *w, size_t i)
{
	return PAD_L + (CHART_W - PAD_L - 10) * ((double)i + 0.5) / (double)w->nwindows;
}

static void write_axes(FILE *f, const struct sched_util_windows *w, double ymax)
{
	double plot_h = CHART_H - PAD_T - PAD_B, dur_s = (double)(w->trace_end_ns - w->trace_start_ns) / 1e9;
	double xstep = nice_ceil(dur_s / 8), t;
	int k;

	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", PAD_L,
		CHART_H - PAD_B, CHART_W - 10, CHART_H - PAD_B);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", PAD_L, PAD_T, PAD_L,
		CHART_H - PAD_B);
	for (k = 0; k <= 4; k++) {
		double y = CHART_H - PAD_B - plot_h * k / 4.0;

		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%g%%</text>\n",
			PAD_L, y, CHART_W - 10, y, PAD_L - 4, y + 3, ymax * k / 4.0);
	}
	for (t = 0; t <= dur_s + 1e-9 && xstep > 0; t += xstep) {
		double x = PAD_L + (CHART_W - PAD_L - 10) * (dur_s > 0 ? t / dur_s : 0);

		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">%gs</text>\n", x,
			CHART_H - PAD_B + 14, t);
	}
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">time (windows of %g ms); "
		"percent of all %zu CPUs</text>\n",
		(PAD_L + CHART_W) / 2, CHART_H - 2, (double)w->window_ns / 1e6, w->cpu_count);
}

void cpu_chart_write(FILE *f, const struct model_cell *c, const struct sched_util_windows *w)
{
	double plot_h = CHART_H - PAD_T - PAD_B, ymax = 0, host_max = 0, *base;
	size_t i, s, drawn = 0;
	bool host_fits;

	if (!w->nwindows || !(base = calloc(w->nwindows, sizeof(double))))
		return;
	/* the scale is the cell's: its stacked subcells; the host's line only when it fits */
	for (i = 0; i < w->nwindows; i++) {
		double sum = 0, v = pct(w, i, busy_of(w, i, -1));

		for (s = 0; s < c->nsubs; s++)
			if (c->subs[s].series >= 0)
				sum += pct(w, i, busy_of(w, i, c->subs[s].series));
		ymax = sum > ymax ? sum : ymax;
		host_max = v > host_max ? v : host_max;
	}
	ymax = nice_ceil(ymax > 100 ? 100 : ymax);
	host_fits = host_max <= ymax * 1.0001;
	fprintf(f,
		"<svg class=\"cpu-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" data-windows=\"%zu\">\n",
		CHART_W + 200, CHART_H, CHART_W + 200, CHART_H, w->nwindows);
	write_axes(f, w, ymax);
	for (s = 0; s < c->nsubs; s++) {
		const struct model_subcell *sc = &c->subs[s];
		const char *col = palette[drawn % NCOLOURS];

		if (sc->series < 0)
			continue;
		fprintf(f, "<polygon class=\"cpu-series\" fill=\"%s\" fill-opacity=\"0.75\" stroke=\"none\" points=\"",
			col);
		for (i = 0; i < w->nwindows; i++)
			fprintf(f, "%.1f,%.1f ", xpos(w, i), CHART_H - PAD_B - plot_h * base[i] / ymax);
		for (i = w->nwindows; i-- > 0;) {
			base[i] += pct(w, i, busy_of(w, i, sc->series));
			fprintf(f, "%.1f,%.1f ", xpos(w, i),
				CHART_H - PAD_B - plot_h * (base[i] > ymax ? ymax : base[i]) / ymax);
		}
		fputs("\"><title>", f);
		html_esc(f, sc->name);
		fputs("</title></polygon>\n", f);
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text class=\"cpu-legend\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\">",
			CHART_W + 4, PAD_T + 16.0 * (double)drawn, col, CHART_W + 18, PAD_T + 16.0 * (double)drawn + 9);
		html_esc_cut(f, sc->name, 26);
		fputs("</text>\n", f);
		drawn++;
	}
	if (!host_fits) {
		fprintf(f,
			"<text class=\"cpu-legend\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\">whole host: up to %.0f%%"
			"</text><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">(off this scale)</text>\n",
			CHART_W + 4, PAD_T + 16.0 * (double)drawn + 9, host_max, CHART_W + 4,
			PAD_T + 16.0 * (double)drawn + 23);
		fputs("</svg>\n", f);
		free(base);
		return;
	}
	fputs("<polyline class=\"cpu-host\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.2\" points=\"", f);
	for (i = 0; i < w->nwindows; i++) {
		double v = pct(w, i, busy_of(w, i, -1));

		fprintf(f, "%.1f,%.1f ", xpos(w, i), CHART_H - PAD_B - plot_h * (v > ymax ? ymax : v) / ymax);
	}
	fprintf(f,
		"\"><title>all busy CPU time of the host</title></polyline>\n"
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>"
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">whole host</text>\n",
		CHART_W + 2, PAD_T + 16.0 * (double)drawn + 5, CHART_W + 14, PAD_T + 16.0 * (double)drawn + 5,
		CHART_W + 18, PAD_T + 16.0 * (double)drawn + 9);
	fputs("</svg>\n", f);
	free(base);
}
