/*
 * upper_bound.h - binary search over an array sorted by a uint64_t key in
 * each element: how many elements have a key at or below a value (the index
 * of the first one above it). One loop for the sorted tables that look an
 * address up (process's memory maps and kernel symbols of the tracing data,
 * record's ELF function extents). Inline: with the element size and key
 * offset known at the call, it compiles to the loop each had.
 */
#ifndef SCX_UPPER_BOUND_H
#define SCX_UPPER_BOUND_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* In base[0..n), elements of size bytes sorted by the uint64_t at offset
 * off of each: the number of elements whose key is <= key. */
static inline size_t u64_upper_bound(const void *base, size_t n, size_t size, size_t off, uint64_t key)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, b + mid * size + off, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* UPPER_BOUND(arr, n, member, key): u64_upper_bound over arr[0..n) by arr[i].member */
#define UPPER_BOUND(arr, n, member, key) \
	u64_upper_bound((arr), (n), sizeof(*(arr)), offsetof(__typeof__(*(arr)), member), (key))

#endif
