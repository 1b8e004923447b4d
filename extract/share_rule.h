/*
 * share_rule.h - the one place the LLC measure (extract/llc_share.c) takes
 * the clustering's evidence rules from: which samples are evidence of data
 * (R: read-only text and samples with neither a data_id nor a physical
 * address are not), the key of the data (identity x epoch: data_id with
 * the physical page folded in, else the physical page; K: kernel pages and
 * physical pages in 100 ms epochs, user data in 1 s), and when two touches
 * of one identity are concurrent (same or adjacent epoch). Today these are
 * extract/mem_agg.c's rules (mem_agg_sample_key); when the sharing
 * decision moves (issue 18), only this file is re-pointed.
 */
#ifndef SCX_EXTRACT_SHARE_RULE_H
#define SCX_EXTRACT_SHARE_RULE_H

#include <stdbool.h>
#include <stdint.h>

#include "extract/jsonl_scan.h"

/* The sample's data key (EV_IDENT(key) the identity, EV_EPOCH(key) the epoch); false: no evidence. */
bool share_rule_key(const struct mem_sample *s, bool line_granularity, uint64_t *key);

/* The identity and the epoch of a key. */
uint64_t share_rule_ident(uint64_t key);
uint64_t share_rule_epoch(uint64_t key);

/* Two touches of one identity in these epochs are concurrent: the same or adjacent (modulo the epoch counter). */
bool share_rule_concurrent(uint64_t epoch_a, uint64_t epoch_b);

#endif
