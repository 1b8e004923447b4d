/*
 * sched_model_mitosis.h - a model of the scheduler that reads our cell
 * config: scx_mitosis --cell-config, sched-ext/scx branch mitosis-next at
 * 1be7d9fea (docs/llc-sharing.md "The scx_mitosis model"). Where it puts
 * each cell and subcell on the CPUs, and so on which LLCs a thread runs:
 *
 *   - cells: cell 0 (the catch-all spec), then every cgroup that matches a
 *     non-catch-all spec (first spec in file order wins, its absolute path
 *     /sys/fs/cgroup/... matched) and is not below a matched cgroup of an
 *     equal or earlier spec, in sorted path order; a cell with a cpuset is
 *     pinned to it;
 *   - the allocator (CpuManager::compute_assignments): pinned recipients
 *     claim their cpuset's CPUs (contested ones split by deficit), targets
 *     are a 1-CPU floor plus the rest in proportion to weight (floors,
 *     then the largest remainders, ties in id order), the unclaimed CPUs go
 *     to the unpinned recipients by deficit in ascending CPU number, ids
 *     ascending: each one's primary CPUs are a run of what is left;
 *   - subcells: the same allocator over the cell's primary CPUs, the
 *     catch-all id 0, the others 1.. in file order;
 *   - weights: 1 each, or with --enable-rebalancing the fixed point of the
 *     utilisation EWMA (factor 0.3) where a cell's utilisation is its
 *     running time over its own CPUs (running capped by them: no
 *     borrowing) and a subcell's its running time over its own CPUs
 *     (running capped by the cell's CPUs); all zero falls back to equal;
 *   - a thread's subcell: the first non-catch-all subcell in id order with
 *     an OR group whose CommPrefix terms all prefix its comm, else 0;
 *   - a thread's LLC: with LLC awareness, the LLC of a CPU picked uniformly
 *     from its subcell's primary CPUs, so P(LLC l) = |run n l| / |run|;
 *     without it the thread moves over the run's CPUs, which gives the
 *     same share of its time on each LLC. --virt-llc MIN-MAX cuts each
 *     physical LLC into virtual ones of MIN-MAX cores (at most 64 LLC
 *     domains): a virtual LLC lies within its physical one, so it changes
 *     the queues, not which cache a thread's accesses come from.
 *
 * Not modelled: --cell0-min-cpus (default 0), borrowing, the previous CPU
 * a thread keeps its LLC by.
 *
 * The inputs are plain arrays (CPU numbers; CPU -> LLC, node and core
 * index), so the model does not depend on how the topology was read.
 * The allocator and layout are sched_model_mitosis.c, the config as the
 * reader reads it sched_model_mitosis_config.c.
 */
#ifndef SCX_SCHED_MODEL_MITOSIS_H
#define SCX_SCHED_MODEL_MITOSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extract/sharing/sharing.h"
#include "lib/mempool.h"

#define MITOSIS_MODEL_NAME "scx_mitosis"
#define MITOSIS_MODEL_VERSION "mitosis-next 1be7d9fea"
#define MITOSIS_MAX_LLCS 64            /* intf.h MAX_LLCS */
#define MITOSIS_MAX_SUBCELLS 8         /* intf.h MAX_SUBCELLS_PER_CELL, the catch-all included */
#define MITOSIS_DEMAND_SMOOTHING 0.3   /* --demand-smoothing's default */
#define MITOSIS_CGROUP_MOUNT "/sys/fs/cgroup"

/* ---- the allocator ---- */

/* One recipient (a cell or a subcell); its id is its index. */
struct mitosis_recipient {
	double weight;      /* >= 0 */
	const int *cpuset;  /* pinned: the CPU numbers of its cpuset.cpus; NULL: unpinned */
	size_t nr_cpuset;
	bool root;          /* cell 0: no protected floor of its own (it is never pinned) */
};

/*
 * Split the CPUs domain[0..n) (CPU numbers, ascending) among nr
 * recipients: owner[k] = the recipient of domain[k]. -1 (scx_fail) when
 * the reader would refuse: fewer CPUs than recipients, a recipient left
 * with no CPU.
 */
int mitosis_allocate(const int *domain, size_t n, const struct mitosis_recipient *r, size_t nr, int *owner);

/* ---- the topology ---- */

struct mitosis_topo {
	size_t nr_cpus;       /* length of the arrays: highest CPU number + 1 */
	const int *llc_of;    /* CPU -> LLC index, -1: not online */
	const int *node_of;   /* CPU -> node index (-1 unknown) */
	const int *core_of;   /* CPU -> core (SMT siblings share one); NULL: each CPU a core of its own */
	size_t nr_llcs, nr_nodes;
};

/*
 * --virt-llc MIN-MAX: vllc_of[cpu] (nr_cpus entries, -1 where llc_of is)
 * the virtual LLC of each CPU: each physical LLC's cores (by lowest CPU)
 * cut in parts of the size scx_utils' find_best_split_size picks (the
 * smallest exact divisor in MIN..MAX, else the least remainder, the
 * smaller size on ties; a remainder joins the last part). The number of
 * LLC domains, or -1 (scx_fail) when min is 0 or min > max.
 */
int mitosis_virt_llcs(const struct mitosis_topo *t, unsigned min, unsigned max, int *vllc_of);
/* find_best_split_size (exposed for the tests). */
size_t mitosis_split_size(size_t total, size_t min, size_t max);

/* ---- a whole layout ---- */

struct mitosis_opts {
	bool rebalancing;         /* --enable-rebalancing */
	bool llc_aware;           /* --enable-llc-awareness */
	unsigned vllc_min, vllc_max; /* --virt-llc MIN-MAX; 0: none */
};

/* What a layout needs of one cell. */
struct mitosis_cell_in {
	const int *cpuset;        /* NULL: unpinned (cell 0 always) */
	size_t nr_cpuset;
	size_t nr_subs;           /* >= 1: id 0 the catch-all */
	const double *sub_demand; /* CPUs each subcell's threads run (rebalancing); NULL: 0 */
};

struct mitosis_run {
	int *cpus;                /* ascending */
	size_t n;
};

struct mitosis_cell_out {
	struct mitosis_run cpus;
	struct mitosis_run *subs; /* nr_subs of the input */
	size_t nr_subs;
	double weight;            /* the weight it was laid out with */
	double *sub_weight;
};

struct mitosis_layout {
	struct mitosis_cell_out *cells;
	size_t nr_cells;
	unsigned rounds;          /* reconfigurations the fixed point took (rebalancing) */
	bool converged;
	size_t nr_domains;        /* LLC domains the reader sees (virtual LLCs with --virt-llc) */
	int *domain_of;           /* CPU -> LLC domain (nr_cpus) */
};

/*
 * Lay out the cells on the topology's online CPUs. -1 (scx_fail) when the
 * reader would refuse (too few CPUs, more than 64 LLC domains, --virt-llc
 * without LLC awareness).
 */
int mitosis_layout(const struct mitosis_topo *t, const struct mitosis_opts *o, const struct mitosis_cell_in *cells,
		   size_t nr_cells, struct mitosis_layout *out);
void mitosis_layout_free(struct mitosis_layout *l);

/*
 * A run's share of each LLC and node: llc[nr_llcs], node[nr_nodes] (either
 * may be NULL): |run n l| / |run|.
 */
void mitosis_run_dist(const struct mitosis_topo *t, const struct mitosis_run *run, float *llc, float *node);
/* The chance two threads of these distributions are on two LLCs: 1 - sum_l a_l b_l. */
double mitosis_pcross(const float *a, const float *b, size_t n);

/* ---- the config as the reader reads it ---- */

/*
 * Why the reader would refuse cfg (into buf), or NULL: no spec, a
 * catch-all spec that is not the last, two catch-all subcells in a spec,
 * more than 8 subcells (the catch-all included), more than 4 OR groups, a
 * Hint term (it has none). The layout's own refusals (a cell or subcell
 * without a CPU, more than 64 LLC domains) are mitosis_layout's.
 */
const char *mitosis_config_refusal(const struct cell_config *cfg, char *buf, size_t len);

/* The reader's subcell ids of a spec: id[j] of spec subcell j (0: its catch-all); *nr the ids (>= 1, a
 * "rest" 0 added when the spec has no catch-all subcell). */
void mitosis_subcell_ids(const struct cell *spec, long *id, size_t *nr);
/* The reader's subcell id of a comm in spec (comm_len bytes, cut at 15). */
size_t mitosis_match_subcell(const struct cell *spec, const char *comm, size_t comm_len);

/* The cells of a set of cgroups (paths below the mount, "/workload.slice/..."). */
struct mitosis_cells {
	size_t nr;          /* cells; 0 is the catch-all */
	char **path;        /* cell i's cgroup (path[0] "/") */
	long *spec;         /* its spec (config index); cell 0: the last catch-all spec, -1 without one */
	long *cell_of;      /* per input cgroup: its cell */
};

/*
 * Resolve the cells of cgroups[0..n) and their ancestors under cfg. -1
 * (scx_fail) on a regex the reader's dialect would refuse or OOM.
 */
int mitosis_resolve_cells(const struct cell_config *cfg, const char *const *cgroups, size_t n,
			  struct mitosis_cells *out);
void mitosis_cells_free(struct mitosis_cells *c);
/* The spec of cell i, NULL for a cell 0 without a catch-all spec. */
const struct cell *mitosis_cell_spec(const struct cell_config *cfg, const struct mitosis_cells *c, size_t i);
/*
 * The places of c's cells, the reader's subcells: cell i's are
 * (*base)[i] .. (*base)[i + 1] - 1, its subcell of id k place (*base)[i] + k,
 * (*base)[c->nr] the number of places; (*sub)[p] the name of place p's
 * subcell in cfg (the first spec subcell of that id), "rest" for an id 0
 * no spec subcell names. *base from mem (freed with it), *sub the
 * caller's to free, its names cfg's. -1 (scx_fail) on OOM, *sub not
 * allocated.
 */
int mitosis_places(const struct cell_config *cfg, const struct mitosis_cells *c, struct mempool *mem, size_t **base,
		   const char ***sub);

/* CPU numbers as a cpulist ("0-5,24-29") into buf. */
const char *mitosis_cpulist(char *buf, size_t len, const int *cpus, size_t n);

#endif
