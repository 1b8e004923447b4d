/*
 * llc_types.h - the data of the cross-LLC figures (llc/llc_share.h):
 * the counts kept while extract reads (struct llc_share), what an
 * evaluation needs besides them (struct llc_share_eval) and its result
 * (struct llc_share_result, the figures per scope). Types only, shared by
 * the counting and evaluation (llc_share.c), the figures
 * (llc/llc_measure.c), the printing and the report.
 */
#ifndef SCX_LLC_TYPES_H
#define SCX_LLC_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extract/sched/extract_sched.h"
#include "extract/sharing/sharing.h"
#include "lib/mempool.h"
#include "lib/sample_demand.h"
#include "lib/strmap.h"
#include "lib/u64map.h"
#include "llc/llc_est.h"
#include "llc/llc_map.h"
#include "llc/sched_model_mitosis.h"

#define LLC_SHARE_MAX_ACTORS ((size_t)1 << 16)
#define LLC_SHARE_Z95 1.959963984540054
/* The samples' CPUs are kept per bin of this length (the timelines without a scheduling trace). */
#define LLC_SHARE_BIN_NS SAMPLE_DEMAND_BIN_NS /* also the demand from samples alone (lib/sample_demand.h) */

struct llc_actor {
	int64_t tid, pid;   /* pid: the first sample's */
	uint32_t cgroup;    /* index into cgroup_names */
	size_t cgroup_len;
	char *comm;
	size_t comm_len;
	uint64_t hint;
	uint64_t samples;   /* all its samples (its CPU demand by sample share) */
};

struct llc_rec {
	uint64_t key;       /* share_rule key: identity x epoch */
	uint32_t actor;
	uint32_t samples;
};

/* Where an actor's samples were taken: per 100 ms bin and CPU. */
struct llc_bin {
	uint64_t bin;
	uint32_t actor;
	int32_t cpu;
	uint64_t samples;
};

/* What llc_share_add saw of the samples; the result carries them as they are. */
struct llc_share_counts {
	uint64_t samples;            /* every sample seen */
	uint64_t no_cpu;             /* samples without a CPU */
	uint64_t no_key;             /* samples that are no evidence */
	uint64_t dropped;            /* samples of actors beyond LLC_SHARE_MAX_ACTORS */
	uint64_t faults;             /* page-fault samples (first touches) */
};

struct llc_share {
	bool line_granularity;
	size_t max_recs;
	struct llc_actor *actors;
	size_t nr_actors, cap_actors;
	struct u64map actor_index;   /* hash of (tid, cgroup, comm, hint) -> index + 1 */
	struct strmap cgroups;       /* cgroup path -> index */
	char **cgroup_names;
	size_t nr_cgroups, cap_cgroups;
	struct llc_rec *recs;
	size_t nr_recs, cap_recs;
	struct u64map rec_index;     /* hash of (key, actor) -> index + 1 */
	struct llc_bin *bins;
	size_t nr_bins, cap_bins;
	struct u64map bin_index;     /* hash of (bin, actor, cpu) -> index + 1 */
	unsigned level;
	size_t last_actor;           /* index + 1 of the previous sample's actor (consecutive samples are often one thread's) */
	struct llc_share_counts seen;
};

/* Whose layout the predicted figures are (--sched-model). */
enum llc_sched_model { LLC_MODEL_MITOSIS, LLC_MODEL_PACKING };

/* The figures a term carries (llc_measure.c, llc_region.c): measured, the packing model's, the scx_mitosis model's. */
enum { LLC_FIG_LLC, LLC_FIG_LLC_PACKING, LLC_FIG_NODE, LLC_FIG_NODE_PACKING, LLC_FIG_LLC_MITOSIS, LLC_FIG_NODE_MITOSIS,
       LLC_FIG_N };

/* The figures of one scope (the profile, a cell, a subcell): its threads' accesses. */
struct llc_share_fig {
	uint64_t samples;              /* its threads' samples on data (A:/F: lines) */
	double shared;                 /* of them, on data another thread uses (estimated: sum of the weights) */
	size_t pairs, pairs_shared, pairs_apart; /* (thread, partner) with data in common, by the pair's verdict */
	struct llc_est_fig llc_measured, llc_predicted, node_measured, node_predicted; /* predicted: --sched-model's */
	struct llc_est_fig llc_other, node_other; /* the other model's prediction */
};

struct llc_share_scope {
	char *name;          /* "allotment", "allotment/alpha-+beta-" */
	long cell, sub;      /* config indexes; sub -1 for a cell (or a cell without subcells) */
	bool merged;         /* a subcell of two or more units ('+' in its name) */
	double demand;       /* CPUs (runtime / duration, or sample share x recorded CPUs); subcells only */
	int llc;             /* predicted LLC index, -1 when spread over LLCs (subcells only) */
	size_t threads;      /* distinct tids */
	struct llc_share_fig f;
};

/*
 * The scx_mitosis model's layout of the recording's threads
 * (llc_mitosis.c): its cells (cgroups), each cell's subcells with their
 * names, CPU runs, demand and threads; place p's share of LLC l is
 * dist[p * stride + l], of node k dist[p * stride + nr_llcs + k].
 */
struct llc_mitosis_result {
	bool ran;                    /* false: the reader would refuse the layout (why) */
	char why[256];
	struct mitosis_opts opts;
	struct mitosis_cells cells;
	struct mitosis_layout layout;
	size_t *base;                /* cell i's places start at base[i] (nr_cells + 1) */
	char **sub_name;             /* per place */
	double *sub_demand;          /* per place: CPUs */
	size_t *sub_threads;         /* per place: distinct tids */
	float *dist;
	size_t stride;
	struct mempool mem;          /* owns base, sub_*, dist */
};

/* One direction i -> j of the profile figure: its weight (the point's), for the subcell order (llc_order.c). */
struct llc_pair_w {
	uint32_t i, j;
	float w;
};

/* The subcell order of one config cell (llc_order.c): file indexes of its subcells in the order chosen. */
struct llc_order {
	long cell;                   /* config index */
	char *cell_name;
	size_t *order;               /* nr_subcells entries: order[k] = the subcell written k-th */
	char **name;                 /* the subcells' names, in the order the clustering wrote them */
	size_t nr;
	bool applied;                /* the config was written in the best order (--order-subcells) */
	double written, best;        /* the profile's predicted point (scx_mitosis) in the written order and the best */
	size_t tried;                /* orders evaluated */
};

/*
 * Allotments that run different programs (llc_allot_cost.c): the scx_mitosis
 * model's predicted cross-LLC figure of each recorded allotment's cell under
 * the union spec (the allotment spec as written, every allotment holding
 * every subcell) and under its own spec (one spec per allotment), and of the
 * whole profile both ways.
 */
struct llc_allot_cost {
	char *cgroup;                  /* the allotment's cgroup name (its spec's) */
	size_t union_subcells, own_subcells;
	struct llc_est_fig union_llc, own_llc;
};

struct llc_allot_costs {
	struct llc_allot_cost *v;      /* n == 0: none computed */
	size_t n;
	struct llc_est_fig union_total, own_total;
};

struct llc_share_result {
	const struct llc_map *map;
	struct llc_pair_w *pw;       /* the pair directions of the profile figure */
	size_t npw;
	struct llc_order *orders;    /* per config cell with two or more subcells to order */
	size_t nr_orders;
	enum llc_sched_model model;  /* whose figures llc_predicted / node_predicted are */
	struct llc_mitosis_result mitosis;
	struct llc_share_fig total;
	struct llc_share_scope *cells, *subs;
	size_t nr_cells, nr_subs;
	struct llc_share_counts seen; /* as struct llc_share counted them */
	uint64_t unmapped, with_key;  /* samples on a CPU outside the map; on evidence keys */
	uint64_t page_keys;  /* samples on page keys (K:, no data_id): not in the line estimate */
	unsigned level;
	bool first_touch;    /* the samples are page faults: pairs cannot tell without recaptures */
	size_t timeline_sched, timeline_samples, timeline_none; /* actors by where their timeline came from */
	double online_cpus;  /* of the recording: demand = samples share x online_cpus */
	bool demand_by_runtime; /* the scheduling trace's runtime was the demand */
	/* the choices made to meet the reader's limits (NULL or none: the config is the clustering's) and
	 * the profile's predicted figures under the config the clustering wanted (llc_step_fit_cost) */
	const struct reader_fit_log *fit;
	struct llc_est_fig fit_wanted_llc, fit_wanted_node;
	struct llc_allot_costs allot;  /* the union spec's cost (llc_allot_cost.c) */
};

/* What the evaluation decided for one actor (llc_measure.h, llc_region.h). */
struct llc_measure_actor {
	long scope, cell;  /* index into r->subs and r->cells; -1: in no cell */
	int pllc, pnode;   /* predicted LLC and node index (the packing model) */
	const float *mllc, *mnode; /* the scx_mitosis model: its share of each LLC, node (NULL: none) */
};

/* What the evaluation needs besides the counts. */
struct llc_share_eval {
	const struct cell_config *cfg;
	const char *workload, *allotment_re; /* the cgroup rule (config_match.h) */
	const struct llc_map *map;           /* LLCs and nodes evaluated against */
	enum llc_sched_model model;          /* whose prediction is the predicted figure */
	struct mitosis_opts mitosis;         /* the scx_mitosis model's options */
	double online_cpus;                  /* CPUs of the recording, for demand by sample share */
	/*
	 * With a scheduling trace: a thread's CPUs (runtime / trace duration),
	 * shared among its actors by their samples; NULL: demand by sample
	 * share x online_cpus.
	 */
	double (*thread_cpus)(void *ctx, int64_t tid);
	/* With a scheduling trace: where the thread ran (sched_stats.h; *n 0: not in the trace). */
	const struct sched_run *(*thread_runs)(void *ctx, int64_t tid, size_t *n);
	void *thread_ctx;
	/*
	 * The scheduling trace's threads (may be NULL): those never sampled
	 * themselves add their demand to the subcell they land in
	 * (llc_thread_demands, llc.h), as a scheduler would run them there.
	 */
	const struct sched_threads *threads;
};

#endif
