/*
 * perfetto_trace.h - writes trace.pftrace, a Perfetto trace of the profile
 * (ui.perfetto.dev, trace_processor), while process emits its JSONL:
 * scheduling as ftrace events (compact_sched switches and wakings, irq,
 * softirq and local-timer entry/exit, forks as task_newtask), each thread's
 * hint as a counter track, memory samples as instant events with their
 * addresses as annotations, and a ProcessTree of every thread seen.
 * schemas/trace-pftrace.md describes the output; docs/perfetto.md the
 * choices. Internal to process/.
 *
 * The writer streams: memory is bounded by the threads and distinct names
 * seen (and one bundle of events per CPU), not by the number of events.
 */
#ifndef SCX_PERFETTO_TRACE_H
#define SCX_PERFETTO_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "process/hints.h"
#include "process/mem_jsonl.h"
#include "process/sched_trace.h"

struct pftrace;

/* The recording host, for SystemInfo (all optional). */
struct pftrace_host {
	char release[128]; /* kernel release, e.g. "6.18.0"; "" unknown */
	char machine[64];  /* e.g. "x86_64" */
	uint32_t num_cpus; /* 0 unknown */
};

/* One scheduling record, decoded. tid/pid/comm are the task the record
 * belongs to (current or interrupted task, as in sched.jsonl). */
struct pftrace_sched_rec {
	enum sched_kind kind;
	uint64_t time_ns;
	int64_t cpu;
	int64_t tid, pid;
	const char *comm;
	const struct sched_vals *v;
	int64_t tgid, tgid2; /* processes of v's first and second task; -1 unknown */
};

struct pftrace_stats {
	uint64_t bytes, packets;
	uint64_t switches, switches_full;  /* all sched_switch written; of them as full events */
	uint64_t wakings, wakings_full;
	uint64_t irq_events, forks, skipped_sched;
	uint64_t mem_samples, hint_values, threads;
};

/* Starts the trace on f (SystemInfo and the first packets). NULL with
 * scx_fail on error. */
struct pftrace *pftrace_new(FILE *f, const struct pftrace_host *host);

/* Every hint update of h as its thread's "hint" counter. */
int pftrace_hints(struct pftrace *t, struct hints_index *h);
/* One kept memory sample (after hint annotation). */
int pftrace_mem_sample(struct pftrace *t, const struct mem_record *r);
/* One scheduling record; kinds the trace does not show are counted and skipped. */
int pftrace_sched(struct pftrace *t, const struct pftrace_sched_rec *r);

/* Flush what is buffered and write the ProcessTree; the file is complete
 * when this succeeds and the caller's fclose does. */
int pftrace_finish(struct pftrace *t);
void pftrace_get_stats(const struct pftrace *t, struct pftrace_stats *st);
void pftrace_free(struct pftrace *t);

/* The recording host from metadata.json ("kernel", "arch",
 * "online_cpus"); fields it lacks stay empty. -1 (scx_fail) if unreadable. */
int pftrace_host_from_metadata(const char *path, struct pftrace_host *host);

#endif
