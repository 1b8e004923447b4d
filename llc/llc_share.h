/*
 * llc_share.h - cross-LLC sharing: measured as the host scheduled the
 * recording, and predicted under a cell config (docs/llc-sharing.md).
 *
 * The figure: of the accesses to data another thread also uses, the
 * share whose previous access by another thread came from another LLC
 * (node). It is estimated (llc/llc_est.h) from pieces that do not
 * depend on the sample density: per pair of threads the clustering's
 * calibrated line estimate (the share of each one's accesses on lines
 * the other uses, with its interval), each thread's samples on data, and
 * where each thread ran when: the scheduling trace's runs when there is
 * one, else the CPUs of its samples per 100 ms bin. A thread here is an
 * "actor": tid with the cgroup, comm and hint it was sampled with.
 *   measured  = the estimate with the timelines of the recording;
 *   predicted = the same with each thread on the LLC the placement model
 *               gives its subcell for the whole recording
 *               (llc/placement.h; a subcell larger than every LLC has
 *               its threads placed one by one);
 * and the same for NUMA nodes. Both weigh the same accesses, so they
 * compare directly. Figures come per subcell, per top-level cell and for
 * the whole profile, each with its interval, or only bounds ("too few to
 * say") when no pair of its threads is known to share.
 *
 * Memory: at most max_recs (key, thread) records; past that a sampling
 * level rises and only identities whose hash has `level` leading zero
 * bits are kept (all their touches), as the evidence maps do; actors are
 * bounded by LLC_SHARE_MAX_ACTORS (the samples of later new threads are
 * counted as dropped); the samples' CPUs per (thread, 100 ms bin, CPU).
 */
#ifndef SCX_LLC_SHARE_H
#define SCX_LLC_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "extract/mem/mem_agg.h"
#include "llc/llc_types.h"

/* max_recs 0: 1 << 18 (extract mem: --evidence-keys / 4). */
void llc_share_init(struct llc_share *s, bool line_granularity, size_t max_recs);
void llc_share_free(struct llc_share *s);
/* Count one sample. -1 on OOM. */
int llc_share_add(struct llc_share *s, const struct mem_sample *m);

/* Measure and predict. -1 (scx_fail) on OOM or a regex failure. */
int llc_share_evaluate(const struct llc_share *s, const struct llc_share_eval *e, struct llc_share_result *r);
void llc_share_result_free(struct llc_share_result *r);

/* A figure as text: "12.3% (95% 10.1-14.6%)", "too few to say (L-H% if anything is shared)", or "-". */
const char *llc_share_fig_text(char *buf, size_t len, const struct llc_est_fig *g);
/* The -v section. */
void llc_share_print(FILE *f, const struct llc_share_result *r);
/* -v's line of what the union allotment spec costs (r->allot), nothing when not computed. */
void llc_share_print_allot_cost(FILE *f, const struct llc_share_result *r);
/* The JSON sidecar (schemas/llc-sharing.schema.json), one object and a newline. -1 on write error. */
int llc_share_write_json(FILE *f, const struct llc_share_result *r);

#endif
