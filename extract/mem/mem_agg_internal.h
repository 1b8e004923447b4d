/*
 * mem_agg_internal.h - what the files of the mem_agg module call in each
 * other, by the file that defines it. Not for other modules. The calls go
 * one way: mem_agg.c calls the others; mem_agg_fold.c and mem_agg_key.c
 * call mem_agg_shard.c, never each other; mem_agg_shard.c calls none of
 * them. mem_agg_grow(), which they all use, is inline here.
 */
#ifndef SCX_EXTRACT_MEM_AGG_INTERNAL_H
#define SCX_EXTRACT_MEM_AGG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/grow.h"

/* the types are mem_agg.h's (not included here: it would be an include circle) */
struct mem_agg;
struct group_rec;
struct comm_rec;
struct hint_rec;
struct mem_sample;

/* Grow *arr (elements of elem bytes, zeroed) to hold need; -1 on OOM. */
static inline int mem_agg_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	return grow_to(arr, cap, need, elem, 4) ? 0 : scx_fail("out of memory (%zu entries)", need);
}

/* ---- mem_agg_shard.c: the key budget */
/* A key's depth (it survives levels up to it). */
unsigned mem_agg_key_depth(uint64_t key);
/* Drop the identity -> object entries under a->level. -1 on OOM. */
int mem_agg_trim_objects(struct mem_agg *a);
/* (a->shards set): evidence ops to the shards */
int mem_agg_shard_add(struct mem_agg *a, uint32_t id, uint64_t key, uint64_t val, unsigned depth);
int mem_agg_shard_drop(struct mem_agg *a, uint32_t id);
int mem_agg_shard_merge(struct mem_agg *a, uint32_t src, uint32_t dst);
/* The level published by the shards' checkpoints (never above one thread's). */
unsigned mem_agg_shard_level(const struct mem_agg *a);
void mem_agg_shards_stop(struct mem_agg *a);

/* ---- mem_agg_fold.c */
void mem_agg_comm_rec_free(struct comm_rec *c);
/* A new group record of kind (enum group_kind) (indexed: in group_index and, allotment, the groups' counters); its index, -1 on OOM. */
long mem_agg_new_group(struct mem_agg *a, const char *key, size_t len, int kind, bool indexed);
/* A Misra-Gries round on the allotment groups. -1 on OOM. */
int mem_agg_fold_groups(struct mem_agg *a);
/* The comm_rec a sample of comm counts in (its name's counter incremented); NULL on OOM. */
struct comm_rec *mem_agg_comm_of(struct mem_agg *a, struct group_rec *g, const char *comm, size_t len);
/* The hint_rec of hint in c, created when new; NULL on OOM. */
struct hint_rec *mem_agg_hint_of(struct mem_agg *a, struct comm_rec *c, uint64_t hint);

/* ---- mem_agg_key.c */
/* Add the sample's evidence key to h (under the key budget). -1 on OOM. */
int mem_agg_add_evidence(struct mem_agg *a, struct hint_rec *h, const struct mem_sample *s);

#endif
