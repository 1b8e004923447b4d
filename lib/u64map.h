/*
 * u64map.h - an open-addressing hash map from uint64_t keys to pointers.
 * Used for tid -> thread, cgroup id -> path and similar lookups on hot paths.
 */
#ifndef SCX_U64MAP_H
#define SCX_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	void **vals;
	unsigned char *used;
	size_t cap, len;
};

void u64map_init(struct u64map *m);
void u64map_free(struct u64map *m);
void *u64map_get(const struct u64map *m, uint64_t key);
/* Insert or replace. -1 on allocation failure (scx_fail). */
int u64map_put(struct u64map *m, uint64_t key, void *val);
/* Iterate: for (size_t i = 0; u64map_next(m, &i, &k, &v);) */
int u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, void **val);

#endif
