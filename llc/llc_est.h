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
 *   sum_ij W_ij P_ij / sum_ij W_ij,   W_ij = n_i s_ij w_ij,
 *
 * each W_ij times its co-run factor (llc_est_corun: the partners' rates
 * by when they ran, over their whole-recording rates), so that a thread
 * that ran only while i did not (set-up) weighs (almost) nothing.
 *
 * Predicted: the same with P_ij = 1 when the placement puts i and j on
 * two LLCs, else 0. A pair that cannot tell enters the point at the
 * midpoint of its s intervals. The interval: every W_ij within the bounds
 * its s intervals give and every P_ij within the bounds its timelines
 * leave (merged runs), the extreme weighted means (exact for box-bounded
 * weights); no point unless some pair is decided shared (the
 * clustering's rule) and some weight's lower bound is above 0, and, with
 * a pair that cannot tell or first-touch samples, the interval is at most
 * LLC_EST_MAX_WIDTH wide (docs/llc-sharing.md "The point with pairs that
 * cannot tell", "Intervals").
 */
#ifndef SCX_LLC_EST_H
#define SCX_LLC_EST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One piece of a thread's timeline: on llc/node over [start, end), weight
 * spread evenly over it. fill: the share of [start, end) the thread ran
 * (a scheduling run merged over a span with gaps: runtime / span; 1 for
 * samples). Where in the span it ran is unknown, which bounds P (below).
 */
struct llc_seg {
	uint64_t start, end;
	double weight;  /* runtime ns, or samples */
	double fill;
	int32_t llc, node;
};

struct llc_timeline {
	struct llc_seg *v; /* ascending, not overlapping */
	size_t n, cap;
};

/* Append a segment (start <= end; after the last one). -1 on OOM. */
int llc_timeline_add(struct llc_timeline *t, uint64_t start, uint64_t end, double weight, int32_t llc, int32_t node);
/* The same for a scheduling run: runtime ns within [start, end) (fill = runtime / span). */
int llc_timeline_add_run(struct llc_timeline *t, uint64_t start, uint64_t end, uint64_t runtime, int32_t llc,
			 int32_t node);
void llc_timeline_free(struct llc_timeline *t);

/*
 * Add to *lo, *hi the bounds of the cross weight of a span of weight w,
 * fill f, during a share c of which the partner is on another LLC.
 */
void llc_est_span_bounds(double w, double f, double c, double *lo, double *hi);

/*
 * P_ij: of i's weight while j's place is known (from j's first segment
 * on: running there, or last ran there), the share during which j's LLC
 * (node with by_node) is not i's. *known = that weight; 0 when none.
 * *lo <= P <= *hi are the bounds of P that the segments' fill leaves
 * (i's runtime anywhere within each of its spans).
 */
double llc_est_pcross_bounds(const struct llc_timeline *i, const struct llc_timeline *j, bool by_node, double *known,
			     double *lo, double *hi);

/*
 * Co-run (docs/llc-sharing.md "Co-run"): on thread i's access at time t
 * to data it shares, the previous access by another thread is partner
 * k's with probability rho_k(t) / sum_m rho_m(t), rho_k(t) = rate[k] x
 * k's density at t (its timeline's weight per ns, over its total weight):
 * its access rate then, rate[k] its accesses on what it shares with i
 * (n_k s_ki). When no partner runs at t the shares of the last instant
 * one did hold (their accesses are the latest); before any partner's first
 * segment, i's weight is left out (no other thread has touched the data).
 * share[k] = i's weight whose previous other-thread access is k's, over
 * all of i's weight (sum over k <= 1). A thread that ran only before the
 * others started (set-up) gets share 0 from them, and i's share of it is
 * only its time before the others ran. A timeline's segments less than
 * LLC_EST_CORUN_GAP_NS apart are one span of activity (its weight spread
 * over it): threads that take turns on a CPU, or run in slices, count as
 * running together; phases (set-up, bursts, starts and stops) are what
 * weighs. Partners' timelines tk[0..m). -1 on OOM.
 */
#define LLC_EST_CORUN_GAP_NS 100000000ULL
int llc_est_corun(const struct llc_timeline *ti, const struct llc_timeline *const *tk, const double *rate, size_t m,
		  double *share);

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

/*
 * The share a pair's side enters the point with: the line estimate when
 * the pair is decided (shared or apart), the midpoint of its interval when
 * it cannot tell (docs/llc-sharing.md "The point": the value whose largest
 * error over the interval is least).
 */
double llc_est_point_s(double s, double lo, double hi, bool decided);
/* n's one-sided Poisson bounds at z = 1.96 (a thread's sample count as a measure of its accesses). */
double llc_est_n_lo(double n);
double llc_est_n_hi(double n);

/* Per thread: the sums over its partners k of n_k s_ki (point, low, high) and how many partners. */
struct llc_est_sums {
	double d, lo, hi;
	size_t partners, positive;
};

/* sums[i] of nt threads over the np pairs, n[] each thread's samples on data. */
void llc_est_sums(const double *n, const struct llc_est_pair *p, size_t np, struct llc_est_sums *sums);
/*
 * One direction i -> j with i's sums si: n_i, n_j the two threads'
 * samples, s_ij (point, bounds) i's side, s_ji j's. The point's s are
 * llc_est_point_s's.
 */
void llc_est_dir(double n_i, double n_j, const struct llc_est_sums *si, size_t i, size_t j, double s_ij, double lo_ij,
		 double hi_ij, double s_ji, double lo_ji, double hi_ji, struct llc_est_dir *o);
/* out[0], out[1]: a -> b and b -> a of one pair. */
void llc_est_pair_dirs(const double *n, const struct llc_est_sums *sums, const struct llc_est_pair *p,
		       struct llc_est_dir out[2]);

/* One term of a figure: a direction's weight bounds and its P with P's bounds. */
struct llc_est_term {
	double w, lo, hi, p, plo, phi;
};

enum llc_est_state {
	LLC_EST_NONE,     /* no data in common, or every pair apart */
	LLC_EST_TOO_FEW,  /* no pair decided shared: only bounds (if anything is shared) */
	LLC_EST_POINT,
};

/* Why a figure is only bounds. */
enum llc_est_why {
	LLC_WHY_NONE,       /* a point, or nothing shared */
	LLC_WHY_UNDECIDED,  /* no pair decided shared */
	LLC_WHY_WIDE,       /* the interval is wider than LLC_EST_MAX_WIDTH */
	LLC_WHY_FIRST_TOUCH /* first-touch samples: their counts do not weigh the pairs, and the weights decide it */
};

/*
 * With a pair that cannot tell (or first-touch weights), a point only when
 * the interval is at most this wide: beyond, the undecided pairs' values,
 * not the samples, make the point.
 */
#define LLC_EST_MAX_WIDTH 0.5

/* "undecided", "wide", "first_touch" (NULL for LLC_WHY_NONE): the JSON's names. */
const char *llc_est_why_name(enum llc_est_why why);
/* The same for people: "no pair of its threads is decided shared", ... ("" for LLC_WHY_NONE). */
const char *llc_est_why_text(enum llc_est_why why);

struct llc_est_fig {
	enum llc_est_state state;
	enum llc_est_why why;   /* with LLC_EST_TOO_FEW */
	double share, low, high; /* share only with LLC_EST_POINT */
	double weight;           /* sum of W: estimated samples on shared data */
};

/*
 * The figure of n terms; any_shared: some pair is decided shared,
 * any_undecided: some cannot tell; first_touch: the samples are first
 * touches, so a term's weight is only known to be within [0, hi] (a point
 * only when the terms' P agree within LLC_EST_MAX_WIDTH whatever the
 * weights).
 */
void llc_est_figure(struct llc_est_term *t, size_t n, bool any_shared, bool any_undecided, bool first_touch,
		    struct llc_est_fig *out);

#endif
