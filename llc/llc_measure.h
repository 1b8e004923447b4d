/*
 * llc_measure.h - the cross-LLC figures of an evaluation (llc_share.h):
 * each thread's evidence of data out of the counts, the line estimate of
 * every pair of threads with a region in common (extract/sharing/sharing.h), the
 * pair weights, each thread's timeline (the scheduling trace's runs, else
 * its samples' CPUs per 100 ms bin) and the estimator
 * (llc/llc_est.h), for the profile, each cell and each subcell.
 */
#ifndef SCX_LLC_MEASURE_H
#define SCX_LLC_MEASURE_H

#include "llc/llc_types.h"

/* struct llc_measure_actor (what the evaluation decided for one actor) is in llc_types.h. */

/* Fill r's figures (total, cells[].f, subs[].f) and sample counts. -1 (scx_fail) on OOM. */
int llc_measure(const struct llc_share *s, const struct llc_share_eval *e, const struct llc_measure_actor *act,
		struct llc_share_result *r);

#endif
