/*
 * page.c - writes the report page (see page.h), section by section. Every
 * string from the input goes through html_esc.
 */
#include "report/page.h"

#include <stdlib.h>

#include "extract/extract.h"
#include "report/cpu_chart.h"
#include "report/heatmap.h"
#include "report/html.h"

static const char style[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1100px}"
	"h1{margin:0 0 .4em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}"
	"dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em;margin:0}"
	"dl.facts dt{font-weight:bold}dl.facts dd{margin:0}"
	"ul.tree,ul.tree ul{list-style:none;padding-left:1.2em;margin:.2em 0}"
	"ul.tree li{border-left:1px solid #bbb;padding-left:.6em;margin:.15em 0}"
	".name{font-weight:bold;font-family:monospace}.stats{color:#555;margin-left:.6em}"
	".merged{background:#fde0dd;border:1px solid #d62728;border-radius:3px;padding:0 .3em;font-size:.85em;"
	"margin-left:.4em}"
	".units{color:#555;font-size:.9em;margin-left:1em}.unit{font-family:monospace}"
	"table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #ddd;padding:.15em .5em;"
	"text-align:right}td:first-child,th:first-child{text-align:left;font-family:monospace}"
	"pre{background:#f6f8fa;border:1px solid #ddd;padding:.6em;overflow:auto;max-height:32em}"
	".fold-note,.note{color:#8a4b00}svg{display:block;margin:.5em 0}"
	".heatmaps{display:flex;flex-wrap:wrap;gap:1em 2.5em;align-items:flex-start}"
	"figure{margin:0}figcaption{font-weight:bold}";

/* Copies the config; the page works without it. */
static const char script[] =
	"function copyConfig(){var t=document.getElementById('config').textContent;"
	"if(navigator.clipboard){navigator.clipboard.writeText(t);}}";

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void write_sched(FILE *f, const struct sched_cells_line *l)
{
	fprintf(f, "; CPU %.2f (%.1f%% of all), wakeups %llu, latency ", l->cpus, l->cpu_pct,
		(unsigned long long)l->wakeups);
	if (l->nlat)
		fprintf(f, "p50 %.1f us p99 %.1f us", (double)l->lat_p50_ns / 1e3, (double)l->lat_p99_ns / 1e3);
	else
		fputs("p50 - p99 -", f);
	fprintf(f, ", migrations %llu", (unsigned long long)l->migrations);
}

static void write_subcell(FILE *f, const struct model_cell *c, const struct model_subcell *s)
{
	size_t i;

	fprintf(f, "<li class=\"subcell\" data-name=\"");
	html_esc(f, s->name);
	fprintf(f, "\" data-units=\"%zu\"><span class=\"name\">", s->nunits);
	html_esc(f, s->name);
	fputs("</span>", f);
	if (s->merge)
		fprintf(f, "<span class=\"merged\">merged: %zu units</span>", s->nunits);
	fprintf(f, "<span class=\"stats\">%llu samples (%.1f%% of the cell)", (unsigned long long)s->samples,
		pct(s->samples, c->samples));
	if (s->has_sched)
		write_sched(f, &s->sched);
	fputs("</span>", f);
	if (s->nunits > 1) { /* one line, so that 200 units stay readable */
		fputs("<div class=\"units\">", f);
		for (i = 0; i < s->nunits; i++) {
			const struct model_unit *u = &c->units[s->units[i]];

			fputs(i ? " &middot; <span class=\"unit\">" : "<span class=\"unit\">", f);
			html_esc(f, u->name);
			fprintf(f, "</span> %llu", (unsigned long long)u->samples);
		}
		fputs(" samples</div>", f);
	}
	fputs("</li>\n", f);
}

static void write_tree(FILE *f, const struct model *m)
{
	size_t ci, s;

	fputs("<section id=\"cells\"><h2>Cells</h2>\n<ul class=\"tree\">\n", f);
	for (ci = 0; ci < m->ncells; ci++) {
		const struct model_cell *c = &m->cells[ci];

		fputs("<li class=\"cell\" data-name=\"", f);
		html_esc(f, c->name);
		fputs("\"><span class=\"name\">", f);
		html_esc(f, c->name);
		fprintf(f, "</span><span class=\"stats\">%llu samples (%.1f%%), %zu units", (unsigned long long)c->samples,
			pct(c->samples, m->input.total_samples), c->nunits);
		if (c->has_sched)
			write_sched(f, &c->sched);
		fputs("</span>\n<ul>\n", f);
		for (s = 0; s < c->nsubs; s++)
			write_subcell(f, c, &c->subs[s]);
		fputs("</ul></li>\n", f);
	}
	fputs("</ul>\n", f);
	if (!m->sched_duration_ns)
		fputs("<p class=\"note\">No sched.jsonl: CPU share, latency and migrations are not known; "
		      "CPU demand was estimated from the share of samples.</p>\n", f);
	fputs("</section>\n", f);
}

static void write_heatmaps(FILE *f, const struct page_in *p)
{
	const struct model *m = p->model;
	size_t ci, i, s;
	bool any = false;

	fputs("<section id=\"sharing\"><h2>Sharing</h2>\n", f);
	for (ci = 0; ci < m->ncells; ci++) {
		const struct model_cell *c = &m->cells[ci];
		const char **names;
		uint64_t *samples;
		size_t *group, *merged;
		struct heatmap_in in;

		if (!c->aff || c->nunits < 2)
			continue;
		names = calloc(c->nunits, sizeof(*names));
		samples = calloc(c->nunits, sizeof(*samples));
		group = calloc(c->nunits, sizeof(*group));
		merged = calloc(c->nsubs + 1, sizeof(*merged));
		if (names && samples && group && merged) {
			for (i = 0; i < c->nunits; i++) {
				names[i] = c->units[i].name;
				samples[i] = c->units[i].samples;
				group[i] = c->units[i].subcell;
			}
			for (s = 0; s < c->nsubs; s++)
				merged[s] = c->subs[s].nunits;
			in = (struct heatmap_in){.n = c->nunits, .names = names, .samples = samples, .group = group,
						 .merged = merged, .aff = c->aff, .unknown = c->unknown,
						 .max_units = p->heatmap_max_units};
			if (!any)
				fprintf(f,
					"<p>Affinity of each pair of units (0..1; docs/clustering.md): for data with a "
					"data_id, the line estimate: the shared fraction of each unit's accesses on "
					"64-byte lines the other uses (the sample rate cancels), counted when the pair is "
					"decided shared; for kernel pages and samples without a data_id, the part of each "
					"one's weight on the same physical %s in the same or adjacent epochs. Hatched: the "
					"samples cannot tell (unknown, not 0: too few line coincidences to decide; listed "
					"below). Units ordered by subcell; merged subcells are outlined in red. Hover a "
					"square for its value.%s</p>\n<div class=\"heatmaps\">\n",
					m->input.line_granularity ? "line" : "page",
					m->input.evidence_level ? " Evidence was sampled (see the -v text)." : "");
			fputs("<figure class=\"heatmap-box\" data-cell=\"", f);
			html_esc(f, c->name);
			fputs("\"><figcaption>", f);
			html_esc(f, c->name);
			fprintf(f, ": threshold %.3f, CPU cap %.2f</figcaption>\n", c->threshold, c->cap_cpus);
			heatmap_write(f, &in);
			fputs("</figure>\n", f);
			any = true;
		}
		free(names);
		free(samples);
		free(group);
		free(merged);
	}
	fputs(any ? "</div>\n" : "<p class=\"note\">No cell with two or more units clustered by sharing.</p>\n", f);
	fputs("</section>\n", f);
}

static void write_pct(FILE *f, double share)
{
	if (share > 0 && share < 0.001)
		fprintf(f, "&lt;0.1%% (%.3g%%)", 100.0 * share);
	else
		fprintf(f, "%.1f%%", 100.0 * share);
}

static void write_merge(FILE *f, const struct model_cell *c, const struct model_subcell *s)
{
	const struct model_merge *g = s->merge;
	size_t i, k;

	fputs("<div class=\"merge\" data-name=\"", f);
	html_esc(f, s->name);
	fputs("\"><h3>", f);
	html_esc(f, c->name);
	fputs(" / ", f);
	html_esc(f, s->name);
	fprintf(f, "</h3>\n<p>%zu units merged: pair affinity mean %.3f, min %.3f (threshold %.3f); "
		   "CPU demand %.2f (cap %.2f).</p>\n",
		s->nunits, g->mean_pair_affinity, g->min_pair_affinity, c->threshold, s->demand, c->cap_cpus);
	fputs("<table class=\"members\"><tr><th>member</th><th>samples</th></tr>\n", f);
	for (i = 0; i < s->nunits; i++) {
		fputs("<tr><td>", f);
		html_esc(f, c->units[s->units[i]].name);
		fprintf(f, "</td><td>%llu</td></tr>\n", (unsigned long long)c->units[s->units[i]].samples);
	}
	fputs("</table>\n", f);
	fputs("<table class=\"links\"><tr><th>merge, in order: its strongest link</th><th>merge affinity</th>"
	      "<th>demand</th><th>link affinity</th><th>shared identities</th><th>samples on them</th>"
	      "<th>share of the first's weight</th><th>share of the second's weight</th>"
	      "<th>shared objects (data_map data_sym), by the first's weight</th></tr>\n", f);
	for (i = 0; i < g->nlinks; i++) {
		const struct model_link *l = &g->links[i];

		fputs("<tr><td>", f);
		html_esc(f, c->units[l->a].name);
		fputs(" ~ ", f);
		html_esc(f, c->units[l->b].name);
		fprintf(f, "</td><td>%.3f</td><td>%.2f</td><td>%.3f</td><td>%zu</td><td>%llu + %llu</td><td>",
			l->affinity, l->demand, l->unit_affinity, l->keys, (unsigned long long)l->samples_a,
			(unsigned long long)l->samples_b);
		write_pct(f, l->share_a);
		fputs("</td><td>", f);
		write_pct(f, l->share_b);
		fputs("</td><td>", f);
		for (k = 0; k < l->ntop; k++) {
			if (k)
				fputs(", ", f);
			if (l->top[k].name)
				html_esc(f, l->top[k].name);
			else
				fputs("<span class=\"note\">(no data_map: physical pages)</span>", f);
			fputc(' ', f);
			write_pct(f, l->top[k].share);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	fputs("</div>\n", f);
}

static void write_merges(FILE *f, const struct model *m)
{
	size_t ci, s;
	bool any = false;

	fputs("<section id=\"merges\"><h2>Why units were merged</h2>\n<p>The clustering's own evidence "
	      "(docs/clustering.md): two units share a data identity (data_id, else the physical page) when both "
	      "touched it in the same or adjacent epochs; a unit's share is the part of its weight (load latency "
	      "where the backend has it, else samples; kernel pages weigh less) on what it shares with the other. "
	      "Private and shared data with a data_id is compared by cache line: the affinity is the estimated "
	      "shared fraction of each unit's accesses, counted when its lower bound is above the threshold. "
	      "Each merge joins two clusters at their average affinity; its strongest link is the member pair "
	      "of the highest affinity between them, with that pair's evidence (the same as extract -v's "
	      "merge lines).</p>\n", f);
	for (ci = 0; ci < m->ncells; ci++)
		for (s = 0; s < m->cells[ci].nsubs; s++)
			if (m->cells[ci].subs[s].merge) {
				write_merge(f, &m->cells[ci], &m->cells[ci].subs[s]);
				any = true;
			}
	if (!any)
		fputs("<p class=\"note\">No merges: every unit is a subcell of its own.</p>\n", f);
	for (ci = 0; ci < m->ncells; ci++)
		if (m->cells[ci].undecided) {
			fputs("<h3>", f);
			html_esc(f, m->cells[ci].name);
			fputs(": pairs the samples cannot decide (not merged; more samples would tell)</h3>\n<pre>", f);
			html_esc(f, m->cells[ci].undecided);
			fputs("</pre>\n", f);
		}
	fputs("</section>\n", f);
}

static void write_cpu(FILE *f, const struct page_in *p)
{
	size_t ci;

	fputs("<section id=\"cpu\"><h2>CPU use over time</h2>\n", f);
	if (!p->util) {
		if (p->util_note) {
			fputs("<p class=\"note\">No CPU chart: ", f);
			html_esc(f, p->util_note);
			fputs("</p>\n</section>\n", f);
		} else {
			fputs("<p class=\"note\">No sched.jsonl: no CPU chart.</p>\n</section>\n", f);
		}
		return;
	}
	fputs("<p>Busy CPU time per window (extract sched util's rules) of each subcell's threads, attributed as "
	      "in the cell tree, except that a thread's time goes whole to the cell holding most of its samples "
	      "(the tree splits it in proportion), and to the subcell of its normalized comm; irq and softirq time counts for the host only.</p>\n", f);
	for (ci = 0; ci < p->model->ncells; ci++) {
		const struct model_cell *c = &p->model->cells[ci];

		if (!c->nunits)
			continue;
		fputs("<h3>", f);
		html_esc(f, c->name);
		fputs("</h3>\n", f);
		cpu_chart_write(f, c, p->util);
	}
	fputs("</section>\n", f);
}

void page_write(FILE *f, const struct page_in *p)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		   "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		   "<title>scxprof report</title>\n<style>%s</style>\n<script>%s</script>\n</head>\n<body>\n",
		style, script);
	header_write(f, p->src);
	write_tree(f, p->model);
	write_heatmaps(f, p);
	write_cpu(f, p);
	write_merges(f, p->model);
	if (p->llc)
		llc_view_write(f, p->llc);
	fputs("<section id=\"config-section\"><h2>Cell config</h2>\n"
	      "<p>What <code>scxprof extract mem</code> prints with the same options. "
	      "<button type=\"button\" onclick=\"copyConfig()\">Copy</button></p>\n<pre id=\"config\">", f);
	html_escn(f, p->config, p->config_len);
	fputs("</pre>\n</section>\n<section id=\"verbose\"><details><summary>extract mem -v text</summary>\n"
	      "<pre id=\"vtext\">", f);
	html_escn(f, p->vtext, p->vtext_len);
	fputs("</pre>\n</details></section>\n</body>\n</html>\n", f);
}
