/*
 * cmd_record.c - `scxprof record`. Not implemented yet: the recorder is
 * tracked by its own issue. The command exists so the command table, help
 * and exit codes are final.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/opts.h"

int cmd_record(int argc, char **argv)
{
	static const struct cmd_usage u = {
		"record", "[-o DIR] [-t SECS] [-l CYCLES] [--hints-map PATH] [-- COMMAND ARGS...]",
		"Record memory-access samples, scheduler activity and hints system-wide into a\n"
		"profile directory and archive it. NOT IMPLEMENTED YET in this version.",
	};
	const struct opt opts[] = {OPT_END()};
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			opts_print_help(opts, &u);
			return EXIT_OK;
		}
	}
	fprintf(stderr, "scxprof record: not implemented yet\n");
	return EXIT_ERROR;
}
