/*
 * perfetto_trace.h - writes trace.pftrace, a Perfetto trace of the profile
 * (ui.perfetto.dev, trace_processor), while process emits its JSONL:
 * scheduling as ftrace events (compact_sched switches and wakings, irq,
 * softirq and local-timer entry/exit, forks as task_newtask), each thread's
 * hint as a counter track, memory samples as instant events with their
 * addresses as annotations, and a ProcessTree of every thread seen.
 * schemas/trace-pftrace.md describes the output; docs/perfetto.md the
 * choices. An output format of lib/ (like jsonw): it includes nothing from
 * process/, which calls it. This header is the file itself (start, finish);
 * perfetto_sched.h and perfetto_track.h take the records, samples and hints
 * (process/summary/summary.h reads the host from metadata.json).
 *
 * Layers, no circle: perfetto_trace.c (this file's calls) -> perfetto_sched.c,
 * perfetto_track.c (the encoders) -> perfetto_writer.c (packets, sequences,
 * the thread table) -> perfetto_pb.c (the wire format).
 *
 * The writer streams: memory is bounded by the threads and distinct names
 * seen (and one bundle of events per CPU), not by the number of events.
 */
#ifndef SCX_PERFETTO_TRACE_H
#define SCX_PERFETTO_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "lib/pftrace/perfetto_types.h"

/* Starts the trace on f (SystemInfo and the first packets). NULL with
 * scx_fail on error. */
struct pftrace *pftrace_new(FILE *f, const struct pftrace_host *host);

/* Flush what is buffered and write the ProcessTree; the file is complete
 * when this succeeds and the caller's fclose does. */
int pftrace_finish(struct pftrace *t);
void pftrace_get_stats(const struct pftrace *t, struct pftrace_stats *st);
void pftrace_free(struct pftrace *t);

#endif
