/*
 * onepass.h - `extract mem` straight from a profile directory, in one pass:
 * the process stage decodes perf.data (or perf script text) and the
 * scheduling stream, and instead of writing perf.jsonl and sched.jsonl
 * hands each kept sample and each sched event to extract's aggregation
 * (a library composition of process/stage.h and extract/extract_mem.h;
 * data still flows process -> extract). Nothing the config does not use is
 * resolved: no instruction symbols, data symbols only with -v.
 *
 * The config and the -v report are byte for byte those of `process` then
 * `extract mem` on the same profile (topology.json next to the inputs in
 * both), whatever the number of threads: with jobs >= 2 the memory stream
 * is decoded on the caller's thread and aggregated on a second one,
 * batches handed over in order (lib/batch_queue.h), and the sched
 * stream decoded and aggregated on a third (onepass.c says how its filter
 * comes late).
 */
#ifndef SCX_PIPELINE_ONEPASS_H
#define SCX_PIPELINE_ONEPASS_H

#include <signal.h>
#include <stdio.h>

#include "extract/extract.h"
#include "lib/warnings.h"

struct onepass_opts {
	const char *dir;               /* profile directory (record's, or one perf record wrote) */
	/* extract mem's options; path and (unless set: a sched JSONL to read
	 * instead of the profile's stream) sched_path are filled in */
	struct extract_mem_opts mem;
	int jobs;                      /* threads: 1 all on the caller's; 2 or more: decode | aggregate */
	volatile sig_atomic_t *stop;   /* set asynchronously to abort ("interrupted") */
	/* the process stage's warnings, once both streams are decoded and
	 * before any -v line; may be NULL */
	void (*on_warnings)(void *ctx, const struct warnings *w);
	void *warnings_ctx;
};

/* Config to out, -v report to log. -1 with scx_errmsg() set on error. */
int onepass_run(const struct onepass_opts *o, FILE *out, FILE *log);

#endif
