/*
 * opts.c - the table-driven option parser declared in opts.h.
 */
#include "opts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
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

int opts_usage_error(const struct cmd_usage *u, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "scxprof %s: ", u->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	opts_print_usage(u);
	return OPTS_ERROR;
}

/* v into an integer of size bytes (opts_parse checked v against bounds that fit it) */
static void store_int(void *p, size_t size, long v)
{
	if (size == sizeof(int32_t)) {
		int32_t x = (int32_t)v;

		memcpy(p, &x, sizeof(x));
	} else {
		int64_t x = v;

		memcpy(p, &x, sizeof(x));
	}
}

/* The state of one opts_parse call: the table and what each option was given. */
struct parse {
	const struct opt *opts;
	const struct cmd_usage *u;
	const char *given[OPTS_MAX]; /* the value of each option given ("" for one without a value) */
};

static int set_value(struct parse *p, const struct opt *o, const char *val)
{
	char *end;
	long v;

	p->given[o - p->opts] = val ? val : "";
	switch (o->kind) {
	case OPT_KIND_FLAG:
		*(bool *)o->value = o->flag_value;
		return 0;
	case OPT_KIND_COUNT:
		(*(int *)o->value)++;
		return 0;
	case OPT_KIND_STRING:
		*(const char **)o->value = val;
		return 0;
	case OPT_KIND_ENUM: /* checked once all are parsed */
		return 0;
	case OPT_KIND_LIST: {
		struct opt_list *l = o->value;

		if (l->n >= OPT_LIST_MAX)
			return opts_usage_error(p->u, "--%s: given more than %d times", o->long_name ? o->long_name : "?",
						OPT_LIST_MAX);
		l->v[l->n++] = val;
		return 0;
	}
	case OPT_KIND_INT:
		errno = 0;
		v = strtol(val, &end, 10);
		if (errno || end == val || *end || v < o->min || v > o->max)
			return opts_usage_error(p->u, "--%s: '%s' is not a whole number from %ld to %ld",
					   o->long_name ? o->long_name : "?", val, o->min, o->max);
		store_int(o->value, o->value_size, v);
		return 0;
	default:
		return OPTS_ERROR;
	}
}

static bool takes_value(const struct opt *o)
{
	return o->kind == OPT_KIND_STRING || o->kind == OPT_KIND_INT || o->kind == OPT_KIND_ENUM ||
	       o->kind == OPT_KIND_LIST;
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

static int parse_long(struct parse *p, int argc, char **argv, int *i)
{
	const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct opt *o = find_long(p->opts, arg, len);

	if (!o)
		return opts_usage_error(p->u, "unknown option '%s'", argv[*i]);
	if (!takes_value(o)) {
		if (eq)
			return opts_usage_error(p->u, "option '%s' takes no value", argv[*i]);
		return set_value(p, o, NULL);
	}
	if (eq)
		return set_value(p, o, eq + 1);
	if (*i + 1 >= argc)
		return opts_usage_error(p->u, "option '%s' needs a value", argv[*i]);
	return set_value(p, o, argv[++*i]);
}

static int parse_short(struct parse *p, int argc, char **argv, int *i)
{
	const char *c;
	char name[3] = "-?";

	for (c = argv[*i] + 1; *c; c++) {
		const struct opt *o = find_short(p->opts, *c);

		name[1] = *c;
		if (!o)
			return opts_usage_error(p->u, "unknown option '%s'", name);
		if (!takes_value(o)) {
			if (set_value(p, o, NULL) < 0)
				return OPTS_ERROR;
			continue;
		}
		if (c[1])
			return set_value(p, o, c + 1);
		if (*i + 1 >= argc)
			return opts_usage_error(p->u, "option '%s' needs a value", name);
		return set_value(p, o, argv[++*i]);
	}
	return 0;
}

/* An enum option's value: its choice's value into *o->value, or a usage error naming the choices. */
static int set_enum(struct parse *p, const struct opt *o, const char *val)
{
	char names[512];
	size_t used = 0, n, i;

	for (n = 0; o->choices[n].name; n++)
		if (!strcmp(val, o->choices[n].name)) {
			*(int *)o->value = o->choices[n].value;
			return 0;
		}
	names[0] = '\0';
	for (i = 0; i < n && used < sizeof(names); i++)
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s'%s'",
					 i == 0 ? "" : i + 1 == n ? " or " : ", ", o->choices[i].name);
	return opts_usage_error(p->u, "--%s: '%s' is not %s", o->long_name ? o->long_name : "?", val, names);
}

/* The checks that need every option parsed: arguments, required options, enum values. */
static int check_parsed(struct parse *p, int nr_args, char **args)
{
	const struct opt *o;

	if (nr_args > 0 && !p->u->takes_args)
		return opts_usage_error(p->u, "unexpected argument '%s'", args[0]);
	for (o = p->opts; o->kind != OPT_KIND_END; o++)
		if (o->required && !p->given[o - p->opts])
			return opts_usage_error(p->u, "%s is required", o->required);
	for (o = p->opts; o->kind != OPT_KIND_END; o++)
		if (o->kind == OPT_KIND_ENUM && p->given[o - p->opts] && set_enum(p, o, p->given[o - p->opts]) < 0)
			return OPTS_ERROR;
	return 0;
}

int opts_parse(int argc, char **argv, const struct opt *opts, const struct cmd_usage *u)
{
	struct parse p = {.opts = opts, .u = u};
	int i, n = 0, nr_opts = 0;

	for (; opts[nr_opts].kind != OPT_KIND_END; nr_opts++)
		if (opts[nr_opts].kind == OPT_KIND_INT && opts[nr_opts].value_size != sizeof(int32_t) &&
		    opts[nr_opts].value_size != sizeof(int64_t))
			return opts_usage_error(u, "--%s: an integer of %zu bytes (a bug)",
						opts[nr_opts].long_name ? opts[nr_opts].long_name : "?",
						opts[nr_opts].value_size);
	if (nr_opts > OPTS_MAX)
		return opts_usage_error(u, "more than %d options in the table (a bug)", OPTS_MAX);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			opts_print_help(opts, u);
			return OPTS_HELP;
		}
		if (!strcmp(a, "--")) {
			while (++i < argc)
				argv[n++] = argv[i];
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {
			argv[n++] = argv[i];
			continue;
		}
		rc = a[1] == '-' ? parse_long(&p, argc, argv, &i) : parse_short(&p, argc, argv, &i);
		if (rc < 0)
			return OPTS_ERROR;
	}
	if (argc > 0)
		argv[n] = NULL;
	if (check_parsed(&p, n, argv) < 0)
		return OPTS_ERROR;
	return n;
}
