/*
 * opts.h - command-line options declared as data (git's parse-options idea):
 * each command lists its options in a table ending with OPT_END; parsing,
 * usage errors and --help text all come from that one table.
 *
 *   argc = opts_parse(argc, argv, opts, &usage);
 *   if (argc < 0)
 *       return argc == OPTS_HELP ? EXIT_OK : EXIT_USAGE;
 *   ... argv[0..argc) are the arguments that are not options ...
 */
#ifndef SCX_OPTS_H
#define SCX_OPTS_H

#include <stdbool.h>
#include <stddef.h>

enum opt_kind { OPT_KIND_END, OPT_KIND_FLAG, OPT_KIND_COUNT, OPT_KIND_STRING, OPT_KIND_INT, OPT_KIND_ENUM, OPT_KIND_LIST };

/* An OPT_KIND_LIST option's values, in the order given (the option repeated). */
#define OPT_LIST_MAX 1024
struct opt_list {
	const char *v[OPT_LIST_MAX];
	size_t n;
};

/* One allowed value of an OPT_KIND_ENUM option; a list ends with {NULL, 0}. */
struct opt_choice {
	const char *name;
	int value;
};

struct opt {
	enum opt_kind kind;
	char short_name;        /* 0 if none */
	const char *long_name;  /* without "--", NULL if none */
	void *value;            /* FLAG bool*, COUNT int*, STRING const char**, ENUM int*, LIST struct opt_list*,
				 * INT any integer of value_size bytes (4 or 8) */
	size_t value_size;      /* OPT_KIND_INT: sizeof(*value); min..max must fit it */
	const char *arg_name;   /* shown in help for options with a value */
	const char *help;
	long min, max;          /* OPT_KIND_INT bounds */
	bool flag_value;        /* OPT_KIND_FLAG: what it stores (OPT_FLAG true, OPT_FLAG_OFF false) */
	const struct opt_choice *choices; /* OPT_KIND_ENUM: the allowed values */
	const char *required;   /* non-NULL: the option must be given; how the error names it ("-f PATH") */
};

#define OPT_FLAG(s, l, v, h) {.kind = OPT_KIND_FLAG, .short_name = (s), .long_name = (l), .value = (v), \
			      .help = (h), .flag_value = true}
#define OPT_FLAG_OFF(s, l, v, h) {.kind = OPT_KIND_FLAG, .short_name = (s), .long_name = (l), .value = (v), \
				  .help = (h), .flag_value = false}
#define OPT_COUNT(s, l, v, h) {.kind = OPT_KIND_COUNT, .short_name = (s), .long_name = (l), .value = (v), .help = (h)}
#define OPT_STRING(s, l, v, a, h) {.kind = OPT_KIND_STRING, .short_name = (s), .long_name = (l), .value = (v), \
				   .arg_name = (a), .help = (h)}
/* A string option that must be given; name says it in the error: "scxprof CMD: NAME is required". */
#define OPT_STRING_REQUIRED(s, l, v, a, h, name) {.kind = OPT_KIND_STRING, .short_name = (s), .long_name = (l), \
						  .value = (v), .arg_name = (a), .help = (h), .required = (name)}
#define OPT_INT(s, l, v, a, h, lo, hi) {.kind = OPT_KIND_INT, .short_name = (s), .long_name = (l), .value = (v), \
					.value_size = sizeof(*(v)), .arg_name = (a), .help = (h), .min = (lo), .max = (hi)}
/* One of the names in choices (struct opt_choice[]), stored as its value in an int. */
#define OPT_ENUM(s, l, v, a, h, c) {.kind = OPT_KIND_ENUM, .short_name = (s), .long_name = (l), .value = (v), \
				    .arg_name = (a), .help = (h), .choices = (c)}
/* A string option that may be repeated: each value appended to a struct opt_list. */
#define OPT_LIST(s, l, v, a, h) {.kind = OPT_KIND_LIST, .short_name = (s), .long_name = (l), .value = (v), \
				 .arg_name = (a), .help = (h)}
#define OPT_END() {.kind = OPT_KIND_END}

struct cmd_usage {
	const char *name;      /* "process" */
	const char *synopsis;  /* "-f PATH [-o OUTDIR] ..." */
	const char *summary;   /* one paragraph shown under --help */
	bool takes_args;       /* arguments that are not options are allowed (else "unexpected argument") */
};

/* opts_parse's returns besides an argument count */
#define OPTS_ERROR (-1)
#define OPTS_HELP (-2)

/* The most options one table may hold (opts_parse refuses a longer table). */
#define OPTS_MAX 64

/*
 * Parse argv[1..argc) against opts, as git's parse_options does: the
 * arguments that are not options (and everything after "--") are moved, in
 * order, to argv[0..n) with argv[n] = NULL, and n is returned; argv's other
 * entries are overwritten. -h/--help prints help to stdout and returns
 * OPTS_HELP (the caller exits 0). A usage error prints "scxprof NAME: ..."
 * and the usage line to stderr and returns OPTS_ERROR (the caller exits 2):
 * in argv order an unknown option, a missing or malformed value; then an
 * argument when u->takes_args is false, a required option not given, and
 * an enum value not among its choices (in table order).
 */
int opts_parse(int argc, char **argv, const struct opt *opts, const struct cmd_usage *u);

/* "scxprof NAME: MESSAGE" and the usage line on stderr; returns OPTS_ERROR. */
int opts_usage_error(const struct cmd_usage *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void opts_print_help(const struct opt *opts, const struct cmd_usage *u);
void opts_print_usage(const struct cmd_usage *u);

#endif
