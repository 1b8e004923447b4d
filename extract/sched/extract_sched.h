/*
 * extract_sched.h - the contract of extract/sched/: sched JSONL and what is
 * computed from it: `extract sched util` (sched_util.c, sched_util_cats.c),
 * and extract mem's scheduling stats per cell and unit (sched_cells.c), read
 * beside perf.jsonl on a thread of its own (sched_cells_async.c). The reader of
 * sched JSONL (sched_events.h, its line in sched_event_types.h) and `extract
 * sched stats` (sched_stats.h) are
 * part of the contract through this header, files of their own;
 * sched_events_fast.h, sched_stats_internal.h and sched_util_internal.h are
 * the room's own.
 */
#ifndef SCX_EXTRACT_SCHED_H
#define SCX_EXTRACT_SCHED_H

#include <stdint.h>
#include <stdio.h>

#include "extract/mem/mem_agg.h"
#include "extract/sched/sched_events.h"
#include "extract/sched/sched_stats.h"
#include "extract/sharing/sharing.h"

/* ---- sched_util.c, sched_util_cats.c: `extract sched util`: time-weighted CPU busy utilization
 * per window from sched JSONL, with upstream's (scx_characterize) rules:
 *
 * - Per CPU, what runs is the task of the last sched_switch (none when the
 *   next task is pid 0 or a swapper), overridden by a stack of hardirq and
 *   softirq sections (irq_handler_exit pops the latest hardirq,
 *   softirq_exit the latest softirq of any kind). NET_RX is softirq-rx,
 *   NET_TX softirq-tx, other actions softirq-other; a task whose comm
 *   starts with "ksoftirqd/" counts as softirq-other.
 * - A record of the running tid whose hint differs from the running hint
 *   changes it (splits the interval); sched_switch takes next_hint.
 * - An nmi:* event whose trace has "delta_ns: N" is cut out: the current
 *   interval ends at time-N, [time-N, time) is nmi, and the next starts at
 *   time.
 * - Each CPU's last interval ends at the CPU's last record. The trace runs
 *   from the first to the last record (file order); windows of --window-ms
 *   from the start, the last one partial. Percentages are of window width
 *   x CPUs seen, printed with SCHED_UTIL_DECIMALS decimals.
 * - Categories: COMM (exact), GLOB (* and ?), either with @hint=H; naming a
 *   comm with a hint adds COMM@hint=0; hardirq, softirq-rx, softirq-tx,
 *   softirq-other and nmi are always added. An interval matching two
 *   categories is an error (checked per window, as upstream).
 */
/* Decimals of every percentage printed (fixed, for every window size). */
#define SCHED_UTIL_DECIMALS 4

struct sched_util_opts {
	const char *path;       /* for messages */
	uint64_t window_ms;     /* > 0 */
	const char *categories; /* comma list, may be NULL or "" */
	int verbose;
};

/* Check the options (window, category syntax). -1 with scx_fail. */
int sched_util_check_opts(const struct sched_util_opts *o);
/* One JSON line per window on out; -v summary on err. -1 with scx_fail. */
int sched_util_run(const struct sched_util_opts *o, FILE *in, FILE *out, FILE *err);

/*
 * The same busy intervals split into the caller's series instead of
 * categories: classify(ctx, tid, comm, hint) names the series of a task's
 * interval (or -1: none); system sections (irq, softirq, nmi) belong to
 * none. For scxprof report's per-cell CPU chart.
 */
struct sched_util_series_opts {
	const char *path;  /* for messages */
	uint64_t window_ns;
	size_t nseries;
	long (*classify)(void *ctx, int64_t tid, const char *comm, uint64_t hint);
	void *ctx;
	volatile int *stop; /* polled; may be NULL */
};

struct sched_util_windows {
	uint64_t trace_start_ns, trace_end_ns, window_ns;
	size_t nwindows, nseries, cpu_count;
	/* nwindows rows of 1 + nseries busy ns: [0] everything busy, [1 + s] series s.
	 * A row's capacity is its width (the last one may be partial) x cpu_count. */
	uint64_t *busy;
};

/* -1 with scx_fail (as sched_util_run). */
int sched_util_series(const struct sched_util_series_opts *o, FILE *in, struct sched_util_windows *out);
void sched_util_windows_free(struct sched_util_windows *w);

/* ---- sched_cells.c: scheduling stats for extract mem: per-thread results of
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
 * left out (and counted by sched_cells_report_unattributed). A unit's CPU
 * demand is its runtime divided by the trace duration.
 */
struct sampled;

struct sched_cells {
	const char *path;
	struct sched_threads st;
	struct sched_stats_feed *feed; /* between sched_cells_begin and sched_cells_end */
	struct sampled *sampled;       /* its filter's state */
};

/* -v: how many threads were charged through their process, and how many not at all. */
int sched_cells_report_unattributed(FILE *log, const struct sched_cells *m, const struct mem_agg *a);

/*
 * Read path (sched JSONL) for the samples of a (read with track_tids):
 * only threads sampled themselves or whose process was keep their state,
 * the others count in the unattributed line. -1 with scx_fail.
 */
int sched_cells_load(struct sched_cells *m, const char *path, const struct mem_agg *a);
/*
 * The same, fed one event at a time (one-pass extract): begin (label names
 * the stream in messages and -v), sched_cells_event for each event in stream
 * order, end. sched_cells_free in any case.
 */
int sched_cells_begin(struct sched_cells *m, const char *label, const struct mem_agg *a);
int sched_cells_event(struct sched_cells *m, const struct sched_event *ev);
/*
 * Or begin before the samples are all counted (one-pass extract with
 * threads: the sched stream is aggregated beside the memory stream):
 * begin_early keeps every thread, sched_cells_filter, once a is complete,
 * drops those sched_cells_begin would have; the results are the same.
 */
int sched_cells_begin_early(struct sched_cells *m, const char *label);
int sched_cells_filter(struct sched_cells *m, const struct mem_agg *a);
int sched_cells_end(struct sched_cells *m);
void sched_cells_free(struct sched_cells *m);

/* demand[i] = runtime of unit i / trace duration, in CPUs. -1 on OOM. */
int sched_cells_demand(const struct sched_cells *m, const struct mem_agg *a, enum group_kind kind,
		     const struct unit_list *u, double *demand);

/* Scheduling numbers of a set of threads (a cell, a subcell). */
struct sched_cells_line {
	char *name;          /* NULL for the cell itself, else the subcell name (malloc'ed) */
	double cpus;         /* runtime / trace duration */
	double cpu_pct;      /* cpus as a percentage of the CPUs seen */
	uint64_t runtime_ns, wakeups, migrations, threads;
	size_t nlat;         /* wakeup-to-run latencies */
	uint64_t lat_p50_ns, lat_p99_ns; /* 0 when nlat == 0 */
};

/*
 * The lines sched_cells_report prints, as numbers: [0] the cell, then one per
 * subcell (cluster, or unit when cl is NULL), then "rest" when there are
 * units. *out is malloc'ed (free with sched_cells_lines_free). -1 on OOM.
 */
int sched_cells_lines(const struct sched_cells *m, const struct mem_agg *a, enum group_kind kind,
		    const struct unit_list *u, const struct clustering *cl, struct sched_cells_line **out, size_t *n);
void sched_cells_lines_free(struct sched_cells_line *v, size_t n);

/*
 * One line for the cell and one per subcell (clusters of units, or one
 * per unit when cl is NULL, then "rest" when there are units):
 *   "  sched NAME: cpu X.XX (Y.Y%), runtime Z.Z ms, wakeups N,
 *    latency p50 A.A us p99 B.B us, migrations M"
 * NAME is the cell name, or CELL/SUBCELL. -1 on OOM.
 */
int sched_cells_report(FILE *log, const struct sched_cells *m, const struct mem_agg *a, enum group_kind kind,
		     const char *cell_name, const struct unit_list *u, const struct clustering *cl);

/* ---- sched_cells_async.c: the two-step path's sched JSONL read on a thread of
 * its own while perf.jsonl is read (extract -f perf.jsonl -j 2 and more):
 * the events go into a sched_cells begun early (every thread kept), and once
 * the samples are all counted the filter sched_cells_load would have applied
 * from the start is installed; the results are sched_cells_load's.
 */
struct sched_cells_async;

/* Start reading path into m (which the thread owns until finish or
 * cancel). NULL with scx_fail when no thread could be started. */
struct sched_cells_async *sched_cells_async_start(struct sched_cells *m, const char *path);
/* Wait for the end of the stream, then filter by a's samples and end m:
 * 0, or -1 with the thread's scx_fail message (the first error of the
 * stream, as sched_cells_load gives it). Frees t. */
int sched_cells_async_finish(struct sched_cells_async *t, const struct mem_agg *a);
/* The samples failed: stop the thread at its next event and free t (m is
 * left for sched_cells_free). */
void sched_cells_async_cancel(struct sched_cells_async *t);

#endif
