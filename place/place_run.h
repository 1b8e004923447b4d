/*
 * place_run.h - `scxprof place`: apply a cell config's placement to a
 * running workload without sched_ext. Reads the config (cell_config_read)
 * and the topology (llc_map), measures each thread's CPU demand over a
 * window (/proc/TID/schedstat), plans with place_plan (extract's own
 * placement model) and pins each thread to its LLC's CPUs; with follow,
 * it looks again every interval, pins threads that appeared and re-pins
 * the others, until the workload has no thread left or *stop is set.
 */
#ifndef SCX_PLACE_RUN_H
#define SCX_PLACE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct place_opts {
	const char *config;        /* the config extract printed */
	const char *topology;      /* topology.json, NULL: this host's sysfs */
	const int64_t *pids;       /* processes whose threads are placed */
	size_t nr_pids;
	const char *cgroup;        /* and/or the threads of a cgroup v2 subtree; NULL: none */
	const char *workload, *allotment_re; /* the cgroup rule; NULL: the config's values, else extract's defaults */
	const char *hints_map;     /* pinned task-storage map of the threads' hints; NULL: every hint 0 */
	long window_ms;            /* demand measured over this long */
	long interval_ms;          /* follow: look again this often */
	bool dry_run;              /* print the plan, pin nothing */
	bool mitosis;              /* --model mitosis: each thread on its subcell's run as scx_mitosis lays it out */
	bool mitosis_rebalancing;  /* ... with its --enable-rebalancing */
	bool follow;
	volatile int *stop;        /* set by a signal: return (follow) */
};

/*
 * Print the plan to out (comment lines "# ..." then one line per thread:
 * tid, comm, subcell, LLC, CPUs, tab-separated) and pin. -1 (scx_fail: one
 * line naming the file, pid or thread) on error: then nothing was pinned
 * unless the error came in a follow round.
 */
int place_run(const struct place_opts *o, FILE *out);

#endif
