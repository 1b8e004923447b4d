/*
 * grow.h - the growable arrays of the library: GROW(arr, cap, first) doubles
 * the capacity of arr (first when it is 0) with realloc; true when it did,
 * false when memory ran out (arr and cap untouched, the caller says what
 * failed). Call it when the array is full:
 *   if (t->n == t->cap && !GROW(t->v, t->cap, 256))
 *       return scx_fail("out of memory (thread names)");
 */
#ifndef SCX_GROW_H
#define SCX_GROW_H

#include <stdbool.h>
#include <stdlib.h>

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

/* The sign of a - b for qsort comparators: -1, 0 or 1. */
#define CMP3(a, b) (((a) > (b)) - ((a) < (b)))

#endif
