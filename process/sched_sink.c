/*
 * sched_sink.c - the sink of the scheduling stream (see sched_sink.h)
 * and process_sched(), which runs the input path the profile has.
 */
#include "sched_sink.h"

#include <string.h>

#include "lib/error.h"
#include "process/emit.h"
#include "process/record_losses.h"
#include "process/sched_jsonl.h"

static void count_event(struct process_sched_result *r, const char *event)
{
	size_t i;

	for (i = 0; i < r->nr_events; i++)
		if (!strcmp(r->events[i].name, event)) {
			r->events[i].count++;
			return;
		}
	if (r->nr_events < PROCESS_SCHED_EVENTS && strlen(event) < sizeof(r->events[0].name)) {
		snprintf(r->events[r->nr_events].name, sizeof(r->events[0].name), "%s", event);
		r->events[r->nr_events++].count = 1;
	} else {
		r->other_events++;
	}
}

int sched_sink_emit(struct sched_sink *s, const char *comm, int64_t pid, int64_t tid, int64_t cpu,
		    uint64_t time_ns, const char *event, const char *trace, size_t trace_len,
		    const struct sched_decoded *d)
{
	struct sched_switch_info sw;
	struct sched_line l = {
		.comm = comm, .pid = pid, .tid = tid, .cpu = cpu, .time_ns = time_ns,
		.event = event, .trace = trace, .trace_len = trace_len,
	};

	if (tid >= 0 && tid <= UINT32_MAX)
		l.hint = hints_lookup(s->hints, (uint32_t)tid, time_ns);
	if (!strcmp(event, "sched:sched_switch") && sched_parse_switch(trace, trace_len, &sw)) {
		l.sw = &sw;
		if (sw.prev_pid >= 0 && sw.prev_pid <= UINT32_MAX)
			l.prev_hint = hints_lookup(s->hints, (uint32_t)sw.prev_pid, time_ns);
		if (sw.next_pid >= 0 && sw.next_pid <= UINT32_MAX)
			l.next_hint = hints_lookup(s->hints, (uint32_t)sw.next_pid, time_ns);
	}
	if (l.hint)
		s->res->hinted++;
	if (!s->res->parsed || time_ns < s->res->first_ns)
		s->res->first_ns = time_ns;
	if (time_ns > s->res->last_ns)
		s->res->last_ns = time_ns;
	s->res->parsed++;
	count_event(s->res, event);
	sched_jsonl_line(&s->w, &l);
	if (s->trace && d) {
		struct pftrace_sched_rec r = {
			.kind = d->kind, .time_ns = time_ns, .cpu = cpu, .tid = tid, .pid = pid, .comm = comm,
			.v = d->v, .tgid = d->tgid, .tgid2 = d->tgid2,
		};

		if (pftrace_sched(s->trace, &r) < 0)
			return -1;
	}
	if (s->w.len >= (1u << 20))
		return jsonw_flush_to(&s->w, s->out, "sched.jsonl");
	return 0;
}

void sched_sink_unparseable(struct sched_sink *s, const char *why)
{
	s->res->unparseable++;
	if (s->opts->verbose && s->opts->log)
		fprintf(s->opts->log, "unparseable: %s\n", why);
}

int sched_sink_flush(struct sched_sink *s)
{
	return jsonw_flush_to(&s->w, s->out, "sched.jsonl");
}

int sched_sink_check_stop(struct sched_sink *s)
{
	if (s->opts->stop && *s->opts->stop)
		return scx_fail("interrupted");
	return 0;
}

/* The recording's own losses (metadata.json): the analysis host never saw
 * record's warnings. A missing or unreadable metadata.json is said too. */
static void warn_record_losses(const struct process_inputs *in, struct process_result *res)
{
	struct record_losses l;

	if (!in->has_metadata)
		return;
	if (record_losses_read(in->metadata_path, &l) < 0) {
		process_warn(res, "cannot tell what the recording lost: %s", scx_errmsg());
		return;
	}
	if (l.sched_drops)
		process_warn(res, "the recording dropped %llu scheduling records (its ring buffer was full): "
			     "%s lacks them", (unsigned long long)l.sched_drops, in->sched_name);
	if (l.sched_skipped)
		process_warn(res, "the kernel skipped %llu nested scheduling tracepoint hits while recording "
			     "(metadata.json sched.skipped_nested_by_tracepoint): %s lacks them",
			     (unsigned long long)l.sched_skipped, in->sched_name);
}

int process_sched(const struct process_opts *opts, FILE *out, struct pftrace *trace, struct process_result *res)
{
	const struct process_inputs *in = opts->in;
	struct sched_sink s = {.opts = opts, .out = out, .res = &res->sched, .trace = trace};
	int rc;

	memset(&res->sched, 0, sizeof(res->sched));
	res->sched.present = true;
	if (in->has_hints) {
		/* an index of its own: lookup-order statistics stay the memory stream's */
		if (hints_load(&s.hints, in->hints_path, NULL) < 0)
			return -1;
	} else if (!(s.hints = hints_empty())) {
		return scx_fail("out of memory");
	}
	jsonw_init(&s.w);
	switch (in->sched_kind) {
	case SCHED_IN_DATA: rc = sched_read_data(&s, in->sched_path); break;
	case SCHED_IN_PERF_DATA: rc = sched_read_perfdata(&s, in->sched_path); break;
	case SCHED_IN_SCRIPT: rc = sched_read_script(&s, in->sched_path); break;
	default: rc = scx_fail("no scheduling stream"); break;
	}
	if (rc == 0)
		rc = sched_sink_flush(&s);
	if (rc == 0 && res->sched.truncated_bytes)
		process_warn(res, "%s: the last %llu bytes are not whole records (truncated or damaged file; ignored)",
			     in->sched_name,
			     (unsigned long long)res->sched.truncated_bytes);
	if (rc == 0 && res->sched.unknown_types)
		process_warn(res, "%s: %llu records of unknown types skipped", in->sched_name,
			     (unsigned long long)res->sched.unknown_types);
	if (rc == 0 && in->sched_kind == SCHED_IN_DATA)
		warn_record_losses(in, res);
	jsonw_free(&s.w);
	hints_free(s.hints);
	return rc;
}
