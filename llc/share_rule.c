/*
 * share_rule.c - the clustering's evidence rules as the LLC measure uses
 * them (see share_rule.h): a thin layer over extract/mem/mem_agg.h and
 * extract/sharing/sharing.h.
 */
#include "llc/share_rule.h"

#include "extract/mem/mem_agg.h"
#include "extract/sharing/sharing.h"

bool share_rule_key(const struct mem_sample *s, bool line_granularity, uint64_t *key)
{
	unsigned scale;

	return mem_agg_sample_key(s, line_granularity, key, &scale);
}

uint64_t share_rule_ident(uint64_t key)
{
	return EV_IS_LINE(key) ? EV_LINE_IDENT(key) : EV_IDENT(key);
}

uint64_t share_rule_epoch(uint64_t key)
{
	return EV_IS_LINE(key) ? EV_LINE_EPOCH(key) : EV_EPOCH(key);
}

bool share_rule_is_line(uint64_t key)
{
	return EV_IS_LINE(key);
}

uint64_t share_rule_region(uint64_t key)
{
	return key >> EV_REGION_SHIFT;
}

uint64_t share_rule_object(uint64_t key)
{
	return EV_OBJECT(key);
}

bool share_rule_concurrent(uint64_t key, uint64_t epoch_a, uint64_t epoch_b)
{
	uint64_t mask = EV_IS_LINE(key) ? EV_LINE_EPOCH_MASK : EV_EPOCH_MASK;
	uint64_t w = EV_IS_LINE(key) ? SHARE_WINDOW_EPOCHS : 1, d = (epoch_a - epoch_b) & mask;

	return d <= w || mask + 1 - d <= w;
}
