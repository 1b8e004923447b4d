/*
 * report.c - runs the report (see report.h): extract mem into memory
 * streams (config, -v text) with the model as its observer, the sched
 * trace's busy time per subcell, then the page written as a new file
 * (lib/host: a temporary beside OUTPUT, moved in, never over an existing
 * one).
 */
#include "report/report.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extract/extract.h"
#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/host/host.h"
#include "report/cpu_chart.h"
#include "report/llc_view.h"
#include "report/model.h"
#include "report/page.h"

struct mem_buf {
	FILE *f;
	char *buf;
	size_t len;
};

static int buf_open(struct mem_buf *b)
{
	memset(b, 0, sizeof(*b));
	if (!(b->f = open_memstream(&b->buf, &b->len)))
		return scx_fail_errno("open_memstream");
	return 0;
}

static void buf_close(struct mem_buf *b)
{
	if (b->f)
		fclose(b->f);
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

/* the observer's one ctx: the model and the cross-LLC figures */
struct collect {
	struct model *m;
	struct llc_view *llc;
};

static int collect_cell(void *ctx, const struct extract_mem_cell *c)
{
	return model_collect_cell(((struct collect *)ctx)->m, c);
}

static int collect_llc(void *ctx, const struct llc_share_result *r)
{
	return llc_view_collect(((struct collect *)ctx)->llc, r);
}

static int run_extract(const struct report_opts *o, struct model *m, struct llc_view *llc, struct mem_buf *cfg,
		       struct mem_buf *vlog)
{
	struct collect col = {m, llc};
	struct extract_mem_observer obs = {.on_cell = collect_cell, .on_llc = collect_llc, .undecided_pairs = true,
					   .ctx = &col};
	struct extract_mem_opts mo = o->mem;
	FILE *in = fopen(o->mem.path, "r");
	int rc;

	if (!in)
		return scx_fail_errno("%s: cannot open", o->mem.path);
	mo.observer = &obs;
	mo.verbose = mo.verbose < 1 ? 1 : mo.verbose;
	rc = extract_mem_run(&mo, in, cfg->f, vlog->f);
	fclose(in);
	if (rc == 0 && (fflush(cfg->f) != 0 || fflush(vlog->f) != 0))
		rc = scx_fail_errno("writing to memory");
	return rc;
}

static int run_util(const struct report_opts *o, struct model *m, struct sched_util_windows *w)
{
	struct sched_util_series_opts so = {
		.path = o->mem.sched_path, .window_ns = cpu_chart_window_ns(m->sched_duration_ns),
		.nseries = m->nseries, .classify = model_series_of, .ctx = m, .stop = o->mem.stop,
	};
	FILE *in = fopen(o->mem.sched_path, "r");
	int rc;

	if (!in)
		return scx_fail_errno("%s: cannot open", o->mem.sched_path);
	rc = sched_util_series(&so, in, w);
	fclose(in);
	return rc;
}

static int write_page(FILE *f, void *ctx)
{
	page_write(f, ctx);
	return 0;
}

int report_run(const struct report_opts *o)
{
	struct model m = {0};
	struct llc_view llc = {0};
	struct mem_buf cfg, vlog;
	struct sched_util_windows w = {0};
	struct report_sources src = {.out_dir = o->out_dir, .perf_jsonl = o->mem.path, .sched_jsonl = o->mem.sched_path};
	struct page_in p = {0};
	char util_note[512] = "";
	int rc = -1;

	if (fs_exists(o->output))
		return scx_fail("%s already exists; not overwritten", o->output);
	if (buf_open(&cfg) < 0)
		return -1;
	if (buf_open(&vlog) < 0) {
		buf_close(&cfg);
		return -1;
	}
	if (run_extract(o, &m, &llc, &cfg, &vlog) < 0)
		goto out;
	/* extract mem read this file already: what fails now is what the chart needs
	 * beyond it (a sched_switch, a positive span); the page says so instead */
	if (o->mem.sched_path && m.sched_duration_ns && run_util(o, &m, &w) < 0) {
		if (o->mem.stop && *o->mem.stop)
			goto out;
		snprintf(util_note, sizeof(util_note), "%s", scx_errmsg());
	}
	src.analysed = m.input.total_samples;
	p = (struct page_in){.model = &m, .src = &src, .config = cfg.buf, .config_len = cfg.len, .vtext = vlog.buf,
			     .vtext_len = vlog.len, .util = w.nwindows ? &w : NULL,
			     .heatmap_max_units = o->heatmap_max_units, .util_note = util_note[0] ? util_note : NULL,
			     .llc = &llc};
	rc = host_write_file(o->output, write_page, &p);
out:
	sched_util_windows_free(&w);
	model_free(&m);
	llc_view_free(&llc);
	buf_close(&cfg);
	buf_close(&vlog);
	return rc;
}
