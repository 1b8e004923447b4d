/*
 * maps.c - strmap and u64cnt (see maps.h): the hash maps behind the
 * extract stage's per-cgroup, per-comm, per-hint and per-page aggregates.
 */
#include "extract/maps.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

uint64_t bytes_hash(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0xff51afd7ed558ccdULL);

	while (n >= 8) {
		uint64_t w;

		memcpy(&w, s, 8);
		h = u64_mix(h ^ w);
		s += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w = 0;

		memcpy(&w, s, n);
		h = u64_mix(h ^ w ^ ((uint64_t)n << 56));
	}
	return h;
}

void strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof(*m));
}

void strmap_free(struct strmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

static struct strmap_slot *strmap_probe(const struct strmap *m, uint64_t h, const char *key, size_t len)
{
	size_t i = h & (m->cap - 1);

	for (;; i = (i + 1) & (m->cap - 1)) {
		struct strmap_slot *s = &m->slots[i];

		if (!s->key || (s->hash == h && s->len == len && !memcmp(s->key, key, len)))
			return s;
	}
}

static int strmap_grow(struct strmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16, i;
	struct strmap_slot *old = m->slots, *slots = calloc(cap, sizeof(*slots));
	size_t old_cap = m->cap;

	if (!slots)
		return scx_fail("out of memory (string map of %zu slots)", cap);
	m->slots = slots;
	m->cap = cap;
	for (i = 0; i < old_cap; i++)
		if (old[i].key)
			*strmap_probe(m, old[i].hash, old[i].key, old[i].len) = old[i];
	free(old);
	return 0;
}

struct strmap_slot *strmap_find(const struct strmap *m, const char *key, size_t len)
{
	struct strmap_slot *s;

	if (!m->cap)
		return NULL;
	s = strmap_probe(m, bytes_hash(key, len), key, len);
	return s->key ? s : NULL;
}

struct strmap_slot *strmap_get_or_add(struct strmap *m, const char *key, size_t len,
				      size_t next_index, int *inserted)
{
	uint64_t h = bytes_hash(key, len);
	struct strmap_slot *s;

	*inserted = 0;
	if (m->cap) {
		s = strmap_probe(m, h, key, len);
		if (s->key)
			return s;
	}
	if ((m->len + 1) * 2 > m->cap && strmap_grow(m) < 0)
		return NULL;
	s = strmap_probe(m, h, key, len);
	s->key = malloc(len + 1);
	if (!s->key) {
		scx_fail("out of memory (string key)");
		return NULL;
	}
	memcpy(s->key, key, len);
	s->key[len] = '\0';
	s->hash = h;
	s->len = len;
	s->index = next_index;
	m->len++;
	*inserted = 1;
	return s;
}

void u64cnt_init(struct u64cnt *m)
{
	memset(m, 0, sizeof(*m));
}

void u64cnt_free(struct u64cnt *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

static size_t u64cnt_probe(const struct u64cnt *m, uint64_t key)
{
	size_t i = u64_mix(key) & (m->cap - 1);

	while (m->used[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int u64cnt_rehash(struct u64cnt *m, size_t cap)
{
	struct u64cnt n = {0};
	size_t i;

	n.keys = malloc(cap * sizeof(*n.keys));
	n.vals = malloc(cap * sizeof(*n.vals));
	n.used = calloc(cap, 1);
	n.cap = cap;
	if (!n.keys || !n.vals || !n.used) {
		u64cnt_free(&n);
		return scx_fail("out of memory (map of %zu slots)", cap);
	}
	for (i = 0; i < m->cap; i++) {
		if (m->used[i]) {
			size_t j = u64cnt_probe(&n, m->keys[i]);

			n.used[j] = 1;
			n.keys[j] = m->keys[i];
			n.vals[j] = m->vals[i];
			n.len++;
		}
	}
	u64cnt_free(m);
	*m = n;
	return 0;
}

uint64_t *u64cnt_find(const struct u64cnt *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = u64cnt_probe(m, key);
	return m->used[i] ? &m->vals[i] : NULL;
}

uint64_t *u64cnt_slot(struct u64cnt *m, uint64_t key)
{
	size_t i;

	if (m->cap) {
		i = u64cnt_probe(m, key);
		if (m->used[i])
			return &m->vals[i];
	}
	if ((m->len + 1) * 2 > m->cap && u64cnt_rehash(m, m->cap ? m->cap * 2 : 8) < 0)
		return NULL;
	i = u64cnt_probe(m, key);
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = 0;
	m->len++;
	return &m->vals[i];
}

int u64cnt_next(const struct u64cnt *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (; *pos < m->cap; (*pos)++) {
		if (m->used[*pos]) {
			*key = m->keys[*pos];
			*val = m->vals[*pos];
			(*pos)++;
			return 1;
		}
	}
	return 0;
}

int u64cnt_filter(struct u64cnt *m, int (*keep)(uint64_t key, void *arg), void *arg, size_t *dropped)
{
	struct u64cnt n;
	size_t i, cap = 8;

	*dropped = 0;
	for (i = 0; i < m->cap; i++)
		if (m->used[i] && !keep(m->keys[i], arg))
			(*dropped)++;
	if (!*dropped)
		return 0;
	while (cap < 2 * (m->len - *dropped) + 2)
		cap *= 2;
	u64cnt_init(&n);
	n.keys = malloc(cap * sizeof(*n.keys));
	n.vals = malloc(cap * sizeof(*n.vals));
	n.used = calloc(cap, 1);
	n.cap = cap;
	if (!n.keys || !n.vals || !n.used) {
		u64cnt_free(&n);
		return scx_fail("out of memory (map of %zu slots)", cap);
	}
	for (i = 0; i < m->cap; i++) {
		if (m->used[i] && keep(m->keys[i], arg)) {
			size_t j = u64cnt_probe(&n, m->keys[i]);

			n.used[j] = 1;
			n.keys[j] = m->keys[i];
			n.vals[j] = m->vals[i];
			n.len++;
		}
	}
	u64cnt_free(m);
	*m = n;
	return 0;
}
