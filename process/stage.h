/*
 * stage.h - the `process` stage as a library call: find what a profile
 * directory holds (perf.mem.data / perf.data or upstream's perf script text,
 * sched.data / perf.sched.data / perf.sched.script, hints.jsonl), then read
 * it and write perf.jsonl lines, sched.jsonl lines, a copy of hints.jsonl,
 * a Perfetto trace and the numbers for process.json to streams the caller
 * opened. The types are in process_types.h.
 */
#ifndef SCX_STAGE_H
#define SCX_STAGE_H

#include "process/process_types.h"

/* Look for the inputs in dir; first match wins per stream. -1 if there is
 * neither a memory nor a scheduling stream. */
int process_find_inputs(const char *dir, struct process_inputs *in);

/* Run the stage. On error returns -1 with scx_errmsg() set; the caller
 * removes whatever it created. */
int process_run(const struct process_opts *opts, struct process_outputs *out, struct process_result *res);

#endif
