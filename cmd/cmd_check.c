/*
 * cmd_check.c - `scxprof check CONFIG`: is a cell config (extract's or
 * hand-written) one the scheduler that reads it accepts and reads as
 * written? One line per problem on stderr (the cell, the subcell, the
 * rule), exit 1; a one-line summary on stdout and exit 0 when there is
 * none; with --topology, the layout scx_mitosis would give it. The rules
 * live in the library (extract/sharing/cell_config_check.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/check_demands.h"
#include "cmd/commands.h"
#include "cmd/opts.h"
#include "extract/extract.h"
#include "lib/error.h"
#include "lib/warnings.h"
#include "llc/llc.h"
#include "place/place.h"

static const char summary[] =
	"Check a cell config against the rules of the scheduler that reads it, by default\n"
	"scx_mitosis --cell-config (" READER_DEFAULT_NAME "): a JSON array of cell specs whose\n"
	"\"matches\" is an object ({\"CgroupRegex\": RE}, {\"CgroupContains\": S}, {} for the\n"
	"catch-all, the last spec only); CgroupRegex in Rust regex syntax, matched against\n"
	"/sys/fs/cgroup/...; at most 8 subcells a cell (the catch-all included), 4 OR groups\n"
	"a subcell, 4 AND terms a group, CommPrefix the only term, at most 15 bytes, no NUL;\n"
	"no unknown key (the reader would ignore it). Prints one line per problem on stderr,\n"
	"naming the cell, the subcell and the rule, and exits 1; prints a one-line summary\n"
	"on stdout and exits 0 when there is none. --reader-limits subcells=N,or=N,and=N,prefix=N\n"
	"checks against another reader's limits. With --topology FILE (a topology.json) or\n"
	"--topology host (this machine's sysfs and cgroup cpusets), a config with no problem\n"
	"is laid out as scx_mitosis would at equal weights: which of the cgroups given with\n"
	"--cgroup PATH (repeatable, below /sys/fs/cgroup) become cells, each cell's and\n"
	"subcell's CPU run (a cell whose cgroup has a cpuset in the topology takes its CPUs)\n"
	"and its LLCs (docs/llc-sharing.md). --demands DIR\n"
	"(a PROFILE.out: perf.jsonl and sched.jsonl) adds the recording's threads and a\n"
	"second layout at their demands (runtime / trace duration), the fixed point of\n"
	"scx_mitosis --enable-rebalancing, beside the equal one.";

/* One layout of t[0..n) on stdout under mo, after its title line. */
static int print_layout(const struct cell_config *cfg, const struct llc_map *map, const struct mitosis_opts *mo,
			struct place_thread *t, size_t n)
{
	struct place_mitosis pm = {0};

	if (place_mitosis_plan(&pm, cfg, map, mo, t, n) < 0)
		return -1;
	place_mitosis_print(stdout, &pm, map);
	place_mitosis_free(&pm);
	return 0;
}

/*
 * The config laid out on the topology for the cgroups given (one thread of
 * no comm each: its cell's catch-all) and, with --demands DIR, the
 * recording's threads: the cells and runs at equal weights, then at the
 * recorded demands (the --enable-rebalancing fixed point), on stdout.
 */
static int show_layout(const char *config, const char *topology, const struct opt_list *cgroups, const char *demands)
{
	struct cell_config cfg = {0};
	struct llc_map map = {0};
	struct place_thread *t = NULL, *rec = NULL;
	struct check_demands_info info = {0};
	struct mitosis_opts mo = {.llc_aware = true};
	struct warnings warn = {0};
	size_t n = cgroups->n, nrec = 0;
	int rc = -1;

	if (cell_config_read(config, &cfg) < 0 ||
	    llc_map_read(strcmp(topology, "host") ? topology : NULL, &map, &warn) < 0)
		goto out;
	for (size_t i = 0; i < warn.nr; i++) /* this host's cpusets: a file that could not be read */
		fprintf(stderr, "WARNING: %s\n", warn.line[i]);
	if (demands && check_demands_read(demands, &rec, &nrec, &info) < 0)
		goto out;
	if (!(t = calloc(n + nrec + 1, sizeof(*t)))) {
		scx_fail("out of memory");
		goto out;
	}
	for (size_t i = 0; i < cgroups->n; i++)
		snprintf(t[i].cgroup, sizeof(t[i].cgroup), "%s", cgroups->v[i]);
	if (nrec)
		memcpy(t + n, rec, nrec * sizeof(*t));
	n += nrec;
	printf("%s on %s (%u CPUs, %zu LLCs), %s %s at equal weights:\n", config, topology, map.online, map.nr_llcs,
	       MITOSIS_MODEL_NAME, MITOSIS_MODEL_VERSION);
	if (print_layout(&cfg, &map, &mo, t, n) < 0)
		goto out;
	if (demands) {
		mo.rebalancing = true;
		printf("%s at the demands of %s (--enable-rebalancing's fixed point): %zu threads, %.2f CPUs over %.3f s "
		       "of trace; %zu threads of %.2f CPUs left out (neither they nor their process sampled: no cgroup):\n",
		       MITOSIS_MODEL_NAME, demands, nrec, info.cpus, (double)info.duration_ns / 1e9, info.unattributed,
		       info.unattributed_cpus);
		if (print_layout(&cfg, &map, &mo, t, n) < 0)
			goto out;
	}
	rc = 0;
out:
	llc_map_free(&map);
	cell_config_free(&cfg);
	free(t);
	free(rec);
	return rc;
}

struct printer {
	const char *path;
};

static int print_problem(void *ctx, const char *where, const char *rule, const char *what)
{
	const struct printer *p = ctx;

	fprintf(stderr, "%s: %s%s%s: %s\n", p->path, where, *where ? ": " : "", rule, what);
	return 0;
}

int cmd_check(int argc, char **argv)
{
	static const struct cmd_usage u = {"check",
					   "[--reader-limits SPEC] [--topology FILE|host [--cgroup PATH...] [--demands DIR]] CONFIG",
					   summary, true};
	static struct opt_list cgroups;
	const char *limits_spec = NULL, *topology = NULL, *demands = NULL;
	const struct opt opts[] = {
		OPT_STRING(0, "topology", &topology, "FILE|host",
			   "show the scx_mitosis layout on this topology.json, or on this host (sysfs and cpusets)"),
		OPT_LIST(0, "cgroup", &cgroups, "PATH", "--topology: a cgroup that exists (below /sys/fs/cgroup; repeatable)"),
		OPT_STRING(0, "demands", &demands, "DIR",
			   "--topology: also lay out at the demands of the recording in DIR (perf.jsonl, sched.jsonl)"),
		OPT_STRING(0, "reader-limits", &limits_spec, "SPEC",
			   "subcells=N,or=N,and=N,prefix=N: another reader's limits (default " READER_DEFAULT_NAME "'s 8,4,4,15)"),
		OPT_END(),
	};
	struct reader_limits limits = reader_limits_default;
	struct cell_config_summary sum;
	struct printer p;
	long n;

	argc = opts_parse(argc, argv, opts, &u);
	if (argc < 0)
		return argc == OPTS_HELP ? EXIT_OK : EXIT_USAGE;
	if (argc != 1)
		return opts_usage_error(&u, argc ? "one CONFIG only" : "no CONFIG given"), EXIT_USAGE;
	if (demands && !topology)
		return opts_usage_error(&u, "--demands DIR needs --topology FILE"), EXIT_USAGE;
	if (limits_spec && reader_limits_parse(limits_spec, &limits) < 0)
		return opts_usage_error(&u, "%s", scx_errmsg()), EXIT_USAGE;
	p.path = argv[0];
	n = cell_config_check_file(argv[0], &limits, print_problem, &p, &sum);
	if (n < 0) {
		fprintf(stderr, "scxprof check: %s\n", scx_errmsg());
		return EXIT_ERROR;
	}
	if (n > 0)
		return EXIT_ERROR;
	if (topology && show_layout(argv[0], topology, &cgroups, demands) < 0) {
		fprintf(stderr, "scxprof check: %s\n", scx_errmsg());
		return EXIT_ERROR;
	}
	printf("%s: accepted by %s: %zu cell spec%s (%zu catch-all), %zu subcells\n", argv[0], limits.name, sum.specs,
	       sum.specs == 1 ? "" : "s", sum.catch_all_specs, sum.subcells);
	return EXIT_OK;
}
