/*
 * mem_sched.h - scheduling stats for extract mem: per-thread results of
 * sched.jsonl (extract/sched/sched_stats) attributed to the cells and units of
 * the memory samples. sched.jsonl has no cgroup: a thread's runtime is
 * charged to the groups of its samples in perf.jsonl in proportion to its
 * samples there (a thread moved into its cgroup after fork goes mostly
 * where it ran), or, when the thread itself was never sampled, to the
 * groups of its process's (tgid's) samples; its wakeups, migrations and
 * latencies count in the cell that holds most of those samples. Within a
 * cell it belongs to the unit whose normalized comm is the thread's last
 * sched comm normalized (and, for NAME@hint=H units, whose hint is the
 * tid's first sample hint); threads of a cell that match no unit count in
 * its "rest" subcell; threads whose process was never sampled either are
 * left out (and counted by mem_sched_report_unattributed). A unit's CPU
 * demand is its runtime divided by the trace duration.
 */
#ifndef SCX_EXTRACT_MEM_SCHED_H
#define SCX_EXTRACT_MEM_SCHED_H

#include <stdint.h>
#include <stdio.h>

#include "extract/mem/mem_agg.h"
#include "extract/sharing/mem_groups.h"
#include "extract/sched/sched_events.h"
#include "extract/sched/sched_stats.h"
#include "extract/sharing/sharing.h"

struct sampled;

struct mem_sched {
	const char *path;
	struct sched_threads st;
	struct sched_stats_feed *feed; /* between mem_sched_begin and mem_sched_end */
	struct sampled *sampled;       /* its filter's state */
};

/* -v: how many threads were charged through their process, and how many not at all. */
int mem_sched_report_unattributed(FILE *log, const struct mem_sched *m, const struct mem_agg *a);

/*
 * Read path (sched JSONL) for the samples of a (read with track_tids):
 * only threads sampled themselves or whose process was keep their state,
 * the others count in the unattributed line. -1 with scx_fail.
 */
int mem_sched_load(struct mem_sched *m, const char *path, const struct mem_agg *a);
/*
 * The same, fed one event at a time (one-pass extract): begin (label names
 * the stream in messages and -v), mem_sched_event for each event in stream
 * order, end. mem_sched_free in any case.
 */
int mem_sched_begin(struct mem_sched *m, const char *label, const struct mem_agg *a);
int mem_sched_event(struct mem_sched *m, const struct sched_event *ev);
/*
 * Or begin before the samples are all counted (one-pass extract with
 * threads: the sched stream is aggregated beside the memory stream):
 * begin_early keeps every thread, mem_sched_filter, once a is complete,
 * drops those mem_sched_begin would have; the results are the same.
 */
int mem_sched_begin_early(struct mem_sched *m, const char *label);
int mem_sched_filter(struct mem_sched *m, const struct mem_agg *a);
int mem_sched_end(struct mem_sched *m);
void mem_sched_free(struct mem_sched *m);

/* demand[i] = runtime of unit i / trace duration, in CPUs. -1 on OOM. */
int mem_sched_demand(const struct mem_sched *m, const struct mem_agg *a, enum group_kind kind,
		     const struct unit_list *u, double *demand);

/* Scheduling numbers of a set of threads (a cell, a subcell). */
struct mem_sched_line {
	char *name;          /* NULL for the cell itself, else the subcell name (malloc'ed) */
	double cpus;         /* runtime / trace duration */
	double cpu_pct;      /* cpus as a percentage of the CPUs seen */
	uint64_t runtime_ns, wakeups, migrations, threads;
	size_t nlat;         /* wakeup-to-run latencies */
	uint64_t lat_p50_ns, lat_p99_ns; /* 0 when nlat == 0 */
};

/*
 * The lines mem_sched_report prints, as numbers: [0] the cell, then one per
 * subcell (cluster, or unit when cl is NULL), then "rest" when there are
 * units. *out is malloc'ed (free with mem_sched_lines_free). -1 on OOM.
 */
int mem_sched_lines(const struct mem_sched *m, const struct mem_agg *a, enum group_kind kind,
		    const struct unit_list *u, const struct clustering *cl, struct mem_sched_line **out, size_t *n);
void mem_sched_lines_free(struct mem_sched_line *v, size_t n);

/*
 * One line for the cell and one per subcell (clusters of units, or one
 * per unit when cl is NULL, then "rest" when there are units):
 *   "  sched NAME: cpu X.XX (Y.Y%), runtime Z.Z ms, wakeups N,
 *    latency p50 A.A us p99 B.B us, migrations M"
 * NAME is the cell name, or CELL/SUBCELL. -1 on OOM.
 */
int mem_sched_report(FILE *log, const struct mem_sched *m, const struct mem_agg *a, enum group_kind kind,
		     const char *cell_name, const struct unit_list *u, const struct clustering *cl);

#endif
