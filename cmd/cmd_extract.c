/*
 * cmd_extract.c - `scxprof extract [mem] ...`: parse options into
 * extract_mem_opts and call the stage (extract/extract_mem.c); the config
 * goes to stdout, the -v report to stderr. `extract sched` is not
 * implemented yet. `extract -f ...` without a subcommand means mem, as in
 * the original scxprof.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "extract/extract_mem.h"
#include "extract/sharing.h"
#include "lib/error.h"

struct extract_args {
	const char *file;
	const char *workload;
	const char *allotment_re;
	const char *cluster;
	const char *granularity;
	const char *threshold;
	bool use_hints;
	int verbose;
	long max_cell_cpus;
	long evidence_keys;
};

static const char summary[] =
	"Read perf.jsonl (ours, or upstream's perf.mem.jsonl) and print a cell config\n"
	"(JSON) on stdout. Samples are grouped by cgroup: each match of the allotment\n"
	"regex, the workload cgroup (a substring), and rest. Comms are normalized by\n"
	"stripping trailing digits; one with more than 5% of its group's samples is a\n"
	"unit (split per hint value with --use-hints).\n"
	"  --cluster sharing (default): in every group, units that touch the same\n"
	"    physical memory are merged (average linkage on TF-IDF cosine affinity of\n"
	"    their pages) while the affinity is above --share-threshold and the merged\n"
	"    CPU demand stays within --max-cell-cpus. See docs/clustering.md.\n"
	"  --cluster comm: upstream's config exactly: subcells for the allotment\n"
	"    group only, one per unit.\n"
	"-v prints upstream's per-group summary (and the clustering steps) to stderr.\n"
	"`extract sched` is not implemented yet.";

static int parse_enum(const char *opt, const char *val, const char *a, const char *b, int *out)
{
	if (!strcmp(val, a))
		*out = 0;
	else if (!strcmp(val, b))
		*out = 1;
	else
		return fprintf(stderr, "scxprof extract: %s: '%s' is not '%s' or '%s'\n", opt, val, a, b), -1;
	return 0;
}

static int parse_threshold(const char *val, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(val, &end);
	if (errno || end == val || *end || !(*out >= 0 && *out <= 1)) {
		fprintf(stderr, "scxprof extract: --share-threshold: '%s' is not a number from 0 to 1\n", val);
		return -1;
	}
	return 0;
}

/* args -> opts; -1 after printing a usage error. */
static int to_opts(const struct extract_args *a, struct extract_mem_opts *o)
{
	int cluster = 1, line = 0;

	memset(o, 0, sizeof(*o));
	o->path = a->file;
	o->workload = a->workload;
	o->allotment_re = a->allotment_re;
	o->use_hints = a->use_hints;
	o->verbose = a->verbose;
	o->share_threshold = -1;
	o->max_cell_cpus = (double)a->max_cell_cpus;
	o->max_keys = (size_t)a->evidence_keys;
	o->stop = (volatile int *)&scx_interrupted;
	if (a->cluster && parse_enum("--cluster", a->cluster, "comm", "sharing", &cluster) < 0)
		return -1;
	if (a->granularity && parse_enum("--granularity", a->granularity, "page", "line", &line) < 0)
		return -1;
	if (a->threshold && parse_threshold(a->threshold, &o->share_threshold) < 0)
		return -1;
	o->cluster = cluster ? CLUSTER_SHARING : CLUSTER_COMM;
	o->line_granularity = line;
	if (extract_mem_check_opts(o) < 0) {
		fprintf(stderr, "scxprof extract: %s\n", scx_errmsg());
		return -1;
	}
	return 0;
}

static int run(const struct extract_mem_opts *o)
{
	FILE *in = strcmp(o->path, "-") ? fopen(o->path, "r") : stdin;
	int rc;

	if (!in) {
		fprintf(stderr, "scxprof extract: %s: %s\n", o->path, strerror(errno));
		return EXIT_ERROR;
	}
	rc = extract_mem_run(o, in, stdout, stderr);
	if (in != stdin)
		fclose(in);
	if (rc < 0) {
		fprintf(stderr, "scxprof extract: %s\n", scx_errmsg());
		return scx_interrupted ? EXIT_INTERRUPTED : EXIT_ERROR;
	}
	return EXIT_OK;
}

static int cmd_extract_mem(int argc, char **argv, const struct cmd_usage *u)
{
	struct extract_args a = {0};
	const struct opt opts[] = {
		OPT_STRING('f', "file", &a.file, "FILE", "perf.jsonl or perf.mem.jsonl, '-' for stdin (required)"),
		OPT_STRING(0, "workload-cgroup-regex", &a.workload, "S",
			   "workload cgroup, a plain substring as upstream (default " EXTRACT_DEFAULT_WORKLOAD ")"),
		OPT_STRING(0, "workload-allotment-cgroup-regex", &a.allotment_re, "RE",
			   "allotment cgroups, PCRE2 (default " EXTRACT_DEFAULT_ALLOTMENT_RE ")"),
		OPT_FLAG(0, "use-hints", &a.use_hints, "split units by hint value (NAME@hint=H)"),
		OPT_COUNT('v', "verbose", &a.verbose, "summary to stderr (-vv: every comm, hint and concrete comm)"),
		OPT_STRING(0, "cluster", &a.cluster, "MODE", "sharing (default) or comm (upstream-exact)"),
		OPT_STRING(0, "granularity", &a.granularity, "G", "sharing evidence: page (default) or line (64 B)"),
		OPT_STRING(0, "share-threshold", &a.threshold, "X", "merge while affinity > X, 0..1 (default 0.08)"),
		OPT_INT(0, "max-cell-cpus", &a.max_cell_cpus, "N",
			"CPU demand cap of a merged cell (default: CPUs of the largest LLC)", 1, 1 << 20),
		OPT_INT(0, "evidence-keys", &a.evidence_keys, "N",
			"pages kept for all units before sampling them down (default 1048576)", 64, 1L << 32),
		OPT_END(),
	};
	struct extract_mem_opts o;
	char **rest = NULL;
	int nr = 0, rc = opts_parse(argc, argv, opts, u, &rest, &nr);

	if (rc == 0 && nr > 0) {
		fprintf(stderr, "scxprof %s: unexpected argument '%s'\n", u->name, rest[0]);
		rc = -1;
	} else if (rc == 0 && !a.file) {
		fprintf(stderr, "scxprof %s: -f FILE is required\n", u->name);
		rc = -1;
	} else if (rc == 0 && to_opts(&a, &o) < 0) {
		rc = -1;
	}
	free(rest);
	if (rc < 0)
		opts_print_usage(u);
	if (rc)
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	return run(&o);
}

int cmd_extract(int argc, char **argv)
{
	static const struct cmd_usage extract_u = {
		"extract", "[mem] -f FILE [-v|-vv] [--use-hints] [--cluster sharing|comm] [OPTIONS]", summary,
	};
	static const struct cmd_usage mem_u = {
		"extract mem", "-f FILE [-v|-vv] [--use-hints] [--cluster sharing|comm] [OPTIONS]", summary,
	};

	if (argc > 1 && !strcmp(argv[1], "mem"))
		return cmd_extract_mem(argc - 1, argv + 1, &mem_u);
	if (argc > 1 && !strcmp(argv[1], "sched")) {
		fprintf(stderr, "scxprof extract sched: not implemented yet\n");
		return EXIT_ERROR;
	}
	if (argc > 1 && argv[1][0] != '-') {
		fprintf(stderr, "scxprof extract: unknown subcommand '%s' (mem or sched)\n", argv[1]);
		opts_print_usage(&extract_u);
		return EXIT_USAGE;
	}
	return cmd_extract_mem(argc, argv, &extract_u);
}
