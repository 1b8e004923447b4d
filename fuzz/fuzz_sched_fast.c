/*
 * fuzz_sched_fast.c - libFuzzer target for the fast parser of our own
 * sched.jsonl lines (extract/sched/sched_events_fast.c), differential against
 * json-c through the same reader (sched_events_set_json_only).
 *
 * Each input line (split at '\n') goes through both readers. Invariants,
 * besides no crash:
 *  - same return (1 event, 0 blank, -1 error) and, on error, the same
 *    message (a line the fast parser leaves to json-c gets json-c's error);
 *  - on an event, every field of struct sched_event equal (strings by
 *    content, NULL-ness included);
 *  - a line the fast parser alone refuses is left byte for byte unchanged.
 * Seeds: fuzz/corpus/sched_fast/ (process's lines of a recording, upstream's
 * shape, duplicate keys, edits json-c refuses).
 */
#include "extract/sched/sched_events.h"
#include "extract/sched/sched_events_fast.h"
#include "fuzz/fuzz_util.h"
#include "lib/error.h"

static struct sched_reader *fast, *json;

static bool same_str(const char *a, const char *b)
{
	return (a == NULL) == (b == NULL) && (!a || !strcmp(a, b));
}

static void one_line(const char *text, size_t len)
{
	char *a = malloc(len + 1), *b = malloc(len + 1), *c = malloc(len + 1), err[1024];
	struct sched_event ea, eb;
	struct sched_fast_line ec;
	int ra, rb;

	if (!a || !b || !c)
		abort();
	memcpy(a, text, len);
	memcpy(b, text, len);
	memcpy(c, text, len);
	a[len] = b[len] = c[len] = '\0';
	if (!sched_events_fast_parse(c, len, &ec))
		FUZZ_CHECK(!memcmp(c, text, len), "a refused line was changed");
	scx_clear_error();
	ra = sched_events_parse_line(fast, 1, a, len, &ea);
	snprintf(err, sizeof(err), "%s", scx_errmsg());
	scx_clear_error();
	rb = sched_events_parse_line(json, 1, b, len, &eb);
	FUZZ_CHECK(ra == rb, "fast reader %d (%s), json-c %d (%s)", ra, err, rb, scx_errmsg());
	if (ra < 0)
		FUZZ_CHECK(!strcmp(err, scx_errmsg()), "errors '%s' vs '%s'", err, scx_errmsg());
	if (ra == 1) {
		FUZZ_CHECK(same_str(ea.comm, eb.comm) && same_str(ea.event, eb.event) && same_str(ea.trace, eb.trace),
			   "comm/event/trace differ");
		FUZZ_CHECK(same_str(ea.prev_comm, eb.prev_comm) && same_str(ea.prev_state, eb.prev_state) &&
				   same_str(ea.next_comm, eb.next_comm) && same_str(ea.action, eb.action),
			   "fields strings differ");
		FUZZ_CHECK(ea.pid == eb.pid && ea.tid == eb.tid && ea.cpu == eb.cpu, "pid/tid/cpu differ");
		FUZZ_CHECK(ea.time_ns == eb.time_ns && ea.time_ok == eb.time_ok, "time differs: %llu/%d vs %llu/%d",
			   (unsigned long long)ea.time_ns, ea.time_ok, (unsigned long long)eb.time_ns, eb.time_ok);
		FUZZ_CHECK(ea.hint == eb.hint && ea.kind == eb.kind && ea.has_fields == eb.has_fields,
			   "hint/kind/has_fields differ");
		FUZZ_CHECK(ea.prev_pid == eb.prev_pid && ea.next_pid == eb.next_pid && ea.next_hint == eb.next_hint &&
				   ea.f_pid == eb.f_pid && ea.target_cpu == eb.target_cpu && ea.dest_cpu == eb.dest_cpu,
			   "fields integers differ");
	}
	free(a);
	free(b);
	free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t start = 0;

	if (!fast) {
		fast = sched_events_open(NULL, "fuzz.jsonl");
		json = sched_events_open(NULL, "fuzz.jsonl");
		if (!fast || !json)
			abort();
		sched_events_set_json_only(json, true);
	}
	for (size_t i = 0; i <= size; i++)
		if (i == size || data[i] == '\n') {
			one_line((const char *)data + start, i - start);
			start = i + 1;
		}
	return 0;
}
