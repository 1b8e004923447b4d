/*
 * cmd_place.c - `scxprof place -c CONFIG (-p PID... | --cgroup PATH)`:
 * parse the options into place_opts and call the library
 * (place/place_run.c), which pins each thread of a running workload to
 * the CPUs extract's model gives it (scx_mitosis's run, or an LLC).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "cmd/signals.h"
#include "lib/error.h"
#include "place/place.h"

static const char summary[] =
	"Try a config without sched_ext: pin each thread of a running workload (-p PID,\n"
	"repeatable, every thread of each process; and/or --cgroup PATH, every thread of a\n"
	"cgroup v2 subtree, PATH absolute or under the cgroup2 mount) to the CPUs the\n"
	"model of extract's prediction gives it. --model mitosis (default): its subcell's\n"
	"CPU run as scx_mitosis --cell-config lays the cells and subcells out (the reader's\n"
	"primary mask: each matching cgroup a cell, runs of consecutive CPU numbers, the\n"
	"catch-all first; equal weights, or --mitosis-rebalancing: by the CPU demand\n"
	"measured here over --window MS). --model packing: the CPUs of one last-level\n"
	"cache, as extract's LLC-packing model puts its subcell (the thread's subcell by\n"
	"the cgroup rule, CommPrefix and Hint; subcells worst-fit decreasing by CPU demand;\n"
	"a subcell larger than every LLC has its threads placed one by one). The host's\n"
	"other threads count too, as the prediction counts every thread of the recording;\n"
	"they are not pinned. The topology is --topology FILE (a topology.json as extract\n"
	"takes it) or this host's sysfs and cgroup cpusets (a cell whose cgroup has a\n"
	"cpuset takes its CPUs); with one LLC there is nothing to place. Demand is always\n"
	"measured here, never the recording's. Prints the plan (comment lines, then tid,\n"
	"comm, subcell, LLC and CPUs per thread, tab-separated); --dry-run pins nothing.\n"
	"--follow looks again every --interval MS, pins threads that appeared (or changed\n"
	"comm or cgroup; --model mitosis lays the cells out again with them, as the reader\n"
	"would for a new cgroup) and re-pins the others, until the workload has no thread\n"
	"left or a signal. Record and extract again to see what the placement achieved\n"
	"(docs/llc-sharing.md, \"Trying a config without sched_ext\").";

int cmd_place(int argc, char **argv)
{
	static const struct cmd_usage u = {
		"place", "-c CONFIG (-p PID [-p PID...] | --cgroup PATH) [--topology FILE] [--dry-run] [--follow]", summary,
		false};
	static struct opt_list pid_args;
	static int64_t pids[OPT_LIST_MAX];
	static const struct opt_choice models[] = {{"packing", 0}, {"mitosis", 1}, {NULL, 0}};
	int model = 1;
	struct place_opts o = {.window_ms = 1000, .interval_ms = 1000, .stop = (volatile int *)&cmd_interrupted};
	const struct opt opts[] = {
		OPT_STRING_REQUIRED('c', "config", &o.config, "FILE", "the cell config extract printed (required)",
				    "-c CONFIG"),
		OPT_LIST('p', "pid", &pid_args, "PID", "a process whose threads are placed (repeatable)"),
		OPT_STRING(0, "cgroup", &o.cgroup, "PATH", "place every thread of this cgroup v2 subtree"),
		OPT_STRING(0, "topology", &o.topology, "FILE", "topology.json whose LLCs and cpusets are used (default: this host's)"),
		OPT_STRING(0, "workload-cgroup-regex", &o.workload, "S",
			   "workload cgroup, a plain substring (default: the config's CgroupContains, else extract's)"),
		OPT_STRING(0, "workload-allotment-cgroup-regex", &o.allotment_re, "RE",
			   "allotment cgroups, PCRE2 (default: the config's CgroupRegex, else extract's)"),
		OPT_STRING(0, "hints-map", &o.hints_map, "PATH",
			   "pinned BPF task-storage map of the threads' hints (default: every hint 0)"),
		OPT_INT(0, "window", &o.window_ms, "MS", "measure CPU demand over MS milliseconds (1000)", 1, 3600000),
		OPT_FLAG('n', "dry-run", &o.dry_run, "print the plan, pin nothing"),
		OPT_ENUM(0, "model", &model, "M",
			 "mitosis (default: each thread on its subcell's CPU run as scx_mitosis lays it out, extract's "
			 "default model) or packing (each subcell on one LLC, extract's LLC-packing model)", models),
		OPT_FLAG(0, "mitosis-rebalancing", &o.mitosis_rebalancing,
			 "--model mitosis: sizes by utilisation, as its --enable-rebalancing"),
		OPT_FLAG(0, "follow", &o.follow, "keep placing threads that appear until the workload exits"),
		OPT_INT(0, "interval", &o.interval_ms, "MS", "--follow: look again every MS milliseconds (1000)", 10,
			3600000),
		OPT_END(),
	};
	size_t i;

	argc = opts_parse(argc, argv, opts, &u);
	o.mitosis = model == 1;
	if (argc < 0)
		return argc == OPTS_HELP ? EXIT_OK : EXIT_USAGE;
	for (i = 0; i < pid_args.n; i++) {
		char *end;
		long long v = strtoll(pid_args.v[i], &end, 10);

		if (end == pid_args.v[i] || *end || v <= 0 || v > INT32_MAX)
			return opts_usage_error(&u, "-p %s: not a process id", pid_args.v[i]), EXIT_USAGE;
		pids[i] = v;
	}
	if (!pid_args.n && !o.cgroup)
		return opts_usage_error(&u, "no workload: give -p PID or --cgroup PATH"), EXIT_USAGE;
	o.pids = pids;
	o.nr_pids = pid_args.n;
	if (place_run(&o, stdout) < 0) {
		fprintf(stderr, "scxprof place: %s\n", scx_errmsg());
		return cmd_interrupted ? EXIT_INTERRUPTED : EXIT_ERROR;
	}
	return EXIT_OK;
}
