/*
 * sched_pool.c - formatting sched.jsonl lines on worker threads, in
 * batches written in the order they were filled (see sched_pool.h).
 *
 * A ring of batches; sequence numbers say where each one is:
 *   [written, filled)  filled by the decoding thread, not yet written;
 *   claimed            the next one a worker takes (claimed <= filled).
 * A worker formats the batch it claimed and marks it done; the decoding
 * thread writes the oldest batch once it is done, when it needs its slot
 * again or at the end. A record's strings, switch fields and values are
 * copied into its batch's arena (by offset: the arena may grow while the
 * batch fills), so a batch holds what its records use.
 */
#include "process/sched_pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/jsonw.h"

#define BATCH 512

/* A line; its comm, event, trace, sw and v: copies in the arena, by offset */
struct rec {
	struct sched_line l;
	size_t comm, event, trace, sw, v;
};

struct batch {
	struct rec *rec;
	size_t n;
	char *arena;
	size_t used, cap;
	bool done;
	struct jsonw out;
};

struct sched_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* any change below; few threads, so one condition */
	struct batch *b;
	size_t nb;
	uint64_t filled, claimed, written;
	bool closing;
	struct batch *cur; /* being filled, or NULL */
	pthread_t th[SCHED_POOL_MAX_WORKERS];
	size_t nw;
	bool joined;
	FILE *out;
};

static void format_batch(struct batch *b)
{
	jsonw_reset(&b->out);
	for (size_t i = 0; i < b->n; i++) {
		struct rec *r = &b->rec[i];
		struct sched_line l = r->l;
		struct sched_switch_info sw;
		struct sched_vals v;

		l.comm = b->arena + r->comm;
		l.event = b->arena + r->event;
		l.trace = l.trace ? b->arena + r->trace : NULL;
		if (l.sw) {
			memcpy(&sw, b->arena + r->sw, sizeof(sw));
			l.sw = &sw;
		}
		if (l.v) {
			memcpy(&v, b->arena + r->v, sizeof(v));
			l.v = &v;
		}
		sched_jsonl_line(&b->out, &l);
	}
}

static void *worker_main(void *arg)
{
	struct sched_pool *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct batch *b;

		while (!p->closing && p->claimed == p->filled)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->claimed == p->filled)
			break;
		b = &p->b[p->claimed++ % p->nb];
		pthread_mutex_unlock(&p->lock);
		format_batch(b);
		pthread_mutex_lock(&p->lock);
		b->done = true;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void stop_threads(struct sched_pool *p)
{
	if (p->joined)
		return;
	pthread_mutex_lock(&p->lock);
	p->closing = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (size_t i = 0; i < p->nw; i++)
		pthread_join(p->th[i], NULL);
	p->joined = true;
}

void sched_pool_free(struct sched_pool *p)
{
	if (!p)
		return;
	stop_threads(p);
	for (size_t i = 0; i < p->nb; i++) {
		free(p->b[i].rec);
		free(p->b[i].arena);
		jsonw_free(&p->b[i].out);
	}
	free(p->b);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}

struct sched_pool *sched_pool_start(size_t workers, FILE *out)
{
	struct sched_pool *p = calloc(1, sizeof(*p));

	if (!p) {
		scx_fail("out of memory");
		return NULL;
	}
	if (workers < 1)
		workers = 1;
	if (workers > SCHED_POOL_MAX_WORKERS)
		workers = SCHED_POOL_MAX_WORKERS;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->out = out;
	p->joined = true; /* until a thread runs */
	p->nb = workers + 2; /* one formatting per worker, one filling, one formatted waiting to be written */
	if (!(p->b = calloc(p->nb, sizeof(*p->b))))
		goto oom;
	for (size_t i = 0; i < p->nb; i++) {
		jsonw_init(&p->b[i].out);
		if (!(p->b[i].rec = malloc(BATCH * sizeof(struct rec))))
			goto oom;
	}
	p->joined = false;
	for (; p->nw < workers; p->nw++)
		if (pthread_create(&p->th[p->nw], NULL, worker_main, p) != 0) {
			sched_pool_free(p);
			scx_fail("cannot start the sched.jsonl formatting threads");
			return NULL;
		}
	return p;
oom:
	sched_pool_free(p);
	scx_fail("out of memory");
	return NULL;
}

/* Write the oldest filled batch once formatted; its slot is free again. */
static int write_oldest(struct sched_pool *p)
{
	struct batch *b = &p->b[p->written % p->nb];
	int rc;

	pthread_mutex_lock(&p->lock);
	while (!b->done)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	rc = jsonw_flush_to(&b->out, p->out, "sched.jsonl");
	b->done = false;
	b->n = b->used = 0;
	p->written++;
	return rc;
}

/* The filling batch to the workers. */
static void submit(struct sched_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->filled++;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	p->cur = NULL;
}

/* off of a copy of s[0..n) and a NUL in b's arena; SIZE_MAX when memory is short */
static size_t keep(struct batch *b, const char *s, size_t n)
{
	size_t off = b->used;

	if (b->used + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64 * 1024;
		char *a;

		while (cap < b->used + n + 1)
			cap *= 2;
		if (!(a = realloc(b->arena, cap)))
			return SIZE_MAX;
		b->arena = a;
		b->cap = cap;
	}
	memcpy(b->arena + off, s, n);
	b->arena[off + n] = '\0';
	b->used += n + 1;
	return off;
}

int sched_pool_add(struct sched_pool *p, const struct sched_line *l)
{
	struct rec *r;

	if (!p->cur) {
		while (p->filled - p->written >= p->nb)
			if (write_oldest(p) < 0)
				return -1;
		p->cur = &p->b[p->filled % p->nb];
	}
	r = &p->cur->rec[p->cur->n];
	r->l = *l;
	r->comm = keep(p->cur, l->comm, strlen(l->comm));
	r->event = keep(p->cur, l->event, strlen(l->event));
	r->trace = l->trace ? keep(p->cur, l->trace, l->trace_len) : 0;
	r->sw = l->sw ? keep(p->cur, (const char *)l->sw, sizeof(*l->sw)) : 0;
	r->v = l->v ? keep(p->cur, (const char *)l->v, sizeof(*l->v)) : 0;
	if (r->comm == SIZE_MAX || r->event == SIZE_MAX || r->trace == SIZE_MAX || r->sw == SIZE_MAX ||
	    r->v == SIZE_MAX)
		return scx_fail("out of memory");
	if (++p->cur->n == BATCH)
		submit(p);
	return 0;
}

int sched_pool_finish(struct sched_pool *p)
{
	int rc = 0;

	if (p->cur && p->cur->n)
		submit(p);
	while (p->written < p->filled)
		if (write_oldest(p) < 0)
			rc = -1;
	stop_threads(p);
	return rc;
}
