/*
 * sched_pool.h - internal to process/: `process -j N` formats the
 * sched.jsonl lines of the scheduling stream on N-1 threads beside the
 * decoding one (as emit_pool.h does for the memory samples). The decoding
 * thread (sched_sink.c: hints, counts, the Perfetto trace) copies each
 * record into a batch; a worker formats a whole batch into the batch's own
 * buffer; the decoding thread writes the formatted batches to the file in
 * the order they were filled. So sched.jsonl is the same bytes for every N.
 */
#ifndef SCX_SCHED_POOL_H
#define SCX_SCHED_POOL_H

#include <stddef.h>
#include <stdio.h>

#include "process/sched_jsonl.h"

/* Formatting threads at most. */
#define SCHED_POOL_MAX_WORKERS 8

struct sched_pool;

/* workers formatting threads (1..SCHED_POOL_MAX_WORKERS; more are capped),
 * writing to out. NULL and scx_fail when threads or memory are short. */
struct sched_pool *sched_pool_start(size_t workers, FILE *out);
/* Queue one line (copied: every string, sw and v). -1 (scx_fail) on a
 * failed write or when memory is short. */
int sched_pool_add(struct sched_pool *p, const struct sched_line *l);
/* Format and write everything queued, stop the threads. -1 (scx_fail) on
 * any failure. */
int sched_pool_finish(struct sched_pool *p);
/* Stop the threads (if still running) and free; NULL is fine. */
void sched_pool_free(struct sched_pool *p);

#endif
