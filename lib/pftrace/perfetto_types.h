/*
 * perfetto_types.h - the types the trace writer's callers hand it: the
 * recording host (SystemInfo), one decoded scheduling record, and the
 * writer's statistics. Shared by perfetto_trace.h (the file), perfetto_sched.h,
 * perfetto_track.h, the writer's core (perfetto_writer.h) and
 * process/summary/summary.h, so none of them needs another's header. The
 * samples and scheduling records are lib/'s types (lib/mem_record.h,
 * lib/sched_vals.h): the writer includes nothing from process/.
 */
#ifndef SCX_PERFETTO_TYPES_H
#define SCX_PERFETTO_TYPES_H

#include <stdint.h>

#include "lib/mem_record.h"
#include "lib/sched_vals.h"

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

#endif
