/*
 * cmd_extract.c - `scxprof extract [mem] ...`: parse options into
 * extract_mem_opts (cmd/extract_args.h) and call the stage (extract/extract_mem.c); the config
 * goes to stdout, the -v report to stderr. `extract sched util` and
 * `extract sched stats` parse theirs into sched_util_opts / sched_stats_opts
 * (extract/sched/sched_util.c, extract/sched/sched_stats.c). `extract -f ...` without a
 * subcommand means mem, as in the original scxprof.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/extract_args.h"
#include "cmd/extract_multi.h"
#include "cmd/llc_json.h"
#include "cmd/opts.h"
#include "cmd/profile_path.h"
#include "cmd/signals.h"
#include "extract/extract.h"
#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/perfdata.h"
#include "pipeline/pipeline.h"

static const char summary[] =
	"Read perf.jsonl (ours, or upstream's perf.mem.jsonl) or a profile and print a cell config\n"
	"(JSON) on stdout. Samples are grouped by cgroup: each match of the allotment\n"
	"regex, the workload cgroup (a substring), and rest. Comms are normalized by\n"
	"stripping trailing digits; one with more than 5% (--min-share) of its group's\n"
	"samples is a unit (split per hint value with --use-hints).\n"
	"  --cluster sharing (default): in every group, units that touch the same\n"
	"    data at the same time are merged by average linkage while their affinity\n"
	"    is above --share-threshold and the merged CPU demand stays within\n"
	"    --max-cell-cpus. Private (data_id A:) and shared/file (F:) data is compared\n"
	"    by 64-byte line: the affinity is the estimated share of each unit's\n"
	"    accesses on lines the other uses (line coincidences within 15 s over the\n"
	"    other's recapture rate, whatever the sample rate), counted only when its\n"
	"    99% lower bound is above the threshold; -v says when the samples cannot\n"
	"    tell and how many more would. Kernel pages and samples without a data_id\n"
	"    (the physical page) keep the page affinity (same or adjacent 1 s epoch,\n"
	"    100 ms for physical pages), with --min-shared-keys and --min-shared-samples.\n"
	"    Read-only file text (data_id R:) is no evidence. See docs/clustering.md.\n"
	"    CPU demand: runtime / trace duration from sched JSONL (--sched FILE, or\n"
	"    sched.jsonl next to -f FILE), else the unit's share of samples x CPUs,\n"
	"    each thread at most the share of the recording it was seen running in\n"
	"    (100 ms bins holding its samples).\n"
	"  --cluster comm: upstream's config exactly: subcells for the allotment\n"
	"    group only, one per unit.\n"
	"-v prints upstream's per-group summary (and the clustering steps) to stderr;\n"
	"with sched JSONL, each cell's and subcell's CPU share, runtime, wakeups,\n"
	"wakeup latency p50/p99 and migrations too.\n"
	"-f PROFILE (a profile directory, or .tar.gz extracted next to itself): one pass,\n"
	"no JSONL written; the same config and -v report as process then extract on\n"
	"PROFILE.out/perf.jsonl (process's warnings first). -j N threads (default: the\n"
	"online CPUs; 2: decode | aggregate, sched decoded and aggregated beside; 3 and\n"
	"more: sched decode | aggregate too; 4 and more: the evidence maps on N-3 threads\n"
	"more, at most 16; the output does not depend on N).\n"
	"-f PROFILE.out/ reads its perf.jsonl.\n"
	"Cross-LLC sharing (-v, or --llc-json FILE): of the accesses to data another\n"
	"thread also uses, the share whose previous access by another thread came from\n"
	"another LLC (NUMA node), from the pairs' line estimates and where each thread ran\n"
	"(sched JSONL, else its samples' CPUs) as the host scheduled them, and the same\n"
	"predicted for the layout scx_mitosis --cell-config applies (runs of consecutive\n"
	"CPUs per cell and subcell, each thread on its run's LLCs; --sched-model packing:\n"
	"each subcell on one LLC, worst fit by CPU demand; both are shown), per cell and\n"
	"subcell, with intervals, on the recording's topology (topology.json next to\n"
	"-f FILE, else a perf.data's headers; none: said, no figures); --topology FILE\n"
	"evaluates against another topology.json, --topology host this machine's.\n"
	"See docs/llc-sharing.md.\n"
	"Several recordings (-f A -f B ...; sharing only): units are matched by name\n"
	"within their cell, each pair's evidence is summed over the recordings that have\n"
	"both units and decided once on the sums (evidence never joins two recordings);\n"
	"a unit's demand is its largest, the cap the smallest; -v says on how many\n"
	"recordings each pair shared. --evidence-out FILE writes one recording's evidence\n"
	"(schemas/evidence.schema.json); --evidence-in FILE... combines such files (with\n"
	"any -f) into the same config as the one-shot run. See docs/extract.md.\n"
	"`extract sched util` and `extract sched stats` read sched JSONL (see their --help).";

static const char sched_util_summary[] =
	"Read sched JSONL (ours, or upstream's perf.sched.jsonl) and print one JSON line\n"
	"per window: busy percent of window x CPUs seen, total, uncategorized and per\n"
	"category, by upstream's rules: the task of the last sched_switch runs unless a\n"
	"hardirq/softirq section is active (ksoftirqd/N is softirq-other), nmi events\n"
	"with delta_ns are cut out, a hint change of the running thread splits its time.\n"
	"--categories: comma list of COMM, GLOB (* ?), COMM@hint=H (adds COMM@hint=0);\n"
	"hardirq, softirq-rx, softirq-tx, softirq-other and nmi are always added. An\n"
	"interval matching two categories is an error.";

static const char sched_stats_summary[] =
	"Read sched JSONL and print per-key scheduling statistics (JSON): runtime,\n"
	"utilization, voluntary/involuntary switches, wakeups, migrations and\n"
	"wakeup-to-run latency (count, min, avg, p50, p99, max; exact percentiles).\n"
	"A switch whose prev_pid is not the CPU's current task (a lost event) is a\n"
	"broken chain: counted (broken_chains, -v lists them), its gap credited to nobody.\n"
	"--by llc and --by node take the recording's topology (topology.json next to -f\n"
	"FILE), else --topology FILE, or --topology host for this machine's.";

/* The input file, or NULL with scx_fail() set. Opening a FIFO waits for a
 * writer; a signal then ends the wait: "interrupted", as everywhere else. */
static FILE *open_input(const char *path)
{
	FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin;

	if (!in && errno == EINTR)
		scx_fail("interrupted");
	else if (!in)
		scx_fail_errno("%s", path);
	return in;
}

/* Print the failure of cmd; its exit code (130 after SIGINT/SIGTERM). */
static int failed(const char *cmd)
{
	fprintf(stderr, "scxprof %s: %s\n", cmd, scx_errmsg());
	return cmd_interrupted ? EXIT_INTERRUPTED : EXIT_ERROR;
}

/* Close in (unless stdin) after a stage's run returned rc; the exit code. */
static int finish(const char *cmd, FILE *in, int rc)
{
	if (in != stdin)
		fclose(in);
	return rc < 0 ? failed(cmd) : EXIT_OK;
}

static void print_warnings(void *ctx, const struct warnings *w)
{
	(void)ctx;
	for (size_t i = 0; i < w->nr; i++)
		fprintf(stderr, "WARNING: %s\n", w->line[i]);
	fflush(stderr);
}

/* -f PATH is a profile (directory without perf.jsonl, or .tar.gz): one pass, no JSONL. */
static int run_onepass(const struct extract_mem_opts *o, const char *path, long jobs, FILE *out)
{
	struct onepass_opts op = {.mem = *o, .stop = &cmd_interrupted, .on_warnings = print_warnings};
	char dir[4096];

	op.jobs = jobs > 0 ? (int)jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
	op.dir = dir;
	if (profile_path_resolve(path, dir, sizeof(dir), NULL) < 0 || onepass_run(&op, out, stderr) < 0)
		return -1;
	return 0;
}

/* One recording's stage (extract_multi_stage): the config to out. -1 + scx_fail. */
static int run_stage(struct extract_mem_opts *o, const char *sched, long jobs, FILE *out)
{
	char jsonl[4096];
	struct stat st;
	FILE *in;
	int rc;

	if (strcmp(o->path, "-") && stat(o->path, &st) == 0 && S_ISDIR(st.st_mode)) {
		/* PROFILE.out/ (what process wrote): its perf.jsonl[.zst]; else a profile */
		if (fs_join(jsonl, sizeof(jsonl), o->path, "perf.jsonl") < 0)
			return -1;
		o->sched_path = sched;
		if (!fs_exists(jsonl) && fs_join(jsonl, sizeof(jsonl), o->path, "perf.jsonl.zst") == 0 &&
		    !fs_exists(jsonl))
			return run_onepass(o, o->path, jobs, out);
		o->path = jsonl;
		if (!sched)
			o->sched_path = extract_args_sched_next_to(jsonl);
	} else if (profile_path_ends_with(o->path, ".tar.gz") || pd_is_perf_data(o->path)) {
		o->sched_path = sched;
		return run_onepass(o, o->path, jobs, out);
	}
	if (!(in = open_input(o->path)))
		return -1;
	o->jobs = jobs > 0 ? (int)jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
	rc = extract_mem_run(o, in, out, stderr);
	if (in != stdin)
		fclose(in);
	return rc;
}

static int run(struct extract_mem_opts *o, const char *sched, long jobs)
{
	return run_stage(o, sched, jobs, stdout) < 0 ? failed("extract") : EXIT_OK;
}

/* --llc-json FILE: the observer writes the sidecar (llc_json.c) */
static int run_with_llc_json(struct extract_mem_opts *o, const char *path, const char *sched, long jobs)
{
	struct extract_mem_observer obs = {.on_llc = llc_json_write, .ctx = (void *)path, .llc_required = true};

	if (fs_exists(path)) {
		fprintf(stderr, "scxprof extract: %s: already exists, not overwritten\n", path);
		return EXIT_ERROR;
	}
	o->observer = &obs;
	return run(o, sched, jobs);
}

/* Several recordings, --evidence-in or --evidence-out: extract/evidence/evidence_*.h through cmd/extract_multi.c. */
static int run_multi(struct extract_args *a, const struct opt_list *files, const char *const *ev, size_t ne,
		     const char *evidence_out, long jobs)
{
	struct extract_mem_opts *o = &a->o;
	struct evidence_merge_opts mo = {
		.share_threshold = o->share_threshold, .max_cell_cpus = o->max_cell_cpus, .min_keys = o->min_keys,
		.min_samples = o->min_samples, .verbose = o->verbose, .limits = o->limits,
	};

	if (evidence_out)
		return extract_multi_evidence_out(run_stage, o, a->sched, jobs, evidence_out) < 0 ? failed("extract")
												     : EXIT_OK;
	return extract_multi_combine(run_stage, o, files->v, files->n, ev, ne, jobs, &mo) < 0 ? failed("extract")
												  : EXIT_OK;
}

static int cmd_extract_mem(int argc, char **argv, const struct cmd_usage *u)
{
	static struct opt_list files, evidence_in;
	struct extract_args a = {0};
	long jobs = 0;
	const char *llc_json = NULL, *evidence_out = NULL, *per_allotment = NULL;
	const struct opt opts[] = {
		OPT_LIST('f', "file", &files, "FILE",
			 "perf.jsonl or perf.mem.jsonl ('-': stdin), PROFILE.out/, or a profile (directory or "
			 ".tar.gz: one pass, no JSONL written); repeat it for one config from several recordings"),
		EXTRACT_MEM_OPTIONS(a, "summary to stderr (-vv: every comm, hint and concrete comm)"),
		OPT_INT('j', "jobs", &jobs, "N", "threads: for a profile 1, or 2 and more (decode | aggregate, sched beside, 3+: its own aggregation, 4+: evidence on N-3 more); for perf.jsonl 2 and more read sched.jsonl beside it (default: online CPUs)",
			1, 4096),
		OPT_STRING(0, "llc-json", &llc_json, "FILE",
			   "also write the cross-LLC sharing figures, measured and predicted under the config, as JSON "
			   "to FILE (e.g. cells.llc.json beside cells.json; must not exist)"),
		OPT_STRING(0, "per-allotment-config", &per_allotment, "DIR",
			   "also write one config per recorded allotment cgroup to DIR/CGROUP.json (must not exist): the "
			   "config with the allotment spec replaced by that allotment's own subcells"),
		OPT_STRING(0, "evidence-out", &evidence_out, "FILE",
			   "also write the recording's unit-level sharing evidence (schemas/evidence.schema.json) to FILE "
			   "(must not exist), for --evidence-in"),
		OPT_LIST(0, "evidence-in", &evidence_in, "FILE",
			 "combine evidence files (and any -f recordings) into one config; FILE arguments after the "
			 "options are evidence files too"),
		OPT_END(),
	};

	files.n = evidence_in.n = 0;
	argc = opts_parse(argc, argv, opts, u);
	if (argc < 0)
		return argc == OPTS_HELP ? EXIT_OK : EXIT_USAGE;
	if (argc > 0 && !evidence_in.n)
		return opts_usage_error(u, "unexpected argument '%s'", argv[0]), EXIT_USAGE;
	if (!files.n && !evidence_in.n)
		return opts_usage_error(u, "-f FILE is required"), EXIT_USAGE;
	if (evidence_out && (files.n != 1 || evidence_in.n))
		return opts_usage_error(u, "--evidence-out FILE takes one recording (-f FILE)"), EXIT_USAGE;
	if ((files.n > 1 || evidence_in.n) && a.sched)
		return opts_usage_error(u, "--sched FILE names one recording's stream: give each recording's sched.jsonl beside it"),
		       EXIT_USAGE;
	if ((files.n > 1 || evidence_in.n || evidence_out) && llc_json)
		return opts_usage_error(u, "--llc-json FILE takes one recording without --evidence-in/--evidence-out"),
		       EXIT_USAGE;
	if ((files.n > 1 || evidence_in.n || evidence_out) && per_allotment)
		return opts_usage_error(u, "--per-allotment-config DIR takes one recording without --evidence-in/--evidence-out"),
		       EXIT_USAGE;
	if ((files.n > 1 || evidence_in.n || evidence_out) && a.cluster != CLUSTER_SHARING)
		return opts_usage_error(u, "several recordings and evidence files need --cluster sharing"), EXIT_USAGE;
	a.o.path = files.n ? files.v[0] : "-";
	if (extract_args_finish("extract", &a) < 0) {
		opts_print_usage(u);
		return EXIT_USAGE;
	}
	if (per_allotment && fs_exists(per_allotment)) {
		fprintf(stderr, "scxprof extract: %s: already exists, not overwritten\n", per_allotment);
		return EXIT_ERROR;
	}
	a.o.per_allotment_dir = per_allotment;
	if (files.n > 1 || evidence_in.n || evidence_out) {
		const char **ev = (const char **)argv; /* --evidence-in values, then the arguments */
		size_t ne = 0, i;

		if (!(ev = calloc(evidence_in.n + (size_t)argc + 1, sizeof(*ev)))) {
			fprintf(stderr, "scxprof extract: out of memory\n");
			return EXIT_ERROR;
		}
		for (i = 0; i < evidence_in.n; i++)
			ev[ne++] = evidence_in.v[i];
		for (i = 0; i < (size_t)argc; i++)
			ev[ne++] = argv[i];
		int rc = run_multi(&a, &files, ev, ne, evidence_out, jobs);

		free(ev);
		return rc;
	}
	return llc_json ? run_with_llc_json(&a.o, llc_json, a.sched, jobs) : run(&a.o, a.sched, jobs);
}

static int cmd_extract_sched_util(int argc, char **argv, const struct cmd_usage *u)
{
	struct sched_util_opts o = {.window_ms = 1};
	const struct opt opts[] = {
		OPT_STRING_REQUIRED('f', "file", &o.path, "FILE",
				    "sched JSONL (sched.jsonl or perf.sched.jsonl), '-' for stdin (required)", "-f FILE"),
		OPT_INT(0, "window-ms", &o.window_ms, "N", "window length in ms (default 1)", 0, 1L << 40),
		OPT_STRING(0, "categories", &o.categories, "LIST", "comma list of COMM, GLOB, COMM@hint=H (mutually exclusive)"),
		OPT_COUNT('v', "verbose", &o.verbose, "a summary line to stderr"),
		OPT_END(),
	};
	FILE *in;

	argc = opts_parse(argc, argv, opts, u);
	if (argc < 0)
		return argc == OPTS_HELP ? EXIT_OK : EXIT_USAGE;
	if (sched_util_check_opts(&o) < 0) {
		opts_usage_error(u, "%s", scx_errmsg());
		return EXIT_USAGE;
	}
	if (!(in = open_input(o.path)))
		return failed(u->name);
	return finish(u->name, in, sched_util_run(&o, in, stdout, stderr));
}

static int cmd_extract_sched_stats(int argc, char **argv, const struct cmd_usage *u)
{
	struct sched_stats_opts o = {0};
	const char *by = NULL;
	const struct opt opts[] = {
		OPT_STRING_REQUIRED('f', "file", &o.path, "FILE",
				    "sched JSONL (sched.jsonl or perf.sched.jsonl), '-' for stdin (required)", "-f FILE"),
		OPT_STRING(0, "topology", &o.topology, "FILE|host", "topology.json for --by llc|node (default: the recording's)"),
		OPT_STRING(0, "by", &by, "KEY", "thread (default), process, comm, cpu, llc or node"),
		OPT_INT(0, "limit", &o.limit, "N", "print the N keys with the most runtime (default: all)", 0, 1L << 40),
		OPT_INT(0, "max-threads", &o.max_threads, "N",
			"live threads before the idle ones with least runtime are folded (default 131072)", 2, 1L << 24),
		OPT_COUNT('v', "verbose", &o.verbose, "broken switch chains (count, first ones) and folded threads to stderr"),
		OPT_END(),
	};
	FILE *in;

	argc = opts_parse(argc, argv, opts, u);
	if (argc < 0)
		return argc == OPTS_HELP ? EXIT_OK : EXIT_USAGE;
	if (by && sched_stats_parse_by(by, &o.by) < 0) {
		opts_usage_error(u, "--by: '%s' is not thread, process, comm, cpu, llc or node", by);
		return EXIT_USAGE;
	}
	if (!(in = open_input(o.path)))
		return failed(u->name);
	return finish(u->name, in, sched_stats_run(&o, in, stdout, stderr));
}

int cmd_extract(int argc, char **argv)
{
	static const struct cmd_usage sched_util_u = {
		"extract sched util", "-f FILE [--window-ms N] [--categories LIST] [-v]", sched_util_summary, false,
	};
	static const struct cmd_usage sched_stats_u = {
		"extract sched stats", "-f FILE [--by thread|process|comm|cpu|llc|node] [--topology FILE|host] [--limit N]",
		sched_stats_summary, false,
	};
	static const struct cmd_usage extract_u = {
		"extract", "[mem] -f FILE|PROFILE [-f ...] [-v|-vv] [-j N] [--use-hints] [--cluster sharing|comm] [--evidence-out FILE] [--evidence-in FILE...] [OPTIONS]", summary, true,
	};
	static const struct cmd_usage mem_u = {
		"extract mem", "-f FILE|PROFILE [-f ...] [-v|-vv] [-j N] [--use-hints] [--cluster sharing|comm] [--evidence-out FILE] [--evidence-in FILE...] [OPTIONS]", summary, true,
	};

	if (argc > 1 && !strcmp(argv[1], "mem"))
		return cmd_extract_mem(argc - 1, argv + 1, &mem_u);
	if (argc > 1 && !strcmp(argv[1], "sched")) {
		if (argc > 2 && !strcmp(argv[2], "util"))
			return cmd_extract_sched_util(argc - 2, argv + 2, &sched_util_u);
		if (argc > 2 && !strcmp(argv[2], "stats"))
			return cmd_extract_sched_stats(argc - 2, argv + 2, &sched_stats_u);
		fprintf(stderr, "scxprof extract sched: %s%s%s (util or stats)\n", argc > 2 ? "unknown subcommand '" : "missing subcommand",
			argc > 2 ? argv[2] : "", argc > 2 ? "'" : "");
		return EXIT_USAGE;
	}
	if (argc > 1 && argv[1][0] != '-') {
		fprintf(stderr, "scxprof extract: unknown subcommand '%s' (mem or sched)\n", argv[1]);
		opts_print_usage(&extract_u);
		return EXIT_USAGE;
	}
	return cmd_extract_mem(argc, argv, &extract_u);
}
