/*
 * record.h - the record stage as a library call: sample memory accesses,
 * trace the scheduler (and hints) system-wide for a duration or while a
 * command runs, writing perf.mem.data, sched.data, hints.jsonl, kallsyms,
 * topology.json and metadata.json into a directory the caller created. Naming, temporary
 * directories and archiving are the caller's business (cmd/cmd_record.c).
 */
#ifndef SCX_RECORD_H
#define SCX_RECORD_H

#include "record/record_types.h"

/* -1 with scx_errmsg() on failure; an interrupt returns -1 with
 * result->interrupted set. The caller removes the directory on failure. */
int record_run(const struct record_opts *o, struct record_result *res);

#endif
