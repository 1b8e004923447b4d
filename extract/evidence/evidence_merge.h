/*
 * evidence_merge.h - one cell config from the evidence of several
 * recordings (extract -f A -f B ..., extract --evidence-in FILE ...).
 * Units are matched by name within their top-level cell; evidence never
 * joins two recordings: each pair's statistics (evidence_file.h) are
 * summed over the recordings that have both units, and the sharing
 * decision (extract/sharing/sharing.h) is taken once on the sums; a unit's CPU
 * demand is its largest over the recordings, the cap the smallest.
 */
#ifndef SCX_EXTRACT_EVIDENCE_MERGE_H
#define SCX_EXTRACT_EVIDENCE_MERGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "extract/evidence/evidence_file.h"

struct evidence_merge_opts {
	double share_threshold; /* < 0: SHARE_THRESHOLD_DEFAULT */
	double max_cell_cpus;   /* <= 0: the smallest cap of the recordings */
	size_t min_keys;        /* 0: SHARE_MIN_KEYS_DEFAULT */
	uint64_t min_samples;   /* 0: SHARE_MIN_SAMPLES_DEFAULT */
	int verbose;            /* -v report into log */
};

/*
 * Combine recs[0..n) (reordered: by source, so that the result does not
 * depend on the order they were given in) and write the config to out,
 * the -v report to log. -1 (scx_fail) when they disagree on what a
 * combine needs the same (granularity, hints, the cells' matches).
 */
int evidence_merge_run(struct evf_recording *recs, size_t n, const struct evidence_merge_opts *o, FILE *out,
		       FILE *log);

#endif
