/*
 * process_warn.h - the warnings of the process stage: every input path adds
 * what the user should know (lost records, wrong symbols, skipped input) to
 * the result, which the CLI prints and process.json keeps.
 */
#ifndef SCX_PROCESS_WARN_H
#define SCX_PROCESS_WARN_H

#include "process/process_types.h"

/* Add a warning to the result (deduplicated, capped). */
void process_warn(struct process_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
