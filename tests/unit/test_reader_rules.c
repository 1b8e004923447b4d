/*
 * test_reader_rules.c - the reader's rules (extract/sharing/reader_rules.c):
 * the CgroupRegex constructs Rust's regex refuses or reads otherwise than
 * PCRE2 are found and named, what both read alike is left alone, the
 * limits table is scx_mitosis's and an override replaces only what it
 * names.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
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

/* units named by their one CommPrefix; all n in one cluster */
static void units_of(struct unit_list *u, const char *const *names, size_t n)
{
	u->v = calloc(n, sizeof(*u->v));
	u->n = n;
	for (size_t i = 0; i < n; i++) {
		u->v[i].name = (char *)names[i];
		u->v[i].clauses = calloc(1, sizeof(struct cell_clause));
		u->v[i].clauses[0].comm_prefix = (char *)names[i];
		u->v[i].nr_clauses = 1;
		u->v[i].count = 100 + i;
	}
}

static void units_free(struct unit_list *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->v[i].clauses);
	free(u->v);
}

static void one_cluster(struct clustering *cl, size_t n)
{
	static size_t m[16];

	for (size_t i = 0; i < n; i++)
		m[i] = i;
	cl->v = calloc(1, sizeof(*cl->v));
	cl->v[0] = (struct unit_cluster){.members = m, .n = n};
	cl->n = 1;
}

Test(reader_fit, shorter_prefix_only_when_it_covers_no_other_comm)
{
	static const char *const names[] = {"web-a", "web-b", "web-c", "web-d", "web-e"};
	static const char *const seen_ok[] = {"web-a", "web-b", "web-c", "web-d", "web-e", "db"};
	static const char *const seen_bad[] = {"web-a", "web-b", "web-c", "web-d", "web-e", "web-x"};
	struct unit_list u;
	struct clustering cl;
	struct fit_input in = {.u = &u, .l = &reader_limits_default, .comms = seen_ok, .nr_comms = 6};
	struct cell_fit f;

	units_of(&u, names, 5);
	one_cluster(&cl, 5);
	cr_assert_eq(reader_fit_cell(&in, &cl, &f), 0);
	cr_assert_eq(f.n, 1);
	cr_expect_eq(f.v[0].nr_clauses, 1);
	cr_expect_str_eq(f.v[0].clauses[0].comm_prefix, "web-");
	cr_expect(f.nr_choices == 1 && f.choices[0].kind == FIT_SHORTENED);
	reader_fit_free(&f);
	/* web-x, of no unit here (rest), starts with "web-": no shorter prefix; no affinity known: no merge back */
	in.comms = seen_bad;
	cr_assert_eq(reader_fit_cell(&in, &cl, &f), 0);
	cr_expect_eq(f.n, 5, "split into singletons without affinity: %zu", f.n);
	cr_expect(f.nr_choices == 1 && f.choices[0].kind == FIT_SPLIT);
	for (size_t i = 0; i < f.n; i++)
		cr_expect_eq(f.v[i].nr_clauses, 1);
	reader_fit_free(&f);
	free(cl.v);
	units_free(&u);
}

Test(reader_fit, split_keeps_the_most_affinity_together)
{
	static const char *const names[] = {"a", "b", "c", "d", "e", "f"};
	double aff[36] = {0};
	struct unit_list u;
	struct clustering cl;
	struct fit_input in = {.u = &u, .l = &reader_limits_default, .aff = aff};
	struct cell_fit f;

	/* a-b-c strongly, d-e-f strongly, weak across */
	for (size_t i = 0; i < 6; i++)
		for (size_t j = 0; j < 6; j++)
			aff[i * 6 + j] = i == j ? 1 : (i < 3) == (j < 3) ? 0.5 : 0.01;
	units_of(&u, names, 6);
	one_cluster(&cl, 6);
	cr_assert_eq(reader_fit_cell(&in, &cl, &f), 0);
	cr_assert_eq(f.n, 2);
	cr_expect_str_eq(f.v[0].name, "a+b+c");
	cr_expect_str_eq(f.v[1].name, "d+e+f");
	reader_fit_free(&f);
	free(cl.v);
	units_free(&u);
}

Test(reader_fit, the_least_valuable_are_folded)
{
	static const char *const names[] = {"u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8"};
	double demand[9] = {5, 1, 4, 0.5, 3, 6, 7, 8, 2};
	struct unit_list u;
	struct clustering cl = {0};
	struct fit_input in = {.u = &u, .l = &reader_limits_default, .demand = demand};
	struct cell_fit f;
	size_t m[9];

	units_of(&u, names, 9);
	cl.v = calloc(9, sizeof(*cl.v));
	for (size_t i = 0; i < 9; i++) {
		m[i] = i;
		cl.v[i] = (struct unit_cluster){.members = &m[i], .n = 1, .demand = demand[i]};
	}
	cl.n = 9;
	cr_assert_eq(reader_fit_cell(&in, &cl, &f), 0);
	cr_assert_eq(f.n, 7);
	cr_assert_eq(f.nr_choices, 2);
	cr_expect_str_eq(f.choices[0].subcell, "u3"); /* demand 0.5 */
	cr_expect_str_eq(f.choices[1].subcell, "u1"); /* demand 1 */
	cr_expect(f.choices[0].kind == FIT_FOLDED && f.choices[1].kind == FIT_FOLDED);
	reader_fit_free(&f);
	free(cl.v);
	units_free(&u);
}
