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
#ifndef SCX_PLACEMENT_H
#define SCX_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Place n items of demand[i] CPUs on nr_llcs LLCs of llc_cpus[l] CPUs,
 * load[l] CPUs already placed there (updated). out[i] = the LLC, or -1
 * when need_fit and the item is larger than every LLC. -1 on OOM.
 */
int placement_worst_fit(const double *demand, size_t n, const unsigned *llc_cpus, size_t nr_llcs, double *load,
			bool need_fit, int *out);

/* One thread to place (a thread sampled under two comms may be two items with one tid). */
struct placement_item {
	long sub;      /* its subcell: an index below nr_subs, or -1 (no subcell) */
	int64_t tid;   /* items of one tid that are placed one by one go together */
	double demand; /* CPUs */
};

/* sub_llc values besides an LLC index and -1 (fits no LLC) */
#define PLACEMENT_UNSET (-2) /* in: place this subcell now */
#define PLACEMENT_SKIP (-3)  /* in: leave this subcell alone (no item of it in this call) */

/*
 * The whole model, shared by extract's prediction (llc/llc_share.c)
 * and `scxprof place` (place/place_plan.c): the subcells marked
 * PLACEMENT_UNSET in sub_llc are placed whole by their items' summed
 * demand (worst fit, need_fit; sub_demand[s] gets the sum when not NULL),
 * then the items of a subcell that fits no LLC (-1) and of no subcell one
 * by one, grouped by tid, by their summed demand (worst fit, overcommitting
 * if need be). Subcells already holding an LLC (an earlier call: `place
 * --follow`) keep it. load[nr_llcs] is carried in and updated. item_llc[i]
 * = the item's LLC (-1 only without LLCs). -1 (scx_fail) on OOM.
 */
int placement_assign(const struct placement_item *it, size_t n, size_t nr_subs, const unsigned *llc_cpus,
		     size_t nr_llcs, double *load, int *sub_llc, double *sub_demand, int *item_llc);

#endif
