/*
 * order.h - puts perf.data records into timestamp order the way perf's
 * ordered_events do, with memory bounded by one round.
 *
 * Records are queued with their time; at each PERF_RECORD_FINISHED_ROUND the
 * caller calls order_round(), which makes every queued record with a time at
 * or below the largest time seen before the *previous* round poppable (the
 * kernel guarantees nothing older arrives after that). Equal times keep
 * arrival order. At the end order_finish() makes everything poppable.
 * Records are referenced, not copied: they must outlive their stay here.
 * Records pushed after a round are only poppable after the next one.
 */
#ifndef SCX_ORDER_H
#define SCX_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct order_item {
	uint64_t time;
	uint64_t seq;
	const void *rec;
};

struct order_queue {
	struct order_item *heap; /* queued records, [head, n) */
	size_t head, n, cap;
	size_t sorted_upto;      /* [head, sorted_upto) is in order and may be popped */
	struct order_item *tmp;  /* merge scratch */
	size_t tmp_cap;
	uint64_t seq;
	uint64_t max_time;   /* largest time queued so far */
	uint64_t next_flush; /* the limit the next round will flush up to */
	uint64_t limit;      /* records at or below this time may be popped */
	size_t peak;         /* most records held at once */
	uint64_t late;       /* records queued below an already-flushed limit */
};

void order_init(struct order_queue *q);
void order_free(struct order_queue *q);
int order_push(struct order_queue *q, uint64_t time, const void *rec);
/* Both sort what is queued: -1 (scx_fail) when memory runs out. */
int order_round(struct order_queue *q);
int order_finish(struct order_queue *q);
/* Pop the oldest record if it is poppable. */
bool order_pop(struct order_queue *q, struct order_item *out);
/* Lowest-addressed record still queued (for releasing file pages), or NULL. */
const void *order_lowest_rec(const struct order_queue *q);

#endif
