/*
 * report.h - `scxprof report` as one library call: run extract mem's
 * analysis on PROFILE.out/perf.jsonl (with sched.jsonl when given), keep
 * what it decided per cell (report/model.h), split the sched trace's busy
 * time by subcell, and write the HTML page to a temporary name renamed to
 * the output at the end (an existing output is refused).
 */
#ifndef SCX_REPORT_REPORT_H
#define SCX_REPORT_REPORT_H

#include <stddef.h>

#include "extract/extract.h"

struct report_opts {
	struct extract_mem_opts mem; /* path: perf.jsonl; sched_path; observer is set by report_run */
	const char *out_dir;         /* PROFILE.out: process.json, and the profile's metadata.json next to it */
	const char *output;          /* the HTML file */
	size_t heatmap_max_units;    /* 0: HEATMAP_MAX_UNITS */
};

/* -1 with scx_fail (naming the file) on error; nothing is left at output then. */
int report_run(const struct report_opts *o);

#endif
