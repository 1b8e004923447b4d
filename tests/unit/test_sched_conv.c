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

#include "extract/sched/sched_events.h"
#include "lib/jsonw.h"
#include "pipeline/sched_conv.h"
#include "process/sched/sched_decode.h"

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
		if (l->trace) /* a record of values gets no text (sched_conv.h) */
			same("trace", a.trace, b.trace);
		else
			cr_assert_null(b.trace);
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

/*
 * A record of decoded values with no text (what sched_sink hands one pass
 * when sched_trace_plain): the line process writes from them is the line
 * of their text (sw parsed from it), byte for byte; sched_conv gives of
 * them what it gives of that text and what extract parses of the line.
 */
static const char *const vals_events[] = {
	[SK_SWITCH] = "sched:sched_switch", [SK_WAKEUP] = "sched:sched_wakeup",
	[SK_WAKEUP_NEW] = "sched:sched_wakeup_new", [SK_WAKING] = "sched:sched_waking",
	[SK_MIGRATE] = "sched:sched_migrate_task", [SK_EXIT] = "sched:sched_process_exit",
	[SK_EXEC] = "sched:sched_process_exec", [SK_FORK] = "sched:sched_process_fork",
	[SK_STAT_RUNTIME] = "sched:sched_stat_runtime", [SK_IRQ_ENTRY] = "irq:irq_handler_entry",
	[SK_IRQ_EXIT] = "irq:irq_handler_exit", [SK_SOFTIRQ_ENTRY] = "irq:softirq_entry",
	[SK_SOFTIRQ_EXIT] = "irq:softirq_exit", [SK_SOFTIRQ_RAISE] = "irq:softirq_raise",
	[SK_NMI] = "nmi:nmi_handler", [SK_TIMER_ENTRY] = "irq_vectors:local_timer_entry",
	[SK_TIMER_EXIT] = "irq_vectors:local_timer_exit", [SK_RESCHED_ENTRY] = "irq_vectors:reschedule_entry",
	[SK_RESCHED_EXIT] = "irq_vectors:reschedule_exit",
};

/* Both ways for v of kind k; returns sched_trace_plain (both ways agree only then). */
static bool check_vals(enum sched_kind k, const struct sched_vals *v)
{
	struct sched_switch_info sw_text, sw_vals;
	struct sched_line lt = line(vals_events[k], ""), lv;
	struct sched_event et, ev;
	struct jsonw wt, wv;
	char text[1024], at[2048], av[2048];
	size_t used;
	bool plain = sched_trace_plain(k, v);

	lt.trace_len = sched_trace_format(k, v, text, sizeof(text));
	lt.trace = text;
	lv = lt;
	lv.trace = NULL;
	lv.trace_len = 0;
	lv.kind = k;
	lv.v = v;
	if (k == SK_SWITCH) {
		bool parsed = sched_jsonl_parse_switch(lt.trace, lt.trace_len, &sw_text);

		sched_jsonl_switch_of(v, &sw_vals);
		if (plain) {
			cr_assert(parsed, "%s", text);
			cr_assert_str_eq(sw_text.prev_comm, sw_vals.prev_comm, "%s", text);
			cr_assert_str_eq(sw_text.next_comm, sw_vals.next_comm, "%s", text);
			cr_assert_str_eq(sw_text.prev_state, sw_vals.prev_state, "%s", text);
			cr_assert(sw_text.prev_pid == sw_vals.prev_pid && sw_text.prev_prio == sw_vals.prev_prio &&
				  sw_text.next_pid == sw_vals.next_pid && sw_text.next_prio == sw_vals.next_prio, "%s", text);
		}
		lt.sw = parsed ? &sw_text : NULL;
		lv.sw = &sw_vals;
		lt.prev_hint = lv.prev_hint = 4;
		lt.next_hint = lv.next_hint = 6;
	}
	if (!plain)
		return false;
	jsonw_init(&wt);
	jsonw_init(&wv);
	sched_jsonl_line(&wt, &lt);
	sched_jsonl_line(&wv, &lv);
	cr_assert_eq(wt.len, wv.len, "%.*s vs %.*s", (int)wt.len, wt.buf, (int)wv.len, wv.buf);
	cr_assert_eq(memcmp(wt.buf, wv.buf, wt.len), 0, "%.*s vs %.*s", (int)wt.len, wt.buf, (int)wv.len, wv.buf);
	cr_assert(check_line(&lv), "%s", text);
	cr_assert(sched_conv(&lt, &cache, &et, at, &used) && sched_conv(&lv, &cache, &ev, av, &used));
	cr_assert_eq(et.f_pid, ev.f_pid, "%s", text);
	cr_assert_eq(et.target_cpu, ev.target_cpu, "%s", text);
	cr_assert_eq(et.dest_cpu, ev.dest_cpu, "%s", text);
	cr_assert_str_eq(et.action, ev.action, "%s", text);
	jsonw_free(&wt);
	jsonw_free(&wv);
	return true;
}

static void vals_fill(struct sched_vals *v, unsigned seed)
{
	static const char *const comms[] = {"", "a", "kworker/0:1", "swapper/3", "Web Content", "x\ty", "q\"b\\s",
					    "123", "-4", "[bracket]", "0123456789abcdef"};
	static const char *const states[] = {"R", "R+", "S", "D", "I", "S|D", "X"};
	static const int64_t nums[] = {0, 1, -1, 7, 120, 139, 4242, 2147483647, -2147483648LL, INT64_MAX, INT64_MIN};
	unsigned r = seed * 2654435761u;

	memset(v, 0, sizeof(*v));
	snprintf(v->comm, sizeof(v->comm), "%s", comms[r % 11]);
	snprintf(v->comm2, sizeof(v->comm2), "%s", comms[(r >> 4) % 11]);
	snprintf(v->str, sizeof(v->str), "%s", (r >> 8) % 2 ? "/usr/bin/true" : comms[(r >> 9) % 11]);
	snprintf(v->state, sizeof(v->state), "%s", states[(r >> 12) % 7]);
	v->pid = nums[(r >> 15) % 11];
	v->pid2 = nums[(r >> 18) % 11];
	v->prio = nums[(r >> 21) % 11];
	v->prio2 = nums[(r >> 24) % 11];
	v->a0 = (r >> 27) % 2 ? nums[(r >> 28) % 11] : (int64_t)((r >> 28) % 12); /* softirq vectors with and without names */
	v->a1 = nums[(seed * 7) % 11];
	v->has_a0 = seed % 2;
	v->has_a1 = seed % 3 == 0;
}

Test(sched_conv, plain_values_without_text)
{
	size_t plain = 0, total = 0;

	for (int k = SK_SWITCH; k <= SK_RESCHED_EXIT; k++)
		for (unsigned seed = 0; seed < 300; seed++) {
			struct sched_vals v;

			vals_fill(&v, seed + (unsigned)k * 1000);
			plain += check_vals((enum sched_kind)k, &v);
			total++;
		}
	/* most are plain: every kind but nmi_handler, strings without ' ' or '=' */
	cr_assert_gt(plain, total / 2, "%zu of %zu", plain, total);
}

/* Values whose text does not give them back: sched_trace_plain says so. */
Test(sched_conv, values_whose_text_hides_keys_are_not_plain)
{
	struct sched_switch_info sw;
	struct sched_vals v;
	char text[1024];
	size_t n;

	vals_fill(&v, 1);
	snprintf(v.comm, sizeof(v.comm), "x prev_pid=7"); /* the parse takes prev_comm "x", prev_pid 7 */
	v.pid = 42;
	n = sched_trace_format(SK_SWITCH, &v, text, sizeof(text));
	cr_assert(sched_jsonl_parse_switch(text, n, &sw));
	cr_assert_eq(sw.prev_pid, 7);
	cr_assert_not(sched_trace_plain(SK_SWITCH, &v));
	snprintf(v.comm, sizeof(v.comm), "my task"); /* a switch's comm may hold spaces */
	cr_assert(sched_trace_plain(SK_SWITCH, &v));
	cr_assert(check_vals(SK_SWITCH, &v));
	snprintf(v.comm, sizeof(v.comm), "a target_cpu=9"); /* kv: a key in the comm */
	cr_assert_not(sched_trace_plain(SK_WAKEUP, &v));
	snprintf(v.comm, sizeof(v.comm), "a b"); /* kv: "comm":"a", a value other than the comm */
	cr_assert_not(sched_trace_plain(SK_WAKEUP, &v));
	snprintf(v.comm, sizeof(v.comm), "caf\xc3\xa9");
	cr_assert_not(sched_trace_plain(SK_EXIT, &v));
	snprintf(v.comm, sizeof(v.comm), "ok");
	snprintf(v.str, sizeof(v.str), "/bin/a=b");
	cr_assert_not(sched_trace_plain(SK_EXEC, &v));
	cr_assert_not(sched_trace_plain(SK_NMI, &v));
	cr_assert_not(sched_trace_plain(SK_UNKNOWN, &v));
}
