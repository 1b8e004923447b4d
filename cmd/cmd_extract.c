/*
 * cmd_extract.c - `scxprof extract`. Not implemented yet: the extractor is
 * tracked by its own issue. The command exists so the command table, help
 * and exit codes are final.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/opts.h"

int cmd_extract(int argc, char **argv)
{
	static const struct cmd_usage u = {
		"extract", "[mem|sched] -f FILE [-v]",
		"Group samples by cgroup, cluster threads by shared memory and print a cell\n"
		"config. NOT IMPLEMENTED YET in this version.",
	};
	const struct opt opts[] = {OPT_END()};
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			opts_print_help(opts, &u);
			return EXIT_OK;
		}
	}
	fprintf(stderr, "scxprof extract: not implemented yet\n");
	return EXIT_ERROR;
}
