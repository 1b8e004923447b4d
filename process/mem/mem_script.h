/*
 * mem_script.h - the text input path of the memory stream: upstream's
 * `perf script` output (perf.mem.script / perf.script) into the emitter
 * (emit.h).
 */
#ifndef SCX_MEM_SCRIPT_H
#define SCX_MEM_SCRIPT_H

#include "process/emit/emit.h"

/* Read e->opts->in->mem_path. -1 with scx_errmsg() set on error. */
int mem_script_read(struct emitter *e);

#endif
