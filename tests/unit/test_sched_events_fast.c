/*
 * test_sched_events_fast.c - the fast parser of our own sched.jsonl lines
 * (extract/sched/sched_events_fast.h) against json-c (sched_events_set_json_only)
 * field by field: on lines process's writer makes of generated records, on
 * lines of recordings (tests/fixtures/sched), and on hand-edited or broken
 * lines, which must give json-c's values or json-c's error line.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/sched/sched_events.h"
#include "extract/sched/sched_events_fast.h"
#include "lib/error.h"
#include "lib/jsonw.h"
#include "process/sched/sched_decode.h"

static void same(const char *what, const char *a, const char *b, const char *line)
{
	cr_assert_eq(a == NULL, b == NULL, "%s: '%s' vs '%s' in %s", what, a ? a : "(null)", b ? b : "(null)", line);
	if (a)
		cr_assert_str_eq(a, b, "%s in %s", what, line);
}

/* Both readers on a copy of text each; returns what the fast parser alone said (1 taken, 0 left to json-c). */
static int compare(const char *text)
{
	struct sched_reader *fast = sched_events_open(NULL, "f.jsonl"), *json = sched_events_open(NULL, "f.jsonl");
	size_t len = strlen(text);
	char *a = strdup(text), *b = strdup(text), *c = strdup(text), err[512];
	struct sched_event ea, eb;
	struct sched_fast_line ec;
	int ra, rb, taken;

	cr_assert(fast && json && a && b && c);
	sched_events_set_json_only(json, true);
	taken = sched_events_fast_parse(c, len, &ec);
	if (!taken)
		cr_assert_str_eq(c, text, "a line left to json-c is untouched");
	scx_clear_error();
	ra = sched_events_parse_line(fast, 7, a, len, &ea);
	snprintf(err, sizeof(err), "%s", scx_errmsg());
	scx_clear_error();
	rb = sched_events_parse_line(json, 7, b, len, &eb);
	cr_assert_eq(ra, rb, "%s: %d vs %d (%s / %s)", text, ra, rb, err, scx_errmsg());
	if (ra < 0)
		cr_assert_str_eq(err, scx_errmsg(), "%s", text);
	if (ra == 1) {
		same("comm", ea.comm, eb.comm, text);
		same("event", ea.event, eb.event, text);
		same("trace", ea.trace, eb.trace, text);
		same("prev_comm", ea.prev_comm, eb.prev_comm, text);
		same("prev_state", ea.prev_state, eb.prev_state, text);
		same("next_comm", ea.next_comm, eb.next_comm, text);
		same("action", ea.action, eb.action, text);
		cr_assert_eq(ea.pid, eb.pid, "%s", text);
		cr_assert_eq(ea.tid, eb.tid, "%s", text);
		cr_assert_eq(ea.cpu, eb.cpu, "%s", text);
		cr_assert_eq(ea.time_ns, eb.time_ns, "%s", text);
		cr_assert_eq(ea.time_ok, eb.time_ok, "%s", text);
		cr_assert_eq(ea.hint, eb.hint, "%s", text);
		cr_assert_eq(ea.kind, eb.kind, "%s", text);
		cr_assert_eq(ea.has_fields, eb.has_fields, "%s", text);
		cr_assert_eq(ea.prev_pid, eb.prev_pid, "%s", text);
		cr_assert_eq(ea.next_pid, eb.next_pid, "%s", text);
		cr_assert_eq(ea.next_hint, eb.next_hint, "%s", text);
		cr_assert_eq(ea.f_pid, eb.f_pid, "%s", text);
		cr_assert_eq(ea.target_cpu, eb.target_cpu, "%s", text);
		cr_assert_eq(ea.dest_cpu, eb.dest_cpu, "%s", text);
	}
	sched_events_close(fast);
	sched_events_close(json);
	free(a);
	free(b);
	free(c);
	return taken;
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *pick(const char *const *v, size_t n)
{
	return v[next() % n];
}

/* A run of 19 digits or more (beyond what the fast parser takes as an integer)? */
static bool long_number(const char *s)
{
	size_t run = 0;

	for (; *s; s++) {
		run = *s >= '0' && *s <= '9' ? run + 1 : 0;
		if (run >= 19)
			return true;
	}
	return false;
}

/* Records of every kind the writer formats, with comms and texts that need escapes now and then. */
Test(sched_events_fast, writer_lines_taken_and_equal_to_json_c)
{
	static const char *const comms[] = {"worker-1", "swapper/3", "a b", "caf\xc3\xa9", "q\"uote", "back\\slash",
					    "tab\there", "", "[unknown]", "kworker/u8:2"};
	static const char *const events[] = {"sched:sched_waking", "sched:sched_wakeup", "sched:sched_wakeup_new",
					     "sched:sched_migrate_task", "sched:sched_process_exit",
					     "sched:sched_process_exec", "sched:sched_process_fork", "irq:softirq_entry",
					     "irq:softirq_exit", "irq:irq_handler_entry", "irq:irq_handler_exit",
					     "irq_vectors:local_timer_entry", "nmi:nmi_handler", "x:other"};
	static const char *const texts[] = {
		"comm=rcu_preempt pid=15 prio=120 target_cpu=000", "comm=x pid=7 prio=120 orig_cpu=1 dest_cpu=0",
		"comm=x pid=-3 target_cpu=abc", "vec=3 [action=NET_RX]", "irq=24 name=virtio0-input.0",
		"filename=/bin/true pid=9 old_pid=9", "comm=x pid=7 prio=120 group_dead=true",
		"perf_event_nmi_handler() delta_ns: 2000 handled: 1", "vector=236", "",
		"pid=1 pid=2 next_hint=-4 prev_pid=99999999999999999999", "q=\"quoted\\\" k=v",
		"prev_comm=1 prev_comm=two action= =5"};
	size_t taken = 0, n = 4000;

	for (size_t i = 0; i < n; i++) {
		const char *event = pick(events, sizeof(events) / sizeof(events[0]));
		const char *trace = pick(texts, sizeof(texts) / sizeof(texts[0]));
		struct sched_line l = {
			.comm = pick(comms, sizeof(comms) / sizeof(comms[0])), .pid = (int64_t)(next() % 70000) - 1,
			.tid = (int64_t)(next() % 70000), .cpu = (int64_t)(next() % 300), .time_ns = next() >> (next() % 64),
			.event = event, .trace = trace, .trace_len = strlen(trace), .hint = next() % 3 ? 0 : next() >> 1,
		};
		struct sched_switch_info sw;
		struct jsonw w;

		if (next() % 3 == 0) {
			const char *t = next() % 2 ? "prev_comm=my task prev_pid=42 prev_prio=120 prev_state=R+ ==> "
						     "next_comm=swapper/1 next_pid=0 next_prio=120"
						   : "prev_comm=a\"b prev_pid=7 prev_prio=130 prev_state=S ==> next_comm=c "
						     "next_pid=8 next_prio=120";

			cr_assert(sched_jsonl_parse_switch(t, strlen(t), &sw));
			l.event = "sched:sched_switch";
			l.trace = t;
			l.trace_len = strlen(t);
			l.sw = &sw;
			l.prev_hint = next() % 4;
			l.next_hint = next() % 4;
		}
		jsonw_init(&w);
		sched_jsonl_line(&w, &l);
		w.buf[w.len - 1] = '\0'; /* the newline */
		if (compare(w.buf))
			taken++;
		else
			cr_assert(strchr(w.buf, '\\') || long_number(w.buf),
				  "a writer line without escapes or 19-digit numbers is taken: %s", w.buf);
		jsonw_free(&w);
	}
	cr_assert_gt(taken, n / 4, "the writer lines without escapes or long numbers go the fast way (%zu of %zu)", taken, n);
}

/* Lines of recordings and of the suite's fixtures (upstream's shape too: "time" as text, no time_ns). */
Test(sched_events_fast, recorded_and_fixture_lines)
{
	static const char *const files[] = {"tests/fixtures/sched/process_lines.jsonl",
					    "tests/fixtures/sched/stats_basic.jsonl",
					    "tests/fixtures/sched/util_rules.jsonl",
					    "tests/fixtures/sched/upstream_hint_split.jsonl",
					    "tests/fixtures/extract/sched-demand/sched.jsonl"};
	const char *top = getenv("TOP");
	size_t lines = 0, taken = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[4096], *line = NULL;
		size_t cap = 0;
		ssize_t n;
		FILE *f;

		snprintf(path, sizeof(path), "%s%s%s", top ? top : "", top ? "/" : "", files[i]);
		cr_assert_not_null(f = fopen(path, "r"), "%s", path);
		while ((n = getline(&line, &cap, f)) > 0) {
			if (line[n - 1] == '\n')
				line[n - 1] = '\0';
			if (!*line)
				continue;
			lines++;
			taken += compare(line) == 1;
		}
		free(line);
		fclose(f);
	}
	cr_assert_geq(lines, 95, "%zu lines", lines);
	cr_assert_geq(taken, 42, "process's own lines are all taken (%zu of %zu)", taken, lines);
}

/* Edited or broken lines: json-c's values or json-c's error, never the fast parser's own idea. */
Test(sched_events_fast, hostile_lines_as_json_c)
{
	static const char *const base = "{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.000000005,"
					"\"event\":\"sched:sched_wakeup\",\"trace\":\"t\",\"fields\":{\"pid\":9,"
					"\"target_cpu\":1},\"hint\":0,\"time_ns\":4000000005}";
	static const char *const lines[] = {
		"{\"comm\" :\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":01,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":-0,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":-1,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":2147483648,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":4294967296,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":1e3,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":-4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":null,\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":[],\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":-1}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":null}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{}}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0,\"time_ns\":-5}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0,\"time_ns\":1.5}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0,\"x\":1}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0} x",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{\"pid\":1,\"pid\":2},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{\"pid\":\"7\",\"prev_comm\":5,\"next_hint\":-3,\"x\":1.5},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{\"pid\":\"7\",\"prev_comm\":5,\"next_hint\":-3,\"dest_cpu\":true},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{\"a\":{}},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{\"next_pid\":123456789012345678},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{\"next_pid\":1234567890123456789012},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{\"next_pid\":-12},\"hint\":0}",
		"{\"comm\":\"a\\u0000b\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\x01\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"\xff\xfe\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":\"4.5\",\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"pid\":1,\"comm\":\"a\",\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":4.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0,\"time_ns\":9223372036854775808}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":99999999999999999999.5,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":18446744073.709551616,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"{\"comm\":\"a\",\"pid\":1,\"tid\":2,\"cpu\":3,\"time\":0.0000000005,\"event\":\"e:f\",\"trace\":\"\",\"fields\":{},\"hint\":0}",
		"[1,2]",
		"{}",
		"{\"comm\":",
	};
	size_t taken = 0;

	cr_assert_eq(compare(base), 1, "the base line is taken");
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		taken += compare(lines[i]);
	/* every prefix of the base line: truncated input */
	for (size_t n = 0; n < strlen(base); n++) {
		char cut[512];

		memcpy(cut, base, n);
		cut[n] = '\0';
		if (n)
			cr_assert_eq(compare(cut), 0, "a cut line is left to json-c: %s", cut);
	}
	cr_assert_gt(taken, 0);
}
