/*
 * mem_sched_async.h - the two-step path's sched JSONL read on a thread of
 * its own while perf.jsonl is read (extract -f perf.jsonl -j 2 and more):
 * the events go into a mem_sched begun early (every thread kept), and once
 * the samples are all counted the filter mem_sched_load would have applied
 * from the start is installed; the results are mem_sched_load's.
 */
#ifndef SCX_EXTRACT_MEM_SCHED_ASYNC_H
#define SCX_EXTRACT_MEM_SCHED_ASYNC_H

#include "extract/mem/mem_agg.h"
#include "extract/sched/mem_sched.h"

struct mem_sched_async;

/* Start reading path into m (which the thread owns until finish or
 * cancel). NULL with scx_fail when no thread could be started. */
struct mem_sched_async *mem_sched_async_start(struct mem_sched *m, const char *path);
/* Wait for the end of the stream, then filter by a's samples and end m:
 * 0, or -1 with the thread's scx_fail message (the first error of the
 * stream, as mem_sched_load gives it). Frees t. */
int mem_sched_async_finish(struct mem_sched_async *t, const struct mem_agg *a);
/* The samples failed: stop the thread at its next event and free t (m is
 * left for mem_sched_free). */
void mem_sched_async_cancel(struct mem_sched_async *t);

#endif
