/*
 * mem_llc.h - extract mem's cross-LLC step (extract/llc_share.h): count
 * the samples while the stream is read, then, once the config is built,
 * evaluate it against the topology (--topology FILE, else topology.json
 * next to the input, else this host), print the -v section and hand the
 * result to the observer (the CLI's JSON sidecar, the report).
 */
#ifndef SCX_EXTRACT_MEM_LLC_H
#define SCX_EXTRACT_MEM_LLC_H

#include <stdbool.h>
#include <stdio.h>

#include "extract/cell_config.h"
#include "extract/extract_mem.h"
#include "extract/llc_share.h"
#include "extract/mem_agg.h"

/* Whether the run needs the measure: -v in sharing mode, or an observer asking for it. */
bool mem_llc_wanted(const struct extract_mem_opts *o);
/* Start counting: hooks the counter into the aggregation's options. */
void mem_llc_start(struct llc_share *s, const struct extract_mem_opts *o, struct mem_agg_opts *ao);
/* Evaluate cfg; -v section into log (may be NULL); observer's on_llc. -1 (scx_fail) on error. */
int mem_llc_finish(struct llc_share *s, const struct extract_mem_opts *o, const struct mem_agg_opts *ao,
		   const struct cell_config *cfg, FILE *log);

#endif
