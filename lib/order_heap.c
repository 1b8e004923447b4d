/*
 * order_heap.c - binary min-heap of (ts, key) pairs (order_heap.h).
 */
#include "lib/order_heap.h"

#include <stdlib.h>

#include "lib/error.h"
#include "lib/grow.h"

static int less(const struct order_heap_ent *a, const struct order_heap_ent *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->key < b->key;
}

int order_heap_push(struct order_heap *h, uint64_t ts, uint64_t key)
{
	struct order_heap_ent e = {ts, key};
	size_t i;

	if (h->n == h->cap && !GROW(h->v, h->cap, 1024))
		return scx_fail("out of memory (reorder window of %zu records)", h->n);
	for (i = h->n++; i > 0 && less(&e, &h->v[(i - 1) / 2]); i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = e;
	if (h->n > h->peak)
		h->peak = h->n;
	return 0;
}

int order_heap_pop(struct order_heap *h, struct order_heap_ent *out)
{
	struct order_heap_ent last;
	size_t i = 0;

	if (!h->n)
		return 0;
	*out = h->v[0];
	last = h->v[--h->n];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && less(&h->v[c + 1], &h->v[c]))
			c++;
		if (!less(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	h->v[i] = last;
	return 1;
}

void order_heap_free(struct order_heap *h)
{
	free(h->v);
	*h = (struct order_heap){0};
}
