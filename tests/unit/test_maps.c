/*
 * test_maps.c - lib/u64map (pointer and number values, growth from a
 * small first table, filter), lib/strmap and lib/grow.h's grow_to.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/hash.h"
#include "lib/strmap.h"
#include "lib/u64map.h"

Test(u64map, pointers_survive_growth)
{
	struct u64map m;
	static int vals[1000];
	uint64_t k;
	void *v;
	size_t pos = 0, seen = 0;

	u64map_init(&m);
	cr_assert_null(u64map_get(&m, 5), "empty map");
	for (uint64_t i = 0; i < 1000; i++)
		cr_assert_eq(u64map_put(&m, i * 4096, &vals[i]), 0);
	cr_assert_eq(m.len, 1000);
	cr_assert(m.len * 4 <= m.cap * 3, "load %zu/%zu", m.len, m.cap);
	for (uint64_t i = 0; i < 1000; i++)
		cr_assert_eq(u64map_get(&m, i * 4096), &vals[i]);
	cr_assert_null(u64map_get(&m, 4095));
	cr_assert_eq(u64map_put(&m, 0, NULL), 0, "replace");
	cr_assert_eq(m.len, 1000);
	cr_assert_null(u64map_get(&m, 0));
	while (u64map_next(&m, &pos, &k, &v)) {
		cr_assert_eq(k % 4096, 0);
		cr_assert_eq(v, k ? &vals[k / 4096] : NULL);
		seen++;
	}
	cr_assert_eq(seen, 1000);
	u64map_free(&m);
	cr_assert_eq(m.len, 0);
	cr_assert_null(u64map_get(&m, 4096), "free empties");
}

Test(u64map, counters_from_a_small_first_table)
{
	struct u64map m;
	uint64_t *v, k, c, sum = 0;
	size_t pos = 0;

	u64map_init_cap(&m, U64MAP_SMALL);
	cr_assert_null(u64map_find(&m, 1));
	for (uint64_t i = 0; i < 300; i++) {
		cr_assert_not_null(v = u64map_slot(&m, i % 100));
		*v += i;
	}
	cr_assert_eq(m.len, 100);
	cr_assert_eq(m.cap, 256, "8 -> 256 at 75%% load, got %zu", m.cap);
	cr_assert_eq(*u64map_find(&m, 7), 7 + 107 + 207);
	while (u64map_next_u64(&m, &pos, &k, &c))
		sum += c;
	cr_assert_eq(sum, 299 * 300 / 2);
	u64map_free(&m);
}

static int keep_even(uint64_t key, void *arg)
{
	(void)arg;
	return key % 2 == 0;
}

Test(u64map, filter_keeps_values_and_shrinks)
{
	struct u64map m;
	size_t dropped;

	u64map_init_cap(&m, U64MAP_SMALL);
	for (uint64_t i = 0; i < 1000; i++)
		*u64map_slot(&m, i) = i * 3;
	cr_assert_eq(u64map_filter(&m, keep_even, NULL, &dropped), 0);
	cr_assert_eq(dropped, 500);
	cr_assert_eq(m.len, 500);
	cr_assert_eq(m.cap, 1024, "shrunk to fit 500 keys at 75%%: %zu", m.cap);
	for (uint64_t i = 0; i < 1000; i++) {
		uint64_t *v = u64map_find(&m, i);

		if (i % 2)
			cr_assert_null(v, "%llu dropped", (unsigned long long)i);
		else
			cr_assert(v && *v == i * 3, "%llu kept", (unsigned long long)i);
	}
	cr_assert_eq(u64map_filter(&m, keep_even, NULL, &dropped), 0);
	cr_assert_eq(dropped, 0);
	cr_assert_eq(m.len, 500);
	u64map_free(&m);
}

Test(strmap, keys_are_copies_with_their_index)
{
	struct strmap m;
	struct strmap_slot *s;
	char key[32];
	int inserted;

	strmap_init(&m);
	cr_assert_null(strmap_find(&m, "a", 1));
	for (size_t i = 0; i < 500; i++) {
		int n = snprintf(key, sizeof(key), "comm-%zu", i);

		cr_assert_not_null(s = strmap_get_or_add(&m, key, (size_t)n, i, &inserted));
		cr_assert(inserted);
	}
	strcpy(key, "comm-42");
	s = strmap_get_or_add(&m, key, 7, 999, &inserted);
	cr_assert(s && !inserted && s->index == 42);
	key[0] = 'X'; /* the map holds its own copy */
	cr_assert_not_null(s = strmap_find(&m, "comm-42", 7));
	cr_assert_str_eq(s->key, "comm-42");
	cr_assert_null(strmap_find(&m, "comm-4", 7), "length is part of the key");
	cr_assert_eq(m.len, 500);
	strmap_free(&m);
}

Test(hash, values_never_change)
{
	/* extract's sampling levels depend on these exact values */
	cr_assert_eq(hash_mix64(0), 0);
	cr_assert_eq(hash_mix64(1), 0x5692161d100b05e5ULL);
	cr_assert_eq(hash_bytes("", 0), 0x9e3779b97f4a7c15ULL);
	cr_assert_neq(hash_bytes("abcdefgh", 8), hash_bytes("abcdefgi", 8));
}

Test(grow, to_a_count_doubling_with_new_elements_zeroed)
{
	int *v = NULL;
	size_t cap = 0;

	cr_assert(grow_to((void **)&v, &cap, 0, sizeof(*v), 16), "no room needed");
	cr_assert_null(v);
	cr_assert_eq(cap, 0);
	cr_assert(grow_to((void **)&v, &cap, 5, sizeof(*v), 16));
	cr_assert_eq(cap, 16, "the first capacity");
	for (size_t i = 0; i < cap; i++)
		cr_assert_eq(v[i], 0);
	v[15] = 7;
	cr_assert(grow_to((void **)&v, &cap, 16, sizeof(*v), 16));
	cr_assert_eq(cap, 16, "room already");
	cr_assert(grow_to((void **)&v, &cap, 33, sizeof(*v), 16));
	cr_assert_eq(cap, 64, "doubled until it holds the count");
	cr_assert_eq(v[15], 7, "kept");
	for (size_t i = 16; i < cap; i++)
		cr_assert_eq(v[i], 0, "new element %zu zeroed", i);
	free(v);
}
