/*
 * cmd_report.c - `scxprof report -f PROFILE.out [-o FILE] [extract mem
 * options]`: parse the options into report_opts and call the library
 * (report/report.c), which writes one self-contained HTML page.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/extract_args.h"
#include "cmd/opts.h"
#include "cmd/signals.h"
#include "lib/error.h"
#include "lib/fsutil.h"
#include "report/report.h"

static const char summary[] =
	"Run extract mem's analysis on PROFILE.out/perf.jsonl (with sched.jsonl when it is\n"
	"there; process -z's .zst files as well) and write one self-contained HTML page (inline CSS and SVG, nothing loaded\n"
	"from the network): the recording's host, backend, duration and losses; the cell\n"
	"config as a tree with each cell's and subcell's samples, CPU share, wakeup latency\n"
	"p50/p99 and migrations; each cell's sharing matrix as a heatmap (merged subcells\n"
	"outlined, affinity on hover); the evidence of every merge; each cell's CPU use over\n"
	"time; cross-LLC sharing measured and predicted under the config on the recording's\n"
	"topology (--topology FILE evaluates another topology.json, --topology host this\n"
	"machine's); the config JSON and the -v text. -f may also name a\n"
	"perf.jsonl(.zst) file. The\n"
	"output (default PROFILE.out/report.html) is written under a temporary name and\n"
	"renamed; an existing file is never overwritten.";

int cmd_report(int argc, char **argv)
{
	static const struct cmd_usage u = {"report", "-f PROFILE.out [-o FILE] [extract mem OPTIONS]", summary, false};
	static char perf[PATH_MAX], zperf[PATH_MAX], dir[PATH_MAX], output[PATH_MAX];
	struct extract_args a = {0};
	const char *file = NULL, *out = NULL;
	const struct opt opts[] = {
		OPT_STRING_REQUIRED('f', "file", &file, "PATH",
				    "PROFILE.out (process's output directory) or a perf.jsonl (required)", "-f PROFILE.out"),
		OPT_STRING('o', "output", &out, "FILE", "the HTML file (default PROFILE.out/report.html; must not exist)"),
		EXTRACT_MEM_OPTIONS(a, "-vv: the longer -v text (every comm, hint and concrete comm) in the page"),
		OPT_END(),
	};
	struct report_opts o;

	argc = opts_parse(argc, argv, opts, &u);
	if (argc < 0)
		return argc == OPTS_HELP ? EXIT_OK : EXIT_USAGE;
	if (fs_is_dir(file)) {
		fs_strip_suffix(dir, sizeof(dir), file, "/");
		if (fs_join(perf, sizeof(perf), dir, "perf.jsonl") < 0) {
			opts_print_usage(&u);
			return EXIT_USAGE;
		}
		/* process -z wrote perf.jsonl.zst; with neither, the error names perf.jsonl */
		if (!fs_exists(perf) && fs_join(zperf, sizeof(zperf), dir, "perf.jsonl.zst") == 0 && fs_exists(zperf))
			memcpy(perf, zperf, sizeof(perf));
	} else {
		const char *slash = strrchr(file, '/');

		snprintf(perf, sizeof(perf), "%s", file);
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file) : 1, slash ? file : ".");
	}
	a.o.path = perf;
	if (extract_args_finish("report", &a) < 0) {
		opts_print_usage(&u);
		return EXIT_USAGE;
	}
	o.mem = a.o;
	if (!out) {
		if (fs_join(output, sizeof(output), dir, "report.html") < 0) {
			fprintf(stderr, "scxprof report: %s\n", scx_errmsg());
			return EXIT_ERROR;
		}
		out = output;
	}
	o.out_dir = dir;
	o.output = out;
	o.heatmap_max_units = 0;
	if (report_run(&o) < 0) {
		fprintf(stderr, "scxprof report: %s\n", scx_errmsg());
		return cmd_interrupted ? EXIT_INTERRUPTED : EXIT_ERROR;
	}
	printf("Report: %s\n", out);
	return EXIT_OK;
}
