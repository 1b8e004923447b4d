/*
 * sched_stats_internal.h - what the files of the sched_stats module share
 * (see sched_stats.h for what it computes): sched_stats.c (the commands:
 * `extract sched stats`, the per-thread read and feed for extract mem),
 * sched_stats_pass.c (the one pass: per-thread and per-CPU accumulators,
 * the thread table and its bound) and sched_stats_rows.c (the keys rolled
 * up from those, sorted and printed). Not for other modules.
 */
#ifndef SCX_EXTRACT_SCHED_STATS_INTERNAL_H
#define SCX_EXTRACT_SCHED_STATS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "extract/sched/sched_events.h"
#include "extract/sched/sched_stats.h"
#include "lib/jsonw.h"
#include "lib/u64map.h"

struct acc {
	uint64_t runtime, vol, invol, wakeups, wakings, migrations;
	uint64_t *lat;
	size_t nlat, caplat;
};

struct thread {
	int64_t tid, pid; /* pid: tgid, -1 until a record of the thread shows it */
	char *comm;
	struct acc a;
	int64_t last_cpu, running_cpu;
	bool pending;
	uint64_t pending_t;
	size_t idx;       /* in stats.threads */
	bool asked;       /* a record of its own showed its pid (keep() was asked, or will be) */
	int64_t asked_pid; /* the pid that first record showed: what keep() is asked with */
	bool ignored;     /* stats.ignored: stands for every dropped thread */
	struct sched_run *runs; /* with stats.runs: where it ran (sched_stats.h) */
	size_t nruns, capruns;
};

/* Dropped tids below this are a bitmap (pid_max is at most 2^22). */
#define SCHED_TID_BITS ((uint64_t)1 << 22)

struct cpu {
	bool seen, running;
	bool chained;    /* a sched_switch said what runs here (cur_pid) */
	int64_t cur;
	int64_t cur_pid; /* the next_pid of the last switch, 0 when idle */
	uint64_t since, last_seen;
	struct acc a;
};

struct stats {
	const struct sched_stats_opts *o;
	struct u64map tmap;       /* tid -> thread; NULL once dropped or folded */
	struct thread **threads;  /* in creation order; NULL where dropped or folded until compacted */
	size_t nthreads, capthreads;
	size_t live, dead;        /* threads; NULL entries in tmap and threads */
	struct cpu *cpus;
	size_t ncpus;
	struct sched_chain_breaks breaks;
	/* sched_stats_threads_read's filter: a thread keep() refuses is dropped */
	sched_thread_keep_fn keep;
	void *keep_ctx;
	unsigned char *dropped_bits; /* tids < SCHED_TID_BITS dropped */
	struct u64map dropped_big;   /* other tids dropped */
	struct thread ignored;       /* thread_get's answer for them: gathers their runtime */
	uint64_t dropped;
	/* sched stats' bound on live threads (0: none) and what it folded */
	size_t max_threads;
	struct sched_thread_folds folds;
	bool runs;                /* keep each thread's runs (extract mem's per-thread reads) */
	bool started;             /* an event with a valid time was seen: the first one at start */
	uint64_t start, end;
};

struct row {
	int64_t num;      /* numeric key (tid, pid, cpu, llc, node) */
	const char *comm; /* comm keys, and the comm of thread/process rows */
	int64_t tid, pid;
	unsigned ncpus;   /* capacity for CPU-like keys */
	struct acc a;
};

/* ---- sched_stats_pass.c ---- */
/* The pass in three steps (begin, each event, end: running threads' time
 * so far, *dur and *cpu_count of the trace), or over a whole input. */
void sched_stats_collect_begin(struct stats *s);
int sched_stats_collect_event(struct stats *s, const struct sched_event *ev);
int sched_stats_collect_end(struct stats *s, const char *path, uint64_t *dur, size_t *cpu_count);
int sched_stats_collect(struct stats *s, FILE *in, const char *path, uint64_t *dur, size_t *cpu_count);
void sched_stats_state_free(struct stats *s);
/* Add from's counts and latencies to to. */
int sched_stats_acc_merge(struct acc *to, const struct acc *from);
/* Install keep now: the threads already asked about are asked now, with the pid their first record showed. */
int sched_stats_set_keep(struct stats *s, sched_thread_keep_fn keep, void *ctx);

/* ---- sched_stats_rows.c ---- */
/* The keys of s->o->by, rolled up from the threads and CPUs of s. */
int sched_stats_build_rows(struct stats *s, struct row **rows_out, size_t *nrows_out);
/* Most runtime first, then by key. */
void sched_stats_sort_rows(struct row *rows, size_t nrows, enum sched_stats_by by);
/* One key's object of the JSON document. */
void sched_stats_put_row(struct jsonw *w, const struct stats *s, struct row *r, uint64_t dur);

#endif
