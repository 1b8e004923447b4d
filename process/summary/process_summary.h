/*
 * process_summary.h - process.json, the record of what the process stage
 * read and decided (schemas/process-summary.schema.json).
 */
#ifndef SCX_PROCESS_SUMMARY_H
#define SCX_PROCESS_SUMMARY_H

#include <stdio.h>

#include "process/process.h"

/* Write process.json (one JSON object and a newline). */
int process_summary_write(FILE *f, const struct process_inputs *in, const struct process_result *res);

#endif
