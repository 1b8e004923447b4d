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

/* ---- llc_step.c: extract mem's cross-LLC step (llc/llc_share.h): count
 * the samples while the stream is read, then, once the config is built,
 * evaluate it against the topology (--topology FILE, else topology.json
 * next to the input, else this host), print the -v section and hand the
 * result to the observer (the CLI's JSON sidecar, the report).
 */
/* What the step needs of extract mem's options. */
struct llc_step_opts {
	const char *path;      /* the input: topology.json next to it */
	const char *topology;  /* --topology FILE or "host"; NULL: the recording's (rec_topology.h) */
	bool print;            /* the -v section */
	bool required;         /* no topology is an error (--llc-json), not a -v line */
	bool line_granularity;
	size_t max_recs;       /* 0: default */
	enum llc_sched_model model;   /* whose prediction the predicted figures are */
	struct mitosis_opts mitosis;  /* the scx_mitosis model's options */
	bool order_subcells;          /* write cfg's subcells in the best order for the scx_mitosis layout */
	/* allotments that run different programs: one spec per allotment (NULL: none), cfg's allotment cell */
	const struct cell_config *allot_specs;
	size_t allot_cell;
	int (*on_llc)(void *ctx, const struct llc_share_result *r); /* may be NULL */
	void *ctx;
};

/* Start counting: hooks the counter into the aggregation's options. */
void llc_step_start(struct llc_share *s, const struct llc_step_opts *o, struct mem_agg_opts *ao);
/*
 * Evaluate cfg; with o->order_subcells reorder its subcells into the best
 * order for the scx_mitosis layout and evaluate that; -v section into log
 * (when o->print); o->on_llc. sched
 * (may be NULL): threads' runtime / trace duration is the demand. wanted
 * (may be NULL): the config the clustering wanted before fit's choices met
 * the reader's limits; its predicted figure is the choices' cost
 * (llc_step_fit_cost). -1 (scx_fail) on error.
 */
int llc_step_finish(struct llc_share *s, const struct llc_step_opts *o, const struct mem_agg_opts *ao,
		   struct cell_config *cfg, const struct cell_config *wanted, const struct reader_fit_log *fit,
		   const struct sched_cells *sched, FILE *log);
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
