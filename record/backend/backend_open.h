/*
 * backend_open.h - mem_event_open() (backend_open.c): perf_event_open(2)
 * of one memory event of a chosen backend on one cpu, with perf's
 * fallbacks, and a hook for tests to replace the system call.
 */
#ifndef SCX_RECORD_BACKEND_OPEN_H
#define SCX_RECORD_BACKEND_OPEN_H

#include <linux/perf_event.h>

#include "record/backend/backend.h"

/* Open one event of the set on one cpu (pid -1, system-wide) with
 * perf_event_open: tries precise_ip from attr.precise_ip down to 0 on
 * EOPNOTSUPP/EINVAL, and WEIGHT_STRUCT -> WEIGHT on EINVAL; remembers what
 * worked in *ev (so later cpus open the same). group_fd -1 or the leader's
 * fd. Returns fd or -1 with scx_fail naming the event, cpu and errno
 * (errno is kept). */
int mem_event_open(struct mem_event *ev, int cpu, int group_fd);

/* For tests: replace perf_event_open(2) (pid -1) by fn, which returns an fd
 * or -1 with errno set; NULL restores the real system call. */
typedef int (*mem_perf_open_fn)(struct perf_event_attr *attr, int cpu, int group_fd);
void mem_event_set_open_fn(mem_perf_open_fn fn);

#endif
