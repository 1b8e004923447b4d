/*
 * test_opts.c - the command-line option parser (cmd/opts.c): arguments that
 * are not options compacted into argv[0..argc), stray arguments refused,
 * required options, enum values, integers of every width the tables use,
 * and the exact error lines a user sees.
 */
#include "cmd/opts.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void redirect(void)
{
	cr_redirect_stdout();
	cr_redirect_stderr();
}

#define USAGE_TAIL(name) "usage: scxprof " name " SYN\nTry 'scxprof " name " --help' for more information.\n"

enum { MODE_A = 5, MODE_B = 7, MODE_C = 9 };
static const struct opt_choice modes[] = {{"a", MODE_A}, {"b", MODE_B}, {"c", MODE_C}, {NULL, 0}};
static const struct opt_choice two[] = {{"page", 0}, {"line", 1}, {NULL, 0}};

struct vals {
	const char *file;
	bool on, off;
	int verbose, mode, gran;
	unsigned u32;
	uint64_t u64;
	size_t size;
	long l;
};

static int parse(int argc, char **argv, struct vals *v, bool takes_args)
{
	const struct cmd_usage u = {"t", "SYN", "summary", takes_args};
	const struct opt opts[] = {
		OPT_STRING_REQUIRED('f', "file", &v->file, "PATH", "the file", "-f PATH"),
		OPT_FLAG(0, "on", &v->on, "sets on"),
		OPT_FLAG_OFF(0, "no-off", &v->off, "clears off"),
		OPT_COUNT('v', "verbose", &v->verbose, "more"),
		OPT_ENUM(0, "mode", &v->mode, "M", "a, b or c", modes),
		OPT_ENUM(0, "granularity", &v->gran, "G", "page or line", two),
		OPT_INT(0, "u32", &v->u32, "N", "unsigned", 1, 4096),
		OPT_INT('c', "u64", &v->u64, "N", "uint64_t", 1, INT64_MAX),
		OPT_INT(0, "size", &v->size, "N", "size_t", 0, 1 << 20),
		OPT_INT(0, "long", &v->l, "N", "long", -5, 5),
		OPT_END(),
	};

	memset(v, 0, sizeof(*v));
	v->off = true;
	v->mode = MODE_C;
	return opts_parse(argc, argv, opts, &u);
}

#define ARGV(...) (char *[]){"t", __VA_ARGS__, NULL}
#define ARGC(...) ((int)(sizeof((char *[]){"t", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(v, takes, ...) parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (v), (takes))

Test(opts, arguments_compacted_in_order)
{
	char *argv[] = {"t", "a", "-vv", "--file", "x", "b", "--on", "--", "-c", "--file", NULL};
	struct vals v;
	int argc = parse(10, argv, &v, true);

	cr_assert_eq(argc, 4);
	cr_assert_str_eq(argv[0], "a");
	cr_assert_str_eq(argv[1], "b");
	cr_assert_str_eq(argv[2], "-c", "everything after -- is an argument");
	cr_assert_str_eq(argv[3], "--file");
	cr_assert_null(argv[4], "argv[argc] is NULL, as for exec");
	cr_assert_str_eq(v.file, "x");
	cr_assert_eq(v.verbose, 2);
	cr_assert(v.on);
}

Test(opts, no_arguments_gives_zero)
{
	char *argv[] = {"t", "-f", "x", NULL};
	struct vals v;

	cr_assert_eq(parse(3, argv, &v, false), 0);
	cr_assert_null(argv[0]);
}

Test(opts, stray_argument_refused_before_required, .init = redirect)
{
	struct vals v;

	cr_assert_eq(PARSE(&v, false, "stray", "--mode", "zz"), OPTS_ERROR);
	fflush(stderr);
	cr_assert_stderr_eq_str("scxprof t: unexpected argument 'stray'\n" USAGE_TAIL("t"));
}

Test(opts, required_option_missing, .init = redirect)
{
	struct vals v;

	cr_assert_eq(PARSE(&v, false, "-v", "--mode", "zz"), OPTS_ERROR);
	fflush(stderr);
	cr_assert_stderr_eq_str("scxprof t: -f PATH is required\n" USAGE_TAIL("t"));
}

Test(opts, required_option_given_any_way)
{
	struct vals v;

	cr_assert_eq(PARSE(&v, false, "--file=x"), 0);
	cr_assert_str_eq(v.file, "x");
	cr_assert_eq(PARSE(&v, false, "-fy"), 0);
	cr_assert_str_eq(v.file, "y");
	cr_assert_eq(PARSE(&v, false, "-vf", "z"), 0);
	cr_assert_str_eq(v.file, "z");
	cr_assert_eq(v.verbose, 1);
}

Test(opts, enum_stores_the_choice_value)
{
	struct vals v;

	cr_assert_eq(PARSE(&v, false, "-f", "x"), 0);
	cr_assert_eq(v.mode, MODE_C, "not given: the default stays");
	cr_assert_eq(PARSE(&v, false, "-f", "x", "--mode", "a"), 0);
	cr_assert_eq(v.mode, MODE_A);
	cr_assert_eq(PARSE(&v, false, "-f", "x", "--mode=b", "--granularity", "line"), 0);
	cr_assert_eq(v.mode, MODE_B);
	cr_assert_eq(v.gran, 1);
	cr_assert_eq(PARSE(&v, false, "-f", "x", "--mode", "nope", "--mode", "a"), 0, "the last one counts");
	cr_assert_eq(v.mode, MODE_A);
}

Test(opts, enum_error_names_the_choices, .init = redirect)
{
	struct vals v;

	cr_assert_eq(PARSE(&v, false, "-f", "x", "--mode", "d"), OPTS_ERROR);
	fflush(stderr);
	cr_assert_stderr_eq_str("scxprof t: --mode: 'd' is not 'a', 'b' or 'c'\n" USAGE_TAIL("t"));
}

Test(opts, enum_errors_in_table_order, .init = redirect)
{
	struct vals v;

	cr_assert_eq(PARSE(&v, false, "-f", "x", "--granularity", "row", "--mode", "d"), OPTS_ERROR);
	fflush(stderr);
	cr_assert_stderr_eq_str("scxprof t: --mode: 'd' is not 'a', 'b' or 'c'\n" USAGE_TAIL("t"));
}

Test(opts, enum_of_two_choices, .init = redirect)
{
	struct vals v;

	cr_assert_eq(PARSE(&v, false, "-f", "x", "--granularity", "row"), OPTS_ERROR);
	fflush(stderr);
	cr_assert_stderr_eq_str("scxprof t: --granularity: 'row' is not 'page' or 'line'\n" USAGE_TAIL("t"));
}

Test(opts, integers_of_each_width)
{
	struct vals v;

	cr_assert_eq(PARSE(&v, false, "-f", "x", "--u32", "4096", "-c", "9223372036854775807", "--size", "1048576",
			   "--long", "-5"), 0);
	cr_assert_eq(v.u32, 4096);
	cr_assert_eq(v.u64, (uint64_t)INT64_MAX);
	cr_assert_eq(v.size, 1u << 20);
	cr_assert_eq(v.l, -5);
}

Test(opts, integer_out_of_range, .init = redirect)
{
	struct vals v;

	cr_assert_eq(PARSE(&v, false, "-f", "x", "--u32", "4097"), OPTS_ERROR);
	fflush(stderr);
	cr_assert_stderr_eq_str("scxprof t: --u32: '4097' is not a whole number from 1 to 4096\n" USAGE_TAIL("t"));
	cr_assert_eq(v.u32, 0, "nothing stored");
}

Test(opts, flag_off_clears)
{
	struct vals v;

	cr_assert_eq(PARSE(&v, false, "-f", "x"), 0);
	cr_assert(v.off);
	cr_assert_eq(PARSE(&v, false, "-f", "x", "--no-off"), 0);
	cr_assert_not(v.off);
}

Test(opts, unknown_option_before_later_checks, .init = redirect)
{
	struct vals v;

	cr_assert_eq(PARSE(&v, false, "stray", "--bogus"), OPTS_ERROR);
	fflush(stderr);
	cr_assert_stderr_eq_str("scxprof t: unknown option '--bogus'\n" USAGE_TAIL("t"));
}

Test(opts, value_errors, .init = redirect)
{
	struct vals v;

	cr_assert_eq(PARSE(&v, false, "--on=1"), OPTS_ERROR);
	cr_assert_eq(PARSE(&v, false, "-f"), OPTS_ERROR);
	fflush(stderr);
	cr_assert_stderr_eq_str("scxprof t: option '--on=1' takes no value\n" USAGE_TAIL("t")
				"scxprof t: option '-f' needs a value\n" USAGE_TAIL("t"));
}

Test(opts, help_wins_over_later_errors, .init = redirect)
{
	struct vals v;

	cr_assert_eq(PARSE(&v, false, "stray", "--mode", "zz", "--help", "--bogus"), OPTS_HELP);
	fflush(stdout);
	cr_assert_stdout_eq_str("usage: scxprof t SYN\n\nsummary\n\nOptions:\n"
				"  -f, --file PATH              the file\n"
				"      --on                     sets on\n"
				"      --no-off                 clears off\n"
				"  -v, --verbose                more\n"
				"      --mode M                 a, b or c\n"
				"      --granularity G          page or line\n"
				"      --u32 N                  unsigned\n"
				"  -c, --u64 N                  uint64_t\n"
				"      --size N                 size_t\n"
				"      --long N                 long\n"
				"  -h, --help                   show this help and exit\n");
}

Test(opts, integer_of_an_unsupported_width_is_refused, .init = redirect)
{
	short s = 0;
	const struct cmd_usage u = {"t", "SYN", "summary", false};
	const struct opt opts[] = {
		OPT_INT(0, "short", &s, "N", "a short", 0, 10),
		OPT_END(),
	};
	char *argv[] = {"t", "--short", "70000", NULL};

	cr_assert_eq(opts_parse(3, argv, opts, &u), OPTS_ERROR);
	cr_assert_eq(s, 0, "nothing written past the short");
	fflush(stderr);
	cr_assert_stderr_eq_str("scxprof t: --short: an integer of 2 bytes (a bug)\n" USAGE_TAIL("t"));
}
