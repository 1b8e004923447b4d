/*
 * fuzz_mem_jobs.c - differential libFuzzer target for process -j: the
 * memory stream of a perf.data read with the formatting pool
 * (process/emit/emit_pool.c, -j 2) and without it (-j 1).
 *
 * The input is a profile's perf.mem.data, run through process_run() twice,
 * perf.jsonl and trace.pftrace going to memfds. process_types.h promises that the
 * outputs are the same bytes for every -j, so, besides no crash (the pool's
 * threads run under the sanitizers too):
 *  - both runs succeed or both fail, with the same error message;
 *  - the counts (total, kept, skipped, unparseable, records by type) agree;
 *  - on success perf.jsonl and trace.pftrace are byte for byte the same.
 * Symbols are looked up under a --symfs that does not exist, so no file the
 * input names is read, and the kallsyms snapshot is empty. Seeds: fuzz/corpus/mem_jobs/ (a small page-fault
 * recording), and fuzz/run.sh adds tests/fixtures/ *.data.
 */
#include "fuzz/fuzz_util.h"
#include "lib/error.h"
#include "process/stage.h"

static struct fuzz_file in_file, out_jsonl[2], out_trace[2];
static struct process_inputs in;

struct run {
	int rc;
	char err[512];
	struct process_result res;
};

static void run_once(int jobs, size_t k, struct run *r)
{
	struct process_opts opts = {.in = &in, .symfs = "/nonexistent-symfs", .jobs = jobs};
	struct process_outputs out = {0};

	if (ftruncate(out_jsonl[k].fd, 0) < 0 || ftruncate(out_trace[k].fd, 0) < 0 ||
	    !(out.perf_jsonl = fopen(out_jsonl[k].path, "w")) || !(out.trace = fopen(out_trace[k].path, "w")))
		abort();
	memset(&r->res, 0, sizeof(r->res));
	scx_clear_error();
	r->rc = process_run(&opts, &out, &r->res);
	snprintf(r->err, sizeof(r->err), "%s", r->rc < 0 ? scx_errmsg() : "");
	fclose(out.perf_jsonl);
	fclose(out.trace);
}

/* Whether the two memfds hold the same bytes. */
static bool same_bytes(const struct fuzz_file *a, const struct fuzz_file *b)
{
	off_t na = lseek(a->fd, 0, SEEK_END), nb = lseek(b->fd, 0, SEEK_END);
	char *x, *y;
	bool same;

	if (na != nb)
		return false;
	x = malloc((size_t)na + 1);
	y = malloc((size_t)nb + 1);
	if (!x || !y || pread(a->fd, x, (size_t)na, 0) != na || pread(b->fd, y, (size_t)nb, 0) != nb)
		abort();
	same = memcmp(x, y, (size_t)na) == 0;
	free(x);
	free(y);
	return same;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run one, two;

	fuzz_file_set(&in_file, data, size);
	run_once(1, 0, &one);
	run_once(2, 1, &two);
	FUZZ_CHECK(one.rc == two.rc, "-j 1 returned %d (%s), -j 2 %d (%s)", one.rc, one.err, two.rc, two.err);
	FUZZ_CHECK(!strcmp(one.err, two.err), "-j 1 said '%s', -j 2 '%s'", one.err, two.err);
	FUZZ_CHECK(one.rc < 0 || one.err[0] == '\0', "success with an error message: %s", one.err);
	FUZZ_CHECK(one.res.total == two.res.total && one.res.kept == two.res.kept &&
			   one.res.skipped_no_phys == two.res.skipped_no_phys &&
			   one.res.skipped_comm == two.res.skipped_comm &&
			   one.res.unparseable == two.res.unparseable &&
			   one.res.unknown_id_records == two.res.unknown_id_records &&
			   !memcmp(one.res.records, two.res.records, sizeof(one.res.records)),
		   "counts differ: total %llu/%llu kept %llu/%llu", (unsigned long long)one.res.total,
		   (unsigned long long)two.res.total, (unsigned long long)one.res.kept,
		   (unsigned long long)two.res.kept);
	if (one.rc < 0)
		return 0;
	FUZZ_CHECK(same_bytes(&out_jsonl[0], &out_jsonl[1]), "perf.jsonl differs between -j 1 and -j 2");
	FUZZ_CHECK(same_bytes(&out_trace[0], &out_trace[1]), "trace.pftrace differs between -j 1 and -j 2");
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init(&in_file, "perf.mem.data");
	for (size_t k = 0; k < 2; k++) {
		fuzz_file_init(&out_jsonl[k], "perf.jsonl");
		fuzz_file_init(&out_trace[k], "trace.pftrace");
	}
	snprintf(in.mem_path, sizeof(in.mem_path), "%s", in_file.path);
	snprintf(in.mem_name, sizeof(in.mem_name), "perf.mem.data");
	snprintf(in.dir, sizeof(in.dir), "/proc/self/fd");
	in.mem_kind = MEM_PERF_DATA;
	/* an empty kallsyms snapshot: loading the host's /proc/kallsyms took
	 * 1.2 s a run, and kernel symbols are the same for both runs anyway */
	in.has_kallsyms = true;
	snprintf(in.kallsyms_path, sizeof(in.kallsyms_path), "/dev/null");
	return 0;
}
