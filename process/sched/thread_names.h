/*
 * thread_names.h - names of threads as the scheduling stream saw them
 * (sched_switch's prev/next comm, a waking's task, a fork's child, the
 * record's own task), for memory samples of a thread perf.data never named:
 * the kernel lost its COMM record (a full ring), so perf calls it ":TID".
 * Deterministic: a thread's name at a time is the name of its first record
 * at or after that time (a rename shows at the next record), but the one
 * before when that record is the exec that gave the name; else its last.
 */
#ifndef SCX_THREAD_NAMES_H
#define SCX_THREAD_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/sched_vals.h"
#include "lib/u64map.h"

struct thread_name {
	uint32_t tid;
	uint32_t seq;      /* order seen: ties of time keep it */
	uint64_t time_ns;  /* first and last record giving the name (this run of it) */
	uint64_t last_ns;
	bool exec;         /* the run began with an exec record */
	char comm[32];
};

struct thread_names {
	struct thread_name *v;
	size_t n, cap;
	struct u64map last; /* tid -> index + 1 of its last name noted (while noting) */
	int sorted;
};

void thread_names_init(struct thread_names *t);
void thread_names_free(struct thread_names *t);
/* One task seen under a name at time_ns (exec: by its exec record, the
 * exact time it took the name). Ignored: tid <= 0, an empty comm and perf's
 * placeholder ":TID". -1 with scx_errmsg() set (out of memory). */
int thread_names_note(struct thread_names *t, int64_t tid, uint64_t time_ns, const char *comm, bool exec);
/* Every task one scheduling record names (d may be NULL: the record's own
 * task only). */
int thread_names_note_record(struct thread_names *t, const char *comm, int64_t tid, uint64_t time_ns,
			     enum sched_kind kind, const struct sched_vals *v);
/* Done noting: sorts. */
void thread_names_finish(struct thread_names *t);
/* tid's name at time_ns, or NULL when the stream never named it. */
const char *thread_names_lookup(const struct thread_names *t, int64_t tid, uint64_t time_ns);

#endif
