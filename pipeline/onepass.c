/*
 * onepass.c - one-pass extract (see onepass.h). Each stream (memory
 * samples, then sched events) is a producer, the process stage's sink
 * filling batches of parsed items, and a consumer, extract's aggregation;
 * batches go from one to the other in stream order.
 *
 * jobs 1: everything on the caller's thread, a batch aggregated when full.
 * jobs 2 and more: the memory stream is decoded on the caller's thread and
 * aggregated on a second; the sched stream is decoded and aggregated on a
 * third from the start, beside the memory stream (jobs 3 and more: decoded
 * on the third, aggregated on a fourth). Its aggregation keeps
 * every thread until the memory stream's result says which ones it needs
 * (sched_cells_begin_early, then sched_cells_filter between two batches once
 * op_sched hands it the samples; the results are those of filtering from
 * the start, whenever that happens), so it never waits for the memory
 * stream. With evidence (--cluster sharing), the decoding thread also
 * computes each sample's evidence key (a pure function of the sample,
 * mem_agg_sample_key_ahead), which the aggregation thread would otherwise.
 * jobs 4 and more: the memory aggregation keeps its evidence maps on
 * jobs - 3 threads more (at most MEM_AGG_SHARDS_MAX), split by key hash
 * (extract/mem/mem_agg_shard.c); what depends on sample order (groups, names,
 * hints, their folds) stays on the aggregation thread, and the key budget's
 * level is decided from per-level key counts at the folds and at the end,
 * so the evidence is what one thread would hold, for any number of shards.
 */
#include "pipeline/onepass.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extract/extract.h"
#include "lib/batch_queue.h"
#include "lib/error.h"
#include "lib/jsonw.h"
#include "pipeline/sample_conv.h"
#include "pipeline/sched_conv.h"
#include "process/process.h"

#define BATCH_ITEMS 4096
#define BATCH_ARENA (1u << 20)
#define NR_BATCHES 4

/*
 * One item of the sched stream: an event sched_conv converted (len
 * SIZE_MAX), or, when it says no, the sched.jsonl line to parse (off/len in
 * the batch's arena).
 */
struct sched_item {
	struct sched_event ev;
	uint64_t lineno;
	size_t off, len;
};

/* Samples (mem stream, v) or sched items (sched stream, it); their strings in arena. */
struct batch {
	struct mem_sample *v;
	struct sched_item *it;
	size_t n;
	char *arena;
	size_t used, cap;
};

struct onepass;

struct stream {
	struct onepass *p;
	struct batch batches[NR_BATCHES];
	struct batch *cur;        /* the batch being filled */
	bool threaded;
	struct batch_queue q;
	bool queue_live, thread_live;
	pthread_t thread;         /* mem: its consumer; sched: its producer (and consumer, -j 2) */
	pthread_t agg_thread;     /* sched, -j 3 and more: its consumer */
	bool agg_live;
	int thread_rc;            /* sched thread's result */
	char thread_err[1024];
	/* the sched thread's: its stop signal, and the samples its filter
	 * waits for (handed over under filter_lock, applied between batches) */
	atomic_int cancel;
	pthread_mutex_t filter_lock;
	const struct mem_agg *filter_agg;
	struct sched_cells early;   /* its aggregation, moved to op_sched's at the end */
	/* consumers */
	struct mem_agg *agg;
	struct sched_cells *sched;
	struct sched_reader *reader;
	/* sched producer's state */
	uint64_t lines;
	struct jsonw line;        /* a sched.jsonl line sched_conv could not spare */
	struct sched_conv_cache conv;
	struct process_result *res; /* sched producer's own (merged after) */
};

struct onepass {
	const struct onepass_opts *o;
	struct process_inputs in;
	struct process_result *res;
	bool decode_sched;        /* the profile's sched stream (no --sched JSONL) */
	bool data_syms;
	bool keys_ahead;          /* the decoding thread computes each sample's evidence key */
	struct stream mem, sch;
};

/* The stream's batches, each with room for BATCH_ITEMS of the stream's own kind of item. */
static int batches_alloc(struct stream *st, bool sched)
{
	for (size_t i = 0; i < NR_BATCHES; i++) {
		struct batch *b = &st->batches[i];

		if (sched)
			b->it = malloc(BATCH_ITEMS * sizeof(*b->it));
		else
			b->v = malloc(BATCH_ITEMS * sizeof(*b->v));
		b->arena = malloc(BATCH_ARENA);
		b->cap = BATCH_ARENA;
		if (!(sched ? (void *)b->it : (void *)b->v) || !b->arena)
			return scx_fail("out of memory");
	}
	return 0;
}

static void batches_free(struct stream *st)
{
	for (size_t i = 0; i < NR_BATCHES; i++) {
		free(st->batches[i].v);
		free(st->batches[i].it);
		free(st->batches[i].arena);
	}
	memset(st->batches, 0, sizeof(st->batches));
}

/* Start a stream: the first batch current; with threads, the queue. */
static void stream_start(struct stream *st, bool threaded)
{
	void *bs[NR_BATCHES];

	st->threaded = threaded;
	for (size_t i = 0; i < NR_BATCHES; i++) {
		st->batches[i].n = st->batches[i].used = 0;
		bs[i] = &st->batches[i];
	}
	st->cur = &st->batches[0];
	if (threaded) {
		bq_init(&st->q, bs, NR_BATCHES);
		st->cur = bq_take_free(&st->q);
		st->queue_live = true;
	}
}

/* The sched thread: the filter, when op_sched has handed over the samples. */
static int take_filter(struct stream *st)
{
	const struct mem_agg *a;

	pthread_mutex_lock(&st->filter_lock);
	a = st->filter_agg;
	st->filter_agg = NULL;
	pthread_mutex_unlock(&st->filter_lock);
	return a ? sched_cells_filter(st->sched, a) : 0;
}

/* Aggregate one batch: its samples, or its sched events. */
static int consume(struct stream *st, struct batch *b)
{
	size_t i;

	if (st->thread_live && st->sched && take_filter(st) < 0)
		return -1;
	for (i = 0; i < b->n; i++) {
		if (st->agg) {
			if (mem_agg_add(st->agg, &b->v[i]) < 0)
				return -1;
		} else if (b->it[i].len == SIZE_MAX) {
			if (sched_cells_event(st->sched, &b->it[i].ev) < 0)
				return -1;
		} else {
			const struct sched_item *it = &b->it[i];
			struct sched_event ev;
			int n = sched_events_parse_line(st->reader, it->lineno, b->arena + it->off, it->len, &ev);

			if (n < 0 || (n > 0 && sched_cells_event(st->sched, &ev) < 0))
				return -1;
		}
	}
	b->n = b->used = 0;
	return 0;
}

/* Consume the queue to its end; on an error stop the producer. -1 on error. */
static int consume_queue(struct stream *st)
{
	struct batch *b;

	while ((b = bq_pop(&st->q))) {
		if (consume(st, b) < 0) {
			bq_fail(&st->q, scx_errmsg());
			return -1;
		}
		bq_give_back(&st->q, b);
	}
	return 0;
}

static void *consumer_main(void *arg)
{
	consume_queue(arg);
	return NULL;
}

/* The full batch goes to the aggregation; a free one becomes current. */
static int hand_over(struct stream *st)
{
	if (!st->threaded)
		return consume(st, st->cur);
	bq_push(&st->q, st->cur);
	if (!(st->cur = bq_take_free(&st->q)))
		return scx_fail("%s", st->q.err);
	st->cur->n = st->cur->used = 0;
	return 0;
}

/* Room for one more item of need arena bytes in the current batch. */
static int make_room(struct stream *st, size_t need)
{
	struct batch *b = st->cur;

	if (b->n == BATCH_ITEMS || (b->n && b->used + need > b->cap))
		if (hand_over(st) < 0)
			return -1;
	b = st->cur;
	if (need > b->cap) { /* one huge item in an empty batch */
		char *a = realloc(b->arena, need);

		if (!a)
			return scx_fail("out of memory");
		b->arena = a;
		b->cap = need;
	}
	return 0;
}

/* The producer is done: the last batch to the consumer. */
static int finish_producing(struct stream *st, int rc)
{
	if (!st->threaded)
		return rc < 0 ? -1 : consume(st, st->cur);
	if (rc == 0)
		bq_push(&st->q, st->cur);
	bq_close(&st->q);
	return rc;
}

static int on_sample(void *ctx, const struct mem_record *r)
{
	struct stream *st = ctx;
	struct batch *b;

	if (make_room(st, sample_conv_max(r)) < 0)
		return -1;
	b = st->cur;
	b->used += sample_conv(r, st->p->data_syms, &b->v[b->n], b->arena + b->used);
	if (st->p->keys_ahead) /* off the aggregation thread: the one that waits on the other */
		mem_agg_sample_key_ahead(&b->v[b->n], st->p->o->mem.line_granularity);
	b->n++;
	return 0;
}

static int on_sched_record(void *ctx, const struct sched_line *l)
{
	struct stream *st = ctx;
	struct batch *b;
	size_t used, len;

	if (atomic_load_explicit(&st->cancel, memory_order_relaxed))
		return scx_fail("stopped");
	if (make_room(st, sched_conv_max(l)) < 0)
		return -1;
	b = st->cur;
	b->it[b->n].lineno = ++st->lines;
	if (sched_conv(l, &st->conv, &b->it[b->n].ev, b->arena + b->used, &used)) {
		b->it[b->n++].len = SIZE_MAX;
		b->used += used;
		return 0;
	}
	/* the rare record whose round trip is not plain: its line, parsed as extract would */
	jsonw_reset(&st->line);
	sched_jsonl_line(&st->line, l);
	if (st->line.oom)
		return scx_fail("out of memory");
	len = st->line.len - 1; /* without the newline */
	if (make_room(st, len) < 0)
		return -1;
	b = st->cur;
	b->it[b->n].lineno = st->lines;
	memcpy(b->arena + b->used, st->line.buf, len);
	b->it[b->n].off = b->used;
	b->it[b->n++].len = len;
	b->used += len;
	return 0;
}

static void process_opts_of(struct stream *st, struct process_opts *po, struct process_sink *sink)
{
	memset(sink, 0, sizeof(*sink));
	sink->mem_sample = on_sample;
	sink->sched_record = on_sched_record;
	sink->ctx = st;
	sink->data_symbols = st->p->data_syms;
	memset(po, 0, sizeof(*po));
	po->in = &st->p->in;
	po->sink = sink;
	po->stop = st->p->o->stop;
}

/* The memory stream alone: the sched stream runs beside it or after it
 * (its input still names threads perf.data has no COMM for). */
static int decode_mem(struct onepass *p)
{
	struct process_outputs out = {0};
	struct process_sink sink;
	struct process_opts po;

	process_opts_of(&p->mem, &po, &sink);
	po.mem_only = true;
	return process_run(&po, &out, p->res);
}

/* The sched stream into st->res (its own: it may run beside decode_mem). */
static int decode_sched(struct stream *st)
{
	struct process_sink sink;
	struct process_opts po;

	process_opts_of(st, &po, &sink);
	return finish_producing(st, process_sched(&po, NULL, NULL, st->res));
}

static void *sched_thread_main(void *arg)
{
	struct stream *st = arg;

	if ((st->thread_rc = decode_sched(st)) < 0)
		snprintf(st->thread_err, sizeof(st->thread_err), "%s", scx_errmsg());
	return NULL;
}

/* With threads: decode and aggregate the sched stream now, beside the memory stream. */
static int start_sched_thread(struct onepass *p)
{
	struct stream *st = &p->sch;

	if (sched_cells_begin_early(&st->early, p->in.sched_path) < 0 ||
	    !(st->reader = sched_events_open(NULL, p->in.sched_path)))
		return -1;
	st->sched = &st->early;
	stream_start(st, p->o->jobs >= 3); /* -j 3+: aggregated on a thread of its own */
	pthread_mutex_init(&st->filter_lock, NULL);
	st->thread_live = true; /* before they run: consume() reads it */
	if (st->threaded && pthread_create(&st->agg_thread, NULL, consumer_main, st) != 0)
		goto fail;
	st->agg_live = st->threaded;
	if (pthread_create(&st->thread, NULL, sched_thread_main, st) != 0)
		goto fail;
	return 0;
fail:
	if (st->agg_live) {
		bq_close(&st->q);
		pthread_join(st->agg_thread, NULL);
		st->agg_live = false;
	}
	st->thread_live = false;
	pthread_mutex_destroy(&st->filter_lock);
	return scx_fail("cannot start the sched threads");
}

/* Join the sched thread (stopping it first on an error elsewhere); its result. */
static int join_sched_thread(struct onepass *p, bool stop)
{
	struct stream *st = &p->sch;

	if (!st->thread_live)
		return 0;
	if (stop)
		atomic_store(&st->cancel, 1);
	pthread_join(st->thread, NULL); /* it closed the queue */
	if (st->agg_live)
		pthread_join(st->agg_thread, NULL);
	st->agg_live = st->thread_live = false;
	pthread_mutex_destroy(&st->filter_lock);
	if (stop) /* the error elsewhere is the cause */
		return -1;
	if (st->queue_live && st->q.failed) /* the aggregation's error is the cause */
		return scx_fail("%s", st->q.err);
	return st->thread_rc < 0 ? scx_fail("%s", st->thread_err) : 0;
}

static void report_warnings(struct onepass *p)
{
	if (p->o->on_warnings)
		p->o->on_warnings(p->o->warnings_ctx, &p->res->warnings);
}

/* -j 4 and more: the evidence maps on jobs - 3 threads of their own (at most MEM_AGG_SHARDS_MAX) */
static size_t evidence_shards(int jobs)
{
	if (jobs < 4)
		return 0;
	return (size_t)jobs - 3 < MEM_AGG_SHARDS_MAX ? (size_t)jobs - 3 : MEM_AGG_SHARDS_MAX;
}

static int op_samples(void *ctx, struct mem_agg *a)
{
	struct onepass *p = ctx;
	struct stream *st = &p->mem;
	bool threaded = p->o->jobs >= 2;
	int rc;

	if (threaded && p->decode_sched && start_sched_thread(p) < 0)
		return -1;
	st->agg = a;
	if (evidence_shards(p->o->jobs) && mem_agg_shards_start(a, evidence_shards(p->o->jobs)) < 0)
		return -1; /* mem_agg_free stops those started */
	stream_start(st, threaded);
	if (threaded && pthread_create(&st->thread, NULL, consumer_main, st) != 0)
		return scx_fail("cannot start the aggregation thread");
	rc = finish_producing(st, decode_mem(p));
	if (threaded) {
		pthread_join(st->thread, NULL);
		if (st->q.failed) /* the aggregation's error is the cause */
			rc = scx_fail("%s", st->q.err);
	}
	st->agg = NULL;
	if (rc < 0 || mem_agg_shards_finish(a) < 0)
		return -1;
	if (!p->decode_sched)
		report_warnings(p);
	return 0;
}

/* The sched producer's warnings after the memory stream's, as process has them. */
static void merge_sched_result(struct onepass *p)
{
	const struct warnings *w = &p->sch.res->warnings;

	p->res->sched = p->sch.res->sched;
	for (size_t i = 0; i < w->nr; i++)
		warnings_add(&p->res->warnings, "%s", w->line[i]);
}

static int op_sched(void *ctx, struct sched_cells *m, const struct mem_agg *a)
{
	struct onepass *p = ctx;
	struct stream *st = &p->sch;
	int rc;

	if (!p->decode_sched)
		return sched_cells_load(m, p->o->mem.sched_path, a) < 0 ? -1 : 1;
	if (st->thread_live) { /* decoded and aggregated since the start: its filter now */
		pthread_mutex_lock(&st->filter_lock);
		st->filter_agg = a;
		pthread_mutex_unlock(&st->filter_lock);
		rc = join_sched_thread(p, false);
		*m = st->early; /* moved; filtered here when its last batch came first */
		memset(&st->early, 0, sizeof(st->early));
		if (rc == 0)
			rc = sched_cells_filter(m, a);
	} else {
		if (sched_cells_begin(m, p->in.sched_path, a) < 0 || !(st->reader = sched_events_open(NULL, p->in.sched_path)))
			return -1;
		st->sched = m;
		stream_start(st, false);
		rc = decode_sched(st);
	}
	sched_events_close(st->reader);
	st->reader = NULL;
	st->sched = NULL;
	if (rc < 0)
		return -1;
	merge_sched_result(p);
	report_warnings(p);
	if (!st->lines) /* as an empty sched.jsonl: no scheduling stream */
		return 0;
	return sched_cells_end(m) < 0 ? -1 : 1;
}

int onepass_run(const struct onepass_opts *o, FILE *out, FILE *log)
{
	struct onepass *p = calloc(1, sizeof(*p));
	struct extract_mem_opts mo = o->mem;
	struct extract_mem_source src = {.samples = op_samples, .sched = op_sched};
	int rc = -1;

	if (!p || !(p->res = calloc(1, sizeof(*p->res))) || !(p->sch.res = calloc(1, sizeof(*p->sch.res)))) {
		if (p)
			free(p->res);
		free(p);
		return scx_fail("out of memory");
	}
	p->o = o;
	p->mem.p = p->sch.p = p;
	src.ctx = p;
	jsonw_init(&p->sch.line);
	if (process_find_inputs(o->dir, &p->in) < 0)
		goto out;
	if (p->in.mem_kind == MEM_NONE) {
		scx_fail("%s: no memory stream (perf.mem.data, perf.data, perf.mem.script or perf.script): "
			 "nothing to extract a config from", o->dir);
		goto out;
	}
	if (batches_alloc(&p->mem, false) < 0 || batches_alloc(&p->sch, true) < 0)
		goto out;
	mo.path = p->in.mem_path; /* names the input; its topology: topology.json next to it, else its headers */
	if (!mo.sched_path && p->in.sched_kind != SCHED_IN_NONE) {
		mo.sched_path = p->in.sched_path;
		p->decode_sched = true;
	}
	p->data_syms = mo.verbose > 0; /* only -v names shared objects */
	p->keys_ahead = o->jobs >= 2 && mo.cluster == CLUSTER_SHARING; /* the evidence, and -v's cross-LLC measure */
	rc = extract_mem_run_source(&mo, &src, out, log);
out:
	join_sched_thread(p, true); /* when the memory stream failed */
	sched_cells_free(&p->sch.early);
	sched_events_close(p->sch.reader);
	if (p->mem.queue_live)
		bq_destroy(&p->mem.q);
	if (p->sch.queue_live)
		bq_destroy(&p->sch.q);
	batches_free(&p->mem);
	batches_free(&p->sch);
	jsonw_free(&p->sch.line);
	free(p->sch.res);
	free(p->res);
	free(p);
	return rc;
}
