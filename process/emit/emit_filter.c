/*
 * emit_filter.c - the memory sink: upstream's sample filter (where process
 * drops a sample), hint annotation and buffered perf.jsonl output
 * shared by both memory input paths (see emit.h).
 */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/pftrace/perfetto_track.h"
#include "process/process_warn.h"

int emitter_init(struct emitter *e, const struct process_opts *opts, struct process_outputs *out,
		 struct process_result *res, struct hints_index *hints)
{
	memset(e, 0, sizeof(*e));
	e->opts = opts;
	e->out = out;
	e->res = res;
	e->hints = hints;
	jsonw_init(&e->w);
	e->fmt = mem_jsonl_ctx_new();
	if (!e->fmt)
		return scx_fail("out of memory");
	if (opts->in->has_metadata && record_self_read(opts->in->metadata_path, &e->self) < 0)
		process_warn(res, "cannot tell the recorder's own samples, kept: %s", scx_errmsg());
	if (opts->sink)
		return 0;
	return bgwriter_start(&e->writer, out->perf_jsonl, "perf.jsonl");
}

int emitter_start_pool(struct emitter *e)
{
	if (e->opts->sink || e->opts->jobs <= 1)
		return 0;
	e->pool = emit_pool_start((size_t)e->opts->jobs - 1, &e->writer, e->trace);
	return e->pool ? 0 : -1;
}

void emitter_free(struct emitter *e)
{
	emit_pool_free(e->pool);
	e->pool = NULL;
	bgwriter_finish(&e->writer);
	jsonw_free(&e->w);
	mem_jsonl_ctx_free(e->fmt);
}

static void log_skip(struct emitter *e, const char *why, const struct skip_view *v, uint64_t phys)
{
	FILE *log = e->opts->log;

	if (!e->opts->verbose || !log)
		return;
	if (v->raw) {
		fprintf(log, "skipped (%s): %.*s\n", why, (int)v->raw_len, v->raw);
		return;
	}
	fprintf(log, "skipped (%s): %16s %6lld/%-6lld %llu.%09llu: %16llx %16llx %16llx\n", why, v->comm,
		(long long)v->pid, (long long)v->tid, (unsigned long long)(v->time_ns / 1000000000ULL),
		(unsigned long long)(v->time_ns % 1000000000ULL), (unsigned long long)v->addr,
		(unsigned long long)v->ip, (unsigned long long)phys);
}

enum skip_reason emitter_filter(struct emitter *e, const struct skip_view *v, bool has_phys,
				uint64_t phys_addr)
{
	if (e->opts->no_filter)
		return KEEP;
	if (!has_phys || phys_addr == 0) {
		e->res->skipped_no_phys++;
		log_skip(e, "no phys_addr", v, phys_addr);
		return SKIP_NO_PHYS;
	}
	if (!strcmp(v->comm, "perf") || !strcmp(v->comm, "swapper")) {
		e->res->skipped_comm++;
		log_skip(e, "filtered comm", v, phys_addr);
		return SKIP_COMM;
	}
	if (record_self_owns(&e->self, v->pid, v->comm)) {
		e->res->skipped_recorder++;
		log_skip(e, "recorder", v, phys_addr);
		return SKIP_RECORDER;
	}
	return KEEP;
}

int emitter_flush(struct emitter *e)
{
	if (e->opts->sink)
		return 0;
	if (e->pool && emit_pool_finish(e->pool) < 0)
		return -1;
	if (bgwriter_submit(&e->writer, &e->w) < 0)
		return -1;
	return bgwriter_finish(&e->writer);
}

/* A kept record on this thread: trace, sink or line. */
static int write_here(struct emitter *e, struct mem_record *r)
{
	if (e->trace && pftrace_mem_sample(e->trace, r) < 0)
		return -1;
	if (e->opts->sink)
		return e->opts->sink->mem_sample(e->opts->sink->ctx, r);
	mem_jsonl_line(&e->w, r, e->fmt);
	if (e->w.len >= (1u << 20))
		return bgwriter_submit(&e->writer, &e->w);
	return 0;
}

int emitter_write(struct emitter *e, struct mem_record *r)
{
	r->hint = hints_lookup(e->hints, (uint32_t)r->tid, r->time_ns);
	e->res->kept++;
	if (e->pool)
		return emit_pool_add(e->pool, r);
	return write_here(e, r);
}

struct mem_record *emitter_record(struct emitter *e)
{
	return e->pool ? emit_pool_slot(e->pool) : &e->rec;
}

int emitter_commit(struct emitter *e, struct mem_record *r)
{
	r->hint = hints_lookup(e->hints, (uint32_t)r->tid, r->time_ns);
	e->res->kept++;
	if (e->pool) {
		emit_pool_commit(e->pool);
		return 0;
	}
	return write_here(e, r);
}
