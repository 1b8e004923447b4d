/*
 * mem_perfdata.h - the perf.data input path of the memory stream: samples of
 * perf.mem.data / perf.data, in time order, into the emitter (emit.h).
 */
#ifndef SCX_MEM_PERFDATA_H
#define SCX_MEM_PERFDATA_H

#include "process/emit/emit.h"

/* Read e->opts->in->mem_path; fills the record, thread and symbol numbers
 * of e->res. -1 with scx_errmsg() set on error. */
int mem_perfdata_read(struct emitter *e);

#endif
