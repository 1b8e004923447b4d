/*
 * grow.h - the growable arrays of the library: GROW(arr, cap, first) doubles
 * the capacity of arr (first when it is 0) with realloc; true when it did,
 * false when memory ran out (arr and cap untouched, the caller says what
 * failed). Call it when the array is full:
 *   if (t->n == t->cap && !GROW(t->v, t->cap, 256))
 *       return scx_fail("out of memory (thread names)");
 * grow_to() makes room for a given count at once (an index written past
 * the end, a table read in), the new elements zeroed; grow_one_max() room
 * for one more in an array with a limit, saying what failed.
 */
#ifndef SCX_GROW_H
#define SCX_GROW_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

#define GROW(arr, cap, first)                                                          \
	({                                                                             \
		size_t grow_cap_ = (cap) ? (cap) * 2 : (first);                         \
		__typeof__(arr) grow_v_ = realloc((arr), grow_cap_ * sizeof(*(arr)));  \
		if (grow_v_) {                                                         \
			(arr) = grow_v_;                                               \
			(cap) = grow_cap_;                                             \
		}                                                                      \
		grow_v_ != NULL;                                                       \
	})

/*
 * Room for need elements of elem bytes in *arr, which has *cap now: the
 * capacity doubles from *cap (first when it is 0) until it holds need, the
 * new elements zeroed. True when there is room, false when memory ran out
 * (*arr and *cap untouched, the caller says what failed).
 */
static inline bool grow_to(void **arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t n = *cap ? *cap : first;
	void *p;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	if (!(p = realloc(*arr, n * elem)))
		return false;
	memset((char *)p + *cap * elem, 0, (n - *cap) * elem);
	*arr = p;
	*cap = n;
	return true;
}

/*
 * Room for element n (one past the n used) in *arr of *cap elements of elem
 * bytes, at most max elements: true, or false with scx_fail() saying
 * too_many (n reached max) or "out of memory".
 */
static inline bool grow_one_max(void **arr, size_t *cap, size_t n, size_t elem, size_t max, const char *too_many)
{
	if (n >= max) {
		scx_fail("%s", too_many);
		return false;
	}
	if (!grow_to(arr, cap, n + 1, elem, 8)) {
		scx_fail("out of memory");
		return false;
	}
	return true;
}

/* The sign of a - b for qsort comparators: -1, 0 or 1. */
#define CMP3(a, b) (((a) > (b)) - ((a) < (b)))

#endif
