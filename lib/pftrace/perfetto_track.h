/*
 * perfetto_track.h - hint counters and memory samples into the trace (perfetto_track.c:
 * TrackEvents on per-thread tracks, interned names).
 */
#ifndef SCX_PERFETTO_TRACK_H
#define SCX_PERFETTO_TRACK_H

#include "lib/pftrace/perfetto_types.h"

/* One hint update (tid's value from time ts on) as its thread's "hint"
 * counter; process gives every update of hints.jsonl, each tid's in time order. */
int pftrace_hint(struct pftrace *t, uint32_t tid, int32_t tgid, uint64_t ts, uint64_t value);
/* One kept memory sample (after hint annotation). */
int pftrace_mem_sample(struct pftrace *t, const struct mem_record *r);

/* For perfetto_trace.c: the string tables and the samples' sequence
 * defaults (written at the start); free them. */
int pft_track_init(struct pftrace *t);
void pft_track_free(struct pftrace *t);

#endif
