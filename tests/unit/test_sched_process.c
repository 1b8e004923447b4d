/*
 * test_sched_process.c - unit tests of the process side of the scheduling
 * stream: tracefs format parsing and raw field decoding (sched_tracefmt.c),
 * hostile tracing data, trace text and task states (sched_trace.c),
 * sched_switch text parsing (sched_jsonl.c) and perf.sched.script lines
 * (sched_script.c).
 */
#include "process/sched/sched_decode.h"
#include "process/sched/sched_script.h"
#include "process/sched/sched_tracefmt.h"

#include "lib/error.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static const char switch_fmt[] =
	"name: sched_switch\n"
	"ID: 316\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d\", REC->prev_comm, REC->prev_pid\n";

static const char exec_fmt[] =
	"name: sched_process_exec\nID: 365\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\nprint fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, REC->old_pid\n";

Test(sched_tracefmt, parses_sched_switch_and_decodes)
{
	struct tf_event ev;
	uint8_t raw[64] = {0};
	int32_t pid = 1234, prio = 120, npid = 0;
	int64_t state = 0x100, v;
	char s[32];

	cr_assert_eq(tf_parse_format(&ev, "sched", switch_fmt, strlen(switch_fmt)), 0, "%s", scx_errmsg());
	cr_assert_eq(ev.id, 316);
	cr_assert_str_eq(ev.name, "sched_switch");
	cr_assert_eq(ev.nr_fields, 11);
	cr_assert(ev.fields[0].common && !ev.fields[4].common);
	cr_assert(ev.fields[4].is_char_array);
	cr_assert_str_eq(ev.fields[4].name, "prev_comm");
	cr_assert_str_eq(ev.fields[4].type, "char[16]");
	cr_assert_not_null(ev.print_fmt);
	memcpy(raw + 8, "perf", 4);
	memcpy(raw + 24, &pid, 4);
	memcpy(raw + 28, &prio, 4);
	memcpy(raw + 32, &state, 8);
	memcpy(raw + 40, "swapper/0", 9);
	memcpy(raw + 56, &npid, 4);
	cr_assert(tf_get_str(&ev, "prev_comm", raw, sizeof(raw), s, sizeof(s)));
	cr_assert_str_eq(s, "perf");
	cr_assert(tf_get_int(&ev, "prev_pid", raw, sizeof(raw), &v) && v == 1234);
	cr_assert(tf_get_int(&ev, "prev_state", raw, sizeof(raw), &v) && v == 0x100);
	/* fields beyond a short raw buffer read as absent */
	cr_assert_not(tf_get_int(&ev, "next_prio", raw, 60, &v));
	cr_assert_not(tf_get_str(&ev, "next_comm", raw, 50, s, sizeof(s)));
	cr_assert_not(tf_get_int(&ev, "no_such_field", raw, sizeof(raw), &v));
	tf_event_free(&ev);
}

Test(sched_tracefmt, data_loc_bounds)
{
	struct tf_event ev;
	uint8_t raw[32] = {0};
	uint32_t loc = (8u << 16) | 20;
	char s[64];

	cr_assert_eq(tf_parse_format(&ev, "sched", exec_fmt, strlen(exec_fmt)), 0, "%s", scx_errmsg());
	cr_assert(ev.fields[1].is_data_loc);
	memcpy(raw + 8, &loc, 4);
	memcpy(raw + 20, "/bin/ls\0", 8);
	cr_assert(tf_get_str(&ev, "filename", raw, sizeof(raw), s, sizeof(s)));
	cr_assert_str_eq(s, "/bin/ls");
	loc = (200u << 16) | 20; /* length past the end */
	memcpy(raw + 8, &loc, 4);
	cr_assert_not(tf_get_str(&ev, "filename", raw, sizeof(raw), s, sizeof(s)));
	loc = (4u << 16) | 0xfff0; /* offset past the end */
	memcpy(raw + 8, &loc, 4);
	cr_assert_not(tf_get_str(&ev, "filename", raw, sizeof(raw), s, sizeof(s)));
	tf_event_free(&ev);
}

Test(sched_tracefmt, bad_format_files)
{
	struct tf_event ev;
	const char *bad[] = {
		"name: x\nformat:\n",                                   /* no ID */
		"ID: 5\nformat:\n",                                     /* no name */
		"name: x\nID: 5\n\tfield:int a\toffset:0;\tsize:4;\n",  /* no ';' after the declaration */
		"name: x\nID: 5\n\tfield:int a;\tsize:4;\n",            /* no offset */
		"name: x\nID: 99999999999\n",                           /* ID out of range */
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(tf_parse_format(&ev, "s", bad[i], strlen(bad[i])), -1, "accepted case %zu", i);
}

/* A tracing data blob with one system holding sched_switch. */
static size_t make_blob(uint8_t *b, size_t cap)
{
	size_t n = 0;
	uint64_t sz;
	uint32_t c;

#define PUT(p, l) do { cr_assert(n + (l) <= cap); memcpy(b + n, (p), (l)); n += (l); } while (0)
	PUT("\027\010\104tracing", 10);
	PUT("0.6", 4);
	PUT("\0\010", 2);
	c = 4096;
	PUT(&c, 4);
	PUT("header_page", 12);
	sz = 3;
	PUT(&sz, 8);
	PUT("abc", 3);
	PUT("header_event", 13);
	sz = 0;
	PUT(&sz, 8);
	c = 0;
	PUT(&c, 4); /* no ftrace events */
	c = 1;
	PUT(&c, 4);
	PUT("sched", 6);
	PUT(&c, 4);
	sz = strlen(switch_fmt);
	PUT(&sz, 8);
	PUT(switch_fmt, strlen(switch_fmt));
	{
		const char ks[] = "ffffffff81000000 T _stext\nffffffff81001000 t perf_event_nmi_handler\n";

		c = (uint32_t)strlen(ks);
		PUT(&c, 4);
		PUT(ks, strlen(ks));
	}
#undef PUT
	return n;
}

Test(sched_tracefmt, whole_blob_and_every_truncation)
{
	uint8_t b[4096];
	size_t n = make_blob(b, sizeof(b)), cut;
	struct tf_data d;

	cr_assert_eq(tf_parse(&d, b, n), 0, "%s", scx_errmsg());
	cr_assert_eq(d.nr_events, 1);
	cr_assert_not_null(tf_event_by_id(&d, 316));
	cr_assert_null(tf_event_by_id(&d, 317));
	cr_assert_str_eq(tf_ksym(&d, 0xffffffff81001000ULL), "perf_event_nmi_handler");
	cr_assert_str_eq(tf_ksym(&d, 0xffffffff81000010ULL), "_stext");
	tf_free(&d);
	/* every truncation before the kallsyms part fails cleanly, none crashes */
	for (cut = 0; cut < n; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		int rc;

		memcpy(copy, b, cut);
		rc = tf_parse(&d, copy, cut);
		if (rc == 0)
			tf_free(&d);
		free(copy);
	}
	/* a section size larger than the data */
	b[10 + 4 + 2 + 4 + 12] = 0xff;
	cr_assert_eq(tf_parse(&d, b, n), -1);
}

Test(sched_trace, states_and_texts)
{
	char s[32], t[512];
	struct sched_vals v = {0};

	sched_trace_state_from_report(0, s, sizeof(s));
	cr_assert_str_eq(s, "R");
	sched_trace_state_from_report(0x100, s, sizeof(s));
	cr_assert_str_eq(s, "R+");
	sched_trace_state_from_report(0x1, s, sizeof(s));
	cr_assert_str_eq(s, "S");
	sched_trace_state_from_report(0x80, s, sizeof(s));
	cr_assert_str_eq(s, "I");
	sched_trace_state_from_report(0x3, s, sizeof(s));
	cr_assert_str_eq(s, "S|D");
	sched_trace_state_from_raw(0, false, s, sizeof(s));
	cr_assert_str_eq(s, "R");
	sched_trace_state_from_raw(1, true, s, sizeof(s));
	cr_assert_str_eq(s, "R+");
	sched_trace_state_from_raw(0x402, false, s, sizeof(s));
	cr_assert_str_eq(s, "I");
	sched_trace_state_from_raw(0x2, false, s, sizeof(s));
	cr_assert_str_eq(s, "D");
	sched_trace_state_from_raw(0x20, false, s, sizeof(s));
	cr_assert_str_eq(s, "Z");
	v.a0 = 3;
	sched_trace_format(SK_SOFTIRQ_RAISE, &v, t, sizeof(t));
	cr_assert_str_eq(t, "vec=3 [action=NET_RX]");
	v.a0 = 42;
	sched_trace_format(SK_SOFTIRQ_ENTRY, &v, t, sizeof(t));
	cr_assert_str_eq(t, "vec=42 [action=42]");
	snprintf(v.comm, sizeof(v.comm), "a b");
	v.pid = 7;
	v.prio = 120;
	v.a0 = 2;
	sched_trace_format(SK_WAKEUP, &v, t, sizeof(t));
	cr_assert_str_eq(t, "comm=a b pid=7 prio=120 target_cpu=002");
	cr_assert_eq(sched_trace_kind_of("sched", "sched_switch"), SK_SWITCH);
	cr_assert_eq(sched_trace_kind_of("irq", "sched_switch"), SK_UNKNOWN);
	/* a tiny buffer truncates, never overflows */
	cr_assert_eq(sched_trace_format(SK_WAKEUP, &v, t, 5), 4);
}

Test(sched_jsonl, switch_text_with_spaces)
{
	struct sched_switch_info si;
	const char *t = "prev_comm=alpha worker prev_pid=2001 prev_prio=120 prev_state=R+ ==> "
			"next_comm=swapper/3 next_pid=0 next_prio=120";

	cr_assert(sched_jsonl_parse_switch(t, strlen(t), &si));
	cr_assert_str_eq(si.prev_comm, "alpha worker");
	cr_assert_eq(si.prev_pid, 2001);
	cr_assert_str_eq(si.prev_state, "R+");
	cr_assert_str_eq(si.next_comm, "swapper/3");
	cr_assert_eq(si.next_pid, 0);
	cr_assert_eq(si.next_prio, 120);
	cr_assert_not(sched_jsonl_parse_switch("prev_comm=x prev_pid=1", 22, &si));
	cr_assert_not(sched_jsonl_parse_switch("prev_comm=x prev_pid=a prev_prio=1 prev_state=S ==> next_comm=y next_pid=1 next_prio=1",
					 87, &si));
}

Test(sched_jsonl, line_format)
{
	struct jsonw w;
	const char *t = "vec=9 [action=RCU]";
	struct sched_line l = {.comm = "ksoftirqd/1", .pid = 20, .tid = 20, .cpu = 1, .time_ns = 12000000345ULL,
			       .event = "irq:softirq_entry", .trace = t, .trace_len = strlen(t), .hint = 3};

	jsonw_init(&w);
	sched_jsonl_line(&w, &l);
	cr_assert_eq(w.len, strlen("{\"comm\":\"ksoftirqd/1\",\"pid\":20,\"tid\":20,\"cpu\":1,\"time\":12.000000345,"
				   "\"event\":\"irq:softirq_entry\",\"trace\":\"vec=9 [action=RCU]\","
				   "\"fields\":{\"vec\":9,\"action\":\"RCU\"},\"hint\":3,\"time_ns\":12000000345}\n"));
	cr_assert(!memcmp(w.buf, "{\"comm\":\"ksoftirqd/1\",\"pid\":20,\"tid\":20,\"cpu\":1,\"time\":12.000000345,"
			  "\"event\":\"irq:softirq_entry\",\"trace\":\"vec=9 [action=RCU]\","
			  "\"fields\":{\"vec\":9,\"action\":\"RCU\"},\"hint\":3,\"time_ns\":12000000345}\n", w.len),
		  "%.*s", (int)w.len, w.buf);
	jsonw_free(&w);
}

Test(sched_script, lines)
{
	struct sched_script_line l;
	const char *a = " kworker/0:1H-kb    44/44    [000]  4125.110548605: sched:sched_switch: prev_comm=x "
			"prev_pid=44 prev_prio=100 prev_state=I ==> next_comm=swapper/0 next_pid=0 next_prio=120";
	const char *b = "alpha worker 1000/2001 [003] 12.345678: irq:softirq_entry: vec=3 [action=NET_RX]";
	const char *c = "alpha 12/3 x 1000/2001 12.5: sched:sched_wakeup: comm=a pid=1 prio=1 target_cpu=001";

	cr_assert_eq(sched_script_parse_line(a, strlen(a), &l), 0, "%s", scx_errmsg());
	cr_assert_str_eq(l.comm, "kworker/0:1H-kb");
	cr_assert_eq(l.pid, 44);
	cr_assert_eq(l.cpu, 0);
	cr_assert_eq(l.time_ns, 4125110548605ULL);
	cr_assert_str_eq(l.event, "sched:sched_switch");
	cr_assert(!strncmp(l.trace, "prev_comm=x", 11));
	cr_assert_eq(sched_script_parse_line(b, strlen(b), &l), 0, "%s", scx_errmsg());
	cr_assert_str_eq(l.comm, "alpha worker");
	cr_assert_eq(l.pid, 1000);
	cr_assert_eq(l.tid, 2001);
	cr_assert_eq(l.cpu, 3);
	cr_assert_eq(l.time_ns, 12345678000ULL);
	cr_assert_eq(l.trace_len, strlen("vec=3 [action=NET_RX]"));
	cr_assert_eq(sched_script_parse_line(c, strlen(c), &l), 0, "%s", scx_errmsg());
	cr_assert_str_eq(l.comm, "alpha 12/3 x");
	cr_assert_eq(l.cpu, -1);
	cr_assert_eq(l.time_ns, 12500000000ULL);
	cr_assert_eq(sched_script_parse_line("", 0, &l), -1);
	cr_assert_eq(sched_script_parse_line("# comment", 9, &l), -1);
	cr_assert_eq(sched_script_parse_line("perf 1/1 [000] 1.0 x", 20, &l), -1);
	cr_assert_eq(sched_script_parse_line("perf 1/1 [000] 1.5: noevent", 27, &l), -1);
}

/* perf script prints the sample's pid/tid u32 with %d: a thread switched out
 * for the last time after it exited has tid -1 (the kernel's
 * perf_event_pid_type), comm ":-1". Such a line was "unparseable" while the
 * same record read from perf.data was not (seen under load: text 1-17
 * records short of perf.sched.data). Line from a recording here. */
Test(sched_script, negative_pid_tid_as_perf_prints_them)
{
	struct sched_script_line l;
	const char *a = "             :-1 24659/-1    [000] 11444.060723: sched:sched_switch: prev_comm=memfd:sealed-91 "
			"prev_pid=6156 prev_prio=120 prev_state=R+ ==> next_comm=memfd:sealed-91 next_pid=24659 next_prio=120";
	const char *b = "x -2147483648/-1 [001] 1.5: sched:sched_wakeup: comm=a pid=1 prio=1 target_cpu=001";
	const char *c = "x -2147483649/1 [001] 1.5: sched:sched_wakeup: comm=a pid=1 prio=1 target_cpu=001";
	const char *d = "x 1/2147483648 [001] 1.5: sched:sched_wakeup: comm=a pid=1 prio=1 target_cpu=001";
	const char *e = "x 1/- [001] 1.5: sched:sched_wakeup: comm=a pid=1 prio=1 target_cpu=001";

	cr_assert_eq(sched_script_parse_line(a, strlen(a), &l), 0, "%s", scx_errmsg());
	cr_assert_str_eq(l.comm, ":-1");
	cr_assert_eq(l.pid, 24659);
	cr_assert_eq(l.tid, -1);
	cr_assert_eq(l.cpu, 0);
	cr_assert_eq(l.time_ns, 11444060723000ULL);
	cr_assert_eq(sched_script_parse_line(b, strlen(b), &l), 0, "%s", scx_errmsg());
	cr_assert_eq(l.pid, INT32_MIN);
	cr_assert_eq(l.tid, -1);
	cr_assert_eq(sched_script_parse_line(c, strlen(c), &l), -1, "pid below int32");
	cr_assert_eq(sched_script_parse_line(d, strlen(d), &l), -1, "tid above int32");
	cr_assert_eq(sched_script_parse_line(e, strlen(e), &l), -1, "a sign without digits");
}
