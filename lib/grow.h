/*
 * grow.h - the growable arrays of the library: GROW(arr, cap, first) doubles
 * the capacity of arr (first when it is 0) with realloc; true when it did,
 * false when memory ran out (arr and cap untouched, the caller says what
 * failed). Call it when the array is full:
 *   if (t->n == t->cap && !GROW(t->v, t->cap, 256))
 *       return scx_fail("out of memory (thread names)");
 * grow_to() makes room for a given count at once (an index written past
 * the end, a table read in), the new elements zeroed.
 */
#ifndef SCX_GROW_H
#define SCX_GROW_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

/* The sign of a - b for qsort comparators: -1, 0 or 1. */
#define CMP3(a, b) (((a) > (b)) - ((a) < (b)))

#endif
