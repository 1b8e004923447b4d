/*
 * sched_stats.h - `extract sched stats`: per-key scheduling statistics
 * from sched JSONL, keyed by thread, process, comm, cpu, llc or node (the
 * last two need topology.json).
 *
 * Per key: runtime (on-CPU time between the sched_switch that runs a task
 * and the one that stops it; a task still running at the end counts up to
 * its CPU's last record), utilization (runtime / trace duration: percent of
 * one CPU for thread, process and comm keys, of all the key's CPUs for
 * cpu, llc and node keys), switches out (involuntary when prev_state is
 * "R" or "R+", voluntary otherwise), wakeups (sched_wakeup and
 * sched_wakeup_new of the key's threads; for CPU keys, on target_cpu or
 * else the event's CPU), wakings (sched_waking), migrations (a thread
 * switched in on a CPU other than the last one it ran on; CPU keys count
 * the destination) and wakeup-to-run latency: from the first waking or
 * wakeup of a thread that is not running to the switch that runs it
 * (pending wakeups are dropped on sched_process_exit and _exec). Latency
 * percentiles are exact (nearest rank over all stored latencies).
 *
 * A broken switch chain (a sched_switch whose prev_pid is not the task the
 * CPU's previous switch put there: an event was lost) is counted, and the
 * time since that previous switch is credited to no thread and no CPU.
 */
#ifndef SCX_EXTRACT_SCHED_STATS_H
#define SCX_EXTRACT_SCHED_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum sched_stats_by { BY_THREAD, BY_PROCESS, BY_COMM, BY_CPU, BY_LLC, BY_NODE };

/*
 * Distinct threads are bounded: when max_threads are live, a round folds
 * half of them (none running; those waiting for no wakeup and with the
 * least runtime first) into "folded_threads" (count and runtime in the
 * JSON, a -v line): they are in no key, and a folded tid seen again
 * counts anew. CPU keys stay whole (a folded thread's next run is not a
 * migration). Below the bound the output is the same as without it.
 */
#define SCHED_STATS_DEFAULT_MAX_THREADS ((size_t)1 << 17)

struct sched_stats_opts {
	const char *path;     /* for messages */
	const char *topology; /* for llc and node: topology.json or "host"; NULL: the recording's (next to path) */
	enum sched_stats_by by;
	long limit;           /* 0: all keys */
	int verbose;          /* -v: broken switch chains and folded threads on the log */
	size_t max_threads;   /* 0: SCHED_STATS_DEFAULT_MAX_THREADS */
};

struct sched_thread_folds {
	uint64_t count, runtime_ns, max_runtime_ns, rounds;
};

/* A sched_switch whose prev is not the CPU's current task. */
struct sched_chain_break {
	int64_t cpu;
	uint64_t time_ns;
	int64_t expected_pid, prev_pid; /* what the last switch put there (0: idle), what this one says */
	uint64_t gap_ns;                /* since the last switch: credited to nobody */
};

#define SCHED_CHAIN_BREAKS_KEPT 5

struct sched_chain_breaks {
	uint64_t count, uncredited_ns;
	struct sched_chain_break first[SCHED_CHAIN_BREAKS_KEPT];
};

/* "thread" ... "node" -> *by; -1 if unknown */
int sched_stats_parse_by(const char *s, enum sched_stats_by *by);
/* One JSON document on out; with o->verbose, the chain breaks on log. -1 with scx_fail. */
int sched_stats_run(const struct sched_stats_opts *o, FILE *in, FILE *out, FILE *log);

/*
 * Where a thread ran: on cpu between start and end, runtime ns of it
 * (consecutive runs on one CPU are merged while the merged span stays
 * within SCHED_RUN_SPAN_NS, so a run's time is spread over at most that).
 */
struct sched_run {
	uint64_t start, end, runtime;
	int64_t cpu;
};

#define SCHED_RUN_SPAN_NS 20000000ULL

/* Per-thread results of the same pass, for extract mem -v. */
struct sched_thread_stats {
	int64_t tid, pid;
	char *comm;     /* the last comm the trace showed (may be NULL) */
	uint64_t runtime, wakeups, migrations;
	uint64_t *lat;  /* wakeup-to-run latencies, ns, unsorted */
	size_t nlat;
	struct sched_run *runs; /* in time order (extract mem's reads; NULL for sched stats) */
	size_t nruns;
};

struct sched_threads {
	struct sched_thread_stats *v;
	size_t n;
	uint64_t duration_ns; /* first to last record */
	size_t cpu_count;     /* CPUs with records */
	struct sched_chain_breaks breaks;
	uint64_t dropped, dropped_runtime_ns; /* threads keep() refused, and their runtime */
};

/* Keep a thread whose own record shows (tid, pid)? */
typedef bool (*sched_thread_keep_fn)(int64_t tid, int64_t pid, void *ctx);

/*
 * Read a whole sched JSONL stream. With keep, a thread is asked about at
 * the first record of its own (which shows its pid); one refused is
 * dropped with its state, and later records of its tid only add to
 * dropped_runtime_ns: per-thread memory is for the kept ones (and those no
 * record of their own named yet; they are in v with pid -1), plus one bit
 * per dropped tid. -1 with scx_fail.
 */
int sched_stats_threads_read(FILE *in, const char *path, sched_thread_keep_fn keep, void *ctx,
			     struct sched_threads *out);
void sched_stats_threads_free(struct sched_threads *t);

/*
 * The same pass fed one event at a time (one-pass extract, whose events
 * come from the process stage, not a file): new, event for each in stream
 * order, then end (which frees the feed; free alone on an early exit). The
 * results are those sched_stats_threads_read gives for the same lines.
 */
struct sched_event;
struct sched_stats_feed;
struct sched_stats_feed *sched_stats_feed_new(const char *path, sched_thread_keep_fn keep, void *ctx);
int sched_stats_feed_event(struct sched_stats_feed *f, const struct sched_event *ev);
/*
 * Install the filter late (a feed made with keep NULL): the threads whose
 * own record came already are asked now, with the pid it showed, and the
 * refused ones dropped. The results are those of a feed given keep from
 * the start; only the memory in between is not bounded by it (one-pass
 * extract feeds the sched stream before the samples that decide are all
 * counted). -1 on OOM.
 */
int sched_stats_feed_set_keep(struct sched_stats_feed *f, sched_thread_keep_fn keep, void *ctx);
int sched_stats_feed_end(struct sched_stats_feed *f, struct sched_threads *out);
void sched_stats_feed_free(struct sched_stats_feed *f);
/* Nearest-rank percentile of n sorted values (0 when n == 0). */
uint64_t sched_stats_lat_rank(const uint64_t *sorted, size_t n, unsigned pct);

#endif
