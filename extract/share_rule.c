/*
 * share_rule.c - the clustering's evidence rules as the LLC measure uses
 * them (see share_rule.h): today a thin layer over extract/mem_agg.c.
 */
#include "extract/share_rule.h"

#include "extract/mem_agg.h"

bool share_rule_key(const struct mem_sample *s, bool line_granularity, uint64_t *key)
{
	unsigned scale;

	return mem_agg_sample_key(s, line_granularity, key, &scale);
}

uint64_t share_rule_ident(uint64_t key)
{
	return EV_IDENT(key);
}

uint64_t share_rule_epoch(uint64_t key)
{
	return EV_EPOCH(key);
}

bool share_rule_concurrent(uint64_t epoch_a, uint64_t epoch_b)
{
	uint64_t d = (epoch_a - epoch_b) & EV_EPOCH_MASK;

	return d == 0 || d == 1 || d == EV_EPOCH_MASK;
}
