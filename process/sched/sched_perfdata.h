/*
 * sched_perfdata.h - upstream's perf.sched.data (perf record of sched/irq
 * tracepoints) into the scheduling stream's sink (sched_sink.h).
 */
#ifndef SCX_SCHED_PERFDATA_H
#define SCX_SCHED_PERFDATA_H

#include "process/sched/sched_sink.h"

/* Read path, in time order like perf script. -1 with scx_errmsg() set. */
int sched_perfdata_read(struct sched_sink *s, const char *path);

#endif
