/*
 * model.h - what scxprof report shows, as data: per top-level cell its
 * units (sample counts, affinity matrix), its subcells (clusters of units,
 * with scheduling numbers when sched.jsonl is there) and, for every merged
 * subcell, the evidence behind the merge. model_collect_cell() is the
 * extract mem observer that fills it while extract runs.
 */
#ifndef SCX_REPORT_MODEL_H
#define SCX_REPORT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extract/extract.h"
#include "lib/mempool.h"
#include "lib/u64map.h"

struct model_unit {
	char *name;      /* "web" or "web@hint=7" */
	char *comm;      /* its normalized comm */
	bool by_hint;
	uint64_t hint;
	uint64_t samples;
	size_t subcell;  /* index in the cell's subcells */
};

/* A data object (data_map data_sym) a link's first unit shares with its second. */
struct model_object {
	char *name;    /* NULL: identities without a known object (no data_map) */
	double share;  /* of the first unit's weight on the shared objects */
};

/*
 * One merge that built a merged subcell, as extract's clustering hands it
 * out (extract/sharing/sharing.h's sharing_merge, -v's "merge" lines): the
 * clusters' affinity and demand, and the evidence of its strongest link.
 */
struct model_link {
	double affinity, demand;       /* of the merge */
	size_t a, b;                   /* the strongest link's unit indexes */
	size_t keys;                   /* shared identities (same or adjacent epochs) */
	uint64_t samples_a, samples_b; /* samples of a / b on them */
	double share_a, share_b;       /* part of a's / b's weight on them */
	double unit_affinity;          /* a ~ b's affinity */
	struct model_object top[3];    /* heaviest first */
	size_t ntop;
};

struct model_merge {
	struct model_link *links; /* the merges in the clustering's order */
	size_t nlinks;
	double min_pair_affinity, mean_pair_affinity; /* over the member pairs' affinities */
};

struct model_subcell {
	char *name;
	size_t *units;   /* unit indexes; none for "rest" */
	size_t nunits;
	uint64_t samples;
	double demand;   /* CPUs the clustering counted (sharing mode) */
	bool has_sched;
	struct sched_cells_line sched;
	struct model_merge *merge; /* merged subcells only */
	long series;     /* its series in the CPU chart, -1: none */
};

struct model_cell {
	char *name;
	int kind;        /* enum group_kind */
	uint64_t samples;
	struct model_unit *units;
	size_t nunits;
	double *aff;     /* nunits x nunits, row-major; NULL with --cluster comm */
	unsigned char *unknown; /* nunits x nunits: 1 where the line estimate cannot tell and aff is 0 (not "apart") */
	struct model_subcell *subs; /* config order, "rest" last when there are units */
	size_t nsubs;
	bool has_sched;
	struct sched_cells_line sched;
	bool clustered;  /* sharing mode */
	double threshold, cap_cpus;
	char *undecided; /* -v's lines of the pairs the samples cannot decide ("a ~ b\n  lines: ...\n"), NULL: none */
};

struct model {
	struct model_cell *cells;
	size_t ncells;
	struct extract_mem_input input; /* the samples, evidence level and granularity of extract's input */
	size_t nseries;          /* subcells with units, over all cells */
	uint64_t sched_duration_ns; /* sched.jsonl's span, 0 without one */
	struct u64map tid_kind;  /* with sched.jsonl: tid -> kind + 1 of the groups with most of its samples
				  * (mem_agg_tid_kinds) */
	bool has_tids;
	struct mempool mem;      /* owns everything the cells point to (not cells itself, which grows) */
};

/* The extract mem observer callback (ctx: struct model *). -1 with scx_fail. */
int model_collect_cell(void *ctx, const struct extract_mem_cell *c);
void model_free(struct model *m);

/*
 * Series of a task interval for the CPU chart, as extract mem attributes
 * threads (extract/sched/extract_sched.h) but whole: the cell holding most of the
 * thread's samples, in it the subcell whose unit has comm's normalized
 * name (and hint);
 * -1 for threads never sampled or matching no unit. Without sched.jsonl's
 * thread map, the first cell with such a unit.
 */
long model_series_of(void *ctx, int64_t tid, const char *comm, uint64_t hint);

#endif
