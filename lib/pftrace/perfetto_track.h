/*
 * perfetto_track.h - hint counters and memory samples into the trace (perfetto_track.c:
 * TrackEvents on per-thread tracks, interned names).
 */
#ifndef SCX_PERFETTO_TRACK_H
#define SCX_PERFETTO_TRACK_H

#include "lib/pftrace/perfetto_types.h"

/* Every hint update of h as its thread's "hint" counter. */
int pftrace_hints(struct pftrace *t, struct hints_index *h);
/* One kept memory sample (after hint annotation). */
int pftrace_mem_sample(struct pftrace *t, const struct mem_record *r);

#endif
