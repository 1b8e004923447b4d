/*
 * batch_queue.c - an ordered, bounded hand-over of batches between two
 * threads (see batch_queue.h).
 */
#include "lib/batch_queue.h"

#include <stdio.h>

void bq_init(struct batch_queue *q, void *const *batches, size_t n)
{
	size_t i;

	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	q->head = q->nr_full = 0;
	q->closed = q->failed = false;
	q->err[0] = '\0';
	q->nr_spare = n < BQ_MAX ? n : BQ_MAX;
	for (i = 0; i < q->nr_spare; i++)
		q->spare[i] = batches[i];
}

/* Wake the waiting threads to the change just made, and let go of the lock */
static void wake_unlock(struct batch_queue *q)
{
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void bq_destroy(struct batch_queue *q)
{
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
}

void *bq_take_free(struct batch_queue *q)
{
	void *b = NULL;

	pthread_mutex_lock(&q->lock);
	while (!q->failed && !q->nr_spare)
		pthread_cond_wait(&q->cond, &q->lock);
	if (!q->failed)
		b = q->spare[--q->nr_spare];
	pthread_mutex_unlock(&q->lock);
	return b;
}

void bq_push(struct batch_queue *q, void *batch)
{
	pthread_mutex_lock(&q->lock);
	q->full[(q->head + q->nr_full++) % BQ_MAX] = batch;
	wake_unlock(q);
}

void bq_close(struct batch_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	wake_unlock(q);
}

void *bq_pop(struct batch_queue *q)
{
	void *b = NULL;

	pthread_mutex_lock(&q->lock);
	while (!q->nr_full && !q->closed)
		pthread_cond_wait(&q->cond, &q->lock);
	if (q->nr_full) {
		b = q->full[q->head];
		q->head = (q->head + 1) % BQ_MAX;
		q->nr_full--;
	}
	pthread_mutex_unlock(&q->lock);
	return b;
}

void bq_give_back(struct batch_queue *q, void *batch)
{
	pthread_mutex_lock(&q->lock);
	q->spare[q->nr_spare++] = batch;
	wake_unlock(q);
}

void bq_fail(struct batch_queue *q, const char *msg)
{
	pthread_mutex_lock(&q->lock);
	if (!q->failed)
		snprintf(q->err, sizeof(q->err), "%s", msg);
	q->failed = true;
	wake_unlock(q);
}
