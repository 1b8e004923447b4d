/*
 * extract_mem.h - the extract mem stage as one library call: read
 * perf.jsonl, classify and count, print the -v report into a log FILE*,
 * cluster (upstream's comm rule, or sharing-aware), write the cell config.
 */
#ifndef SCX_EXTRACT_MEM_H
#define SCX_EXTRACT_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define EXTRACT_DEFAULT_WORKLOAD "workload.slice"
#define EXTRACT_DEFAULT_ALLOTMENT_RE "workload-tw-[^/]+\\.allotment\\.slice"

enum cluster_mode {
	CLUSTER_SHARING, /* default: merge units that share memory, in every group */
	CLUSTER_COMM,    /* upstream-exact: significant comms, allotment only */
};

struct mem_agg;
struct sched_cells;
struct unit_list;
struct clustering;
struct sharing_params;
struct llc_share_result;
struct reader_limits;
struct mem_agg_opts;
struct cell_config;
struct reader_fit_log;

/*
 * What extract mem decided for one top-level cell, for callers that show
 * more than the config (scxprof report). Valid only during the callback.
 */
/* What holds for the whole input, the same in every cell's callback. */
struct extract_mem_input {
	uint64_t total_samples;  /* every sample of the input, all cells */
	unsigned evidence_level; /* evidence maps keep 2^-level of the key space */
	bool line_granularity;   /* evidence keys are 64-byte lines, not pages */
};

struct extract_mem_cell {
	const char *name;                 /* the top-level cell's name */
	int kind;                         /* enum group_kind */
	uint64_t samples;                 /* the samples of the cell's groups */
	struct extract_mem_input input;
	const struct mem_agg *agg;        /* all samples, evidence maps */
	const struct unit_list *units;    /* the cell's units (may be empty) */
	const struct clustering *cl;      /* its subcells as clusters of units; NULL with --cluster comm */
	const struct sharing_params *sp;  /* threshold and cap; NULL with --cluster comm */
	const struct sched_cells *sched;  /* sched.jsonl results; NULL without one */
};

struct extract_mem_observer {
	/* called once per top-level cell, in config order; -1 (scx_fail) stops the run */
	int (*on_cell)(void *ctx, const struct extract_mem_cell *c); /* may be NULL */
	/* called once with the cross-LLC figures (llc/llc_share.h) by o->step, after the last cell; may be NULL */
	int (*on_llc)(void *ctx, const struct llc_share_result *r);
	bool llc_required; /* on_llc must be called: a recording without topology is an error */
	bool undecided_pairs; /* each cell's clustering hands out the pairs that cannot tell (clustering.undecided) */
	void *ctx;
};

struct extract_mem_opts;

/* What the run built, for a step's finish(). */
struct extract_mem_built {
	struct cell_config *cfg;               /* the config to write (a step may reorder its subcells) */
	const struct cell_config *wanted;      /* the config the clustering wanted before fits' choices; NULL: none */
	const struct reader_fit_log *fits;     /* the choices made to meet the reader's limits */
	const struct sched_cells *sched;       /* sched.jsonl results; NULL without one */
	const struct cell_config *allot_specs; /* allotments that run different programs: one spec each; NULL: none */
	size_t allot_cell;                     /* with allot_specs: the allotment cell's index in cfg */
};

/*
 * A step of another room that runs along with extract mem (the cross-LLC
 * estimator, llc/llc.h's llc_extract_step; cmd/ wires it in): start()
 * before the samples are read, may hook into the aggregation's options,
 * and sets *state (NULL: nothing to do for these options); finish(state)
 * once the config is built, before it is written; end(state) frees it.
 * -1 (scx_fail) stops the run.
 */
struct extract_mem_step {
	int (*start)(const struct extract_mem_opts *o, struct mem_agg_opts *ao, void **state);
	int (*finish)(void *state, const struct mem_agg_opts *ao, const struct extract_mem_built *b, FILE *log);
	void (*end)(void *state);
};

struct extract_mem_opts {
	const char *path;         /* input, for messages and finding topology.json */
	const char *workload;     /* NULL: EXTRACT_DEFAULT_WORKLOAD */
	const char *allotment_re; /* NULL: EXTRACT_DEFAULT_ALLOTMENT_RE */
	bool use_hints;
	int verbose;
	enum cluster_mode cluster;
	bool line_granularity;    /* --granularity line */
	double share_threshold;   /* < 0: SHARE_THRESHOLD_DEFAULT */
	double max_cell_cpus;     /* <= 0: largest LLC (topology.json or host) */
	size_t max_keys;          /* evidence budget, 0: default */
	size_t max_names;         /* names counted per group (k), 0: default */
	size_t max_groups;        /* allotment groups counted (k), 0: default */
	double min_share;         /* unit rule: percent of a group's samples (0: SIGNIFICANT_PCT, upstream's 5) */
	size_t min_keys;          /* least shared identities for a merge (0: SHARE_MIN_KEYS_DEFAULT) */
	uint64_t min_samples;     /* least samples on them a side (0: SHARE_MIN_SAMPLES_DEFAULT) */
	const char *sched_path;   /* sched.jsonl: demand and -v sched lines; NULL: none */
	const char *topology;     /* --topology FILE: LLCs and nodes, the default cap; NULL: the recording's (rec_topology.h); none: the whole machine as one LLC */
	int sched_model;          /* --sched-model: enum llc_sched_model (0: scx_mitosis) */
	bool mitosis_rebalancing; /* the scx_mitosis model: --enable-rebalancing */
	bool mitosis_no_llc_aware;   /* ... without --enable-llc-awareness */
	unsigned mitosis_vllc_min, mitosis_vllc_max; /* ... --virt-llc MIN-MAX (0: none) */
	bool order_subcells;      /* --order-subcells: the best subcell order for scx_mitosis's layout */
	const char *per_allotment_dir; /* --per-allotment-config DIR: one config per recorded allotment; NULL: none */
	volatile int *stop;       /* polled; set to interrupt */
	int jobs;                 /* extract_mem_run: >= 2 reads sched_path on a thread beside the samples */
	const struct extract_mem_observer *observer; /* may be NULL */
	const struct reader_limits *limits; /* the reader's rules the config must meet; NULL: reader_limits_default */
	const struct extract_mem_step *step; /* may be NULL */
};

/* Check the option values a user can get wrong (the regex). -1 + scx_fail. */
int extract_mem_check_opts(const struct extract_mem_opts *o);

/*
 * Run the stage on in; the config goes to out, the -v report (when
 * o->verbose) to log. -1 (scx_fail) on error.
 */
int extract_mem_run(const struct extract_mem_opts *o, FILE *in, FILE *out, FILE *log);

/*
 * The same stage on samples and sched events from elsewhere than JSONL
 * files (one-pass extract, pipeline/onepass.h): samples() hands every
 * sample to mem_agg_add() in input order; with o->sched_path set (it then
 * only names the stream), sched() fills m as sched_cells_load() would
 * (sched_cells_begin/event/end) and returns 1, or 0 when the stream turned
 * out empty (as extract ignores an empty sched.jsonl). -1 (scx_fail) on error.
 */
struct extract_mem_source {
	int (*samples)(void *ctx, struct mem_agg *a);
	int (*sched)(void *ctx, struct sched_cells *m, const struct mem_agg *a);
	void *ctx;
};
int extract_mem_run_source(const struct extract_mem_opts *o, const struct extract_mem_source *src, FILE *out,
			   FILE *log);

#endif
