/*
 * mem_agg_core.c - what the parts of mem_agg (see mem.h) all call, and call
 * nothing back: growing a record array, a key's depth under the sampling
 * levels, and dropping the identity -> object names a level no longer
 * keeps. The parts are layered on it: mem_agg_shard.c (the evidence maps
 * on worker threads) calls only this core; mem_agg_fold.c (records and
 * their folds) and mem_agg_key.c (a sample's key, the key budget) call the
 * core and the shards; mem_agg.c, the entry point, calls them all. No part
 * calls one that calls it (mem_agg_internal.h).
 */
#include <stdlib.h>
#include <string.h>

#include "extract/mem/mem.h"
#include "extract/mem/mem_agg_internal.h"
#include "lib/error.h"
#include "lib/grow.h"
#include "lib/hash.h"

int mem_agg_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	return grow_to(arr, cap, need, elem, 4) ? 0 : scx_fail("out of memory (%zu entries)", need);
}

unsigned mem_agg_key_depth(uint64_t key)
{
	uint64_t h = hash_mix64(EV_OBJECT(key));

	return h ? (unsigned)__builtin_clzll(h) : 63;
}

static int keep_object_at_level(uint64_t object, void *arg)
{
	unsigned level = *(unsigned *)arg;

	return level == 0 || (hash_mix64(object) >> (64 - level)) == 0;
}

int mem_agg_trim_objects(struct mem_agg *a)
{
	size_t dropped;

	return u64map_filter(&a->ident_object, keep_object_at_level, &a->level, &dropped);
}
