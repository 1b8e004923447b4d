/*
 * test_mempool.c - lib/mempool: blocks are zeroed, distinct and kept until
 * mempool_free; adopting NULL keeps nothing; an overflowing count is
 * refused; the pool is empty and reusable after a free (leaks show under
 * make asan).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mempool.h"

Test(mempool, blocks_zeroed_kept_and_freed_together)
{
	struct mempool p = {0};
	unsigned *a = mempool_calloc(&p, 1000, sizeof(unsigned));
	char *s = mempool_strdup(&p, "allotment/alpha-+beta-");
	int *adopted = malloc(4 * sizeof(int));
	size_t i;

	cr_assert(a && s && adopted);
	for (i = 0; i < 1000; i++)
		cr_assert_eq(a[i], 0u, "element %zu zeroed", i);
	cr_assert_str_eq(s, "allotment/alpha-+beta-");
	cr_assert_eq(mempool_adopt(&p, adopted), 0);
	cr_assert_eq(mempool_adopt(&p, NULL), 0, "NULL is nothing to keep");
	cr_assert_eq(p.n, 3u, "three blocks kept, not the NULL");
	for (i = 0; i < 100; i++) /* past the first list's capacity */
		cr_assert_not_null(mempool_calloc(&p, 0, 8), "a count of 0 still gives a block");
	cr_assert_eq(p.n, 103u);
	mempool_free(&p);
	cr_assert_eq(p.n, 0u);
	cr_assert_null(p.blocks);
	cr_assert_not_null(mempool_strdup(&p, "again"), "usable after a free");
	mempool_free(&p);
}

Test(mempool, overflowing_count_refused)
{
	struct mempool p = {0};

	cr_assert_null(mempool_calloc(&p, SIZE_MAX / 2, 4));
	cr_assert_eq(p.n, 0u, "nothing kept for a refused count");
	mempool_free(&p);
}
