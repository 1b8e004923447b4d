/*
 * mempool.c - the blocks a built result owns, freed together (see
 * mempool.h).
 */
#include "lib/mempool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

int mempool_adopt(struct mempool *p, void *ptr)
{
	if (!ptr)
		return 0;
	if (p->n == p->cap && !GROW(p->blocks, p->cap, 16)) {
		free(ptr);
		return -1;
	}
	p->blocks[p->n++] = ptr;
	return 0;
}

/* ptr, kept; NULL when it is NULL or could not be kept. */
static void *keep(struct mempool *p, void *ptr)
{
	return ptr && mempool_adopt(p, ptr) == 0 ? ptr : NULL;
}

void *mempool_calloc(struct mempool *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return keep(p, calloc(n && size ? n : 1, n && size ? size : 1));
}

char *mempool_strdup(struct mempool *p, const char *s)
{
	return keep(p, strdup(s));
}

void mempool_free(struct mempool *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->blocks[i]);
	free(p->blocks);
	memset(p, 0, sizeof(*p));
}
