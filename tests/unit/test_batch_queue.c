/*
 * test_batch_queue.c - the hand-over between one pass's decoding and
 * aggregation threads (lib/batch_queue.h): batches arrive in push
 * order whatever the timing, never more than the fixed set is in flight,
 * and a consumer's failure stops the producer with its message.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>

#include "lib/batch_queue.h"

struct item {
	int seq;
};

struct run {
	struct batch_queue q;
	int seen, bad_order, fail_at;
};

static void *consumer(void *arg)
{
	struct run *r = arg;
	struct item *it;

	while ((it = bq_pop(&r->q))) {
		if (it->seq != r->seen)
			r->bad_order++;
		r->seen++;
		if (r->seen == r->fail_at) {
			bq_fail(&r->q, "consumer failed here");
			return NULL;
		}
		if (r->seen % 7 == 0)
			sched_yield();
		bq_give_back(&r->q, it);
	}
	return NULL;
}

Test(batch_queue, in_order_and_bounded)
{
	struct item items[3];
	void *ptrs[3] = {&items[0], &items[1], &items[2]};
	struct run r = {.fail_at = -1};
	pthread_t t;
	int pushed = 0;

	bq_init(&r.q, ptrs, 3);
	cr_assert_eq(pthread_create(&t, NULL, consumer, &r), 0);
	for (int i = 0; i < 5000; i++) {
		struct item *it = bq_take_free(&r.q);

		cr_assert_not_null(it);
		cr_assert(it >= &items[0] && it <= &items[2], "only the fixed set");
		it->seq = i;
		bq_push(&r.q, it);
		pushed++;
	}
	bq_close(&r.q);
	pthread_join(t, NULL);
	cr_assert_eq(r.seen, pushed);
	cr_assert_eq(r.bad_order, 0);
	bq_destroy(&r.q);
}

Test(batch_queue, consumer_failure_stops_the_producer)
{
	struct item items[2];
	void *ptrs[2] = {&items[0], &items[1]};
	struct run r = {.fail_at = 10};
	pthread_t t;
	int i;

	bq_init(&r.q, ptrs, 2);
	cr_assert_eq(pthread_create(&t, NULL, consumer, &r), 0);
	for (i = 0; i < 100000; i++) {
		struct item *it = bq_take_free(&r.q);

		if (!it)
			break;
		it->seq = i;
		bq_push(&r.q, it);
	}
	cr_assert_lt(i, 100000, "the producer was stopped");
	cr_assert(r.q.failed);
	cr_assert_str_eq(r.q.err, "consumer failed here");
	bq_close(&r.q);
	pthread_join(t, NULL);
	bq_destroy(&r.q);
}
