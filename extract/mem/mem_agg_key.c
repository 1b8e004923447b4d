/*
 * mem_agg_key.c - mem_agg's evidence (see mem_agg.h): the key of a sample
 * (data identity, cache line, epoch), the bounded key budget (sampling by
 * identity) and the identity -> object names behind -v.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/mem/mem_agg.h"
#include "extract/mem/mem_agg_internal.h"
#include "lib/error.h"
#include "lib/hash.h"

uint64_t mem_agg_evidence_key(uint64_t phys_addr, uint64_t data_page_size, bool line_granularity)
{
	unsigned shift = 12;

	if (line_granularity)
		shift = 6;
	else if (data_page_size >= 64)
		shift = 63 - (unsigned)__builtin_clzll(data_page_size);
	return (phys_addr >> shift) << 6 | shift;
}

/*
 * The line key of an A: or F: identity ("A:PID:VPAGE", "F:MAJ:MIN:INO:GEN:FILEPAGE"):
 * region = everything before the page number, block = page / 512, the
 * page's low 9 bits, the physical page folded to 10 bits, and the 64-byte
 * line within the page (from phys_addr, else addr: both have the page
 * offset). false when the id has no hex page number after its last colon.
 */
static bool line_ident(const struct mem_sample *s, uint64_t *ident)
{
	size_t colon = s->data_id_len, i;
	uint64_t page = 0, phys = 0, off = s->phys_addr ? s->phys_addr : s->addr;

	while (colon > 2 && s->data_id[colon - 1] != ':')
		colon--;
	if (colon <= 2 || colon == s->data_id_len || s->data_id_len - colon > 16)
		return false;
	for (i = colon; i < s->data_id_len; i++) {
		char ch = s->data_id[i] | 0x20;

		if (ch >= '0' && ch <= '9')
			page = page << 4 | (uint64_t)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			page = page << 4 | (uint64_t)(ch - 'a' + 10);
		else
			return false;
	}
	if (s->phys_addr)
		phys = mem_agg_evidence_key(s->phys_addr, s->data_page_size, false);
	*ident = EV_LINE_FLAG |
		 (hash_bytes(s->data_id, colon - 1) & EV_REGION_MASK) << EV_REGION_SHIFT |
		 (hash_mix64((page >> 9) + 1) & EV_BLOCKBITS_MASK) << EV_BLOCK_SHIFT |
		 (page & 511) << EV_PAGENO_SHIFT |
		 (hash_mix64(phys + 1) & EV_PHYSFOLD_MASK) << EV_PAGE_SHIFT |
		 ((off >> 6) & 63) << EV_LINE_SHIFT;
	return true;
}

/* key_ahead: computed, for which granularity, and whether the sample is evidence */
#define KEY_AHEAD_DONE 1u
#define KEY_AHEAD_LINES 2u
#define KEY_AHEAD_EVIDENCE 4u

static bool sample_key(const struct mem_sample *s, bool line_granularity, uint64_t *key, unsigned *scale);

bool mem_agg_sample_key(const struct mem_sample *s, bool line_granularity, uint64_t *key, unsigned *scale)
{
	if (s->key_ahead && !(s->key_ahead & KEY_AHEAD_LINES) == !line_granularity) {
		*key = s->key;
		*scale = s->key_scale;
		return (s->key_ahead & KEY_AHEAD_EVIDENCE) != 0;
	}
	return sample_key(s, line_granularity, key, scale);
}

void mem_agg_sample_key_ahead(struct mem_sample *s, bool line_granularity)
{
	uint64_t key = 0;
	unsigned scale = 0;
	bool ev = sample_key(s, line_granularity, &key, &scale);

	s->key = key;
	s->key_scale = (uint8_t)scale; /* at most EV_SCALE_USER * EV_PEER_FACTOR */
	s->key_ahead = KEY_AHEAD_DONE | (line_granularity ? KEY_AHEAD_LINES : 0) | (ev ? KEY_AHEAD_EVIDENCE : 0);
}

static bool sample_key(const struct mem_sample *s, bool line_granularity, uint64_t *key, unsigned *scale)
{
	uint64_t ident, epoch_ns = EV_EPOCH_NS;

	*scale = EV_SCALE_USER;
	if (s->data_id && s->data_id_len >= 2 && s->data_id[1] == ':') {
		uint64_t phys = s->phys_addr ? mem_agg_evidence_key(s->phys_addr, s->data_page_size, line_granularity) : 0;

		if (s->data_id[0] == 'R')
			return false;
		if (s->data_id[0] == 'K') {
			*scale = EV_SCALE_KERNEL;
			epoch_ns = EV_KERNEL_EPOCH_NS;
		}
		if ((s->data_id[0] == 'A' || s->data_id[0] == 'F') && line_ident(s, &ident)) {
			*key = ident | ((s->time_ns / epoch_ns) & EV_LINE_EPOCH_MASK);
			if (s->peer)
				*scale *= EV_PEER_FACTOR;
			return true;
		}
		/* the physical page is folded in: one identity on two pages at once is reuse, not sharing */
		ident = (hash_bytes(s->data_id, s->data_id_len) ^ hash_mix64(phys + 1)) & ~EV_LINE_FLAG;
	} else if (s->phys_addr) {
		ident = hash_mix64(mem_agg_evidence_key(s->phys_addr, s->data_page_size, line_granularity)) & ~EV_LINE_FLAG;
		epoch_ns = EV_PHYS_EPOCH_NS;
	} else {
		return false;
	}
	if (s->peer)
		*scale *= EV_PEER_FACTOR;
	*key = (ident & ~EV_EPOCH_MASK) | ((s->time_ns / epoch_ns) & EV_EPOCH_MASK);
	return true;
}

/* Sampling keeps or drops an identity (a line key: its page) in all its epochs at once. */
static bool key_sampled(uint64_t key, unsigned level)
{
	return level == 0 || (hash_mix64(EV_OBJECT(key)) >> (64 - level)) == 0;
}

static int keep_at_level(uint64_t key, void *arg)
{
	return key_sampled(key, *(unsigned *)arg);
}

/* Raise the sampling level until the evidence fits the budget again. */
static int shrink_evidence(struct mem_agg *a)
{
	while (a->nr_keys > a->o.max_keys && a->level < 63) {
		size_t g, c, h, dropped;

		a->level++;
		for (g = 0; g < a->nr_groups; g++)
			for (c = 0; c < a->groups[g].nr_comms; c++)
				for (h = 0; h < a->groups[g].comms[c].nr_hints; h++) {
					struct u64map *m = &a->groups[g].comms[c].hints[h].pages;

					if (u64map_filter(m, keep_at_level, &a->level, &dropped) < 0)
						return -1;
					a->nr_keys -= dropped;
				}
		if (mem_agg_trim_objects(a) < 0)
			return -1;
	}
	return 0;
}

/*
 * Remember the object name of an identity (bounded: MEM_AGG_MAX_OBJECTS
 * names). Names are numbered in the order of all evidence samples, sampled
 * or not (sampled: the identity is kept at the current level), so that the
 * numbers and the bound do not depend on when the level rose (which, with
 * evidence shards, the caller's thread learns late).
 */
static int note_object(struct mem_agg *a, uint64_t ident, const struct mem_sample *s, bool sampled)
{
	char name[512];
	size_t n = 0, part;
	int inserted;
	uint64_t *slot;
	struct strmap_slot *o;

	part = s->data_map_len < sizeof(name) - 1 ? s->data_map_len : sizeof(name) - 1;
	memcpy(name, s->data_map, part);
	n = part;
	if (s->data_sym && n < sizeof(name) - 1) {
		name[n++] = ' ';
		part = s->data_sym_len < sizeof(name) - 1 - n ? s->data_sym_len : sizeof(name) - 1 - n;
		memcpy(name + n, s->data_sym, part);
		n += part;
	}
	o = strmap_find(&a->objects, name, n);
	if (!o) {
		if (a->nr_objects >= MEM_AGG_MAX_OBJECTS)
			return 0;
		if (!a->object_names &&
		    !(a->object_names = calloc(MEM_AGG_MAX_OBJECTS, sizeof(*a->object_names))))
			return scx_fail("out of memory");
		if (!(o = strmap_get_or_add(&a->objects, name, n, a->nr_objects, &inserted)))
			return -1;
		a->object_names[a->nr_objects++] = o->key;
	}
	if (!sampled || u64map_find(&a->ident_object, ident))
		return 0;
	if (!(slot = u64map_slot(&a->ident_object, ident)))
		return -1;
	*slot = o->index + 1;
	return 0;
}

size_t mem_agg_object(const struct mem_agg *a, uint64_t ident)
{
	const uint64_t *v = u64map_find(&a->ident_object, ident);

	return v ? (size_t)*v : 0;
}

const char *mem_agg_object_name(const struct mem_agg *a, size_t obj)
{
	return obj && obj <= a->nr_objects ? a->object_names[obj - 1] : NULL;
}

int mem_agg_add_evidence(struct mem_agg *a, struct hint_rec *h, const struct mem_sample *s)
{
	uint64_t key, w = s->has_weight && s->weight ? s->weight : 1;
	unsigned scale;
	size_t before = h->pages.len;
	bool sampled;
	uint64_t *v;

	if (!mem_agg_sample_key(s, a->o.line_granularity, &key, &scale)) {
		if (s->data_id && s->data_id_len >= 2 && s->data_id[0] == 'R')
			a->ev.readonly++;
		else
			a->ev.none++;
		return 0;
	}
	if (s->data_id)
		a->ev.by_id++;
	else
		a->ev.by_phys++;
	a->ev.kernel += s->data_id && s->data_id[0] == 'K';
	a->ev.peer += s->peer;
	if (a->shards && mem_agg_shard_level(a) > a->level) { /* the shards' checkpoints raised it */
		a->level = mem_agg_shard_level(a);
		if (mem_agg_trim_objects(a) < 0)
			return -1;
	}
	sampled = key_sampled(key, a->level);
	if (a->o.objects && s->data_map && note_object(a, EV_OBJECT(key), s, sampled) < 0)
		return -1;
	if (!sampled)
		return 0;
	if (a->shards)
		return mem_agg_shard_add(a, h->ev_id, key, EV_PACK(1, w * scale), mem_agg_key_depth(key));
	if (!(v = u64map_slot(&h->pages, key)))
		return -1;
	*v += EV_PACK(1, w * scale);
	if (h->pages.len != before && ++a->nr_keys > a->o.max_keys)
		return shrink_evidence(a);
	return 0;
}

