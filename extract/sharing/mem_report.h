/*
 * mem_report.h - extract mem's -v/-vv report, upstream's exact text: the
 * total, then one block per group (allotment matches by name, the workload
 * group, rest) with its normalized comms, their hints (--use-hints) and,
 * with -vv, their concrete comms.
 */
#ifndef SCX_EXTRACT_MEM_REPORT_H
#define SCX_EXTRACT_MEM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "extract/mem/mem_agg.h"

/* Write the report for verbosity >= 1 into f. -1 on OOM. */
int mem_report_write(FILE *f, const struct mem_agg *a, int verbosity, bool use_hints);

#endif
