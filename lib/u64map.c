/*
 * u64map.c - open-addressing (linear probing) u64 -> pointer hash map.
 * No deletion: the callers only ever add or replace.
 */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

void u64map_init(struct u64map *m)
{
	memset(m, 0, sizeof(*m));
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

void *u64map_get(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = slot_of(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->vals[i];
	return NULL;
}

static int grow(struct u64map *m)
{
	struct u64map n;
	size_t i;

	n.cap = m->cap ? m->cap * 2 : 64;
	n.len = 0;
	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	n.used = calloc(n.cap, 1);
	if (!n.keys || !n.vals || !n.used) {
		free(n.keys);
		free(n.vals);
		free(n.used);
		return scx_fail("out of memory (hash map of %zu entries)", n.cap);
	}
	for (i = 0; i < m->cap; i++)
		if (m->used[i])
			u64map_put(&n, m->keys[i], m->vals[i]);
	u64map_free(m);
	*m = n;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, void *val)
{
	size_t i;

	if ((m->len + 1) * 4 > m->cap * 3 && grow(m) < 0)
		return -1;
	for (i = slot_of(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	}
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->len++;
	return 0;
}

int u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, void **val)
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
