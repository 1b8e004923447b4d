/*
 * perfetto_sched.h - scheduling records into the trace (perfetto_sched.c: compact_sched
 * switches and wakings, irq/softirq/timer slices, forks, per-CPU bundles).
 */
#ifndef SCX_PERFETTO_SCHED_H
#define SCX_PERFETTO_SCHED_H

#include "lib/pftrace/perfetto_types.h"

/* One scheduling record; kinds the trace does not show are counted and skipped. */
int pftrace_sched(struct pftrace *t, const struct pftrace_sched_rec *r);

/* For perfetto_trace.c: write every CPU's pending bundle; free the CPUs' state. */
int pft_sched_flush_all(struct pftrace *t);
void pft_sched_free(struct pftrace *t);

#endif
