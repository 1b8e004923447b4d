/*
 * maps.h - the two small hash maps the extract stage aggregates with:
 * strmap (byte string -> index, the map owns a copy of each key) and
 * u64cnt (uint64_t key -> uint64_t value, e.g. hint -> count or
 * page -> weight). Both are open addressing with linear probing, grow at
 * 50% load, and never print; allocation failures return -1/NULL after
 * scx_fail().
 */
#ifndef SCX_EXTRACT_MAPS_H
#define SCX_EXTRACT_MAPS_H

#include <stddef.h>
#include <stdint.h>

/* A fast, deterministic 64-bit hash of n bytes. */
uint64_t bytes_hash(const void *p, size_t n);
/* splitmix64's finalizer: a bijective mix of a 64-bit key. */
static inline uint64_t u64_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

struct strmap_slot {
	uint64_t hash;
	char *key;    /* NUL-terminated copy; NULL when the slot is free */
	size_t len;
	size_t index; /* caller's value */
};

struct strmap {
	struct strmap_slot *slots;
	size_t cap, len;
};

void strmap_init(struct strmap *m);
void strmap_free(struct strmap *m);
/*
 * Find key; if absent insert it with value next_index (the caller's next
 * free index) and set *inserted. Returns the slot, or NULL on OOM.
 */
struct strmap_slot *strmap_get_or_add(struct strmap *m, const char *key, size_t len,
				      size_t next_index, int *inserted);
/* Find key, NULL when absent. */
struct strmap_slot *strmap_find(const struct strmap *m, const char *key, size_t len);

struct u64cnt {
	uint64_t *keys;
	uint64_t *vals;
	unsigned char *used;
	size_t cap, len;
};

void u64cnt_init(struct u64cnt *m);
void u64cnt_free(struct u64cnt *m);
/* Pointer to key's value, inserting 0 when absent; NULL on OOM. */
uint64_t *u64cnt_slot(struct u64cnt *m, uint64_t key);
/* Pointer to key's value, NULL when absent. */
uint64_t *u64cnt_find(const struct u64cnt *m, uint64_t key);
/* Iterate: for (size_t i = 0; u64cnt_next(m, &i, &k, &v);) */
int u64cnt_next(const struct u64cnt *m, size_t *pos, uint64_t *key, uint64_t *val);
/* Keep only the keys keep(key, arg) accepts (the map shrinks to fit);
 * *dropped says how many went. -1 on OOM (the map is unchanged). */
int u64cnt_filter(struct u64cnt *m, int (*keep)(uint64_t key, void *arg), void *arg, size_t *dropped);

#endif
