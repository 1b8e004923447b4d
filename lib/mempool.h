/*
 * mempool.h - one owner for the memory of a result that is built once and
 * freed at once (a topology map, a placement plan, a report's view): every
 * block comes from the pool, and mempool_free() releases them all, so the
 * result's free function is one call and a builder that fails half way
 * leaves nothing to untangle. Each block is still its own malloc (ASan
 * sees each one's bounds), the pool keeps the list. A zeroed struct is an
 * empty pool. Not for what grows while it is used (realloc'd arrays stay
 * the caller's own).
 */
#ifndef SCX_MEMPOOL_H
#define SCX_MEMPOOL_H

#include <stddef.h>

struct mempool {
	void **blocks;
	size_t n, cap;
};

/* n zeroed elements of size bytes (at least one byte, so n 0 is not NULL); NULL when memory ran out or n * size overflows. */
void *mempool_calloc(struct mempool *p, size_t n, size_t size);
/* A copy of s; NULL when memory ran out. */
char *mempool_strdup(struct mempool *p, const char *s);
/* ptr (malloc'd elsewhere; NULL is nothing to keep) is freed with the pool from now on: 0, or -1 with ptr freed when memory ran out. */
int mempool_adopt(struct mempool *p, void *ptr);
/* Every block, and the list; the pool is empty again. */
void mempool_free(struct mempool *p);

#endif
