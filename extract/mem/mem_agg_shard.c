/*
 * mem_agg_shard.c - mem_agg's evidence maps split over worker threads by
 * key hash (mem_agg_shards_start, see mem_agg.h), with the same result as
 * one thread for any number of shards.
 *
 * The caller's thread (the "serial stage") still does everything that
 * depends on sample order: classification, the name, hint and group
 * counters and their folds, -v's objects. What it would do to an evidence
 * map becomes an op sent, in order, to the shards: ADD (hint_rec id, key,
 * value) to the one shard that owns the key (hash of its object, so all
 * epochs and lines of one page land in one shard), DROP (a folded name's
 * hint_rec) and MERGE (a folded hint or group's hint_rec into another) to
 * every shard. Each shard keeps, per hint_rec id, its part of the map.
 *
 * The key budget. A key survives level L when its depth (leading zero
 * bits of hash_mix64(EV_OBJECT(key))) is at least L: a pure function of
 * the key. Let N_L(t) be the keys of depth >= L held in all maps after the
 * t-th op. One thread raises its level to the smallest L >= the current
 * one with N_L(t) <= max_keys after every new key, so its level at t is
 * the maximum over s <= t of m(s) = min{L : N_L(s) <= max_keys}. N_L only
 * grows between two folds (a key of depth >= L is never dropped below
 * that level; ADDs only add), so that maximum is reached just before a
 * fold or at the end: the level is a function of the counts at those
 * points, not of when a shard saw a key. Each shard counts its distinct
 * keys per depth; before the first DROP or MERGE after an ADD, and every
 * SH_CHECK_EVERY ADDs, the serial stage sends a CHECK to every shard,
 * which adds its counts to that checkpoint's; the last shard to arrive
 * computes m and publishes max(level, m). The published level is never
 * above one thread's at the same point, so the shards drop keys under it
 * early (memory stays near the budget) and the serial stage sends no ADD
 * under it, exactly the keys one thread would have dropped. At the end,
 * after a last CHECK, every shard drops the keys under the final level
 * and its maps move into the hint_recs: what one thread would hold, key
 * for key and value for value (sums of the same samples).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/mem/mem_agg.h"
#include "extract/mem/mem_agg_internal.h"
#include "lib/batch_queue.h"
#include "lib/error.h"
#include "lib/hash.h"

#define SH_OPS 4096         /* ops per buffer */
#define SH_BUFS 6           /* buffers per shard (at most BQ_MAX) */
#define SH_CHECK_EVERY 65536 /* ADDs between two checkpoints (trimming the shards to the level) */
#define SH_DEPTHS 64

enum { OP_ADD, OP_DROP, OP_MERGE, OP_CHECK };

/* The key budget's depth of a key: the leading zero bits of its object's hash. */
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

/* The identity -> object names a level no longer keeps go. */
int mem_agg_trim_objects(struct mem_agg *a)
{
	size_t dropped;

	return u64map_filter(&a->ident_object, keep_object_at_level, &a->level, &dropped);
}

struct sh_op {
	uint64_t key, val; /* ADD: key, value; MERGE: val = the destination id; CHECK: val = checkpoint */
	uint32_t id;       /* the hint_rec (ADD, DROP, MERGE's source) */
	uint16_t kind;
	uint16_t depth;    /* ADD: the key's depth */
};

struct sh_buf {
	struct sh_op op[SH_OPS];
	size_t n;
};

struct shard {
	struct mem_agg_shards *all;
	pthread_t thread;
	struct batch_queue q;
	struct sh_buf *bufs[SH_BUFS];
	struct sh_buf *cur;
	struct u64map *maps;      /* by hint_rec id: this shard's keys of its map */
	size_t cap_maps;
	uint64_t depth[SH_DEPTHS]; /* distinct (id, key) held, by key depth */
	unsigned level;           /* the level this shard has dropped keys under */
};

struct checkpoint {
	uint64_t depth[SH_DEPTHS];
	size_t arrived;
};

struct mem_agg_shards {
	size_t n;
	struct shard *s;
	bool started;
	size_t max_keys;
	size_t adds;              /* ADDs since the last checkpoint */
	bool dirty;               /* an ADD since the last checkpoint */
	pthread_mutex_t lock;     /* the checkpoints */
	struct checkpoint *cps;   /* checkpoints first_cp .. first_cp + nr_cps - 1 */
	size_t nr_cps, cap_cps;
	uint64_t first_cp, next_cp;
	atomic_uint level;        /* published */
};

/* The level one thread holding these counts would raise to from level. */
static unsigned level_for(const uint64_t *depth, size_t max_keys, unsigned level)
{
	uint64_t n = 0;
	unsigned l;

	for (l = level; l < SH_DEPTHS; l++) /* n: keys of depth >= level */
		n += depth[l];
	while (n > max_keys && level < 63)
		n -= depth[level++];
	return level;
}

static struct u64map *map_of(struct shard *s, uint32_t id)
{
	if (id >= s->cap_maps) {
		size_t cap = s->cap_maps ? s->cap_maps : 256, i;
		struct u64map *m;

		while (cap <= id)
			cap *= 2;
		if (!(m = realloc(s->maps, cap * sizeof(*m)))) {
			scx_fail("out of memory (evidence shard)");
			return NULL;
		}
		for (i = s->cap_maps; i < cap; i++)
			u64map_init_cap(&m[i], U64MAP_SMALL);
		s->maps = m;
		s->cap_maps = cap;
	}
	return &s->maps[id];
}

struct keep_arg {
	unsigned level;
	uint64_t *depth;
};

static int keep_deep(uint64_t key, void *arg)
{
	struct keep_arg *k = arg;
	unsigned d = mem_agg_key_depth(key);

	if (d >= k->level)
		return 1;
	k->depth[d]--;
	return 0;
}

/* Drop the keys under level from every map of the shard. */
static int shard_trim(struct shard *s, unsigned level)
{
	struct keep_arg k = {level, s->depth};
	size_t i, dropped;

	if (level <= s->level)
		return 0;
	s->level = level;
	for (i = 0; i < s->cap_maps; i++)
		if (s->maps[i].len && u64map_filter(&s->maps[i], keep_deep, &k, &dropped) < 0)
			return -1;
	return 0;
}

static void forget(struct shard *s, struct u64map *m)
{
	size_t pos = 0;
	uint64_t k, v;

	while (u64map_next_u64(m, &pos, &k, &v))
		s->depth[mem_agg_key_depth(k)]--;
	u64map_free(m);
	u64map_init_cap(m, U64MAP_SMALL);
}

static int merge(struct shard *s, uint32_t src, uint32_t dst)
{
	struct u64map *d, *m;
	size_t pos = 0, before;
	uint64_t k, v, *slot;

	if (!(d = map_of(s, dst)) || !(m = map_of(s, src)))
		return -1;
	d = &s->maps[dst]; /* map_of(src) may have moved it */
	while (u64map_next_u64(m, &pos, &k, &v)) {
		before = d->len;
		if (!(slot = u64map_slot(d, k)))
			return -1;
		*slot += v;
		if (d->len == before) /* held twice before: once now */
			s->depth[mem_agg_key_depth(k)]--;
	}
	u64map_free(m);
	u64map_init_cap(m, U64MAP_SMALL);
	return 0;
}

/* This shard's counts at checkpoint cp; the last one to arrive publishes the level. */
static int arrive(struct shard *s, uint64_t cp)
{
	struct mem_agg_shards *sh = s->all;
	struct checkpoint *c;
	unsigned l;
	size_t i;

	pthread_mutex_lock(&sh->lock);
	c = &sh->cps[cp - sh->first_cp];
	for (i = 0; i < SH_DEPTHS; i++)
		c->depth[i] += s->depth[i];
	if (++c->arrived == sh->n) { /* checkpoints complete in order: this one is the first */
		l = level_for(c->depth, sh->max_keys, atomic_load(&sh->level));
		atomic_store(&sh->level, l);
		memmove(sh->cps, sh->cps + 1, (sh->nr_cps - 1) * sizeof(*sh->cps));
		sh->nr_cps--;
		sh->first_cp++;
	}
	pthread_mutex_unlock(&sh->lock);
	return shard_trim(s, atomic_load(&sh->level));
}

static int apply(struct shard *s, const struct sh_op *o)
{
	uint64_t *slot;
	struct u64map *m;
	size_t before;

	switch (o->kind) {
	case OP_ADD:
		if (o->depth < s->level)
			return 0;
		if (!(m = map_of(s, o->id)))
			return -1;
		before = m->len;
		if (!(slot = u64map_slot(m, o->key)))
			return -1;
		*slot += o->val;
		s->depth[o->depth] += m->len != before;
		return 0;
	case OP_DROP:
		if (o->id < s->cap_maps)
			forget(s, &s->maps[o->id]);
		return 0;
	case OP_MERGE:
		return merge(s, o->id, (uint32_t)o->val);
	default:
		return arrive(s, o->val);
	}
}

static void *shard_main(void *arg)
{
	struct shard *s = arg;
	struct sh_buf *b;
	size_t i;

	while ((b = bq_pop(&s->q))) {
		for (i = 0; i < b->n; i++)
			if (apply(s, &b->op[i]) < 0) {
				bq_fail(&s->q, scx_errmsg());
				return NULL;
			}
		b->n = 0;
		bq_give_back(&s->q, b);
	}
	return NULL;
}

static void shards_free(struct mem_agg_shards *sh)
{
	size_t i, j;

	for (i = 0; i < sh->n; i++) {
		struct shard *s = &sh->s[i];

		for (j = 0; j < SH_BUFS; j++)
			free(s->bufs[j]);
		for (j = 0; j < s->cap_maps; j++)
			u64map_free(&s->maps[j]);
		free(s->maps);
	}
	free(sh->s);
	free(sh->cps);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
}

/* Close every queue and join the threads started; -1 when one failed (its message). */
static int shards_join(struct mem_agg_shards *sh)
{
	size_t i;
	int rc = 0;

	if (!sh->started)
		return 0;
	for (i = 0; i < sh->n; i++)
		bq_close(&sh->s[i].q);
	for (i = 0; i < sh->n; i++) {
		pthread_join(sh->s[i].thread, NULL);
		if (sh->s[i].q.failed && rc == 0)
			rc = scx_fail("%s", sh->s[i].q.err);
		bq_destroy(&sh->s[i].q);
	}
	sh->started = false;
	return rc;
}

int mem_agg_shards_start(struct mem_agg *a, size_t n)
{
	struct mem_agg_shards *sh;
	size_t i, j;

	if (!a->o.evidence || n == 0 || a->shards || a->total)
		return 0;
	if (!(sh = calloc(1, sizeof(*sh))) || !(sh->s = calloc(n, sizeof(*sh->s)))) {
		free(sh);
		return scx_fail("out of memory (evidence shards)");
	}
	pthread_mutex_init(&sh->lock, NULL);
	sh->n = n;
	sh->max_keys = a->o.max_keys;
	atomic_init(&sh->level, a->level);
	for (i = 0; i < n; i++) {
		struct shard *s = &sh->s[i];

		s->all = sh;
		s->level = a->level;
		for (j = 0; j < SH_BUFS; j++)
			if (!(s->bufs[j] = malloc(sizeof(*s->bufs[j])))) {
				shards_free(sh);
				return scx_fail("out of memory (evidence shards)");
			}
	}
	for (i = 0; i < n; i++) {
		struct shard *s = &sh->s[i];

		bq_init(&s->q, (void *const *)s->bufs, SH_BUFS);
		if (pthread_create(&s->thread, NULL, shard_main, s) != 0) {
			bq_destroy(&s->q);
			sh->n = i; /* join those started */
			sh->started = i > 0;
			shards_join(sh);
			sh->n = n;
			shards_free(sh);
			return scx_fail("cannot start the evidence threads");
		}
		s->cur = bq_take_free(&s->q);
		s->cur->n = 0;
	}
	sh->started = true;
	a->shards = sh;
	return 0;
}

/* Append op to shard i's current buffer, handing it over when full. */
static int send(struct mem_agg_shards *sh, size_t i, const struct sh_op *op)
{
	struct shard *s = &sh->s[i];

	s->cur->op[s->cur->n++] = *op;
	if (s->cur->n < SH_OPS)
		return 0;
	bq_push(&s->q, s->cur);
	if (!(s->cur = bq_take_free(&s->q)))
		return scx_fail("%s", s->q.err);
	s->cur->n = 0;
	return 0;
}

static int broadcast(struct mem_agg_shards *sh, const struct sh_op *op)
{
	for (size_t i = 0; i < sh->n; i++)
		if (send(sh, i, op) < 0)
			return -1;
	return 0;
}

static int checkpoint(struct mem_agg_shards *sh)
{
	struct sh_op op = {.kind = OP_CHECK};

	pthread_mutex_lock(&sh->lock);
	if (mem_agg_grow((void **)&sh->cps, &sh->cap_cps, sh->nr_cps + 1, sizeof(*sh->cps)) < 0) {
		pthread_mutex_unlock(&sh->lock);
		return -1;
	}
	memset(&sh->cps[sh->nr_cps++], 0, sizeof(*sh->cps));
	op.val = sh->next_cp++;
	pthread_mutex_unlock(&sh->lock);
	sh->adds = 0;
	sh->dirty = false;
	return broadcast(sh, &op);
}

int mem_agg_shard_add(struct mem_agg *a, uint32_t id, uint64_t key, uint64_t val, unsigned depth)
{
	struct mem_agg_shards *sh = a->shards;
	struct sh_op op = {.key = key, .val = val, .id = id, .kind = OP_ADD, .depth = (uint16_t)depth};

	if (send(sh, hash_mix64(EV_OBJECT(key) ^ 0x5bd1e995) % sh->n, &op) < 0)
		return -1;
	sh->dirty = true;
	return ++sh->adds >= SH_CHECK_EVERY ? checkpoint(sh) : 0;
}

int mem_agg_shard_drop(struct mem_agg *a, uint32_t id)
{
	struct sh_op op = {.id = id, .kind = OP_DROP};

	if (a->shards->dirty && checkpoint(a->shards) < 0)
		return -1;
	return broadcast(a->shards, &op);
}

int mem_agg_shard_merge(struct mem_agg *a, uint32_t src, uint32_t dst)
{
	struct sh_op op = {.id = src, .val = dst, .kind = OP_MERGE};

	if (a->shards->dirty && checkpoint(a->shards) < 0)
		return -1;
	return broadcast(a->shards, &op);
}

unsigned mem_agg_shard_level(const struct mem_agg *a)
{
	return atomic_load_explicit(&a->shards->level, memory_order_relaxed);
}

/* Move each hint_rec's keys from the shards into its map; the keys held. */
static int collect(struct mem_agg *a, struct mem_agg_shards *sh, size_t *keys)
{
	size_t g, c, h, i, pos;
	uint64_t k, v, *slot;

	*keys = 0;
	for (g = 0; g < a->nr_groups; g++)
		for (c = 0; c < a->groups[g].nr_comms; c++)
			for (h = 0; h < a->groups[g].comms[c].nr_hints; h++) {
				struct hint_rec *hr = &a->groups[g].comms[c].hints[h];

				for (i = 0; i < sh->n; i++) {
					struct shard *s = &sh->s[i];

					if (hr->ev_id >= s->cap_maps)
						continue;
					for (pos = 0; u64map_next_u64(&s->maps[hr->ev_id], &pos, &k, &v);) {
						if (!(slot = u64map_slot(&hr->pages, k)))
							return -1;
						*slot = v;
					}
					u64map_free(&s->maps[hr->ev_id]);
					u64map_init_cap(&s->maps[hr->ev_id], U64MAP_SMALL);
				}
				*keys += hr->pages.len;
			}
	return 0;
}

int mem_agg_shards_finish(struct mem_agg *a)
{
	struct mem_agg_shards *sh = a->shards;
	size_t i, keys;
	int rc = 0;

	if (!sh)
		return 0;
	if (checkpoint(sh) < 0) /* the counts at the end: the final level */
		rc = -1;
	for (i = 0; i < sh->n && rc == 0; i++) {
		bq_push(&sh->s[i].q, sh->s[i].cur);
		sh->s[i].cur = NULL;
	}
	if (shards_join(sh) < 0)
		rc = -1;
	a->shards = NULL;
	if (rc == 0) {
		a->level = atomic_load(&sh->level);
		for (i = 0; i < sh->n && rc == 0; i++)
			rc = shard_trim(&sh->s[i], a->level);
		if (rc == 0)
			rc = collect(a, sh, &keys);
		if (rc == 0) {
			a->nr_keys = keys;
			rc = mem_agg_trim_objects(a);
		}
	}
	shards_free(sh);
	return rc;
}

void mem_agg_shards_stop(struct mem_agg *a)
{
	if (!a->shards)
		return;
	shards_join(a->shards);
	shards_free(a->shards);
	a->shards = NULL;
}
