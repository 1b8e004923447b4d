/*
 * sched_sink.h - the scheduling stream of `process`, internal to process/:
 * the sink every sched input path (sched.data, perf.sched.data,
 * perf.sched.script) hands its records to. The sink annotates hints (the
 * record's tid; prev_pid/next_pid for sched_switch), counts events and writes
 * sched.jsonl lines.
 */
#ifndef SCX_SCHED_SINK_H
#define SCX_SCHED_SINK_H

#include <stdint.h>
#include <stdio.h>

#include "lib/jsonw.h"
#include "process/hints.h"
#include "lib/pftrace/perfetto_types.h"
#include "process/process_types.h"
#include "process/sched/sched_decode.h"

struct sched_sink {
	const struct process_opts *opts;
	struct hints_index *hints;
	FILE *out;
	struct process_sched_result *res;
	struct jsonw w;
	struct pftrace *trace; /* NULL: no Perfetto trace */
	struct thread_names *names; /* set: only note the names records give threads; no line, no trace */
};

/* What an input path decoded of a record, for the Perfetto trace. */
struct sched_decoded {
	enum sched_kind kind;
	const struct sched_vals *v;
	int64_t tgid, tgid2; /* processes of v's tasks; -1 unknown */
};

/* One record: trace text is the perf script text of the event, or NULL
 * for the text of d (made only when needed: a one-pass sink takes plain
 * values as they are); d is its decoded values (NULL: not decoded, the
 * record is not in the trace; then trace is required). */
int sched_sink_emit(struct sched_sink *s, const char *comm, int64_t pid, int64_t tid, int64_t cpu,
		    uint64_t time_ns, const char *event, const char *trace, size_t trace_len,
		    const struct sched_decoded *d);
/* A record that could not be decoded: counted, -v prints why. */
void sched_sink_unparseable(struct sched_sink *s, const char *why);
int sched_sink_flush(struct sched_sink *s);
/* Check for an interrupt every few thousand records. */
int sched_sink_check_stop(struct sched_sink *s);

#endif
