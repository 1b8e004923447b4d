/*
 * emit_pool.c - formatting kept memory samples on worker threads, in
 * batches that reach the trace and the writer in the order they were
 * filled (see emit_pool.h).
 *
 * A ring of batches; sequence numbers say where each one is:
 *   [written, filled)  filled by the decoding thread, not yet written;
 *   claimed            the next one a worker takes (claimed <= filled);
 *   traced             batches whose Perfetto samples are in the trace: a
 *                      worker appends batch k's only when traced == k.
 * A batch is DONE when formatted and traced; whichever thread finds the
 * oldest batches DONE hands them to the writer (one at a time: submitting).
 * The decoding thread reuses a slot once its batch is written.
 */
#include "process/emit/emit_pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/jsonw.h"
#include "lib/pftrace/perfetto_track.h"
#include "process/emit/mem_jsonl.h"

#define BATCH 2048
#define COMM_LEN EMIT_POOL_COMM_SIZE /* session_thread's comm, NUL included */

struct batch {
	struct mem_record rec[BATCH];
	char comm[BATCH][COMM_LEN];
	size_t n;
	uint64_t seq;
	bool done;
	struct jsonw out;
};

struct worker {
	pthread_t thread;
	bool started;
	struct mem_jsonl_ctx *fmt;
	struct emit_pool *pool;
};

struct emit_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* any change below; few threads, so one condition */
	struct batch *b;
	size_t nb;
	uint64_t filled, claimed, traced, written;
	bool submitting, closing, failed;
	char err[1024];
	struct batch *cur; /* being filled by the decoding thread, or NULL */
	struct worker w[EMIT_POOL_MAX_WORKERS];
	size_t nw;
	struct bgwriter *writer;
	struct pftrace *trace;
};

/* With the lock held. */
static void fail_locked(struct emit_pool *p, const char *msg)
{
	if (!p->failed)
		snprintf(p->err, sizeof(p->err), "%s", msg);
	p->failed = true;
	pthread_cond_broadcast(&p->cond);
}

/* With the lock held: hand the oldest batches that are done to the writer,
 * unless another thread is doing so. */
static void submit_ready(struct emit_pool *p)
{
	if (p->submitting)
		return;
	p->submitting = true;
	while (!p->failed && p->written < p->claimed) {
		struct batch *b = &p->b[p->written % p->nb];
		int rc;

		if (!b->done)
			break;
		pthread_mutex_unlock(&p->lock);
		rc = bgwriter_submit(p->writer, &b->out);
		pthread_mutex_lock(&p->lock);
		if (rc < 0) {
			fail_locked(p, scx_errmsg());
			break;
		}
		b->done = false;
		p->written++;
		pthread_cond_broadcast(&p->cond);
	}
	p->submitting = false;
}

/* Outside the lock: the batch's lines, then (in batch order) its trace samples. */
static int work_on(struct worker *w, struct batch *b)
{
	struct emit_pool *p = w->pool;
	int rc = 0;

	for (size_t i = 0; i < b->n; i++)
		mem_jsonl_line(&b->out, &b->rec[i], w->fmt);
	if (!p->trace)
		return 0;
	bool failed;

	pthread_mutex_lock(&p->lock);
	while (!p->failed && p->traced != b->seq)
		pthread_cond_wait(&p->cond, &p->lock);
	failed = p->failed;
	pthread_mutex_unlock(&p->lock);
	if (failed)
		return 0; /* the first failure is the one reported */
	for (size_t i = 0; i < b->n && rc == 0; i++)
		rc = pftrace_mem_sample(p->trace, &b->rec[i]);
	return rc;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct emit_pool *p = w->pool;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct batch *b;
		int rc;

		while (!p->failed && !p->closing && p->claimed == p->filled)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->failed || p->claimed == p->filled)
			break;
		b = &p->b[p->claimed % p->nb];
		b->seq = p->claimed++;
		pthread_mutex_unlock(&p->lock);
		rc = work_on(w, b);
		pthread_mutex_lock(&p->lock);
		if (rc < 0) {
			fail_locked(p, scx_errmsg());
			break;
		}
		if (p->failed)
			break;
		if (p->trace)
			p->traced++;
		b->done = true;
		pthread_cond_broadcast(&p->cond);
		submit_ready(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void stop_workers(struct emit_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->closing = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (size_t i = 0; i < p->nw; i++) {
		if (p->w[i].started)
			pthread_join(p->w[i].thread, NULL);
		p->w[i].started = false;
	}
}

void emit_pool_free(struct emit_pool *p)
{
	if (!p)
		return;
	stop_workers(p);
	for (size_t i = 0; i < p->nw; i++)
		mem_jsonl_ctx_free(p->w[i].fmt);
	for (size_t i = 0; p->b && i < p->nb; i++)
		jsonw_free(&p->b[i].out);
	free(p->b);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

struct emit_pool *emit_pool_start(size_t workers, struct bgwriter *writer, struct pftrace *trace)
{
	struct emit_pool *p = calloc(1, sizeof(*p));

	if (!p) {
		scx_fail("out of memory");
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->writer = writer;
	p->trace = trace;
	p->nw = workers < 1 ? 1 : workers > EMIT_POOL_MAX_WORKERS ? EMIT_POOL_MAX_WORKERS : workers;
	p->nb = p->nw + 7; /* one per worker, one filling, six more: slack for a loaded host, where a
			     * thread waits milliseconds for a CPU after it is woken */
	if (!(p->b = calloc(p->nb, sizeof(*p->b)))) {
		p->nw = 0;
		emit_pool_free(p);
		scx_fail("out of memory (%zu batches of samples)", workers + 7);
		return NULL;
	}
	for (size_t i = 0; i < p->nb; i++)
		jsonw_init(&p->b[i].out);
	for (size_t i = 0; i < p->nw; i++) {
		p->w[i].pool = p;
		if (!(p->w[i].fmt = mem_jsonl_ctx_new())) {
			emit_pool_free(p);
			scx_fail("out of memory");
			return NULL;
		}
		if (pthread_create(&p->w[i].thread, NULL, worker_main, &p->w[i]) != 0) {
			emit_pool_free(p);
			scx_fail("cannot start a formatting thread");
			return NULL;
		}
		p->w[i].started = true;
	}
	return p;
}

/* The error a worker or the writer stopped with, as this thread's. */
static int pool_error(struct emit_pool *p)
{
	return scx_fail("%s", p->err);
}

/* A free slot to fill: waits until the batch that used it is written. */
static int take_slot(struct emit_pool *p)
{
	pthread_mutex_lock(&p->lock);
	while (!p->failed && p->filled - p->written >= p->nb)
		pthread_cond_wait(&p->cond, &p->lock);
	if (p->failed) {
		pthread_mutex_unlock(&p->lock);
		return pool_error(p);
	}
	p->cur = &p->b[p->filled % p->nb];
	pthread_mutex_unlock(&p->lock);
	p->cur->n = 0;
	return 0;
}

static void publish(struct emit_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->filled++;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	p->cur = NULL;
}

int emit_pool_add(struct emit_pool *p, const struct mem_record *r)
{
	struct batch *b;
	size_t i;

	if (!p->cur && take_slot(p) < 0)
		return -1;
	b = p->cur;
	i = b->n++;
	b->rec[i] = *r;
	strncpy(b->comm[i], r->comm, COMM_LEN - 1);
	b->comm[i][COMM_LEN - 1] = '\0';
	b->rec[i].comm = b->comm[i];
	if (b->n == BATCH)
		publish(p);
	return 0;
}

struct mem_record *emit_pool_slot(struct emit_pool *p)
{
	if (!p->cur && take_slot(p) < 0)
		return NULL;
	return &p->cur->rec[p->cur->n];
}

void emit_pool_commit(struct emit_pool *p)
{
	struct batch *b = p->cur;
	size_t i = b->n++;

	memcpy(b->comm[i], b->rec[i].comm, COMM_LEN); /* one 32-byte copy, no scan for the NUL */
	b->comm[i][COMM_LEN - 1] = '\0';
	b->rec[i].comm = b->comm[i];
	if (b->n == BATCH)
		publish(p);
}

int emit_pool_finish(struct emit_pool *p)
{
	if (p->cur && p->cur->n)
		publish(p);
	p->cur = NULL;
	stop_workers(p);
	/* workers submit what they finish; what is left was finished last while
	 * another thread was submitting */
	pthread_mutex_lock(&p->lock);
	submit_ready(p);
	if (!p->failed && p->written != p->filled)
		fail_locked(p, "perf.jsonl: formatted batches left unwritten (internal error)");
	pthread_mutex_unlock(&p->lock);
	return p->failed ? pool_error(p) : 0;
}
