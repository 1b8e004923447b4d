/*
 * strmap.c - string -> index hash map (see strmap.h).
 */
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hash.h"

char *strmap_key_dup(const char *key, size_t len)
{
	char *s = malloc(len + 1);

	if (!s) {
		scx_fail("out of memory (string key)");
		return NULL;
	}
	memcpy(s, key, len);
	s[len] = '\0';
	return s;
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
	s = strmap_probe(m, hash_bytes(key, len), key, len);
	return s->key ? s : NULL;
}

struct strmap_slot *strmap_get_or_add(struct strmap *m, const char *key, size_t len,
				      size_t next_index, int *inserted)
{
	uint64_t h = hash_bytes(key, len);
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
	if (!(s->key = strmap_key_dup(key, len)))
		return NULL;
	s->hash = h;
	s->len = len;
	s->index = next_index;
	m->len++;
	*inserted = 1;
	return s;
}

