/*
 * main.c - scxprof's entry point: global options and the command table.
 * Each command's code is a thin layer over the stage library (cmd_NAME.c).
 */
#include <stdio.h>
#include <string.h>

#include "cmd/build_info.h"
#include "cmd/commands.h"
#include "cmd/signals.h"
#include "lib/version.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{"record", cmd_record, "sample memory accesses, scheduling and hints into a profile archive"},
	{"process", cmd_process, "decode a profile (memory, scheduling, hints) into perf.jsonl, sched.jsonl and a Perfetto trace"},
	{"extract", cmd_extract, "cluster threads by shared memory into a cell config"},
	{"report", cmd_report, "the same analysis as one self-contained HTML page (heatmap, evidence, CPU charts)"},
	{"check", cmd_check, "check a cell config against the rules of the scheduler that reads it (scx_mitosis)"},
	{"place", cmd_place, "pin a running workload's threads to LLCs as a config places them (no sched_ext needed)"},
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: scxprof [--version] [-h|--help] COMMAND [OPTIONS]\n\n"
		   "Which threads of a workload share memory, and so belong together under a\n"
		   "sched_ext scheduler? Record a profile, process it, extract a cell config.\n\n"
		   "Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nRun 'scxprof COMMAND --help' for a command's options; 'man scxprof' for more.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("scxprof %s\n", SCXPROF_VERSION);
		build_info_print(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			cmd_install_signal_handlers();
			return commands[i].fn(argc - 1, argv + 1);
		}
	}
	if (argv[1][0] == '-')
		fprintf(stderr, "scxprof: unknown option '%s'\n", argv[1]);
	else
		fprintf(stderr, "scxprof: '%s' is not a scxprof command\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
