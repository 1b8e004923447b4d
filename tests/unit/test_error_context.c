/*
 * test_error_context.c - messages that add context to an inner error
 * (scx_fail_prefix, lib/error.c) and each place that does so: the exact
 * text, so a message formatted into its own buffer (garbled) cannot pass.
 * Sites: fs_remove_tree, a perf.data record that the session refuses (mem
 * and sched walks), a perf.sched.data whose tracing data is damaged, and
 * tf_parse's header files.
 */
#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/perfdata.h"
#include "process/stage.h"
#include "process/sched/sched_tracefmt.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(error_prefix, adds_context_once)
{
	char long_prefix[2000];

	scx_fail("inner %d", 7);
	cr_assert_eq(scx_fail_prefix("outer %s", "x"), -1);
	cr_assert_str_eq(scx_errmsg(), "outer x: inner 7");
	cr_assert_eq(scx_fail_prefix("%s", scx_errmsg()), -1, "its own message as the prefix");
	cr_assert_str_eq(scx_errmsg(), "outer x: inner 7: outer x: inner 7");
	memset(long_prefix, 'p', sizeof(long_prefix) - 1);
	long_prefix[sizeof(long_prefix) - 1] = '\0';
	scx_fail("inner");
	scx_fail_prefix("%s", long_prefix);
	cr_assert_eq(strlen(scx_errmsg()), 1023, "truncated to the buffer");
	cr_assert_eq(scx_errmsg()[0], 'p');
}

Test(error_prefix, fs_remove_tree_names_the_path)
{
	char dir[] = "/tmp/scxprof-errctx.XXXXXX", path[300], want[400];
	FILE *f;

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/file", dir);
	cr_assert((f = fopen(path, "w")));
	fclose(f);
	snprintf(path, sizeof(path), "%s/file/sub", dir);
	cr_assert_eq(fs_remove_tree(path), -1);
	snprintf(want, sizeof(want), "%s: cannot stat: Not a directory", path);
	cr_assert_str_eq(scx_errmsg(), want);
	cr_assert_eq(fs_remove_tree(dir), 0, "%s", scx_errmsg());
}

/* ---- perf.data files whose first record the session refuses -------------- */

/* A COMM record of 8 body bytes (pid, tid, no name): "COMM record too short". */
static const struct {
	struct perf_event_header h;
	uint32_t pid, tid;
} short_comm = {{PERF_RECORD_COMM, 0, 16}, 5, 5};

static void write_perf_data(const char *path, const void *tracing, size_t tracing_size)
{
	struct perf_event_attr attr = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
				       .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME};
	uint64_t id = 1;
	struct pd_writer w;

	cr_assert_eq(pd_writer_open(&w, path), 0, "%s", scx_errmsg());
	cr_assert_eq(pd_writer_add_attr(&w, &attr, &id, 1, tracing ? "sched:sched_switch" : "page-faults"), 0);
	if (tracing)
		cr_assert_eq(pd_writer_add_feature(&w, PD_FEAT_TRACING_DATA, tracing, tracing_size), 0);
	cr_assert_eq(pd_writer_add_record(&w, &short_comm, sizeof(short_comm)), 0);
	cr_assert_eq(pd_writer_finish(&w), 0, "%s", scx_errmsg());
}

static uint64_t first_record_offset(const char *path)
{
	const struct perf_event_header *h;
	struct pd_cursor c;
	struct pd_file f;
	uint64_t off;

	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	pd_cursor_init(&c, &f);
	cr_assert_eq(pd_next(&c, &h), 1);
	off = pd_offset_of(&f, h);
	pd_close(&f);
	return off;
}

/* process the profile directory dir; returns process_run's result */
static int run_process(const char *dir)
{
	static struct process_inputs in;
	static struct process_result res;
	struct process_opts o = {.in = &in};
	struct process_outputs out = {0};
	int rc;

	memset(&res, 0, sizeof(res));
	cr_assert_eq(process_find_inputs(dir, &in), 0, "%s", scx_errmsg());
	out.perf_jsonl = in.mem_kind != MEM_NONE ? fopen("/dev/null", "w") : NULL;
	out.sched_jsonl = in.sched_kind != SCHED_IN_NONE ? fopen("/dev/null", "w") : NULL;
	rc = process_run(&o, &out, &res);
	if (out.perf_jsonl)
		fclose(out.perf_jsonl);
	if (out.sched_jsonl)
		fclose(out.sched_jsonl);
	return rc;
}

/* Tracing data with no events: magic, version, little-endian, 8-byte longs,
 * page size, the two header files, no ftrace events, no systems. Cut to
 * `keep` bytes when keep > 0. */
static size_t tracing_blob(uint8_t *b, size_t keep)
{
	static const uint8_t head[] = {23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g', '0', '.', '6', 0, 0, 8,
				       0, 16, 0, 0};
	uint64_t zero64 = 0;
	uint32_t zero32 = 0;
	size_t n = 0;

	memcpy(b + n, head, sizeof(head)), n += sizeof(head);
	memcpy(b + n, "header_page", 12), n += 12;
	memcpy(b + n, &zero64, 8), n += 8;
	memcpy(b + n, "header_event", 13), n += 13;
	memcpy(b + n, &zero64, 8), n += 8;
	memcpy(b + n, &zero32, 4), n += 4;
	memcpy(b + n, &zero32, 4), n += 4;
	return keep ? keep : n;
}

Test(error_prefix, mem_perf_data_record)
{
	char dir[] = "/tmp/scxprof-errctx.XXXXXX", path[300], want[600];

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	write_perf_data(path, NULL, 0);
	cr_assert_eq(run_process(dir), -1);
	snprintf(want, sizeof(want), "%s: record at offset %llu: COMM record too short (8 bytes)", path,
		 (unsigned long long)first_record_offset(path));
	cr_assert_str_eq(scx_errmsg(), want);
	fs_remove_tree(dir);
}

Test(error_prefix, sched_perf_data_record)
{
	char dir[] = "/tmp/scxprof-errctx.XXXXXX", path[300], want[600];
	uint8_t blob[128];

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf.sched.data", dir);
	write_perf_data(path, blob, tracing_blob(blob, 0));
	cr_assert_eq(run_process(dir), -1);
	snprintf(want, sizeof(want), "%s: record at offset %llu: COMM record too short (8 bytes)", path,
		 (unsigned long long)first_record_offset(path));
	cr_assert_str_eq(scx_errmsg(), want);
	fs_remove_tree(dir);
}

Test(error_prefix, sched_perf_data_tracing_data)
{
	char dir[] = "/tmp/scxprof-errctx.XXXXXX", path[300], want[600];
	uint8_t blob[128];

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf.sched.data", dir);
	write_perf_data(path, blob, tracing_blob(blob, 34)); /* 2 bytes of header_page's size */
	cr_assert_eq(run_process(dir), -1);
	snprintf(want, sizeof(want),
		 "%s: tracing data: bad header files: header_page: truncated at byte 32 (need 8 more)", path);
	cr_assert_str_eq(scx_errmsg(), want);
	fs_remove_tree(dir);
}

Test(error_prefix, tracefmt_header_files)
{
	uint8_t blob[128];
	struct tf_data d;
	size_t n = tracing_blob(blob, 0);

	cr_assert_eq(tf_parse(&d, blob, n), 0, "%s", scx_errmsg());
	tf_free(&d);
	cr_assert_eq(tf_parse(&d, blob, 20), -1);
	cr_assert_str_eq(scx_errmsg(), "tracing data: bad header files: unterminated string at byte 20");
	cr_assert_eq(tf_parse(&d, blob, 34), -1);
	cr_assert_str_eq(scx_errmsg(), "tracing data: bad header files: header_page: truncated at byte 32 (need 8 more)");
	blob[20] = 'X';
	cr_assert_eq(tf_parse(&d, blob, n), -1);
	cr_assert_str_eq(scx_errmsg(), "tracing data: bad header files: expected \"header_page\"");
	cr_assert_eq(tf_parse(&d, blob, 5), -1);
	cr_assert_str_eq(scx_errmsg(), "tracing data: bad magic");
}
