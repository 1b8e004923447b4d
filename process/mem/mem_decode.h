/*
 * mem_decode.h - the contract of process/mem/, memory decoding: the two input
 * paths of the memory stream, each reading the profile's memory input into
 * the emitter (process/emit/emit.h): perf.mem.data / perf.data
 * (mem_perfdata.c, with kernel_match.c deciding whether this machine's
 * kallsyms fits) and upstream's `perf script` text (mem_script.c, lines
 * parsed by script_text.c). The rest of process/ includes nothing else from
 * this room (kernel_match.h and script_text.h are its own).
 */
#ifndef SCX_PROCESS_MEM_H
#define SCX_PROCESS_MEM_H

#include "process/emit/emit.h"

/* ---- mem_perfdata.c: the perf.data input path of the memory stream: samples of
 * perf.mem.data / perf.data, in time order, into the emitter (emit.h).
 */
/* Read e->opts->in->mem_path; fills the record, thread and symbol numbers
 * of e->res. -1 with scx_errmsg() set on error. */
int mem_perfdata_read(struct emitter *e);

/* ---- mem_script.c: the text input path of the memory stream: upstream's
 * `perf script` output (perf.mem.script / perf.script) into the emitter
 * (emit.h).
 */
/* Read e->opts->in->mem_path. -1 with scx_errmsg() set on error. */
int mem_script_read(struct emitter *e);

#endif
