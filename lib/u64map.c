/*
 * u64map.c - open-addressing (linear probing) u64 -> u64 hash map (see
 * u64map.h). No deletion: the callers add or replace, and u64map_filter
 * rebuilds the table without the keys it drops.
 */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

#define U64MAP_FIRST_CAP 64

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

void u64map_init_cap(struct u64map *m, size_t first_cap)
{
	memset(m, 0, sizeof(*m));
	m->first_cap = first_cap;
}

void u64map_init(struct u64map *m)
{
	u64map_init_cap(m, U64MAP_FIRST_CAP);
}

void u64map_free(struct u64map *m)
{
	size_t first_cap = m->first_cap;

	free(m->keys);
	free(m->vals);
	free(m->used);
	u64map_init_cap(m, first_cap);
}

/* The slot holding key, or the free slot where it would go. cap > 0. */
static size_t probe(const struct u64map *m, uint64_t key)
{
	size_t i = slot_of(key, m->cap);

	while (m->used[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* An empty table of cap slots in n (keeping m's first_cap). */
static int alloc_table(struct u64map *n, const struct u64map *m, size_t cap)
{
	u64map_init_cap(n, m->first_cap);
	n->keys = malloc(cap * sizeof(*n->keys));
	n->vals = malloc(cap * sizeof(*n->vals));
	n->used = calloc(cap, 1);
	n->cap = cap;
	if (!n->keys || !n->vals || !n->used) {
		u64map_free(n);
		return scx_fail("out of memory (hash map of %zu entries)", cap);
	}
	return 0;
}

/* Copy m's keys that keep accepts (all when keep is NULL) into a table of
 * cap slots, in slot order, and make it m's. */
static int rebuild(struct u64map *m, size_t cap, int (*keep)(uint64_t key, void *arg), void *arg)
{
	struct u64map n;
	size_t i;

	if (alloc_table(&n, m, cap) < 0)
		return -1;
	for (i = 0; i < m->cap; i++) {
		if (m->used[i] && (!keep || keep(m->keys[i], arg))) {
			size_t j = probe(&n, m->keys[i]);

			n.used[j] = 1;
			n.keys[j] = m->keys[i];
			n.vals[j] = m->vals[i];
			n.len++;
		}
	}
	u64map_free(m);
	*m = n;
	return 0;
}

uint64_t *u64map_find(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = probe(m, key);
	return m->used[i] ? &m->vals[i] : NULL;
}

uint64_t *u64map_slot(struct u64map *m, uint64_t key)
{
	size_t i;

	if (m->cap) {
		i = probe(m, key);
		if (m->used[i])
			return &m->vals[i];
	}
	if ((m->len + 1) * 4 > m->cap * 3 &&
	    rebuild(m, m->cap ? m->cap * 2 : (m->first_cap ? m->first_cap : U64MAP_FIRST_CAP), NULL, NULL) < 0)
		return NULL;
	i = probe(m, key);
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = 0;
	m->len++;
	return &m->vals[i];
}

void *u64map_get(const struct u64map *m, uint64_t key)
{
	const uint64_t *v = u64map_find(m, key);

	return v ? (void *)(uintptr_t)*v : NULL;
}

int u64map_put(struct u64map *m, uint64_t key, void *val)
{
	uint64_t *v = u64map_slot(m, key);

	if (!v)
		return -1;
	*v = (uint64_t)(uintptr_t)val;
	return 0;
}

int u64map_next_u64(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	while (*pos < m->cap) {
		size_t i = (*pos)++;

		if (m->used[i]) {
			*key = m->keys[i];
			*val = m->vals[i];
			return 1;
		}
	}
	return 0;
}

int u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, void **val)
{
	uint64_t v;

	if (!u64map_next_u64(m, pos, key, &v))
		return 0;
	*val = (void *)(uintptr_t)v;
	return 1;
}

int u64map_filter(struct u64map *m, int (*keep)(uint64_t key, void *arg), void *arg, size_t *dropped)
{
	size_t i, cap = m->first_cap ? m->first_cap : U64MAP_FIRST_CAP;

	*dropped = 0;
	for (i = 0; i < m->cap; i++)
		if (m->used[i] && !keep(m->keys[i], arg))
			(*dropped)++;
	if (!*dropped)
		return 0;
	while ((m->len - *dropped + 1) * 4 > cap * 3)
		cap *= 2;
	return rebuild(m, cap, keep, arg);
}
