/*
 * fuzz_sched_script.c - libFuzzer target for upstream's perf.sched.script
 * text (process/sched/sched_script.c: the line parser and the reader).
 *
 * The input is a profile's perf.sched.script, run through process_sched()
 * with sched.jsonl going to a memfd. Invariants, besides no crash:
 *  - text never fails the run (a bad line is counted, not fatal); input
 *    starting with zstd's magic is decompressed by the line reader and may
 *    fail, naming the file (fuzz_zstd_input_checked), nothing more is checked;
 *  - every non-blank line is counted once: total = non-blank lines =
 *    parsed + unparseable, and the per-event counts add up to parsed;
 *  - first_ns <= last_ns; sched.jsonl holds one JSON object per parsed line;
 *  - each line parsed alone agrees: sched_script_parse_line() succeeds on
 *    as many lines as were parsed, with its fields in range (terminated
 *    strings, an event "SYSTEM:NAME", the trace inside the line).
 * Seeds: fuzz/corpus/sched_script/.
 */
#include "fuzz/fuzz_util.h"
#include "lib/error.h"
#include "lib/pftrace/perfetto_trace.h"
#include "process/sched/sched_decode.h"
#include "process/sched/sched_script.h"

#include <json-c/json.h>

static struct fuzz_file in_file, out_file;
static struct process_inputs in;
static FILE *devnull;

/* The line [b, e) as the reader sees it: trailing '\r's off; blank when only ' ', '\t' remain. */
static bool blank(const uint8_t *b, const uint8_t *e)
{
	while (e > b && e[-1] == '\r')
		e--;
	for (; b < e; b++)
		if (*b != ' ' && *b != '\t')
			return false;
	return true;
}

static void check_line(const struct sched_script_line *l, const char *line, size_t len)
{
	FUZZ_CHECK(memchr(l->comm, 0, sizeof(l->comm)) && memchr(l->event, 0, sizeof(l->event)),
		   "an unterminated string");
	FUZZ_CHECK(strchr(l->event, ':'), "event \"%s\" without a system", l->event);
	FUZZ_CHECK(l->trace >= line && l->trace + l->trace_len <= line + len, "trace outside the line");
	/* pid and tid are int32 as perf prints them (-1 for a task without an id). */
	FUZZ_CHECK(l->pid >= INT32_MIN && l->pid <= INT32_MAX && l->tid >= INT32_MIN && l->tid <= INT32_MAX &&
			   l->cpu >= -1,
		   "pid %lld tid %lld cpu %lld", (long long)l->pid, (long long)l->tid, (long long)l->cpu);
}

/* Non-blank lines, and how many of them parse alone (each checked). */
static void parse_each(const uint8_t *data, size_t size, size_t *nonblank, size_t *ok)
{
	static struct sched_script_line l;
	size_t i = 0;

	*nonblank = *ok = 0;
	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - data) - i : size - i, n = len;

		if (!blank(data + i, data + i + len)) {
			(*nonblank)++;
			while (n && data[i + n - 1] == '\r')
				n--;
			if (sched_script_parse_line((const char *)data + i, n, &l) == 0) {
				check_line(&l, (const char *)data + i, n);
				(*ok)++;
			} else {
				FUZZ_CHECK(scx_errmsg()[0], "a refusal without a reason");
			}
		}
		i += len + 1;
	}
}

static size_t output_lines(void)
{
	off_t size = lseek(out_file.fd, 0, SEEK_END);
	char *buf = malloc((size_t)size + 1), *p, *nl;
	size_t n = 0;

	if (!buf || pread(out_file.fd, buf, (size_t)size, 0) != size)
		abort();
	buf[size] = '\0';
	for (p = buf; (nl = strchr(p, '\n')); p = nl + 1, n++) {
		struct json_object *o;

		*nl = '\0';
		o = json_tokener_parse(p);
		FUZZ_CHECK(o && json_object_is_type(o, json_type_object), "sched.jsonl line %zu: %s", n + 1, p);
		json_object_put(o);
	}
	FUZZ_CHECK(*p == '\0', "sched.jsonl does not end with a newline");
	free(buf);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct process_result res;
	const struct process_sched_result *r = &res.sched;
	struct process_opts opts = {.in = &in};
	size_t nonblank, ok, i;
	uint64_t counted;
	struct pftrace *trace;
	FILE *out;
	int rc;

	fuzz_file_set(&in_file, data, size);
	if (ftruncate(out_file.fd, 0) < 0 || !(out = fopen(out_file.path, "w")))
		abort();
	memset(&res, 0, sizeof(res));
	scx_clear_error();
	/* the Perfetto trace writer runs on every parsed record too */
	if (!(trace = pftrace_new(devnull, NULL)))
		abort();
	rc = process_sched(&opts, out, trace, &res);
	fclose(out);
	if (rc == 0 && pftrace_finish(trace) < 0)
		abort(); /* /dev/null takes every write */
	pftrace_free(trace);
	if (fuzz_zstd_input_checked(data, size, rc, scx_errmsg()))
		return 0;
	FUZZ_CHECK(rc == 0, "text failed the run: %s", scx_errmsg());
	parse_each(data, size, &nonblank, &ok);
	FUZZ_CHECK(r->total == nonblank, "total %llu, non-blank lines %zu", (unsigned long long)r->total, nonblank);
	FUZZ_CHECK(r->total == r->parsed + r->unparseable, "total %llu != parsed %llu + unparseable %llu",
		   (unsigned long long)r->total, (unsigned long long)r->parsed, (unsigned long long)r->unparseable);
	FUZZ_CHECK(ok == r->parsed, "alone %zu lines parse, in the run %llu", ok, (unsigned long long)r->parsed);
	for (counted = r->other_events, i = 0; i < r->nr_events; i++)
		counted += r->events[i].count;
	FUZZ_CHECK(counted == r->parsed, "events add up to %llu, parsed %llu", (unsigned long long)counted,
		   (unsigned long long)r->parsed);
	FUZZ_CHECK(!r->parsed || r->first_ns <= r->last_ns, "first_ns > last_ns");
	FUZZ_CHECK(output_lines() == r->parsed, "sched.jsonl lines != parsed %llu", (unsigned long long)r->parsed);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init(&in_file, "perf.sched.script");
	fuzz_file_init(&out_file, "sched.jsonl");
	snprintf(in.sched_path, sizeof(in.sched_path), "%s", in_file.path);
	snprintf(in.sched_name, sizeof(in.sched_name), "perf.sched.script");
	in.sched_kind = SCHED_IN_SCRIPT;
	if (!(devnull = fopen("/dev/null", "w")))
		abort();
	return 0;
}
