/*
 * onepass.c - one-pass extract (see onepass.h): the process stage's sink
 * fills batches of parsed samples (or sched lines); they are aggregated on
 * the same thread when a batch is full (jobs 1) or on a second thread
 * (jobs >= 2), always in stream order.
 */
#include "pipeline/onepass.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extract/mem_agg.h"
#include "extract/mem_sched.h"
#include "extract/sched_events.h"
#include "lib/error.h"
#include "pipeline/batch_queue.h"
#include "pipeline/sample_conv.h"
#include "pipeline/sched_conv.h"
#include "process/process_sched.h"
#include "process/stage.h"

#define BATCH_ITEMS 4096
#define BATCH_ARENA (1u << 20)
#define NR_BATCHES 4

/*
 * Samples (mem stream) or sched events (sched stream: converted, or, when
 * sched_conv says no, the sched.jsonl line to parse, off/len in arena),
 * strings in arena.
 */
struct batch {
	struct mem_sample *v;
	struct sched_event *ev;
	size_t *off, *len;        /* len SIZE_MAX: ev[i] is converted */
	uint64_t *lineno;
	size_t n;
	char *arena;
	size_t used, cap;
};

struct onepass {
	const struct onepass_opts *o;
	struct process_inputs in;
	struct process_result *res;
	bool decode_sched;        /* the profile's sched stream (no --sched JSONL) */
	bool data_syms;
	/* the stream being run */
	struct batch batches[NR_BATCHES];
	struct batch *cur;        /* the batch being filled */
	struct batch_queue q;
	bool threaded;
	struct mem_agg *agg;      /* mem stream's consumer */
	struct mem_sched *sched;  /* sched stream's consumer */
	struct sched_reader *reader;
	uint64_t lines;
	struct jsonw line;        /* a sched.jsonl line sched_conv could not spare */
};

static int batches_alloc(struct onepass *p)
{
	for (size_t i = 0; i < NR_BATCHES; i++) {
		struct batch *b = &p->batches[i];

		b->v = malloc(BATCH_ITEMS * sizeof(*b->v));
		b->ev = malloc(BATCH_ITEMS * sizeof(*b->ev));
		b->off = malloc(BATCH_ITEMS * sizeof(*b->off));
		b->len = malloc(BATCH_ITEMS * sizeof(*b->len));
		b->lineno = malloc(BATCH_ITEMS * sizeof(*b->lineno));
		b->arena = malloc(BATCH_ARENA);
		b->cap = BATCH_ARENA;
		if (!b->v || !b->ev || !b->off || !b->len || !b->lineno || !b->arena)
			return scx_fail("out of memory");
	}
	return 0;
}

static void batches_free(struct onepass *p)
{
	for (size_t i = 0; i < NR_BATCHES; i++) {
		free(p->batches[i].v);
		free(p->batches[i].ev);
		free(p->batches[i].lineno);
		free(p->batches[i].off);
		free(p->batches[i].len);
		free(p->batches[i].arena);
	}
	memset(p->batches, 0, sizeof(p->batches));
}

/* Aggregate one batch: its samples, or its sched lines parsed. */
static int consume(struct onepass *p, struct batch *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		if (p->agg) {
			if (mem_agg_add(p->agg, &b->v[i]) < 0)
				return -1;
		} else if (b->len[i] == SIZE_MAX) {
			if (mem_sched_event(p->sched, &b->ev[i]) < 0)
				return -1;
		} else {
			struct sched_event ev;
			int n = sched_events_parse_line(p->reader, b->lineno[i], b->arena + b->off[i], b->len[i], &ev);

			if (n < 0 || (n > 0 && mem_sched_event(p->sched, &ev) < 0))
				return -1;
		}
	}
	b->n = b->used = 0;
	return 0;
}

static void *consumer_main(void *arg)
{
	struct onepass *p = arg;
	struct batch *b;

	while ((b = bq_pop(&p->q))) {
		if (consume(p, b) < 0) {
			bq_fail(&p->q, scx_errmsg());
			break;
		}
		bq_give_back(&p->q, b);
	}
	return NULL;
}

/* The full batch goes to the aggregation; a free one becomes current. */
static int hand_over(struct onepass *p)
{
	if (!p->threaded)
		return consume(p, p->cur);
	bq_push(&p->q, p->cur);
	if (!(p->cur = bq_take_free(&p->q)))
		return scx_fail("%s", p->q.err);
	p->cur->n = p->cur->used = 0;
	return 0;
}

/* Room for one more item of need arena bytes in the current batch. */
static int make_room(struct onepass *p, size_t need)
{
	struct batch *b = p->cur;

	if (b->n == BATCH_ITEMS || (b->n && b->used + need > b->cap))
		if (hand_over(p) < 0)
			return -1;
	b = p->cur;
	if (need > b->cap) { /* one huge item in an empty batch */
		char *a = realloc(b->arena, need);

		if (!a)
			return scx_fail("out of memory");
		b->arena = a;
		b->cap = need;
	}
	return 0;
}

static int on_sample(void *ctx, const struct mem_record *r)
{
	struct onepass *p = ctx;
	struct batch *b;

	if (make_room(p, sample_conv_max(r)) < 0)
		return -1;
	b = p->cur;
	b->used += sample_conv(r, p->data_syms, &b->v[b->n++], b->arena + b->used);
	return 0;
}

static int on_sched_record(void *ctx, const struct sched_line *l)
{
	struct onepass *p = ctx;
	struct batch *b;
	size_t used, len;

	if (make_room(p, sched_conv_max(l)) < 0)
		return -1;
	b = p->cur;
	b->lineno[b->n] = ++p->lines;
	if (sched_conv(l, &b->ev[b->n], b->arena + b->used, &used)) {
		b->len[b->n++] = SIZE_MAX;
		b->used += used;
		return 0;
	}
	/* the rare record whose round trip is not plain: its line, parsed as extract would */
	jsonw_reset(&p->line);
	sched_jsonl_line(&p->line, l);
	if (p->line.oom)
		return scx_fail("out of memory");
	len = p->line.len - 1; /* without the newline */
	if (make_room(p, len) < 0)
		return -1;
	b = p->cur;
	b->lineno[b->n] = p->lines;
	memcpy(b->arena + b->used, p->line.buf, len);
	b->off[b->n] = b->used;
	b->len[b->n++] = len;
	b->used += len;
	return 0;
}

/*
 * Run decode (one of the process stage's streams into the sink) with the
 * aggregation on this thread or a second one; the last batch is handed
 * over at the end.
 */
static int run_stream(struct onepass *p, int (*decode)(struct onepass *p))
{
	pthread_t thread;
	void *bs[NR_BATCHES];
	int rc;

	p->threaded = p->o->jobs >= 2;
	for (size_t i = 0; i < NR_BATCHES; i++) {
		p->batches[i].n = p->batches[i].used = 0;
		bs[i] = &p->batches[i];
	}
	if (!p->threaded) {
		p->cur = &p->batches[0];
		rc = decode(p);
		return rc < 0 ? -1 : consume(p, p->cur);
	}
	bq_init(&p->q, bs, NR_BATCHES);
	p->cur = bq_take_free(&p->q);
	if (pthread_create(&thread, NULL, consumer_main, p) != 0) {
		bq_destroy(&p->q);
		return scx_fail("cannot start the aggregation thread");
	}
	rc = decode(p);
	if (rc == 0)
		bq_push(&p->q, p->cur);
	bq_close(&p->q);
	pthread_join(thread, NULL);
	if (p->q.failed) /* the aggregation's error is the cause */
		rc = scx_fail("%s", p->q.err);
	bq_destroy(&p->q);
	return rc < 0 ? -1 : 0;
}

static void process_opts_of(struct onepass *p, struct process_opts *po, struct process_sink *sink)
{
	memset(sink, 0, sizeof(*sink));
	sink->mem_sample = on_sample;
	sink->sched_record = on_sched_record;
	sink->ctx = p;
	sink->data_symbols = p->data_syms;
	memset(po, 0, sizeof(*po));
	po->in = &p->in;
	po->sink = sink;
	po->stop = p->o->stop;
}

/* The memory stream alone: the sched stream runs later, into its own consumer. */
static int decode_mem(struct onepass *p)
{
	struct process_inputs mem_only = p->in;
	struct process_outputs out = {0};
	struct process_sink sink;
	struct process_opts po;

	process_opts_of(p, &po, &sink);
	mem_only.sched_kind = SCHED_IN_NONE;
	mem_only.sched_path[0] = '\0';
	po.in = &mem_only;
	return process_run(&po, &out, p->res);
}

static int decode_sched(struct onepass *p)
{
	struct process_sink sink;
	struct process_opts po;

	process_opts_of(p, &po, &sink);
	return process_sched(&po, NULL, NULL, p->res);
}

static void report_warnings(struct onepass *p)
{
	if (p->o->on_warnings)
		p->o->on_warnings(p->o->warnings_ctx, &p->res->warnings);
}

static int op_samples(void *ctx, struct mem_agg *a)
{
	struct onepass *p = ctx;

	p->agg = a;
	p->sched = NULL;
	if (run_stream(p, decode_mem) < 0)
		return -1;
	p->agg = NULL;
	if (!p->decode_sched)
		report_warnings(p);
	return 0;
}

static int op_sched(void *ctx, struct mem_sched *m, const struct mem_agg *a)
{
	struct onepass *p = ctx;
	int rc;

	if (!p->decode_sched)
		return mem_sched_load(m, p->o->mem.sched_path, a) < 0 ? -1 : 1;
	if (mem_sched_begin(m, p->in.sched_path, a) < 0)
		return -1;
	if (!(p->reader = sched_events_open(NULL, p->in.sched_path)))
		return -1;
	p->sched = m;
	p->lines = 0;
	rc = run_stream(p, decode_sched);
	sched_events_close(p->reader);
	p->reader = NULL;
	p->sched = NULL;
	if (rc < 0)
		return -1;
	report_warnings(p);
	if (!p->lines) /* as an empty sched.jsonl: no scheduling stream */
		return 0;
	return mem_sched_end(m) < 0 ? -1 : 1;
}

int onepass_run(const struct onepass_opts *o, FILE *out, FILE *log)
{
	struct onepass *p = calloc(1, sizeof(*p));
	struct extract_mem_opts mo = o->mem;
	struct extract_mem_source src = {.samples = op_samples, .sched = op_sched};
	int rc = -1;

	if (!p || !(p->res = calloc(1, sizeof(*p->res)))) {
		free(p);
		return scx_fail("out of memory");
	}
	p->o = o;
	src.ctx = p;
	jsonw_init(&p->line);
	if (process_find_inputs(o->dir, &p->in) < 0)
		goto out;
	if (p->in.mem_kind == MEM_NONE) {
		scx_fail("%s: no memory stream (perf.mem.data, perf.data, perf.mem.script or perf.script): "
			 "nothing to extract a config from", o->dir);
		goto out;
	}
	if (batches_alloc(p) < 0)
		goto out;
	mo.path = p->in.mem_path; /* names the input; topology.json is looked for next to it */
	if (!mo.sched_path && p->in.sched_kind != SCHED_IN_NONE) {
		mo.sched_path = p->in.sched_path;
		p->decode_sched = true;
	}
	p->data_syms = mo.verbose > 0; /* only -v names shared objects */
	rc = extract_mem_run_source(&mo, &src, out, log);
out:
	batches_free(p);
	jsonw_free(&p->line);
	free(p->res);
	free(p);
	return rc;
}
