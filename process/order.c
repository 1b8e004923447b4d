/*
 * order.c - timestamp ordering of records within rounds (see order.h).
 * A binary min-heap keyed by (time, arrival sequence).
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
	memset(q, 0, sizeof(*q));
}

static bool before(const struct order_item *a, const struct order_item *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void swap(struct order_item *a, struct order_item *b)
{
	struct order_item t = *a;

	*a = *b;
	*b = t;
}

int order_push(struct order_queue *q, uint64_t time, const void *rec)
{
	size_t i;

	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 4096;
		struct order_item *h = realloc(q->heap, cap * sizeof(*h));

		if (!h)
			return scx_fail("out of memory ordering %zu records", q->n);
		q->heap = h;
		q->cap = cap;
	}
	if (time < q->limit)
		q->late++;
	i = q->n++;
	q->heap[i] = (struct order_item){.time = time, .seq = q->seq++, .rec = rec};
	while (i && before(&q->heap[i], &q->heap[(i - 1) / 2])) {
		swap(&q->heap[i], &q->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	if (time > q->max_time)
		q->max_time = time;
	if (q->n > q->peak)
		q->peak = q->n;
	return 0;
}

void order_round(struct order_queue *q)
{
	q->limit = q->next_flush;
	q->next_flush = q->max_time;
}

void order_finish(struct order_queue *q)
{
	q->limit = UINT64_MAX;
}

bool order_pop(struct order_queue *q, struct order_item *out)
{
	size_t i = 0;

	if (!q->n || q->heap[0].time > q->limit)
		return false;
	*out = q->heap[0];
	q->heap[0] = q->heap[--q->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < q->n && before(&q->heap[l], &q->heap[m]))
			m = l;
		if (r < q->n && before(&q->heap[r], &q->heap[m]))
			m = r;
		if (m == i)
			break;
		swap(&q->heap[i], &q->heap[m]);
		i = m;
	}
	return true;
}

const void *order_lowest_rec(const struct order_queue *q)
{
	const void *low = NULL;
	size_t i;

	for (i = 0; i < q->n; i++)
		if (!low || (const char *)q->heap[i].rec < (const char *)low)
			low = q->heap[i].rec;
	return low;
}
