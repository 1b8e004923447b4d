/*
 * emit_pool.h - internal to process/: `process -j N` formats the kept memory
 * samples on N-1 threads beside the decoding one. The decoding thread
 * (emit_filter.c) fills batches of records; a worker takes the next batch,
 * formats its perf.jsonl lines into the batch's own buffer, then, in batch order
 * (one worker at a time), appends its Perfetto samples to the trace; the
 * formatted batches go to the writer in batch order. So perf.jsonl and
 * trace.pftrace are the same bytes for every N.
 *
 * Records are copied into the batch with their comm (a thread's comm
 * changes in place); every other string of a record must stay alive and
 * unchanged until emit_pool_finish() (the session's interned names and
 * cgroup paths do).
 */
#ifndef SCX_EMIT_POOL_H
#define SCX_EMIT_POOL_H

#include <stddef.h>

#include "lib/bgwrite.h"
#include "lib/mem_record.h"
#include "lib/pftrace/perfetto_types.h"

/* Formatting threads at most: beyond a few, decoding is the limit. */
#define EMIT_POOL_MAX_WORKERS 8

struct emit_pool;

/* workers formatting threads (1..EMIT_POOL_MAX_WORKERS; more are capped);
 * trace may be NULL. NULL and scx_fail when threads or memory are short. */
struct emit_pool *emit_pool_start(size_t workers, struct bgwriter *writer, struct pftrace *trace);
/* Queue one record (r->comm is copied). -1 (scx_fail) when a worker or the
 * writer failed. */
int emit_pool_add(struct emit_pool *p, const struct mem_record *r);

/* The same without copying the record: the next record's place in the batch
 * being filled (NULL, scx_fail, when a worker or the writer failed); fill
 * every field, then emit_pool_commit(). The record's comm must point into a
 * buffer of at least EMIT_POOL_COMM_SIZE bytes (NUL-terminated within them):
 * the whole buffer is copied. */
#define EMIT_POOL_COMM_SIZE 32
struct mem_record *emit_pool_slot(struct emit_pool *p);
void emit_pool_commit(struct emit_pool *p);
/* Format and hand to the writer everything queued, stop the threads. -1
 * (scx_fail) on any failure. The writer still has to be finished. */
int emit_pool_finish(struct emit_pool *p);
/* Stop the threads (if still running) and free; NULL is fine. */
void emit_pool_free(struct emit_pool *p);

#endif
