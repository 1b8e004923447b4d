/*
 * backend_choose.h - mem_backend_choose() (backend_choose.c): probe the
 * sysfs PMUs (or encode --event) and build the complete perf_event_attrs
 * of the memory-sampling backend `record` uses.
 */
#ifndef SCX_RECORD_BACKEND_CHOOSE_H
#define SCX_RECORD_BACKEND_CHOOSE_H

#include "record/backend/backend.h"

/* Probe and build the event set. -1 with scx_fail() on a clear refusal
 * (e.g. --backend intel-pebs on a machine without it: says what was found;
 * bad --event string: names it and libpfm's/our error). */
int mem_backend_choose(const struct mem_backend_opts *o, struct mem_backend *out);

#endif
