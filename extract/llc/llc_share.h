/*
 * llc_share.h - cross-LLC sharing: measured as the host scheduled the
 * recording, and predicted under a cell config.
 *
 * While extract reads perf.jsonl, every sample with a CPU and an evidence
 * key (extract/llc/share_rule.h: the clustering's identity x epoch keys; R:
 * text is no evidence) is counted per (key, thread, CPU); a thread here is
 * an "actor": tid with the cgroup, comm and hint it was sampled with. An
 * access (sample) is on shared data when some other thread touched the
 * same identity within the clustering's window (share_rule.h: 64-byte
 * lines within 15 s, pages in the same or an adjacent epoch). It is a
 * cross-LLC access when the identity was touched from another LLC in the
 * same epoch (1 s for lines, 100 ms for pages).
 *   measured  = cross-LLC accesses / accesses on shared data, each access
 *               on the LLC of the CPU it was sampled on (topology);
 *   predicted = the same with each thread on the LLC the placement model
 *               gives its subcell (extract/llc/placement.h; a subcell larger
 *               than every LLC has its threads placed one by one);
 * and the same for NUMA nodes. Both count the same accesses, so they
 * compare directly. Figures come per subcell, per top-level cell and for
 * the whole profile, each with its counts and a 95% Wilson interval.
 *
 * Memory: at most max_recs (key, thread, CPU) records; past that a
 * sampling level rises and only identities whose hash has `level` leading
 * zero bits are kept (all their touches, so whether an identity is shared
 * or crosses LLCs is decided on whole identities), as the evidence maps
 * do; actors are bounded by LLC_SHARE_MAX_ACTORS (the samples of later
 * new threads are counted as dropped).
 */
#ifndef SCX_EXTRACT_LLC_SHARE_H
#define SCX_EXTRACT_LLC_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "extract/sharing/cell_config.h"
#include "extract/mem/jsonl_scan.h"
#include "extract/llc/llc_map.h"
#include "lib/strmap.h"
#include "lib/u64map.h"

#define LLC_SHARE_MAX_ACTORS ((size_t)1 << 16)
/* Below this many accesses on shared data a share is given as an interval only. */
#define LLC_SHARE_MIN_POINT 30
#define LLC_SHARE_Z95 1.959963984540054

struct llc_actor {
	int64_t tid;
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
	int32_t cpu;
	uint64_t samples;
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
	struct u64map rec_index;     /* hash of (key, actor, cpu) -> index + 1 */
	unsigned level;
	size_t last_actor;           /* index + 1 of the previous sample's actor (consecutive samples are often one thread's) */
	uint64_t samples;            /* every sample seen */
	uint64_t no_cpu;             /* samples without a CPU */
	uint64_t no_key;             /* samples that are no evidence */
	uint64_t dropped;            /* samples of actors beyond LLC_SHARE_MAX_ACTORS */
};

/* max_recs 0: 1 << 18 (extract mem: --evidence-keys / 4). */
void llc_share_init(struct llc_share *s, bool line_granularity, size_t max_recs);
void llc_share_free(struct llc_share *s);
/* Count one sample. -1 on OOM. */
int llc_share_add(struct llc_share *s, const struct mem_sample *m);

/* A share x of n with its 95% Wilson interval. */
struct llc_share_ratio {
	uint64_t x, n;
	double share, low, high; /* share = x / n; all 0 when n == 0 */
};
void llc_share_wilson(uint64_t x, uint64_t n, struct llc_share_ratio *r);

/* The figures of one scope (the profile, a cell, a subcell). */
struct llc_share_fig {
	uint64_t shared;               /* accesses on shared data */
	uint64_t llc_measured, llc_predicted, node_measured, node_predicted; /* of them, cross-LLC / cross-node */
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

struct llc_share_result {
	const struct llc_map *map;
	struct llc_share_fig total;
	struct llc_share_scope *cells, *subs;
	size_t nr_cells, nr_subs;
	uint64_t samples, no_cpu, no_key, unmapped, dropped, with_key;
	unsigned level;
	double online_cpus;  /* of the recording: demand = samples share x online_cpus */
	bool demand_by_runtime; /* the scheduling trace's runtime was the demand */
};

/* What the evaluation needs besides the counts. */
struct llc_share_eval {
	const struct cell_config *cfg;
	const char *workload, *allotment_re; /* the cgroup rule (config_match.h) */
	const struct llc_map *map;           /* LLCs and nodes evaluated against */
	double online_cpus;                  /* CPUs of the recording, for demand by sample share */
	/*
	 * With a scheduling trace: a thread's CPUs (runtime / trace duration),
	 * shared among its actors by their samples; NULL: demand by sample
	 * share x online_cpus.
	 */
	double (*thread_cpus)(void *ctx, int64_t tid);
	void *thread_ctx;
};

/* Measure and predict. -1 (scx_fail) on OOM or a regex failure. */
int llc_share_evaluate(const struct llc_share *s, const struct llc_share_eval *e, struct llc_share_result *r);
void llc_share_result_free(struct llc_share_result *r);

/* The -v section. */
void llc_share_print(FILE *f, const struct llc_share_result *r);
/* The JSON sidecar (schemas/llc-sharing.schema.json), one object and a newline. -1 on write error. */
int llc_share_write_json(FILE *f, const struct llc_share_result *r);

#endif
