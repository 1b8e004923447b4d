/*
 * u64map.h - the one open-addressing hash map from uint64_t keys, for
 * every stage: tid -> thread and cgroup id -> path in process, page ->
 * weight and hint -> index in extract, and similar. A value is a uint64_t
 * slot; a map is used either with pointers (u64map_get/put/next, NULL
 * meaning absent) or with numbers (u64map_slot/find/next_u64/filter,
 * e.g. counters), not both. Linear probing, grows x2 at 75% load, no
 * deletion (u64map_filter rebuilds). Never prints; allocation failures
 * return -1/NULL after scx_fail().
 */
#ifndef SCX_U64MAP_H
#define SCX_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	unsigned char *used;
	size_t cap, len;
	size_t first_cap; /* slots of the first table (a power of two) */
};

/* An empty map whose first table has 64 slots. */
void u64map_init(struct u64map *m);
/* An empty map whose first table has first_cap slots (a power of two >= 4):
 * small for the many maps of a few keys each. */
void u64map_init_cap(struct u64map *m, size_t first_cap);
#define U64MAP_SMALL 8
void u64map_free(struct u64map *m);

/* Pointer values. NULL when absent (or stored as NULL). */
void *u64map_get(const struct u64map *m, uint64_t key);
/* Insert or replace. -1 on allocation failure (scx_fail). */
int u64map_put(struct u64map *m, uint64_t key, void *val);
/* Iterate: for (size_t i = 0; u64map_next(m, &i, &k, &v);) */
int u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, void **val);

/* Number values. Pointer to key's value, inserting 0 when absent; NULL on OOM. */
uint64_t *u64map_slot(struct u64map *m, uint64_t key);
/* Pointer to key's value, NULL when absent. */
uint64_t *u64map_find(const struct u64map *m, uint64_t key);
/* Iterate: for (size_t i = 0; u64map_next_u64(m, &i, &k, &v);) */
int u64map_next_u64(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val);
/* Keep only the keys keep(key, arg) accepts (the map shrinks to fit);
 * *dropped says how many went. -1 on OOM (the map is unchanged). */
int u64map_filter(struct u64map *m, int (*keep)(uint64_t key, void *arg), void *arg, size_t *dropped);

#endif
