/*
 * share_rule.h - the one place the LLC measure (llc/llc_share.c) takes
 * the clustering's evidence rules from: which samples are evidence of data
 * (R: read-only text and samples with neither a data_id nor a physical
 * address are not), the key of the data and when another thread's touch
 * makes it shared. Today (issue 18) these are: A:/F: data keyed by 64-byte
 * line in 1 s epochs (modulo 256), shared with touches within
 * SHARE_WINDOW_EPOCHS epochs either side; K: kernel pages and physical
 * pages (no data_id) keyed by page in 100 ms epochs (modulo 2^16), shared
 * with touches in the same or an adjacent epoch (extract/mem/mem_agg.h,
 * extract/sharing/sharing.h). When the clustering's rules move, only this file is
 * re-pointed.
 */
#ifndef SCX_SHARE_RULE_H
#define SCX_SHARE_RULE_H

#include <stdbool.h>
#include <stdint.h>

#include "extract/mem/mem_agg.h"

/* The sample's data key (identity and epoch); false: no evidence. */
bool share_rule_key(const struct mem_sample *s, bool line_granularity, uint64_t *key);

/* The identity of a key (keys sort by identity, then epoch) and its epoch. */
uint64_t share_rule_ident(uint64_t key);
uint64_t share_rule_epoch(uint64_t key);
/* A line key (A:/F: data, compared by the line estimate), and its region (a process's private memory, a file). */
bool share_rule_is_line(uint64_t key);
uint64_t share_rule_region(uint64_t key);
/* What identity sampling goes by (a line key: its page), as the evidence maps sample. */
uint64_t share_rule_object(uint64_t key);

/*
 * Whether a touch of the same identity in epoch b makes the data of a
 * touch in epoch a shared (the clustering's window for this kind of key,
 * modulo its epoch counter).
 */
bool share_rule_concurrent(uint64_t key, uint64_t epoch_a, uint64_t epoch_b);

#endif
