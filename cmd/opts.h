/*
 * opts.h - command-line options declared as data (git's parse-options idea):
 * each command lists its options in a table ending with OPT_END; parsing,
 * usage errors and --help text all come from that one table.
 */
#ifndef SCX_OPTS_H
#define SCX_OPTS_H

#include <stdbool.h>

enum opt_kind { OPT_KIND_END, OPT_KIND_FLAG, OPT_KIND_COUNT, OPT_KIND_STRING, OPT_KIND_INT };

struct opt {
	enum opt_kind kind;
	char short_name;        /* 0 if none */
	const char *long_name;  /* without "--", NULL if none */
	void *value;            /* bool*, int*, const char** or long* */
	const char *arg_name;   /* shown in help for options with a value */
	const char *help;
	long min, max;          /* OPT_KIND_INT bounds */
};

#define OPT_FLAG(s, l, v, h) {OPT_KIND_FLAG, (s), (l), (v), NULL, (h), 0, 0}
#define OPT_COUNT(s, l, v, h) {OPT_KIND_COUNT, (s), (l), (v), NULL, (h), 0, 0}
#define OPT_STRING(s, l, v, a, h) {OPT_KIND_STRING, (s), (l), (v), (a), (h), 0, 0}
#define OPT_INT(s, l, v, a, h, lo, hi) {OPT_KIND_INT, (s), (l), (v), (a), (h), (lo), (hi)}
#define OPT_END() {OPT_KIND_END, 0, NULL, NULL, NULL, NULL, 0, 0}

struct cmd_usage {
	const char *name;      /* "process" */
	const char *synopsis;  /* "-f PATH [-o OUTDIR] ..." */
	const char *summary;   /* one paragraph shown under --help */
};

/*
 * Parse argv[1..] against opts. -h/--help prints help to stdout and returns 1
 * (the caller exits 0). Errors print "scxprof NAME: ..." and the usage line to
 * stderr and return -1 (the caller exits 2). Positional arguments are
 * collected into rest/nr_rest (everything after "--" too). 0 on success.
 */
int opts_parse(int argc, char **argv, const struct opt *opts, const struct cmd_usage *u,
	       char ***rest, int *nr_rest);

void opts_print_help(const struct opt *opts, const struct cmd_usage *u);
void opts_print_usage(const struct cmd_usage *u);

#endif
