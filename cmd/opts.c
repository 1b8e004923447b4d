/*
 * opts.c - the table-driven option parser declared in opts.h.
 */
#include "opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void opts_print_usage(const struct cmd_usage *u)
{
	fprintf(stderr, "usage: scxprof %s %s\n", u->name, u->synopsis);
	fprintf(stderr, "Try 'scxprof %s --help' for more information.\n", u->name);
}

void opts_print_help(const struct opt *opts, const struct cmd_usage *u)
{
	const struct opt *o;
	char left[64];

	printf("usage: scxprof %s %s\n\n%s\n\nOptions:\n", u->name, u->synopsis, u->summary);
	for (o = opts; o->kind != OPT_KIND_END; o++) {
		int n = 0;

		if (o->short_name && o->long_name)
			n = snprintf(left, sizeof(left), "-%c, --%s", o->short_name, o->long_name);
		else if (o->short_name)
			n = snprintf(left, sizeof(left), "-%c", o->short_name);
		else
			n = snprintf(left, sizeof(left), "    --%s", o->long_name);
		if (o->arg_name && n > 0 && (size_t)n < sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n, " %s", o->arg_name);
		printf("  %-28s %s\n", left, o->help);
	}
	printf("  %-28s %s\n", "-h, --help", "show this help and exit");
}

static int fail(const struct cmd_usage *u, const char *fmt, const char *what)
{
	fprintf(stderr, "scxprof %s: ", u->name);
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	opts_print_usage(u);
	return -1;
}

static int set_value(const struct opt *o, const char *val, const struct cmd_usage *u)
{
	char *end;
	long v;

	switch (o->kind) {
	case OPT_KIND_FLAG:
		*(bool *)o->value = true;
		return 0;
	case OPT_KIND_COUNT:
		(*(int *)o->value)++;
		return 0;
	case OPT_KIND_STRING:
		*(const char **)o->value = val;
		return 0;
	case OPT_KIND_INT:
		errno = 0;
		v = strtol(val, &end, 10);
		if (errno || end == val || *end || v < o->min || v > o->max) {
			fprintf(stderr, "scxprof %s: --%s: '%s' is not a whole number from %ld to %ld\n",
				u->name, o->long_name ? o->long_name : "?", val, o->min, o->max);
			opts_print_usage(u);
			return -1;
		}
		*(long *)o->value = v;
		return 0;
	default:
		return -1;
	}
}

static bool takes_value(const struct opt *o)
{
	return o->kind == OPT_KIND_STRING || o->kind == OPT_KIND_INT;
}

static const struct opt *find_long(const struct opt *opts, const char *name, size_t len)
{
	for (; opts->kind != OPT_KIND_END; opts++)
		if (opts->long_name && strlen(opts->long_name) == len && !strncmp(opts->long_name, name, len))
			return opts;
	return NULL;
}

static const struct opt *find_short(const struct opt *opts, char c)
{
	for (; opts->kind != OPT_KIND_END; opts++)
		if (opts->short_name == c)
			return opts;
	return NULL;
}

static int parse_long(int argc, char **argv, int *i, const struct opt *opts, const struct cmd_usage *u)
{
	const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct opt *o = find_long(opts, arg, len);

	if (!o)
		return fail(u, "unknown option '%s'", argv[*i]);
	if (!takes_value(o)) {
		if (eq)
			return fail(u, "option '%s' takes no value", argv[*i]);
		return set_value(o, NULL, u);
	}
	if (eq)
		return set_value(o, eq + 1, u);
	if (*i + 1 >= argc)
		return fail(u, "option '%s' needs a value", argv[*i]);
	return set_value(o, argv[++*i], u);
}

static int parse_short(int argc, char **argv, int *i, const struct opt *opts, const struct cmd_usage *u)
{
	const char *p;
	char name[3] = "-?";

	for (p = argv[*i] + 1; *p; p++) {
		const struct opt *o = find_short(opts, *p);

		name[1] = *p;
		if (!o)
			return fail(u, "unknown option '%s'", name);
		if (!takes_value(o)) {
			if (set_value(o, NULL, u) < 0)
				return -1;
			continue;
		}
		if (p[1])
			return set_value(o, p + 1, u);
		if (*i + 1 >= argc)
			return fail(u, "option '%s' needs a value", name);
		return set_value(o, argv[++*i], u);
	}
	return 0;
}

int opts_parse(int argc, char **argv, const struct opt *opts, const struct cmd_usage *u,
	       char ***rest, int *nr_rest)
{
	int i, n = 0;

	*rest = calloc((size_t)argc + 1, sizeof(char *));
	if (!*rest)
		return fail(u, "%s", "out of memory");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			opts_print_help(opts, u);
			return 1;
		}
		if (!strcmp(a, "--")) {
			while (++i < argc)
				(*rest)[n++] = argv[i];
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {
			(*rest)[n++] = argv[i];
			continue;
		}
		rc = a[1] == '-' ? parse_long(argc, argv, &i, opts, u) : parse_short(argc, argv, &i, opts, u);
		if (rc < 0)
			return -1;
	}
	*nr_rest = n;
	return 0;
}
