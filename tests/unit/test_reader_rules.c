/*
 * test_reader_rules.c - the reader's rules (extract/sharing/reader_rules.c):
 * the CgroupRegex constructs Rust's regex refuses or reads otherwise than
 * PCRE2 are found and named, what both read alike is left alone, the
 * limits table is scx_mitosis's and an override replaces only what it
 * names.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "extract/sharing/sharing.h"
#include "lib/error.h"

static void refused(const char *re, const char *word, size_t at)
{
	size_t got = 99;
	const char *what = reader_regex_problem(re, &got);

	cr_assert(what, "%s: accepted", re);
	cr_expect(strstr(what, word), "%s: \"%s\" does not name %s", re, what, word);
	cr_expect_eq(got, at, "%s: at %zu, not %zu", re, got, at);
}

Test(reader_rules, pcre_only_constructs_are_named)
{
	refused("a(?=b)", "look-ahead", 1);
	refused("a(?!b)", "look-ahead", 1);
	refused("(?<=x)y", "look-behind", 0);
	refused("(?<!x)y", "look-behind", 0);
	refused("(a)\\1", "backreference", 3);
	refused("(?P<n>a)(?P=n)", "backreference", 8);
	refused("(?<n>a)\\k<n>", "backreference", 7);
	refused("a*+b", "possessive", 1);
	refused("a{2}+", "possessive", 3);
	refused("(?>ab|a)c", "atomic", 0);
	refused("slice\\Kx", "\\K", 5);
	refused("(?|(a)|(b))", "branch reset", 0);
	refused("(?R)", "recursion", 0);
	refused("(a)(?1)", "subroutine", 3);
	refused("(*UTF)a", "verb", 0);
	refused("a(?#note)b", "comment", 1);
	refused("\\Qa.b\\E", "PCRE-only escape", 0);
	refused("a\\Z", "PCRE-only escape", 1);
	refused("[\\h]x", "PCRE-only escape", 1);
	refused("\\v", "vertical", 0);
	refused("\\<word", "word boundary", 0);
	refused("(?J)(?<a>x)", "flag", 0);
	refused("^/workload.slice/x", "anchor", 0);
	refused("\\A/workload", "anchor", 0);
	refused("foo|^/workload", "anchor", 4);
}

Test(reader_rules, what_both_read_alike_passes)
{
	static const char *const ok[] = {
		"workload-tw-[^/]+\\.allotment\\.slice",
		"/workload\\.slice/app-(?P<id>[0-9]+)\\.slice$",
		"(?<name>x)(?:y|z)+?",
		"(?i)WORKLOAD",
		"(?i-s:a.b)",
		"[[:alpha:]]+\\d{2,3}?",
		"a[(?=]b",          /* inside a class, no group */
		"^/sys/fs/cgroup/workload\\.slice/",
		"^\\/sys\\/fs\\/cgroup/x",
		"(^/x)",            /* anchored inside a group: not at a top-level start */
		"x\\.y\\-z\\/w",
		"",
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		cr_expect_null(reader_regex_problem(ok[i], NULL), "%s: %s", ok[i], reader_regex_problem(ok[i], NULL));
}

Test(reader_rules, contains_in_the_mount_prefix)
{
	cr_expect_null(reader_contains_problem("workload.slice"));
	cr_expect(reader_contains_problem("fs/cg"));
	cr_expect(reader_contains_problem(""));
}

Test(reader_rules, limits_table_and_override)
{
	struct reader_limits l;

	cr_expect_eq(reader_limits_default.subcells, 8);
	cr_expect_eq(reader_limits_default.or_groups, 4);
	cr_expect_eq(reader_limits_default.and_terms, 4);
	cr_expect_eq(reader_limits_default.prefix_bytes, 15);
	cr_expect_str_eq(reader_limits_default.name, "scx_mitosis mitosis-next 1be7d9fea");
	cr_assert_eq(reader_limits_parse("or=6,prefix=31", &l), 0, "%s", scx_errmsg());
	cr_expect(l.subcells == 8 && l.or_groups == 6 && l.and_terms == 4 && l.prefix_bytes == 31);
	cr_expect_str_eq(l.name, "reader limits subcells=8,or=6,and=4,prefix=31");
	cr_expect_eq(reader_limits_parse("subcells=0", &l), -1);
	cr_expect_eq(reader_limits_parse("or=4,", &l), -1);
	cr_expect_eq(reader_limits_parse("ors=4", &l), -1);
	cr_expect_eq(reader_limits_parse("and=4x", &l), -1);
	cr_expect_eq(reader_limits_parse("", &l), -1);
}
