/*
 * order.c - timestamp ordering of records within rounds (see order.h).
 *
 * Records arrive as a few runs that are each already in time order (perf
 * writes each CPU's ring buffer in turn), so the queue is a plain array in
 * arrival order that is put in (time, arrival) order by a natural merge sort
 * when a round ends: O(n log runs), sequential memory access. The sorted
 * part at or below the limit is then popped from the front; what stays is
 * already sorted and is merged with the next round's runs. The consumed
 * front is only reclaimed when the array is full (no copy per round).
 */
#include "order.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

void order_init(struct order_queue *q)
{
	memset(q, 0, sizeof(*q));
}

void order_free(struct order_queue *q)
{
	free(q->heap);
	free(q->tmp);
	memset(q, 0, sizeof(*q));
}

static bool before(const struct order_item *a, const struct order_item *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

/* Drop the consumed front of the array. */
static void compact(struct order_queue *q)
{
	if (!q->head)
		return;
	memmove(q->heap, q->heap + q->head, (q->n - q->head) * sizeof(*q->heap));
	q->n -= q->head;
	q->sorted_upto = q->sorted_upto > q->head ? q->sorted_upto - q->head : 0;
	q->head = 0;
}

int order_push(struct order_queue *q, uint64_t time, const void *rec)
{
	if (q->n == q->cap) {
		struct order_item *h;
		size_t cap;

		compact(q);
		cap = q->n < q->cap ? q->cap : (q->cap ? q->cap * 2 : 4096);
		if (cap != q->cap) {
			h = realloc(q->heap, cap * sizeof(*h));
			if (!h)
				return scx_fail("out of memory ordering %zu records", q->n);
			q->heap = h;
			q->cap = cap;
		}
	}
	if (time < q->limit)
		q->late++;
	q->heap[q->n++] = (struct order_item){.time = time, .seq = q->seq++, .rec = rec};
	if (time > q->max_time)
		q->max_time = time;
	if (q->n - q->head > q->peak)
		q->peak = q->n - q->head;
	return 0;
}

/* Merge the sorted runs a[lo, mid) and a[mid, hi) into out[lo, hi). */
static void merge(const struct order_item *a, struct order_item *out, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		out[k++] = before(&a[j], &a[i]) ? a[j++] : a[i++];
	memcpy(out + k, a + i, (mid - i) * sizeof(*a));
	k += mid - i;
	memcpy(out + k, a + j, (hi - j) * sizeof(*a));
}

/* End of the ascending run that starts at lo. */
static size_t run_end(const struct order_item *a, size_t lo, size_t hi)
{
	size_t i = lo + 1;

	while (i < hi && !before(&a[i], &a[i - 1]))
		i++;
	return i;
}

/* Natural merge sort of heap[head, n); -1 when the scratch array cannot grow. */
static int sort_pending(struct order_queue *q)
{
	struct order_item *a, *b, *t;
	size_t lo, n = q->n - q->head, c;
	bool merged;

	q->sorted_upto = q->n;
	if (n < 2 || run_end(q->heap + q->head, 0, n) == n)
		return 0;
	if (q->tmp_cap < q->cap) {
		t = realloc(q->tmp, q->cap * sizeof(*t));
		if (!t) {
			q->sorted_upto = q->head;
			return scx_fail("out of memory ordering %zu records", n);
		}
		q->tmp = t;
		q->tmp_cap = q->cap;
	}
	a = q->heap + q->head;
	b = q->tmp + q->head;
	do {
		merged = false;
		for (lo = 0; lo < n;) {
			size_t mid = run_end(a, lo, n), hi = mid < n ? run_end(a, mid, n) : n;

			merge(a, b, lo, mid, hi);
			merged |= mid < n;
			lo = hi;
		}
		t = a, a = b, b = t;
	} while (merged);
	if (a != q->heap + q->head) {
		/* the result is in the scratch array: swap the two buffers (the
		 * consumed front [0, head) is garbage in either) */
		t = q->heap;
		q->heap = q->tmp;
		q->tmp = t;
		c = q->cap, q->cap = q->tmp_cap, q->tmp_cap = c;
	}
	return 0;
}

int order_round(struct order_queue *q)
{
	q->limit = q->next_flush;
	q->next_flush = q->max_time;
	return sort_pending(q);
}

int order_finish(struct order_queue *q)
{
	q->limit = UINT64_MAX;
	return sort_pending(q);
}

bool order_pop(struct order_queue *q, struct order_item *out)
{
	if (q->head >= q->sorted_upto || q->heap[q->head].time > q->limit)
		return false;
	*out = q->heap[q->head++];
	return true;
}

const void *order_lowest_rec(const struct order_queue *q)
{
	const void *low = NULL;
	size_t i;

	for (i = q->head; i < q->n; i++)
		if (!low || (const char *)q->heap[i].rec < (const char *)low)
			low = q->heap[i].rec;
	return low;
}
