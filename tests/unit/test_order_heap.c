/*
 * test_order_heap.c - lib/order_heap: pairs come out as a full sort of them
 * would give (ts, then key), also when pushes and pops interleave as a
 * reorder window's do; peak counts the most held at once.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "lib/order_heap.h"

static int ent_cmp(const void *a, const void *b)
{
	const struct order_heap_ent *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

Test(order_heap, pops_in_sorted_order_with_ties_by_key)
{
	enum { N = 20000 };
	struct order_heap_ent *want = malloc(N * sizeof(*want)), e;
	struct order_heap h = {0};

	srand(3);
	for (size_t i = 0; i < N; i++) {
		want[i] = (struct order_heap_ent){(uint64_t)(rand() % 500), (uint64_t)rand() << 20 | i};
		cr_assert_eq(order_heap_push(&h, want[i].ts, want[i].key), 0);
	}
	qsort(want, N, sizeof(*want), ent_cmp);
	for (size_t i = 0; i < N; i++) {
		cr_assert_eq(order_heap_pop(&h, &e), 1);
		cr_assert(e.ts == want[i].ts && e.key == want[i].key, "pop %zu: (%llu, %llu), want (%llu, %llu)", i,
			  (unsigned long long)e.ts, (unsigned long long)e.key, (unsigned long long)want[i].ts,
			  (unsigned long long)want[i].key);
	}
	cr_assert_eq(order_heap_pop(&h, &e), 0);
	cr_assert_eq(h.peak, N);
	order_heap_free(&h);
	free(want);
}

/* As the sched.data reader uses it: push a block, pop what is at or below
 * a watermark no later pair goes under; the pops are one sorted sequence. */
Test(order_heap, window_pops_are_one_sorted_sequence)
{
	struct order_heap h = {0};
	struct order_heap_ent e, prev = {0, 0};
	uint64_t base = 0, key = 0, popped = 0;

	srand(5);
	for (int block = 0; block < 200; block++) {
		for (int i = 0; i < 100; i++)
			cr_assert_eq(order_heap_push(&h, base + (uint64_t)(rand() % 1000), key++), 0);
		base += 400; /* later blocks start at base: nothing later goes below it */
		while (h.n && order_heap_top(&h)->ts <= base) {
			order_heap_pop(&h, &e);
			cr_assert(popped == 0 || ent_cmp(&prev, &e) < 0, "out of order at pop %llu",
				  (unsigned long long)popped);
			prev = e, popped++;
		}
	}
	while (order_heap_pop(&h, &e)) {
		cr_assert(ent_cmp(&prev, &e) < 0);
		prev = e, popped++;
	}
	cr_assert_eq(popped, 20000);
	cr_assert_lt(h.peak, 1000, "the window held %zu", h.peak);
	order_heap_free(&h);
}
