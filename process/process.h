/*
 * process.h - the contract of process/: what the rest of the program
 * (cmd/, pipeline/) may use of the process stage. The stage as a library
 * call (stage.h) and its types (process_types.h); metadata.json read and
 * process.json written (summary/summary.h); the scheduling stream's
 * decoded events (sched/sched_decode.h) and the memory stream's samples and their
 * perf.jsonl lines (emit/emit.h), which the one pass (pipeline/) hands to
 * extract without the JSONL in between. The rest of process/ is its own.
 */
#ifndef SCX_PROCESS_H
#define SCX_PROCESS_H

#include "process/emit/emit.h"
#include "process/process_types.h"
#include "process/sched/sched_decode.h"
#include "process/stage.h"
#include "process/summary/summary.h"

#endif
