/*
 * test_sched_conv.c - one-pass extract's direct conversion of a process
 * scheduling record (pipeline/sched_conv.h) equals what extract's sched
 * reader parses from the sched.jsonl line process writes for it, field by
 * field; and the records it must leave to that round trip are refused.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extract/sched_events.h"
#include "lib/jsonw.h"
#include "pipeline/sched_conv.h"

static void same(const char *what, const char *a, const char *b)
{
	cr_assert_eq(a == NULL, b == NULL, "%s: '%s' vs '%s'", what, a ? a : "(null)", b ? b : "(null)");
	if (a)
		cr_assert_str_eq(a, b, "%s", what);
}

/* l through sched.jsonl and sched_events vs l through sched_conv; returns sched_conv's answer */
static struct sched_conv_cache cache;

static bool check_line(const struct sched_line *l)
{
	struct sched_reader *r = sched_events_open(NULL, "test");
	struct sched_event a, b;
	struct jsonw w;
	char *arena = malloc(sched_conv_max(l));
	size_t used = 0;
	bool ok;

	cr_assert(r && arena);
	jsonw_init(&w);
	sched_jsonl_line(&w, l);
	cr_assert_eq(sched_events_parse_line(r, 1, w.buf, w.len - 1, &a), 1, "%s", w.buf);
	ok = sched_conv(l, &cache, &b, arena, &used);
	if (ok) {
		cr_assert_leq(used, sched_conv_max(l));
		same("comm", a.comm, b.comm);
		same("event", a.event, b.event);
		same("trace", a.trace, b.trace);
		same("prev_comm", a.prev_comm, b.prev_comm);
		same("prev_state", a.prev_state, b.prev_state);
		same("next_comm", a.next_comm, b.next_comm);
		same("action", a.action, b.action);
		cr_assert_eq(a.pid, b.pid);
		cr_assert_eq(a.tid, b.tid);
		cr_assert_eq(a.cpu, b.cpu);
		cr_assert_eq(a.time_ns, b.time_ns);
		cr_assert_eq(a.time_ok, b.time_ok);
		cr_assert_eq(a.hint, b.hint);
		cr_assert_eq(a.kind, b.kind);
		cr_assert_eq(a.has_fields, b.has_fields);
		cr_assert_eq(a.prev_pid, b.prev_pid, "%s", w.buf);
		cr_assert_eq(a.next_pid, b.next_pid, "%s", w.buf);
		cr_assert_eq(a.next_hint, b.next_hint, "%s", w.buf);
		cr_assert_eq(a.f_pid, b.f_pid, "%s", w.buf);
		cr_assert_eq(a.target_cpu, b.target_cpu, "%s", w.buf);
		cr_assert_eq(a.dest_cpu, b.dest_cpu, "%s", w.buf);
	}
	jsonw_free(&w);
	sched_events_close(r);
	free(arena);
	return ok;
}

static struct sched_line line(const char *event, const char *trace)
{
	struct sched_line l = {
		.comm = "worker-1", .pid = 100, .tid = 101, .cpu = 3, .time_ns = 535508007333ULL,
		.event = event, .trace = trace, .trace_len = strlen(trace), .hint = 5,
	};
	return l;
}

Test(sched_conv, events_by_their_text)
{
	static const char *const texts[][2] = {
		{"sched:sched_waking", "comm=rcu_preempt pid=15 prio=120 target_cpu=000"},
		{"sched:sched_wakeup", "comm=a b pid=15 prio=120 target_cpu=001"},
		{"sched:sched_wakeup_new", "comm=x pid=-3 target_cpu=abc"},
		{"sched:sched_migrate_task", "comm=x pid=7 prio=120 orig_cpu=1 dest_cpu=0"},
		{"sched:sched_process_exit", "comm=x pid=7 prio=120"},
		{"sched:sched_process_exec", "filename=/bin/true pid=9 old_pid=9"},
		{"irq:softirq_entry", "vec=3 [action=NET_RX]"},
		{"irq:softirq_exit", "vec=1 [action=TIMER] [action=7]"},
		{"irq:irq_handler_entry", "irq=24 name=virtio0-input.0"},
		{"irq:irq_handler_exit", "irq=24 ret=handled"},
		{"sched:sched_switch", "prev_comm=a prev_pid=1 next_comm=b"}, /* not parseable: kv tokens? refused */
		{"x:other", ""},
		{"x:other", "   "},
		{"x:other", "pid=1 pid=2 pid=x next_hint=-4 next_hint=9 prev_pid=99999999999999999999 next_pid=-"},
		{"x:other", "prev_comm=1 prev_comm=two prev_state=R+ next_comm=3 action= =5 a==b [] [=] [x=]"},
		{"x:other", "  lead   trail  target_cpu=12345678901234567890123456789012 dest_cpu=0x10  "},
		{"x:other", "tab=\tvalue ctl=\x01 q=\"quoted\\\" k=v"},
		{"x:other", "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
			    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk=1 pid=4"},
	};
	size_t converted = 0;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct sched_line l = line(texts[i][0], texts[i][1]);

		converted += check_line(&l);
	}
	cr_assert_eq(converted, sizeof(texts) / sizeof(texts[0]) - 1, "all but the unparsed switch");
}

Test(sched_conv, parsed_switch)
{
	struct sched_switch_info sw;
	const char *t = "prev_comm=my task prev_pid=42 prev_prio=120 prev_state=R+ ==> next_comm=swapper/1 "
			"next_pid=0 next_prio=120";
	struct sched_line l = line("sched:sched_switch", t);

	cr_assert(sched_jsonl_parse_switch(t, strlen(t), &sw));
	l.sw = &sw;
	l.prev_hint = 3;
	l.next_hint = 9;
	cr_assert(check_line(&l));
}

Test(sched_conv, refused_records_go_the_json_way)
{
	struct sched_line l = line("nmi:nmi_handler", "perf_event_nmi_handler() delta_ns: 2000 handled: 1");

	cr_assert_not(check_line(&l), "nmi_handler");
	l = line("x:other", "comm=caf\xc3\xa9 pid=1");
	cr_assert_not(check_line(&l), "non-ASCII text");
	l = line("x:other", "pid=1");
	l.comm = "bad\xff";
	cr_assert_not(check_line(&l), "non-ASCII comm");
	l = line("x:other", "pid=1");
	l.pid = (int64_t)INT32_MAX + 1;
	cr_assert_not(sched_conv(&l, &cache, &(struct sched_event){0}, (char[256]){0}, &(size_t){0}), "pid beyond int32");
	l = line("x:other", "pid=1");
	l.time_ns = (uint64_t)INT64_MAX + 1;
	cr_assert_not(sched_conv(&l, &cache, &(struct sched_event){0}, (char[256]){0}, &(size_t){0}), "time beyond int64");
	l = line("sched:sched_switch", "garbage");
	cr_assert_not(check_line(&l), "switch text that did not parse");
}
