/*
 * llc_est.h - the cross-LLC estimator (docs/llc-sharing.md "The
 * measure"): of the accesses to data another thread also uses, the share
 * whose previous access by another thread came from another LLC (or
 * node), from pieces that do not depend on the sample density:
 *
 *   s_ij  the share of thread i's accesses on lines j also uses (the
 *         clustering's calibrated line estimate, one side of a pair, with
 *         its interval);
 *   n_i   i's samples on data (any uniform sample rate scales out);
 *   P_ij  the share of i's time (its runtime, from the scheduling trace;
 *         else its samples) during which j was last on another LLC than
 *         i: computed from timelines, where each thread ran when.
 *
 * On i's access to shared data the previous access by another thread is
 * j's with probability w_ij = n_j s_ji / sum_k n_k s_ki (j's access rate
 * on what it shares with i), so the figure is the weighted mean
 *
 *   sum_ij W_ij P_ij / sum_ij W_ij,   W_ij = n_i s_ij w_ij.
 *
 * Predicted: the same with P_ij = 1 when the placement puts i and j on
 * two LLCs, else 0. The interval: every W_ij within the bounds its s
 * intervals give, the extreme weighted means (exact for box-bounded
 * weights); no point unless some pair is decided shared (the
 * clustering's rule) and some weight's lower bound is above 0.
 */
#ifndef SCX_EXTRACT_LLC_EST_H
#define SCX_EXTRACT_LLC_EST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One piece of a thread's timeline: on llc/node over [start, end), weight spread evenly over it. */
struct llc_seg {
	uint64_t start, end;
	double weight;  /* runtime ns, or samples */
	int32_t llc, node;
};

struct llc_timeline {
	struct llc_seg *v; /* ascending, not overlapping */
	size_t n, cap;
};

/* Append a segment (start <= end; after the last one). -1 on OOM. */
int llc_timeline_add(struct llc_timeline *t, uint64_t start, uint64_t end, double weight, int32_t llc, int32_t node);
void llc_timeline_free(struct llc_timeline *t);

/*
 * P_ij: of i's weight while j's place is known (from j's first segment
 * on: running there, or last ran there), the share during which j's LLC
 * (node with by_node) is not i's. *known = that weight; 0 when none.
 */
double llc_est_pcross(const struct llc_timeline *i, const struct llc_timeline *j, bool by_node, double *known);

/* One pair of threads with data in common: both sides of the line estimate. */
struct llc_est_pair {
	size_t a, b;                      /* thread indexes */
	double s_ab, lo_ab, hi_ab;        /* share of a's accesses on lines b uses, its bounds */
	double s_ba, lo_ba, hi_ba;
	bool shared, apart;               /* the clustering's verdict (neither: cannot tell) */
};

/* The weight of one direction i -> j (i's accesses whose previous other-thread access is j's). */
struct llc_est_dir {
	size_t i, j;
	double w, lo, hi;
	bool shared, apart;
};

/* Per thread: the sums over its partners k of n_k s_ki (point, low, high) and how many partners. */
struct llc_est_sums {
	double d, lo, hi;
	size_t partners, positive;
};

/* sums[i] of nt threads over the np pairs, n[] each thread's samples on data. */
void llc_est_sums(const double *n, const struct llc_est_pair *p, size_t np, struct llc_est_sums *sums);
/* out[0], out[1]: a -> b and b -> a of one pair. */
void llc_est_pair_dirs(const double *n, const struct llc_est_sums *sums, const struct llc_est_pair *p,
		       struct llc_est_dir out[2]);
/*
 * out[2k], out[2k+1]: a -> b and b -> a of pair k, with n[] each thread's
 * samples on data (the two above). -1 on OOM.
 */
int llc_est_weights(const double *n, size_t nt, const struct llc_est_pair *p, size_t np, struct llc_est_dir *out);

/* One term of a figure: a direction's weight bounds and its P. */
struct llc_est_term {
	double w, lo, hi, p;
};

enum llc_est_state {
	LLC_EST_NONE,     /* no data in common, or every pair apart */
	LLC_EST_TOO_FEW,  /* no pair decided shared: only bounds (if anything is shared) */
	LLC_EST_POINT,
};

struct llc_est_fig {
	enum llc_est_state state;
	double share, low, high; /* share only with LLC_EST_POINT */
	double weight;           /* sum of W: estimated samples on shared data */
};

/* The figure of n terms; any_shared: some pair is decided shared, any_undecided: some cannot tell. */
void llc_est_figure(struct llc_est_term *t, size_t n, bool any_shared, bool any_undecided, struct llc_est_fig *out);

#endif
