/*
 * llc_view.h - the report's cross-LLC section: a copy of extract's
 * cross-LLC figures (llc/llc_share.h; the result is only valid during
 * the observer call) and the HTML that shows them: a table of measured vs
 * predicted per profile, cell and subcell with counts and 95% intervals
 * (predicted by the scx_mitosis model, beside the LLC-packing model's, or
 * the other way round with --sched-model packing), the scx_mitosis layout,
 * what the union allotment spec costs when allotments run different
 * programs, and an inline SVG bar chart of the three with the intervals as whiskers.
 */
#ifndef SCX_REPORT_LLC_VIEW_H
#define SCX_REPORT_LLC_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/mempool.h"
#include "llc/llc.h"

struct llc_view_row {
	char *name;
	int level;           /* 0 profile, 1 cell, 2 subcell */
	bool merged;
	double demand;       /* subcells: CPUs */
	long llc;            /* subcells: predicted LLC id; -1 spread, -2 not a subcell */
	struct llc_share_fig f;
};

struct llc_view {
	bool present;        /* extract produced the figures */
	char source[4096];
	unsigned cpus;
	size_t nr_llcs, nr_nodes;
	uint64_t measured_samples, no_cpu;
	bool by_runtime;
	bool timelines_from_samples; /* some thread's timeline came from its samples' CPUs */
	enum llc_sched_model model;  /* whose figures are predicted (the other's are f.llc_other) */
	bool mitosis_refused;        /* scx_mitosis would refuse the layout: no figure of it */
	char *layout;                /* the scx_mitosis layout, -v's line */
	char *allot_cost;            /* the union allotment spec's cost, -v's line (NULL: not computed) */
	struct llc_view_row *rows;
	size_t nrows;
	struct mempool mem;          /* owns layout, allot_cost, rows and their names */
};

/* extract_mem_observer.on_llc (ctx: struct llc_view *). -1 on OOM. */
int llc_view_collect(void *ctx, const struct llc_share_result *r);
void llc_view_free(struct llc_view *v);
/* The <section id="llc">. */
void llc_view_write(FILE *f, const struct llc_view *v);

#endif
