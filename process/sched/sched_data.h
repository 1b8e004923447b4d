/*
 * sched_data.h - our recorder's sched.data into the scheduling stream's sink
 * (sched_sink.h).
 */
#ifndef SCX_SCHED_DATA_H
#define SCX_SCHED_DATA_H

#include "process/sched/sched_sink.h"

/* Read path; a trailing partial record is counted in truncated_bytes and
 * records of unknown types in unknown_types. -1 with scx_errmsg() set. */
int sched_data_read(struct sched_sink *s, const char *path);

#endif
