/*
 * test_linereader.c - the bounded line reader (lib/linereader.c) and every
 * reader built on it: a line longer than the bound, a read error and an
 * allocation that fails mid-file must each end the read with -1 and a
 * message (never pass for the end of the input). The allocation failure is
 * injected with line_reader_fail_allocs_after().
 */
#include "extract/extract_mem.h"
#include "extract/mem/mem_agg.h"
#include "extract/sched/sched_events.h"
#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/linereader.h"
#include "lib/zwrite.h"
#include "process/hints.h"
#include "process/stage.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *from_string(const char *s)
{
	FILE *f = fmemopen((void *)s, strlen(s), "r");

	cr_assert_not_null(f);
	return f;
}

Test(line_reader, lines_last_line_and_end)
{
	FILE *f = from_string("a\n\nbc\r\nlast");
	struct line_reader r;
	char *line;
	size_t len;

	line_reader_init(&r, f, "mem");
	cr_assert_eq(line_reader_next(&r, &line, &len), 1);
	cr_assert_str_eq(line, "a");
	cr_assert_eq(len, 1);
	cr_assert_eq(line_reader_next(&r, &line, &len), 1);
	cr_assert_eq(len, 0);
	cr_assert_eq(line_reader_next(&r, &line, &len), 1);
	cr_assert_eq(len, 3, "only the newline is taken off");
	cr_assert_eq(line_reader_next(&r, &line, &len), 1);
	cr_assert_str_eq(line, "last", "a last line without a newline, NUL-terminated");
	cr_assert_eq(r.lineno, 4);
	cr_assert_eq(line_reader_next(&r, &line, &len), 0);
	cr_assert_eq(line_reader_next(&r, &line, &len), 0, "the end stays the end");
	line_reader_free(&r);
	fclose(f);
}

/* Lines of exactly max bytes pass, one byte more fails naming file and line;
 * also across buffer refills (lines longer than the first buffer). */
Test(line_reader, bound_is_exact)
{
	size_t max = 200000, n = 3 * (max + 1) + max + 2;
	char *text = malloc(n + 1), *line;
	struct line_reader r;
	size_t len, i;
	FILE *f;

	memset(text, 'x', n);
	for (i = 0; i < 3; i++)
		text[i * (max + 1) + max] = '\n';
	text[n - 1] = '\n'; /* the 4th line has max + 1 bytes */
	text[n] = '\0';
	f = from_string(text);
	line_reader_init(&r, f, "big.txt");
	r.max = max;
	for (i = 0; i < 3; i++) {
		cr_assert_eq(line_reader_next(&r, &line, &len), 1, "%s", scx_errmsg());
		cr_assert_eq(len, max);
	}
	cr_assert_eq(line_reader_next(&r, &line, &len), -1);
	cr_assert_str_eq(scx_errmsg(), "big.txt:4: line longer than 200000 bytes");
	cr_assert_leq(r.cap, max + 2, "the buffer never grows past the bound");
	line_reader_free(&r);
	fclose(f);
	free(text);
}

Test(line_reader, endless_line_is_bounded)
{
	FILE *f = fopen("/dev/zero", "r");
	struct line_reader r;
	char *line;
	size_t len;

	cr_assert_not_null(f);
	line_reader_init(&r, f, "/dev/zero");
	cr_assert_eq(line_reader_next(&r, &line, &len), -1);
	cr_assert_str_eq(scx_errmsg(), "/dev/zero:1: line longer than 1048576 bytes");
	cr_assert_leq(r.cap, LINE_READER_MAX + 2);
	line_reader_free(&r);
	fclose(f);
}

Test(line_reader, read_error_is_not_the_end)
{
	FILE *f = fopen("/tmp", "r"); /* a directory: read() fails with EISDIR */
	struct line_reader r;
	char *line;
	size_t len;

	cr_assert_not_null(f);
	line_reader_init(&r, f, "/tmp");
	cr_assert_eq(line_reader_next(&r, &line, &len), -1);
	cr_assert_str_eq(scx_errmsg(), "/tmp: read error: Is a directory");
	line_reader_free(&r);
	fclose(f);
}

Test(line_reader, failed_allocation_is_not_the_end)
{
	FILE *f = from_string("first\nsecond\n");
	struct line_reader r;
	char *line;
	size_t len;

	line_reader_init(&r, f, "x");
	line_reader_fail_allocs_after(0);
	cr_assert_eq(line_reader_next(&r, &line, &len), -1);
	line_reader_fail_allocs_after(-1);
	cr_assert_str_eq(scx_errmsg(), "x:1: out of memory (a buffer of 65536 bytes for the line)");
	line_reader_free(&r);
	fclose(f);
}

/* ---- each reader: an allocation failing mid-file ------------------------ */

struct tmpfile {
	char dir[64], path[128];
};

/* DIR/name holding `good` lines of text, then one line of 100000 bytes (more
 * than the first buffer: reading it needs a second allocation). */
static void write_input(struct tmpfile *t, const char *name, const char *text, int good)
{
	FILE *f;
	int i;

	snprintf(t->dir, sizeof(t->dir), "/tmp/scxprof-lr.XXXXXX");
	cr_assert(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, name);
	cr_assert((f = fopen(t->path, "w")));
	for (i = 0; i < good; i++)
		fputs(text, f);
	for (i = 0; i < 100000; i++)
		fputc('x', f);
	fputc('\n', f);
	cr_assert_eq(fclose(f), 0);
}

/* The message every reader must pass on: the long line, line good + 1. */
static void assert_oom_message(const struct tmpfile *t, int good)
{
	char want[256];

	snprintf(want, sizeof(want), "%s:%d: out of memory (a buffer of 131072 bytes for the line)", t->path,
		 good + 1);
	cr_assert(strstr(scx_errmsg(), want), "\"%s\" does not contain \"%s\"", scx_errmsg(), want);
	line_reader_fail_allocs_after(-1);
}

static const char mem_line[] = "{\"comm\":\"a\",\"tid\":1,\"pid\":1,\"cgroup\":\"/w\",\"phys_addr\":\"1000\","
			       "\"data_page_size\":4096}\n";

Test(line_reader_oom, extract_mem)
{
	struct mem_agg_opts o = {.workload = "w", .allotment_re = EXTRACT_DEFAULT_ALLOTMENT_RE};
	struct mem_agg a;
	struct tmpfile t;
	FILE *f;

	write_input(&t, "perf.jsonl", mem_line, 3);
	cr_assert_eq(mem_agg_init(&a, &o), 0, "%s", scx_errmsg());
	cr_assert((f = fopen(t.path, "r")));
	line_reader_fail_allocs_after(1);
	cr_assert_eq(mem_agg_read(&a, f, t.path, NULL), -1);
	assert_oom_message(&t, 3);
	cr_assert_eq(a.total, 3, "the lines before were read");
	fclose(f);
	mem_agg_free(&a);
	fs_remove_tree(t.dir);
}

Test(line_reader_oom, extract_sched)
{
	struct sched_reader *r;
	struct sched_event ev;
	struct tmpfile t;
	FILE *f;

	write_input(&t, "sched.jsonl",
		    "{\"comm\":\"a\",\"pid\":1,\"tid\":1,\"cpu\":0,\"time\":1.0,\"event\":\"sched:sched_waking\","
		    "\"trace\":\"\"}\n", 2);
	cr_assert((f = fopen(t.path, "r")));
	cr_assert_not_null(r = sched_events_open(f, t.path));
	line_reader_fail_allocs_after(1);
	cr_assert_eq(sched_events_next(r, &ev), 1, "%s", scx_errmsg());
	cr_assert_eq(sched_events_next(r, &ev), 1, "%s", scx_errmsg());
	cr_assert_eq(sched_events_next(r, &ev), -1);
	assert_oom_message(&t, 2);
	sched_events_close(r);
	fclose(f);
	fs_remove_tree(t.dir);
}

Test(line_reader_oom, hints)
{
	struct hints_index *h = NULL;
	struct tmpfile t;

	write_input(&t, "hints.jsonl", "{\"pid\":1,\"tgid\":1,\"hints\":2,\"timestamp\":3}\n", 4);
	line_reader_fail_allocs_after(1);
	cr_assert_eq(hints_load(&h, t.path, NULL), -1);
	assert_oom_message(&t, 4);
	cr_assert_null(h);
	fs_remove_tree(t.dir);
}

/* process on a profile directory holding only t's file */
static int run_process(const struct tmpfile *t)
{
	static struct process_inputs in;
	static struct process_result res;
	struct process_opts o = {.in = &in};
	struct process_outputs out = {0};
	int rc;

	memset(&res, 0, sizeof(res));
	cr_assert_eq(process_find_inputs(t->dir, &in), 0, "%s", scx_errmsg());
	out.perf_jsonl = in.mem_kind != MEM_NONE ? fopen("/dev/null", "w") : NULL;
	out.sched_jsonl = in.sched_kind != SCHED_IN_NONE ? fopen("/dev/null", "w") : NULL;
	line_reader_fail_allocs_after(1);
	rc = process_run(&o, &out, &res);
	if (out.perf_jsonl)
		fclose(out.perf_jsonl);
	if (out.sched_jsonl)
		fclose(out.sched_jsonl);
	return rc;
}

Test(line_reader_oom, process_mem_script)
{
	struct tmpfile t;

	write_input(&t, "perf.mem.script",
		    "app 10/11 1.000001: 7f0000001000 1234 N/A 4K main (/usr/bin/app)\n", 5);
	cr_assert_eq(run_process(&t), -1);
	assert_oom_message(&t, 5);
	fs_remove_tree(t.dir);
}

Test(line_reader_oom, process_sched_script)
{
	struct tmpfile t;

	write_input(&t, "perf.sched.script",
		    "app 10/11 [000] 1.000001: sched:sched_waking: comm=x pid=2 prio=120 target_cpu=000\n", 2);
	cr_assert_eq(run_process(&t), -1);
	assert_oom_message(&t, 2);
	fs_remove_tree(t.dir);
}

/* zstd input (lib/zwrite.h writes it): the same lines, the same bound and
 * line numbers; a cut stream fails naming the file, never as a short input. */
static size_t zstd_text(const char *text, size_t n, char **out)
{
	size_t size = 0;
	FILE *mem = open_memstream(out, &size), *z;

	cr_assert_not_null(mem);
	z = zwrite_open(mem, 1);
	cr_assert_not_null(z);
	cr_assert_eq(fwrite(text, 1, n, z), n);
	cr_assert_eq(fclose(z), 0);
	return size;
}

Test(line_reader, zstd_lines_and_bound)
{
	size_t max = 100000, n = 3 * (max + 1) + max + 2;
	char *text = malloc(n + 1), *z = NULL, *line;
	struct line_reader r;
	size_t zlen, len;
	FILE *f;

	cr_assert_not_null(text);
	memset(text, 'x', n);
	for (size_t i = 0; i < 3; i++)
		text[i * (max + 1) + max] = '\n';
	text[n] = '\0';
	zlen = zstd_text(text, n, &z);
	cr_assert_lt(zlen, n / 10, "compressed: %zu of %zu bytes", zlen, n);
	f = fmemopen(z, zlen, "r");
	line_reader_init(&r, f, "perf.jsonl.zst");
	r.max = max;
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(line_reader_next(&r, &line, &len), 1);
		cr_assert_eq(len, max);
	}
	cr_assert_eq(line_reader_next(&r, &line, &len), -1);
	cr_assert_str_eq(scx_errmsg(), "perf.jsonl.zst:4: line longer than 100000 bytes");
	line_reader_free(&r);
	fclose(f);

	/* cut at every 97th byte: lines, then an error naming the file, never 0 */
	for (size_t cut = 0; cut < zlen; cut += 97) {
		int rc;

		f = fmemopen(z, cut ? cut : 1, "r");
		line_reader_init(&r, f, "cut.zst");
		r.max = 2 * max;
		while ((rc = line_reader_next(&r, &line, &len)) > 0)
			;
		cr_assert_eq(rc, cut < 4 ? 0 : -1, "cut at %zu: rc %d", cut, rc);
		if (rc < 0)
			cr_assert(strstr(scx_errmsg(), "cut.zst: truncated zstd data") == scx_errmsg(), "%s", scx_errmsg());
		line_reader_free(&r);
		fclose(f);
	}
	free(z);
	free(text);
}
