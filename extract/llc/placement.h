/*
 * placement.h - the placement model of the cross-LLC prediction: where a
 * cell-aware scheduler running the config would put each subcell.
 *
 * Worst-fit decreasing over the LLCs: the items (subcells) are taken by
 * decreasing CPU demand (ties: their order); each goes whole to the LLC
 * with the most free CPUs (CPUs minus the demand already placed there;
 * ties: the lowest LLC) among the LLCs it fits in (demand <= the LLC's
 * CPUs), which is what the clustering's cap (--max-cell-cpus, default the
 * largest LLC) promises a merged subcell. Spreading the load this way is
 * what a scheduler's load balancing converges to: it uses every LLC
 * instead of stacking subcells on one. An item that fits no LLC gets -1
 * (the caller spreads its threads, placing each as an item of its own
 * with need_fit false: the LLC with the most free CPUs, overcommitted if
 * need be).
 */
#ifndef SCX_EXTRACT_PLACEMENT_H
#define SCX_EXTRACT_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Place n items of demand[i] CPUs on nr_llcs LLCs of llc_cpus[l] CPUs,
 * load[l] CPUs already placed there (updated). out[i] = the LLC, or -1
 * when need_fit and the item is larger than every LLC. -1 on OOM.
 */
int placement_worst_fit(const double *demand, size_t n, const unsigned *llc_cpus, size_t nr_llcs, double *load,
			bool need_fit, int *out);

#endif
