/*
 * llc_region.h - a region (a process's memory, a file) sampled by more
 * threads than pairs are named for (docs/llc-sharing.md "Intervals",
 * "Regions of more than 64 threads"): each of its threads against the
 * region's other threads in aggregate, one term each, instead of k x k
 * pairs. Used by llc_measure.c.
 */
#ifndef SCX_LLC_REGION_H
#define SCX_LLC_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "extract/sharing/sharing.h"
#include "llc/llc_est.h"
#include "llc/llc_map.h"
#include "llc/llc_types.h"

/* What the aggregates read, per actor. */
struct llc_region_in {
	const struct llc_timeline *tl;        /* where each ran */
	const struct llc_measure_actor *act;  /* its predicted LLC and node */
	const double *n;                      /* its samples on data */
	const struct llc_map *map;
};

/* One member of a big region: its actor, its samples in the region and those on a (line, epoch) it hit twice. */
struct llc_region_member {
	size_t actor;
	double n, rep;
};

/* One member counted against the region's other members in aggregate. */
struct llc_region_agg {
	size_t i;            /* actor */
	double n_rest;       /* the others' samples on data */
	double mid_i, hi_i;  /* the share of i's accesses on lines the others use: [0, hi_i], midpoint */
	double mid_r, hi_r;  /* the others' on lines i uses */
	float p[LLC_FIG_N], plo[LLC_FIG_N], phi[LLC_FIG_N]; /* by LLC_FIG_* (-1: no time known) */
};

/* e's samples in `region` (*n) and those of them on a (line, epoch) key sampled twice or more (*rep). */
void llc_region_counts(const struct evidence *e, uint64_t region, double *n, double *rep);

/*
 * The aggregate terms of the nm members of one region into out[0..nm);
 * each member's sums get the aggregate as one more partner. -1 on OOM.
 */
int llc_region_aggregates(const struct llc_region_in *in, const struct llc_region_member *mem, size_t nm,
			  struct llc_est_sums *sums, struct llc_region_agg *out);

#endif
