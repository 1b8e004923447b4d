/*
 * strmap.h - a hash map from byte strings to a caller's index (the map
 * owns a NUL-terminated copy of each key): extract's group, comm, name,
 * cgroup-path and object-name indexes. Open addressing with linear
 * probing on hash_bytes, grows at 50% load, never prints; allocation
 * failures return NULL after scx_fail().
 */
#ifndef SCX_STRMAP_H
#define SCX_STRMAP_H

#include <stddef.h>
#include <stdint.h>

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
/* A NUL-terminated copy of len bytes (any bytes, NUL too), as the map keeps
 * its keys; NULL after scx_fail() on OOM. */
char *strmap_key_dup(const char *key, size_t len);

#endif
