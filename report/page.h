/*
 * page.h - the report page: one self-contained HTML document (inline CSS
 * and SVG, a few lines of optional inline JS for the copy button, a
 * Content-Security-Policy that forbids loading anything) with the header,
 * the cell tree, each cell's sharing heatmap, the evidence of every merge,
 * each cell's CPU chart, cross-LLC sharing measured and predicted, the
 * config and the -v text.
 */
#ifndef SCX_REPORT_PAGE_H
#define SCX_REPORT_PAGE_H

#include <stddef.h>
#include <stdio.h>

#include "extract/extract.h"
#include "report/header.h"
#include "report/llc_view.h"
#include "report/model.h"

struct page_in {
	const struct model *model;
	const struct report_sources *src;
	const char *config;   /* the cell config JSON */
	size_t config_len;
	const char *vtext;    /* extract mem -v text */
	size_t vtext_len;
	const struct sched_util_windows *util; /* NULL without sched.jsonl */
	const char *util_note;                 /* why there is no chart despite sched.jsonl, or NULL */
	size_t heatmap_max_units;              /* 0: HEATMAP_MAX_UNITS */
	const struct llc_view *llc;            /* cross-LLC figures, NULL: none */
};

void page_write(FILE *f, const struct page_in *p);

#endif
