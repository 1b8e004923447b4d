/*
 * llc_order.h - the subcell order of a config for the scx_mitosis layout
 * (llc_order.c): file order decides which CPU run each subcell gets, so
 * for each config cell the order of its non-catch-all subcells that
 * minimises the profile's predicted cross-LLC share under the scx_mitosis
 * model, every order tried (at most 7 subcells: 5040). The room's own.
 */
#ifndef SCX_LLC_ORDER_H
#define SCX_LLC_ORDER_H

#include "llc/llc_types.h"

/* Largest number of non-catch-all subcells ordered (the reader's 8 with the catch-all). */
#define LLC_ORDER_MAX_SUBS 7

/*
 * r->orders from r->pw and r->mitosis (after llc_share_evaluate's
 * measure; demand[i] each actor's CPUs). Nothing when the model did not
 * run. -1 (scx_fail) on OOM.
 */
int llc_order_choose(const struct llc_share *s, const struct llc_share_eval *e, const double *demand,
		     struct llc_share_result *r);
void llc_order_free(struct llc_share_result *r);

#endif
