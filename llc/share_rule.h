/*
 * share_rule.h - the one place the LLC measure (llc/llc_share.c) takes
 * the clustering's evidence rules from: which samples are evidence of data
 * (R: read-only text and samples with neither a data_id nor a physical
 * address are not) and the key of the data. Today (issue 18) these are:
 * A:/F: data keyed by 64-byte line in 1 s epochs (modulo 256); K: kernel
 * pages and physical pages (no data_id) keyed by page in 100 ms epochs
 * (modulo 2^16) (extract/mem/mem_agg.h). When another thread's touch makes
 * the data shared (a line's within SHARE_WINDOW_EPOCHS epochs either side)
 * the measure leaves to the line estimate it calls, sharing_line_estimate
 * (extract/sharing/sharing.h), so the window has one definition; it counts
 * page keys and does not measure them. When the clustering's rules move,
 * only this file is re-pointed.
 */
#ifndef SCX_SHARE_RULE_H
#define SCX_SHARE_RULE_H

#include <stdbool.h>
#include <stdint.h>

#include "extract/mem/mem_agg.h"

/* The sample's data key (identity and epoch); false: no evidence. */
bool share_rule_key(const struct mem_sample *s, bool line_granularity, uint64_t *key);

/* The identity of a key (keys sort by identity, then epoch). */
uint64_t share_rule_ident(uint64_t key);
/* A line key (A:/F: data, compared by the line estimate), and its region (a process's private memory, a file). */
bool share_rule_is_line(uint64_t key);
uint64_t share_rule_region(uint64_t key);
/* What identity sampling goes by (a line key: its page), as the evidence maps sample. */
uint64_t share_rule_object(uint64_t key);

#endif
