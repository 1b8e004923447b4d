/*
 * share_rule.c - the clustering's evidence rules as the LLC measure uses
 * them (see share_rule.h): a thin layer over extract/mem/mem_agg.h.
 */
#include "llc/share_rule.h"

#include "extract/mem/mem_agg.h"

bool share_rule_key(const struct mem_sample *s, bool line_granularity, uint64_t *key)
{
	unsigned scale;

	return mem_agg_sample_key(s, line_granularity, key, &scale);
}

uint64_t share_rule_ident(uint64_t key)
{
	return EV_IS_LINE(key) ? EV_LINE_IDENT(key) : EV_IDENT(key);
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
