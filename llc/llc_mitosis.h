/*
 * llc_mitosis.h - the scx_mitosis model in an evaluation (llc_share.c):
 * the recorded threads' cgroups as the reader's cells, each thread's
 * subcell by its comm, the layout with the recorded demands, and each
 * thread's share of each LLC and node (llc/sched_model_mitosis.h,
 * docs/llc-sharing.md "The scx_mitosis model"). The room's own.
 */
#ifndef SCX_LLC_MITOSIS_H
#define SCX_LLC_MITOSIS_H

#include "llc/llc_types.h"

/*
 * Lay out s's actors (demand[i] CPUs each) under e->cfg into r->mitosis;
 * mllc[i], mnode[i] = actor i's shares (pointers into r->mitosis.dist).
 * When the reader would refuse the layout, r->mitosis.ran is false with
 * why, and the pointers are NULL. -1 (scx_fail) on OOM or a bad regex.
 */
int llc_mitosis_place(const struct llc_share *s, const struct llc_share_eval *e, const double *demand,
		      struct llc_share_result *r, const float **mllc, const float **mnode);
void llc_mitosis_result_free(struct llc_mitosis_result *m);

#endif
