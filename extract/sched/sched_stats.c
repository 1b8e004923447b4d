/*
 * sched_stats.c - `extract sched stats` (see sched_stats.h), and the
 * per-thread read and feed extract mem uses. One pass (sched_stats_pass.c)
 * accumulates per thread and per CPU; process, comm, llc and node keys are
 * rolled up from those at the end (sched_stats_rows.c). Latencies are
 * stored (8 bytes per wakeup-to-run latency) so percentiles are exact.
 */
#include "extract/sched/sched_stats.h"
#include "extract/sched/sched_stats_internal.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/jsonw.h"

int sched_stats_parse_by(const char *s, enum sched_stats_by *by)
{
	static const char *const names[] = {"thread", "process", "comm", "cpu", "llc", "node"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return *by = (enum sched_stats_by)i, 0;
	return -1;
}

/* -v: the count and the first breaks, each with its uncredited gap. */
static void log_breaks(FILE *log, const struct sched_chain_breaks *b)
{
	size_t i;

	fprintf(log, "sched stats: %llu broken switch chains (a switch's prev_pid is not the task the CPU's last switch put there), %.3f ms credited to no thread\n",
		(unsigned long long)b->count, (double)b->uncredited_ns / 1e6);
	for (i = 0; i < b->count && i < SCHED_CHAIN_BREAKS_KEPT; i++)
		fprintf(log, "  cpu %lld at %.6f s: prev_pid %lld, expected %lld; %.3f ms not credited\n",
			(long long)b->first[i].cpu, (double)b->first[i].time_ns / 1e9, (long long)b->first[i].prev_pid,
			(long long)b->first[i].expected_pid, (double)b->first[i].gap_ns / 1e6);
	if (b->count > SCHED_CHAIN_BREAKS_KEPT)
		fprintf(log, "  ... %llu more\n", (unsigned long long)(b->count - SCHED_CHAIN_BREAKS_KEPT));
}

/* -v: the threads the bound folded, and why. */
static void log_folds(FILE *log, const struct stats *s)
{
	fprintf(log, "sched stats: folded %llu threads with %.3f ms runtime (the most a folded thread had: %.3f ms) in %llu rounds: more than %zu threads live (--max-threads); a round folds half, none running, those waiting for no wakeup and with the least runtime first; they are in no key (folded_threads), a folded tid seen again counts anew\n",
		(unsigned long long)s->folds.count, (double)s->folds.runtime_ns / 1e6,
		(double)s->folds.max_runtime_ns / 1e6, (unsigned long long)s->folds.rounds, s->max_threads);
}

int sched_stats_run(const struct sched_stats_opts *o, FILE *in, FILE *out, FILE *log)
{
	static const char *const names[] = {"thread", "process", "comm", "cpu", "llc", "node"};
	struct stats s = {.o = o, .max_threads = o->max_threads ? o->max_threads : SCHED_STATS_DEFAULT_MAX_THREADS};
	struct row *rows = NULL;
	size_t nrows = 0, i, cpu_count = 0, shown;
	uint64_t dur = 0;
	struct jsonw w;
	int rc = -1;

	if (sched_stats_collect(&s, in, o->path, &dur, &cpu_count) < 0)
		goto out;
	if (sched_stats_build_rows(&s, &rows, &nrows) < 0)
		goto out;
	if (o->verbose && log)
		log_breaks(log, &s.breaks);
	if (o->verbose && log && s.folds.count)
		log_folds(log, &s);
	sched_stats_sort_rows(rows, nrows, o->by);
	shown = o->limit > 0 && (size_t)o->limit < nrows ? (size_t)o->limit : nrows;
	jsonw_init(&w);
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "by", names[o->by]);
	jsonw_kv_u64(&w, "duration_ns", dur);
	jsonw_kv_u64(&w, "cpu_count", cpu_count);
	jsonw_kv_u64(&w, "keys_total", nrows);
	jsonw_key(&w, "broken_chains");
	jsonw_obj_open(&w);
	jsonw_kv_u64(&w, "count", s.breaks.count);
	jsonw_kv_u64(&w, "uncredited_ns", s.breaks.uncredited_ns);
	jsonw_obj_close(&w);
	if (s.folds.count) { /* only when the bound folded some: the output is otherwise the same as unbounded */
		jsonw_key(&w, "folded_threads");
		jsonw_obj_open(&w);
		jsonw_kv_u64(&w, "count", s.folds.count);
		jsonw_kv_u64(&w, "runtime_ns", s.folds.runtime_ns);
		jsonw_obj_close(&w);
	}
	jsonw_key(&w, "keys");
	jsonw_arr_open(&w);
	for (i = 0; i < shown; i++)
		sched_stats_put_row(&w, &s, &rows[i], dur);
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_newline(&w);
	rc = jsonw_flush_to(&w, out, "stdout");
	jsonw_free(&w);
out:
	for (i = 0; i < nrows; i++)
		free(rows[i].a.lat);
	free(rows);
	sched_stats_state_free(&s);
	return rc;
}

/* The per-thread results of s into out (comms and latencies moved). */
static int threads_result(struct stats *s, struct sched_threads *out)
{
	size_t i;

	out->breaks = s->breaks;
	out->dropped = s->dropped;
	out->dropped_runtime_ns = s->ignored.a.runtime;
	if (!(out->v = calloc(s->nthreads ? s->nthreads : 1, sizeof(*out->v))))
		return scx_fail("out of memory");
	for (i = 0; i < s->nthreads; i++) {
		struct thread *t = s->threads[i];
		struct sched_thread_stats *d = &out->v[out->n++];

		d->tid = t->tid;
		d->pid = t->pid;
		d->comm = t->comm; /* moved */
		t->comm = NULL;
		d->runtime = t->a.runtime;
		d->wakeups = t->a.wakeups;
		d->migrations = t->a.migrations;
		d->lat = t->a.lat; /* moved */
		d->nlat = t->a.nlat;
		t->a.lat = NULL;
		d->runs = t->runs; /* moved */
		d->nruns = t->nruns;
		t->runs = NULL;
	}
	return 0;
}

int sched_stats_threads_read(FILE *in, const char *path, sched_thread_keep_fn keep, void *ctx,
			     struct sched_threads *out)
{
	struct sched_stats_opts o = {.path = path, .by = BY_THREAD};
	struct stats s = {.o = &o, .keep = keep, .keep_ctx = ctx, .runs = true};
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (sched_stats_collect(&s, in, path, &out->duration_ns, &out->cpu_count) == 0)
		rc = threads_result(&s, out);
	sched_stats_state_free(&s);
	if (rc)
		sched_stats_threads_free(out);
	return rc;
}

struct sched_stats_feed {
	struct sched_stats_opts o;
	struct stats s;
};

struct sched_stats_feed *sched_stats_feed_new(const char *path, sched_thread_keep_fn keep, void *ctx)
{
	struct sched_stats_feed *f = calloc(1, sizeof(*f));

	if (!f) {
		scx_fail("out of memory");
		return NULL;
	}
	f->o.path = path;
	f->o.by = BY_THREAD;
	f->s.o = &f->o;
	f->s.keep = keep;
	f->s.keep_ctx = ctx;
	f->s.runs = true;
	sched_stats_collect_begin(&f->s);
	return f;
}

int sched_stats_feed_event(struct sched_stats_feed *f, const struct sched_event *ev)
{
	return sched_stats_collect_event(&f->s, ev);
}

int sched_stats_feed_set_keep(struct sched_stats_feed *f, sched_thread_keep_fn keep, void *ctx)
{
	return sched_stats_set_keep(&f->s, keep, ctx);
}

int sched_stats_feed_end(struct sched_stats_feed *f, struct sched_threads *out)
{
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (sched_stats_collect_end(&f->s, f->o.path, &out->duration_ns, &out->cpu_count) == 0)
		rc = threads_result(&f->s, out);
	sched_stats_feed_free(f);
	if (rc)
		sched_stats_threads_free(out);
	return rc;
}

void sched_stats_feed_free(struct sched_stats_feed *f)
{
	if (f) {
		sched_stats_state_free(&f->s);
		free(f);
	}
}

void sched_stats_threads_free(struct sched_threads *t)
{
	for (size_t i = 0; t->v && i < t->n; i++) {
		free(t->v[i].comm);
		free(t->v[i].lat);
		free(t->v[i].runs);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}
