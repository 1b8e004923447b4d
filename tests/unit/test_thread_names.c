/*
 * test_thread_names.c - names the scheduling stream gives threads, for
 * samples of threads perf.data never named: which record's name a sample
 * time takes (renames, execs, before the first record, after the last),
 * what is not a name, and the same answer whatever the order noted.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/sched_vals.h"
#include "process/sched/sched_decode.h"

static const char *at(struct thread_names *t, int64_t tid, uint64_t ns)
{
	const char *n = thread_names_lookup(t, tid, ns);

	return n ? n : "(none)";
}

Test(thread_names, a_rename_shows_at_the_next_record_an_exec_at_its_own)
{
	struct thread_names t;

	thread_names_init(&t);
	/* 100: forked as 'bash'; 200: exec 'cat' (exact); 300, 400: switches as
	 * 'cat'; 500: switch as 'cat-1' after a prctl somewhere in 400..500 */
	cr_assert_eq(thread_names_note(&t, 7, 100, "bash", false), 0);
	cr_assert_eq(thread_names_note(&t, 7, 200, "cat", true), 0);
	cr_assert_eq(thread_names_note(&t, 7, 300, "cat", false), 0);
	cr_assert_eq(thread_names_note(&t, 7, 400, "cat", false), 0);
	cr_assert_eq(thread_names_note(&t, 7, 500, "cat-1", false), 0);
	thread_names_finish(&t);
	cr_assert_str_eq(at(&t, 7, 50), "bash", "before the first record: the first name");
	cr_assert_str_eq(at(&t, 7, 100), "bash");
	cr_assert_str_eq(at(&t, 7, 150), "bash", "before the exec: the name before it");
	cr_assert_str_eq(at(&t, 7, 200), "cat");
	cr_assert_str_eq(at(&t, 7, 350), "cat");
	cr_assert_str_eq(at(&t, 7, 450), "cat-1", "a rename shows at the next record: already renamed");
	cr_assert_str_eq(at(&t, 7, 900), "cat-1", "after the last record: the last name");
	cr_assert_str_eq(at(&t, 8, 300), "(none)", "a tid the stream never named");
	thread_names_free(&t);
}

Test(thread_names, placeholders_empty_names_and_idle_are_not_names)
{
	struct thread_names t;

	thread_names_init(&t);
	cr_assert_eq(thread_names_note(&t, 9, 100, ":9", false), 0);
	cr_assert_eq(thread_names_note(&t, 9, 110, "", false), 0);
	cr_assert_eq(thread_names_note(&t, 0, 120, "swapper", false), 0);
	cr_assert_eq(thread_names_note(&t, -1, 130, "x", false), 0);
	cr_assert_eq(thread_names_note(&t, 10, 140, ":9", false), 0); /* ':9' is a name for tid 10 */
	thread_names_finish(&t);
	cr_assert_str_eq(at(&t, 9, 100), "(none)");
	cr_assert_str_eq(at(&t, 0, 120), "(none)");
	cr_assert_str_eq(at(&t, -1, 130), "(none)");
	cr_assert_str_eq(at(&t, 10, 140), ":9");
	thread_names_free(&t);
}

Test(thread_names, a_switch_names_both_tasks_a_fork_its_child)
{
	struct thread_names t;
	struct sched_vals sw = {.comm = "prev", .comm2 = "next", .pid = 21, .pid2 = 22};
	struct sched_vals fk = {.comm = "parent", .comm2 = "child", .pid = 31, .pid2 = 32};
	struct sched_vals wk = {.comm = "wakee", .pid = 41};

	thread_names_init(&t);
	cr_assert_eq(thread_names_note_record(&t, "prev", 21, 10, SK_SWITCH, &sw), 0);
	cr_assert_eq(thread_names_note_record(&t, "parent", 31, 20, SK_FORK, &fk), 0);
	cr_assert_eq(thread_names_note_record(&t, "waker", 50, 30, SK_WAKEUP, &wk), 0);
	cr_assert_eq(thread_names_note_record(&t, "plain", 60, 40, SK_UNKNOWN, NULL), 0);
	thread_names_finish(&t);
	cr_assert_str_eq(at(&t, 22, 10), "next");
	cr_assert_str_eq(at(&t, 32, 20), "child");
	cr_assert_str_eq(at(&t, 41, 30), "wakee");
	cr_assert_str_eq(at(&t, 50, 30), "waker");
	cr_assert_str_eq(at(&t, 60, 40), "plain");
	thread_names_free(&t);
}

/* Records of two CPUs come out of time order: the answer is the same. */
Test(thread_names, the_same_names_whatever_the_order_noted)
{
	static const struct { uint64_t ns; const char *comm; bool exec; } recs[] = {
		{100, "sh", false}, {150, "sh", false}, {200, "make", true}, {260, "make", false},
		{300, "cc", true}, {340, "cc", false}, {420, "cc1", false},
	};
	static const int orders[][7] = {{0, 1, 2, 3, 4, 5, 6}, {1, 0, 3, 2, 5, 4, 6}};
	char first[64][32];
	size_t o, i;
	uint64_t ns;

	for (o = 0; o < 2; o++) {
		struct thread_names t;

		thread_names_init(&t);
		for (i = 0; i < 7; i++) {
			int k = orders[o][i];

			cr_assert_eq(thread_names_note(&t, 5, recs[k].ns, recs[k].comm, recs[k].exec), 0);
		}
		thread_names_finish(&t);
		for (ns = 0; ns < 64; ns++) {
			const char *n = at(&t, 5, ns * 8);

			if (o == 0)
				snprintf(first[ns], sizeof(first[ns]), "%s", n);
			else
				cr_assert_str_eq(n, first[ns], "at %llu", (unsigned long long)ns * 8);
		}
		thread_names_free(&t);
	}
	cr_assert_str_eq(first[190 / 8], "sh");
	cr_assert_str_eq(first[296 / 8], "make");
	cr_assert_str_eq(first[400 / 8], "cc1");
}
