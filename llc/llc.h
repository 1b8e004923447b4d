/*
 * llc.h - the contract of llc/, the effect of a cell config: cross-LLC
 * sharing measured in the recording and predicted under the config by the
 * scheduler models (docs/llc-sharing.md). extract mem's step (llc_step.c)
 * is declared here; the measure and its figures (llc_share.h), CPU -> LLC
 * and node (llc_map.h), every thread's demand from the sched trace and its
 * subcell (thread_demand.h), the LLC-packing scheduler's placement model
 * (placement.h), the scx_mitosis model (sched_model_mitosis.h) and its
 * layout's text (llc_mitosis_print.h) and where a thread lands under a
 * config (config_match.h) are part of the contract through this header,
 * files of their own (llc_share.h includes the types, llc_types.h, and
 * llc_est.h); share_rule.h and llc_measure.h are the room's own. The
 * recording's topology comes from extract (extract/rec_topology.h).
 */
#ifndef SCX_LLC_H
#define SCX_LLC_H

#include <stdbool.h>
#include <stdio.h>

#include "extract/extract_mem.h"
#include "extract/mem/mem_agg.h"
#include "extract/rec_topology.h"
#include "extract/sched/extract_sched.h"
#include "extract/sharing/sharing.h"
#include "llc/config_match.h"
#include "llc/llc_map.h"
#include "llc/llc_mitosis_print.h"
#include "llc/llc_share.h"
#include "llc/placement.h"
#include "llc/sched_model_mitosis.h"
#include "llc/thread_demand.h"

/* ---- llc_step.c: extract mem's cross-LLC step (llc/llc_share.h), run
 * by extract when cmd/ sets extract_mem_opts.step to &llc_extract_step:
 * count the samples while the stream is read (-v in sharing mode,
 * --order-subcells or an observer's on_llc ask for it), then, once the
 * config is built, evaluate it against the topology (--topology FILE,
 * else the recording's own: topology.json next to the input or
 * perf.data's headers; --topology host for this machine), with
 * --order-subcells reorder its subcells into the best order for the
 * scx_mitosis layout and evaluate that, print the -v section and hand the
 * result to the observer's on_llc (the CLI's JSON sidecar, the report).
 * sched.jsonl's threads' runtime / trace duration is the demand; the
 * config the clustering wanted before the reader's limits gives the fit's
 * cost (llc_step_fit_cost).
 */
extern const struct extract_mem_step llc_extract_step;
/*
 * The union spec's cost (llc_allot_cost.c): cfg's allotment cell (index
 * allot) holds every subcell of every allotment; evaluate, as e evaluates
 * cfg, the configs with it replaced by one spec per allotment of specs
 * holding the union's subcells (the same layout, each allotment's figure
 * apart) and holding only its own; the scx_mitosis figures into r->allot.
 * -1 (scx_fail) on error.
 */
int llc_allot_cost(const struct llc_share *s, const struct llc_share_eval *e, const struct cell_config *cfg,
		   size_t allot, const struct cell_config *specs, struct llc_share_result *r);
/*
 * The cost of the fit's choices: the predicted cross-LLC figure of the
 * whole profile under wanted, evaluated as e evaluates the config written,
 * into r->fit_wanted (r->fit set). The one call to change when the
 * prediction's model changes. -1 (scx_fail) on error.
 */
int llc_step_fit_cost(const struct llc_share *s, const struct llc_share_eval *e, const struct cell_config *wanted,
		     const struct reader_fit_log *fit, struct llc_share_result *r);

#endif
