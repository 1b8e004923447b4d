/*
 * cpu_chart.h - one cell's CPU use over time as an inline SVG chart: the
 * busy time of each of its subcells per window (extract sched util's
 * windows, split by subcell, see sched_util_series) as stacked areas, in
 * percent of all CPUs, scaled to the cell, with the whole host's busy
 * time as a line when it fits that scale (else its peak is given).
 */
#ifndef SCX_REPORT_CPU_CHART_H
#define SCX_REPORT_CPU_CHART_H

#include <stdio.h>

#include "extract/extract.h"
#include "report/model.h"

/* Pick a window so that a trace of duration_ns has at most ~240 of them (>= 1 ms, 1-2-5 steps). */
uint64_t cpu_chart_window_ns(uint64_t duration_ns);

/* The chart of cell c (its subcells' series in w). */
void cpu_chart_write(FILE *f, const struct model_cell *c, const struct sched_util_windows *w);

#endif
