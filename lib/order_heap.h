/*
 * order_heap.h - a binary min-heap of (ts, key) pairs, ordered by ts, then
 * key: the reorder window of a reader whose input is nearly in time order
 * (process/sched/sched_data.c). Pairs are popped in exactly the order a full sort
 * of them would give. Never prints; allocation failure returns -1 after
 * scx_fail().
 */
#ifndef SCX_ORDER_HEAP_H
#define SCX_ORDER_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct order_heap_ent {
	uint64_t ts, key;
};

struct order_heap {
	struct order_heap_ent *v;
	size_t n, cap, peak; /* peak: the most entries held at once */
};

/* Add a pair; -1 on allocation failure. */
int order_heap_push(struct order_heap *h, uint64_t ts, uint64_t key);
/* The least pair (h->n > 0), not removed. */
static inline const struct order_heap_ent *order_heap_top(const struct order_heap *h)
{
	return &h->v[0];
}
/* Remove the least pair into *out; 0 when the heap is empty. */
int order_heap_pop(struct order_heap *h, struct order_heap_ent *out);
void order_heap_free(struct order_heap *h);

#endif
