/*
 * batch_queue.h - hands batches from one producer thread to one consumer
 * thread in order, through a fixed set of batches (bounded memory): the
 * producer takes a free batch, fills it and pushes it; the consumer pops
 * batches in push order, uses them and gives them back. Nothing is
 * reordered, so what the consumer computes does not depend on the timing.
 *
 *   producer: b = bq_take_free(q); fill b; bq_push(q, b); ... bq_close(q);
 *   consumer: while ((b = bq_pop(q))) { use b; bq_give_back(q, b); }
 *
 * A consumer that fails calls bq_fail(q, message): the producer's next
 * bq_take_free returns NULL, and the message is in q->err.
 */
#ifndef SCX_LIB_BATCH_QUEUE_H
#define SCX_LIB_BATCH_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define BQ_MAX 8

struct batch_queue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void *full[BQ_MAX];
	size_t head, nr_full;
	void *spare[BQ_MAX];
	size_t nr_spare;
	bool closed, failed;
	char err[1024];
};

/* n (at most BQ_MAX) batches, all free at first. */
void bq_init(struct batch_queue *q, void *const *batches, size_t n);
void bq_destroy(struct batch_queue *q);

/* Producer: a free batch (waits for one), or NULL when the consumer failed. */
void *bq_take_free(struct batch_queue *q);
void bq_push(struct batch_queue *q, void *batch);
/* Producer: no more batches. */
void bq_close(struct batch_queue *q);

/* Consumer: the next batch in push order (waits), NULL after the last one. */
void *bq_pop(struct batch_queue *q);
void bq_give_back(struct batch_queue *q, void *batch);
void bq_fail(struct batch_queue *q, const char *msg);

#endif
