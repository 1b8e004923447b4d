/*
 * sched_util.h - `extract sched util`: time-weighted CPU busy utilization
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
#ifndef SCX_EXTRACT_SCHED_UTIL_H
#define SCX_EXTRACT_SCHED_UTIL_H

#include <stdint.h>
#include <stdio.h>

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

#endif
