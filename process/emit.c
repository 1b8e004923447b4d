/*
 * emit.c - sample filtering, hint annotation and buffered perf.jsonl output
 * shared by both memory input paths (see emit.h).
 */
#include "emit.h"

#include <stdarg.h>
#include <string.h>

#include "lib/error.h"

void emitter_init(struct emitter *e, const struct process_opts *opts, struct process_outputs *out,
		  struct process_result *res, struct hints_index *hints)
{
	memset(e, 0, sizeof(*e));
	e->opts = opts;
	e->out = out;
	e->res = res;
	e->hints = hints;
	jsonw_init(&e->w);
}

void emitter_free(struct emitter *e)
{
	jsonw_free(&e->w);
}

static void log_skip(struct emitter *e, const char *why, const char *comm, int64_t pid,
		     int64_t tid, uint64_t time_ns)
{
	if (e->opts->verbose && e->opts->log)
		fprintf(e->opts->log, "skipped (%s): %s %lld/%lld %llu.%09llu\n", why, comm,
			(long long)pid, (long long)tid, (unsigned long long)(time_ns / 1000000000ULL),
			(unsigned long long)(time_ns % 1000000000ULL));
}

enum skip_reason emitter_filter(struct emitter *e, const char *comm, int64_t pid, int64_t tid,
				uint64_t time_ns, bool has_phys, uint64_t phys_addr)
{
	if (e->opts->no_filter)
		return KEEP;
	if (!has_phys || phys_addr == 0) {
		e->res->skipped_no_phys++;
		log_skip(e, "no phys_addr", comm, pid, tid, time_ns);
		return SKIP_NO_PHYS;
	}
	if (!strcmp(comm, "perf") || !strcmp(comm, "swapper")) {
		e->res->skipped_comm++;
		log_skip(e, "filtered comm", comm, pid, tid, time_ns);
		return SKIP_COMM;
	}
	return KEEP;
}

int emitter_flush(struct emitter *e)
{
	return jsonw_flush_to(&e->w, e->out->perf_jsonl, "perf.jsonl");
}

int emitter_write(struct emitter *e, struct mem_record *r)
{
	r->hint = hints_lookup(e->hints, (uint32_t)r->tid, r->time_ns);
	mem_jsonl_line(&e->w, r);
	e->res->kept++;
	if (e->w.len >= (256u << 10))
		return emitter_flush(e);
	return 0;
}

void process_warn(struct process_result *res, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (i = 0; i < res->nr_warnings; i++)
		if (!strcmp(res->warnings[i], msg))
			return;
	if (res->nr_warnings < PROCESS_MAX_WARNINGS)
		memcpy(res->warnings[res->nr_warnings++], msg, sizeof(msg));
}
