/*
 * cmd_process.c - `scxprof process`: find the profile (directory or .tar.gz,
 * extracted next to it), write PROFILE.out/ through a temporary directory
 * renamed at the end, and print upstream's summary. All decoding is in
 * process/; this file only decides where files go.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "cmd/profile_path.h"
#include "cmd/signals.h"
#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/host/host.h"
#include "lib/zwrite.h"
#include "process/process.h"

struct process_args {
	const char *file;
	const char *outdir;
	bool force;
	bool no_perfetto;
	bool zstd;
	int zstd_level;
	struct process_opts po; /* --symfs, --no-filter, -v and -j; write_outputs sets the rest */
};

/* Outputs are plain files others may read. */
static FILE *create_in(const char *dir, const char *name)
{
	return fs_create_in(dir, name, 0644);
}

/* NAME, or NAME.zst written through a zstd stream with -z. */
static FILE *create_jsonl(const struct process_args *a, const char *dir, const char *name)
{
	char zname[256];
	FILE *f, *z;

	if (!a->zstd)
		return create_in(dir, name);
	snprintf(zname, sizeof(zname), "%s.zst", name);
	if (!(f = create_in(dir, zname)))
		return NULL;
	if (!(z = zwrite_open(f, a->zstd_level))) {
		scx_fail_errno("%s: cannot start zstd compression", zname);
		fclose(f);
	}
	return z;
}

static int close_checked(FILE **f, const char *what)
{
	int rc = 0;

	if (!*f)
		return 0;
	if (fflush(*f) != 0 || ferror(*f))
		rc = scx_fail_errno("%s: write failed", what);
	if (fclose(*f) != 0 && !rc)
		rc = scx_fail_errno("%s: write failed", what);
	*f = NULL;
	return rc;
}

static int write_topology(FILE *f, void *ctx)
{
	return host_topology_write_json(f, ctx, "topology.json");
}

/*
 * topology.json goes with the JSONL: extract on PROFILE.out then takes the
 * recording host's caches, as one-pass extract on the profile does. The
 * profile's copy (record's, from sysfs); else, for a perf.data, one derived
 * from its CACHE, CPU_TOPOLOGY and NUMA_TOPOLOGY headers ("source":
 * "perf.data headers"). Headers that do not parse are a warning: the
 * samples are still good, extract then says the recording has no topology.
 */
static int copy_topology(const struct process_inputs *in, const char *tmp)
{
	char src[4096], dst[4096];
	struct host_topology t;
	int rc;

	if (fs_join(dst, sizeof(dst), tmp, "topology.json") < 0)
		return -1;
	if (!in->single_file && fs_join(src, sizeof(src), in->dir, "topology.json") == 0 && fs_is_file(src)) {
		if (fs_copy_file(src, dst) < 0)
			return -1;
		return chmod(dst, 0644) < 0 ? scx_fail_errno("%s", dst) : 0;
	}
	if (in->mem_kind != MEM_PERF_DATA)
		return 0;
	if ((rc = host_topology_perfdata_path(in->mem_path, &t)) < 0) {
		fprintf(stderr, "scxprof process: warning: %s; no topology.json written\n", scx_errmsg());
		return 0;
	}
	if (rc == 0)
		rc = host_write_file(dst, write_topology, &t);
	host_topology_free(&t);
	return rc < 0 ? -1 : 0;
}

static int write_outputs(const struct process_args *a, const struct process_inputs *in,
			 const char *tmp, struct process_result *res)
{
	struct process_outputs out = {0};
	struct process_opts po = a->po;
	FILE *summary = NULL;
	int rc;

	const char *perf_name = a->zstd ? "perf.jsonl.zst" : "perf.jsonl";
	const char *sched_name = a->zstd ? "sched.jsonl.zst" : "sched.jsonl";

	po.in = in;
	po.log = stderr;
	po.stop = &cmd_interrupted;
	if (!po.jobs)
		po.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);

	if ((in->mem_kind != MEM_NONE && !(out.perf_jsonl = create_jsonl(a, tmp, "perf.jsonl"))) ||
	    (in->sched_kind != SCHED_IN_NONE && !(out.sched_jsonl = create_jsonl(a, tmp, "sched.jsonl"))) ||
	    (in->has_hints && !(out.hints_copy = create_in(tmp, "hints.jsonl"))) ||
	    (!a->no_perfetto && !(out.trace = create_in(tmp, "trace.pftrace")))) {
		FILE **files[] = {&out.perf_jsonl, &out.sched_jsonl, &out.hints_copy, &out.trace};

		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
			if (*files[i])
				fclose(*files[i]);
		return -1;
	}
	rc = process_run(&po, &out, res);
	if (close_checked(&out.perf_jsonl, perf_name) < 0 && !rc)
		rc = -1;
	if (close_checked(&out.sched_jsonl, sched_name) < 0 && !rc)
		rc = -1;
	if (close_checked(&out.hints_copy, "hints.jsonl") < 0 && !rc)
		rc = -1;
	if (close_checked(&out.trace, "trace.pftrace") < 0 && !rc)
		rc = -1;
	if (rc || (rc = copy_topology(in, tmp)) < 0)
		return rc;
	summary = create_in(tmp, "process.json");
	if (!summary)
		return -1;
	rc = process_summary_write(summary, in, res);
	if (close_checked(&summary, "process.json") < 0)
		rc = -1;
	return rc;
}

static void print_listing(const char *dir)
{
	struct dirent **names;
	int n, i;

	printf("Output contents:\n");
	n = scandir(dir, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		if (names[i]->d_name[0] != '.' && fs_join(path, sizeof(path), dir, names[i]->d_name) == 0 &&
		    stat(path, &st) == 0)
			printf("  %s (%lld bytes)\n", names[i]->d_name, (long long)st.st_size);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

static void print_summary(const char *outdir, const struct process_inputs *in, const struct process_result *r)
{
	size_t i;

	for (i = 0; i < r->warnings.nr; i++)
		fprintf(stderr, "WARNING: %s\n", r->warnings.line[i]);
	printf("Output directory: %s\n", outdir);
	if (in->mem_kind != MEM_NONE)
		printf("Parsed %llu of %llu records (%llu skipped, %llu unparseable)\n",
		       (unsigned long long)r->kept, (unsigned long long)r->total,
		       (unsigned long long)(r->skipped_no_phys + r->skipped_comm + r->skipped_recorder),
		       (unsigned long long)r->unparseable);
	if (in->sched_kind != SCHED_IN_NONE)
		printf("Parsed %llu of %llu sched trace records (%llu unparseable)\n",
		       (unsigned long long)r->sched.parsed, (unsigned long long)r->sched.total,
		       (unsigned long long)r->sched.unparseable);
	if (r->trace.written)
		printf("Perfetto trace: %llu sched_switch (%llu with their prev task), %llu sched_waking, "
		       "%llu irq/softirq/timer events, %llu memory samples, %llu hint values, %llu threads\n",
		       (unsigned long long)r->trace.switches, (unsigned long long)r->trace.switches_full,
		       (unsigned long long)r->trace.wakings, (unsigned long long)r->trace.irq_events,
		       (unsigned long long)r->trace.mem_samples, (unsigned long long)r->trace.hint_values,
		       (unsigned long long)r->trace.threads);
	print_listing(outdir);
}

static int run(const struct process_args *a)
{
	struct process_inputs *in = calloc(1, sizeof(*in));
	struct process_result *res = calloc(1, sizeof(*res));
	char dir[4096], outdir[4096], tmp[4096];
	int rc = EXIT_ERROR;

	if (!in || !res) {
		fprintf(stderr, "scxprof process: out of memory\n");
		goto out;
	}
	if (profile_path_resolve(a->file, dir, sizeof(dir), stdout) < 0 || process_find_inputs(dir, in) < 0)
		goto fail;
	if (a->outdir)
		fs_strip_suffix(outdir, sizeof(outdir), a->outdir, "");
	else
		snprintf(outdir, sizeof(outdir), "%.4090s.out", dir);
	if (fs_exists(outdir) && !a->force) {
		scx_fail("%s already exists (use --force to replace it)", outdir);
		goto fail;
	}
	if (fs_make_temp_dir_for(outdir, tmp, sizeof(tmp)) < 0)
		goto fail;
	if (write_outputs(a, in, tmp, res) < 0 || fs_commit_dir(tmp, outdir, a->force) < 0) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", scx_errmsg());
		fs_remove_tree(tmp);
		scx_fail("%s", msg);
		goto fail;
	}
	print_summary(outdir, in, res);
	rc = EXIT_OK;
	goto out;
fail:
	fprintf(stderr, "scxprof process: %s\n", scx_errmsg());
	rc = cmd_interrupted ? EXIT_INTERRUPTED : EXIT_ERROR;
out:
	free(in);
	free(res);
	return rc;
}

int cmd_process(int argc, char **argv)
{
	static const struct cmd_usage u = {
		"process", "-f PATH [-v] [-z] [-j N] [-o OUTDIR] [--symfs DIR] [--force] [--no-filter] [--no-perfetto]",
		"Decode a recorded profile into JSONL. PATH is a profile directory or a .tar.gz\n"
		"of one (extracted next to it, reused if already there). Reads perf.mem.data or\n"
		"perf.data natively (or upstream's perf.mem.script / perf.script text), annotates\n"
		"each sample with its thread's hint from hints.jsonl, and writes PROFILE.out/:\n"
		"perf.jsonl, hints.jsonl and topology.json (copies) and process.json. Like\n"
		"upstream it drops samples\n"
		"without a physical address and samples of perf and swapper; it also drops the\n"
		"recorder's own (pids in metadata.json). Each sample gets its data's mapping and\n"
		"page identity (data_map, data_id, data_sym) from the MMAP2 records. The scheduling\n"
		"stream (sched.data, upstream's perf.sched.data or perf.sched.script) becomes\n"
		"sched.jsonl; a profile needs at least one of the two streams. trace.pftrace is a\n"
		"Perfetto trace of both (ui.perfetto.dev, trace_processor): CPU and thread\n"
		"scheduling tracks, wakeups, irqs, hints as counters, samples as instant events.\n"
		"With -z, perf.jsonl.zst and sched.jsonl.zst instead (zstd, level 1 by default as\n"
		"perf record -z): extract, report and the sched commands read them as they are, as\n"
		"do zstd -dc and DuckDB (read_json('perf.jsonl.zst', compression='zstd')).\n"
		"-j N: perf.data's samples are decoded on one thread and their perf.jsonl lines and\n"
		"trace samples formatted on N-1 more (at most 8; default: online CPUs); the files\n"
		"are the same bytes for every N.",
		false,
	};
	struct process_args a = {.zstd_level = ZWRITE_LEVEL_DEFAULT};
	const struct opt opts[] = {
		OPT_STRING_REQUIRED('f', "file", &a.file, "PATH", "profile directory or .tar.gz (required)", "-f PATH"),
		OPT_STRING('o', "output", &a.outdir, "OUTDIR", "output directory (default PROFILE.out)"),
		OPT_STRING(0, "symfs", &a.po.symfs, "DIR", "look for binaries under DIR, as perf --symfs"),
		OPT_FLAG(0, "force", &a.force, "replace OUTDIR if it exists"),
		OPT_FLAG(0, "no-filter", &a.po.no_filter, "keep samples upstream drops (no phys_addr, perf, swapper) and the recorder's"),
		OPT_FLAG(0, "no-perfetto", &a.no_perfetto, "do not write trace.pftrace"),
		OPT_FLAG('z', "zstd", &a.zstd, "write perf.jsonl.zst and sched.jsonl.zst (zstd-compressed)"),
		OPT_INT(0, "zstd-level", &a.zstd_level, "N", "zstd level with -z, 1 (fastest, default) to 19", 1, 19),
		OPT_INT('j', "jobs", &a.po.jobs, "N", "threads: 1, or N (decode | N-1 formatting, at most 8; default: online CPUs)",
			1, 4096),
		OPT_COUNT('v', "verbose", &a.po.verbose, "print each skipped record and its reason to stderr"),
		OPT_END(),
	};

	argc = opts_parse(argc, argv, opts, &u);
	if (argc < 0)
		return argc == OPTS_HELP ? EXIT_OK : EXIT_USAGE;
	return run(&a);
}
