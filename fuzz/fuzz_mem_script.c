/*
 * fuzz_mem_script.c - libFuzzer target for perf script text of memory
 * samples (perf.mem.script: process/mem/script_text.c line parser and
 * process/mem/mem_script.c reader).
 *
 * The input is a profile's perf.mem.script, run through process_run() with
 * perf.jsonl going to a memfd. Invariants, besides no crash:
 *  - text never fails the run (a bad line is counted, not fatal); input
 *    starting with zstd's magic is decompressed by the line reader and may
 *    fail, naming the file (fuzz_zstd_input_checked), nothing more is checked;
 *  - every non-blank line is counted once: total = non-blank lines =
 *    kept + skipped (no phys_addr, filtered comm) + unparseable;
 *  - perf.jsonl holds one line per kept sample, each a JSON object;
 *  - each line parsed alone agrees: script_text_parse_mem_line() succeeds on as
 *    many lines as were not unparseable, and what it fills is in range
 *    (strings terminated, time_ns equal to the printed time, exactly,
 *    pid/tid int32 as perf prints them).
 * Seeds: fuzz/corpus/mem_script/.
 */
#include "fuzz/fuzz_util.h"
#include "lib/error.h"
#include "process/mem/script_text.h"
#include "process/stage.h"

#include <json-c/json.h>

static struct fuzz_file in_file, out_file;
static struct process_inputs in;

/* The printed time "S[.F]" (F of 1..9 digits) in ns, as the parser must compute it. */
static bool time_of(const char *t, uint64_t *ns)
{
	unsigned __int128 s = 0, f = 0, v;
	int digits = 0;

	if (*t < '0' || *t > '9')
		return false;
	for (; *t >= '0' && *t <= '9'; t++)
		s = s * 10 + (unsigned)(*t - '0');
	if (*t == '.') {
		for (t++; *t >= '0' && *t <= '9'; t++, digits++)
			f = f * 10 + (unsigned)(*t - '0');
		if (digits < 1 || digits > 9)
			return false;
	}
	if (*t)
		return false;
	while (digits++ < 9)
		f *= 10;
	v = s * 1000000000u + f;
	*ns = (uint64_t)v;
	return v <= UINT64_MAX;
}

static void check_sample(const struct script_mem_sample *s)
{
	uint64_t ns;

	FUZZ_CHECK(memchr(s->comm, 0, sizeof(s->comm)) && memchr(s->sym, 0, sizeof(s->sym)) &&
			   memchr(s->dso, 0, sizeof(s->dso)) && memchr(s->cgroup, 0, sizeof(s->cgroup)) &&
			   memchr(s->time, 0, sizeof(s->time)),
		   "an unterminated string");
	FUZZ_CHECK(time_of(s->time, &ns) && ns == s->time_ns, "time \"%s\" vs %llu ns", s->time,
		   (unsigned long long)s->time_ns);
	FUZZ_CHECK(s->has_phys_addr || s->phys_addr == 0, "phys_addr without has_phys_addr");
	FUZZ_CHECK(s->pid >= INT32_MIN && s->pid <= INT32_MAX && s->tid >= INT32_MIN && s->tid <= INT32_MAX,
		   "pid/tid %lld/%lld beyond what perf prints (int32)", (long long)s->pid, (long long)s->tid);
}

/* Lines script_text_parse_mem_line() accepts, each checked. */
static size_t parse_each(const uint8_t *data, size_t size)
{
	static struct script_mem_sample s;
	size_t i = 0, ok = 0;

	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - data) - i : size - i;

		if (script_text_parse_mem_line((const char *)data + i, len, &s) == 0) {
			check_sample(&s);
			ok++;
		} else {
			FUZZ_CHECK(scx_errmsg()[0], "a refusal without a reason");
		}
		i += len + 1;
	}
	return ok;
}

/* The lines of perf.jsonl; each must be a JSON object. */
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
		FUZZ_CHECK(o && json_object_is_type(o, json_type_object), "perf.jsonl line %zu: %s", n + 1, p);
		json_object_put(o);
	}
	FUZZ_CHECK(*p == '\0', "perf.jsonl does not end with a newline");
	free(buf);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct process_result res;
	struct process_opts opts = {.in = &in};
	struct process_outputs out = {0};
	size_t lines, nonblank, parsed;
	int rc;

	fuzz_file_set(&in_file, data, size);
	if (ftruncate(out_file.fd, 0) < 0 || !(out.perf_jsonl = fopen(out_file.path, "w")))
		abort();
	scx_clear_error();
	rc = process_run(&opts, &out, &res);
	fclose(out.perf_jsonl);
	if (fuzz_zstd_input_checked(data, size, rc, scx_errmsg()))
		return 0;
	FUZZ_CHECK(rc == 0, "text failed the run: %s", scx_errmsg());
	fuzz_count_lines(data, size, " \t\r", &lines, &nonblank);
	FUZZ_CHECK(res.total == nonblank, "total %llu, non-blank lines %zu", (unsigned long long)res.total, nonblank);
	FUZZ_CHECK(res.total == res.kept + res.skipped_no_phys + res.skipped_comm + res.unparseable,
		   "total %llu != kept %llu + skipped %llu + %llu + unparseable %llu", (unsigned long long)res.total,
		   (unsigned long long)res.kept, (unsigned long long)res.skipped_no_phys,
		   (unsigned long long)res.skipped_comm, (unsigned long long)res.unparseable);
	FUZZ_CHECK(output_lines() == res.kept, "perf.jsonl lines != kept %llu", (unsigned long long)res.kept);
	parsed = parse_each(data, size);
	FUZZ_CHECK(parsed == res.total - res.unparseable, "alone %zu lines parse, in the run %llu",
		   parsed, (unsigned long long)(res.total - res.unparseable));
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init(&in_file, "perf.mem.script");
	fuzz_file_init(&out_file, "perf.jsonl");
	snprintf(in.mem_path, sizeof(in.mem_path), "%s", in_file.path);
	snprintf(in.mem_name, sizeof(in.mem_name), "perf.mem.script");
	snprintf(in.dir, sizeof(in.dir), "/proc/self/fd");
	in.mem_kind = MEM_SCRIPT_TEXT;
	return 0;
}
