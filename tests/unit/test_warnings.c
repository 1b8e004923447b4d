/*
 * test_warnings.c - the bounded warning list (lib/warnings.c): formatting,
 * a repeat kept once, the bound with its count of dropped lines, and a
 * line longer than WARNING_LEN cut, never overflowing.
 */
#include "lib/warnings.h"

#include <criterion/criterion.h>
#include <string.h>

Test(warnings, formats_in_order)
{
	struct warnings w = {0};

	warnings_add(&w, "lost %d events", 3);
	warnings_add(&w, "%s", "second");
	cr_assert_eq(w.nr, 2);
	cr_assert_str_eq(w.line[0], "lost 3 events");
	cr_assert_str_eq(w.line[1], "second");
	cr_assert_eq(w.dropped, 0);
}

Test(warnings, repeat_kept_once)
{
	struct warnings w = {0};

	warnings_add(&w, "same %d", 1);
	warnings_add(&w, "other");
	warnings_add(&w, "same %d", 1);
	cr_assert_eq(w.nr, 2);
	cr_assert_eq(w.dropped, 0, "a repeat is not a drop");
}

Test(warnings, bounded_counts_dropped)
{
	struct warnings w = {0};

	for (int i = 0; i < WARNINGS_MAX + 5; i++)
		warnings_add(&w, "warning %d", i);
	cr_assert_eq(w.nr, WARNINGS_MAX);
	cr_assert_eq(w.dropped, 5);
	cr_assert_str_eq(w.line[WARNINGS_MAX - 1], "warning 15");
	warnings_add(&w, "warning 0");
	cr_assert_eq(w.dropped, 5, "a repeat of a kept line is not counted when full either");
}

Test(warnings, long_line_cut)
{
	static char big[3 * WARNING_LEN];
	struct warnings w = {0};

	memset(big, 'x', sizeof(big) - 1);
	warnings_add(&w, "%s", big);
	cr_assert_eq(strlen(w.line[0]), WARNING_LEN - 1);
	warnings_add(&w, "%s", big);
	cr_assert_eq(w.nr, 1, "the cut line compares equal to the next cut of the same text");
}
