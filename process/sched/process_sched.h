/*
 * process_sched.h - the scheduling stream of the process stage: whichever
 * of sched.data, perf.sched.data or perf.sched.script the profile has, into
 * sched.jsonl lines (and the Perfetto trace).
 */
#ifndef SCX_PROCESS_SCHED_H
#define SCX_PROCESS_SCHED_H

#include <stdio.h>

#include "lib/pftrace/perfetto_types.h"
#include "process/process.h"
#include "process/sched/thread_names.h"

/* Run the profile's sched input path into out (sched.jsonl) and trace (when
 * not NULL); fills res->sched and adds warnings to res. */
int process_sched(const struct process_opts *opts, FILE *out, struct pftrace *trace, struct process_result *res);
/* The names the sched input gives threads (thread_names.h), finished; writes
 * nothing. Needs opts->in->sched_kind != SCHED_IN_NONE. */
int process_sched_names(const struct process_opts *opts, struct thread_names *names);

#endif
