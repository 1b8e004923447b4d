/*
 * emit.h - the contract of process/emit/, the emitters: the sink of the
 * memory stream, what every memory input path (process/mem/mem_decode.h) hands its
 * samples to (emit_filter.c): upstream's sample filter, hint annotation, the -v
 * "skipped" lines, and buffered writing of perf.jsonl, formatted on the
 * decoding thread or, with -j N, on the threads of emit_pool.c. Its parts
 * are its own headers, included here: mem_jsonl.h (one perf.jsonl line, which
 * the one pass also formats from, pipeline/sample_conv.h) and emit_pool.h;
 * the rest of the library includes nothing else from this room.
 */
#ifndef SCX_EMIT_H
#define SCX_EMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/bgwrite.h"
#include "lib/jsonw.h"
#include "process/hints.h"
#include "process/emit/mem_jsonl.h"
#include "lib/pftrace/perfetto_types.h"
#include "process/emit/emit_pool.h"
#include "process/process_types.h"
#include "process/summary/summary.h"

struct emitter {
	const struct process_opts *opts;
	struct process_outputs *out;
	struct process_result *res;
	struct hints_index *hints;
	struct jsonw w;
	struct bgwriter writer; /* perf.jsonl is written on a second thread */
	struct mem_jsonl_ctx *fmt;
	struct record_self self; /* the recorder's own pids (metadata.json), none if unknown */
	struct pftrace *trace;  /* Perfetto trace, or NULL */
	struct emit_pool *pool; /* -j N > 1: lines and trace samples formatted there, else NULL */
	struct mem_record rec;  /* emitter_record()'s place without a pool */
};

enum skip_reason { KEEP = 0, SKIP_NO_PHYS, SKIP_COMM, SKIP_RECORDER };

int emitter_init(struct emitter *e, const struct process_opts *opts, struct process_outputs *out,
		 struct process_result *res, struct hints_index *hints);
/* Stops the writer thread; emitter_flush() must have succeeded for the
 * output to be complete. */
void emitter_free(struct emitter *e);

/* What a -v line shows of a skipped sample: the input line itself (text
 * input, as upstream prints it) or, for perf.data, the fields perf script
 * would print. */
struct skip_view {
	const char *raw;  /* text input line (not NUL-terminated), or NULL */
	size_t raw_len;
	const char *comm;
	int64_t pid, tid;
	uint64_t time_ns, addr, ip;
};

/* Upstream's filter: no phys_addr (0 or absent) first, then comm perf/swapper;
 * then the recorder's own samples (pids from metadata.json). Counts the skip and prints the -v line "skipped (REASON): ..."; KEEP when
 * the sample stays. */
enum skip_reason emitter_filter(struct emitter *e, const struct skip_view *v, bool has_phys,
				uint64_t phys_addr);

/* Annotate r->hint and append the line; hands 1 MiB batches to the writer
 * (with opts->sink: hands the record to it instead). */
int emitter_write(struct emitter *e, struct mem_record *r);
/* The same for a record built in place: emitter_record() is where to build
 * the next kept record (in the formatting pool's batch when there is one,
 * so it is not copied; NULL, scx_fail, when the pool failed); set every
 * field, comm pointing into a buffer of EMIT_POOL_COMM_SIZE bytes or more,
 * then emitter_commit() it. */
struct mem_record *emitter_record(struct emitter *e);
int emitter_commit(struct emitter *e, struct mem_record *r);
/* Before the first emitter_write, once e->trace is set: with opts->jobs > 1
 * format on that many - 1 threads (emit_pool.h; the records' strings other
 * than comm must then live until emitter_flush). */
int emitter_start_pool(struct emitter *e);
/* Write what is left and wait until everything is written. */
int emitter_flush(struct emitter *e);

#endif
