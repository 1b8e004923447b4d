/*
 * sched_sink.c - the sink of the scheduling stream (see sched_sink.h).
 */
#include "sched_sink.h"

#include <string.h>

#include "lib/error.h"
#include "lib/pftrace/perfetto_sched.h"
#include "process/sched/sched_decode.h"

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
	char text[1024];
	bool is_switch = !strcmp(event, "sched:sched_switch"), parsed;

	if (s->names)
		return thread_names_note_record(s->names, comm, tid, time_ns, d ? d->kind : SK_UNKNOWN,
						d ? d->v : NULL);
	if (!trace && sched_trace_plain(d->kind, d->v)) { /* the text only if a line is written */
		l.kind = d->kind;
		l.v = d->v;
		l.trace_len = 0;
		parsed = is_switch;
		if (parsed)
			sched_jsonl_switch_of(d->v, &sw);
	} else {
		if (!trace) {
			l.trace_len = sched_trace_format(d->kind, d->v, text, sizeof(text));
			l.trace = text;
		}
		parsed = is_switch && sched_jsonl_parse_switch(l.trace, l.trace_len, &sw);
	}
	if (tid >= 0 && tid <= UINT32_MAX)
		l.hint = hints_lookup(s->hints, (uint32_t)tid, time_ns);
	if (parsed) {
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
	if (s->opts->sink) { /* one-pass extract: the record, not the line */
		if (s->opts->sink->sched_record(s->opts->sink->ctx, &l))
			return -1;
	} else {
		sched_jsonl_line(&s->w, &l);
	}
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
	if (s->opts->sink)
		return 0;
	return jsonw_flush_to(&s->w, s->out, "sched.jsonl");
}

int sched_sink_check_stop(struct sched_sink *s)
{
	if (s->opts->stop && *s->opts->stop)
		return scx_fail("interrupted");
	return 0;
}
