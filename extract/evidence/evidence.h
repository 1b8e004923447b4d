/*
 * evidence.h - the contract of extract/evidence/: one config from several
 * recordings: one recording's evidence as a file (evidence_file.c), collected
 * from extract mem's cells (evidence_collect.c), and the combine over
 * recordings (evidence_merge.c). The rest of the library includes nothing
 * else from this room.
 */
#ifndef SCX_EXTRACT_EVIDENCE_H
#define SCX_EXTRACT_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "extract/extract_mem.h"
#include "extract/sharing/sharing.h"

/* ---- evidence_file.c: one recording's unit-level sharing evidence, the
 * per-recording half of `extract --evidence-out` / `--evidence-in` and of
 * `extract -f A -f B` (schemas/evidence.schema.json): the top-level cells
 * with their units (match clauses, samples, CPU demand, evidence totals)
 * and, for each pair of units of a cell that have anything in common, the
 * sufficient statistics of the page affinity and of the line estimate
 * (extract/sharing/sharing.h), which add up over recordings. Written as a small
 * versioned JSON document and read back (hostile input: every value is
 * checked, one error line naming the file).
 */
#define EVF_FORMAT "scxprof-evidence"
#define EVF_VERSION 1
#define EVF_MAX_BYTES (256u << 20) /* a file larger than this is refused */
#define EVF_MAX_UNITS 1024         /* units of one cell (the combine keeps a pair table of n^2/2) */
#define EVF_MAX_CLAUSES 4096       /* match clauses of one unit */
#define EVF_MAX_COUNT (1ULL << 40)  /* any count (samples, hits): more is refused */

enum evf_cell_kind { EVF_ALLOTMENT, EVF_WORKLOAD, EVF_REST, EVF_KINDS };

struct evf_unit {
	char *name;          /* "web" or "alpha@hint=7": matched by name across recordings */
	char *comm;          /* its normalized comm (config order: comm, then hint) */
	bool by_hint;
	uint64_t hint;
	struct cell_clause *clauses;
	size_t nr_clauses;
	uint64_t samples;      /* the unit's samples */
	uint64_t line_samples; /* of them on line keys (A:/F: data): n_a of the line estimate */
	double weight;         /* its evidence weight (the page affinity's denominator) */
	double demand;         /* CPUs: sched runtime / duration, else share of samples x online CPUs */
};

/* What two units of a cell (a < b, unit indexes) have in common in one recording. */
struct evf_pair {
	size_t a, b;
	uint64_t keys, samples_a, samples_b; /* page evidence: shared keys, samples on them */
	double wa, wb;                       /* page evidence: idf-weighed weight on them */
	uint64_t na_r, nb_r, ja, jb, ha, hb, ra, rb, ra_blk, rb_blk, lines; /* line estimate counts */
	double lwa, lwb;                     /* weight of the line hits */
};

struct evf_cell {
	char *name;
	enum evf_cell_kind kind;
	char *match; /* allotment: the cgroup regex; workload: the substring; rest: NULL */
	struct evf_unit *units; /* in config order */
	size_t nr_units;
	struct evf_pair *pairs; /* sorted by (a, b), only pairs with a non-zero statistic */
	size_t nr_pairs;
};

struct evf_recording {
	char *source;        /* the recording's path as given to extract */
	uint64_t samples;    /* all samples */
	uint64_t fault_samples; /* of them, page-fault samples (first touches); absent in older files: 0 */
	double duration_s;   /* first to last sample */
	double online_cpus;
	double cap_cpus;     /* its cap (largest LLC, --max-cell-cpus or --topology); 0: no unit was clustered */
	bool line_granularity;
	bool use_hints;
	double min_share;
	struct evf_cell *cells; /* in config order (allotment, workload, rest), each kind at most once */
	size_t nr_cells;
};

/* Write r as JSON to f. -1 (scx_fail) on a write error. */
int evf_write(const struct evf_recording *r, FILE *f);
/* Parse the JSON in buf (len bytes); name is the file for messages. -1 + scx_fail: "NAME: what is wrong". */
int evf_parse(const char *buf, size_t len, const char *name, struct evf_recording *r);
/* Read and parse the file at path. */
int evf_read(const char *path, struct evf_recording *r);
void evf_free(struct evf_recording *r);
const char *evf_kind_name(enum evf_cell_kind k);

/* ---- evidence_collect.c: the per-recording step of a combine over
 * recordings: an extract_mem observer (extract/extract_mem.h) that turns
 * each top-level cell the stage decided into its evidence.h record:
 * units, demand, and the page and line statistics of every pair of units
 * that have anything in common.
 */
struct evidence_collect {
	struct evf_recording rec; /* filled by the observer; the caller owns it (evf_free) */
	struct extract_mem_observer obs;
};

/* Set c up for extract_mem_run*(): pass &c->obs as o->observer. source names the recording. */
int evidence_collect_init(struct evidence_collect *c, const struct extract_mem_opts *o, const char *source);

/* ---- evidence_merge.c: one cell config from the evidence of several
 * recordings (extract -f A -f B ..., extract --evidence-in FILE ...).
 * Units are matched by name within their top-level cell; evidence never
 * joins two recordings: each pair's statistics (evidence.h) are
 * summed over the recordings that have both units, and the sharing
 * decision (extract/sharing/sharing.h) is taken once on the sums; a unit's CPU
 * demand is its largest over the recordings, the cap the smallest.
 */
struct evidence_merge_opts {
	double share_threshold; /* < 0: SHARE_THRESHOLD_DEFAULT */
	double max_cell_cpus;   /* <= 0: the smallest cap of the recordings */
	size_t min_keys;        /* 0: SHARE_MIN_KEYS_DEFAULT */
	uint64_t min_samples;   /* 0: SHARE_MIN_SAMPLES_DEFAULT */
	int verbose;            /* -v report into log */
	const struct reader_limits *limits; /* the reader's rules the config meets; NULL: reader_limits_default */
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
