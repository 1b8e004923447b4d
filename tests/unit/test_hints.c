/*
 * test_hints.c - unit tests of process/hints.c: loading hints.jsonl, the
 * per-tid "latest update at or before t" lookup, ordering counters, the
 * verbatim copy, errors, and speed.
 */
#include "process/hints.h"

#include "lib/error.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char tmp_path[64];

static const char *write_tmp(const char *text)
{
	int fd;

	strcpy(tmp_path, "/tmp/test_hints_XXXXXX");
	fd = mkstemp(tmp_path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return tmp_path;
}

static struct hints_index *load_text(const char *text)
{
	struct hints_index *h = NULL;
	const char *p = write_tmp(text);

	cr_assert_eq(hints_load(&h, p, NULL), 0, "load failed: %s", scx_errmsg());
	unlink(p);
	return h;
}

/* Load must fail with "PATH:LINE: ..." containing want. */
static void expect_error(const char *text, int line, const char *want)
{
	struct hints_index *h = (void *)1;
	const char *p = write_tmp(text);
	char prefix[128];

	cr_assert_eq(hints_load(&h, p, NULL), -1, "accepted: %s", text);
	cr_assert_null(h);
	snprintf(prefix, sizeof(prefix), "%s:%d: ", p, line);
	cr_assert(strncmp(scx_errmsg(), prefix, strlen(prefix)) == 0,
		  "message '%s' does not start with '%s'", scx_errmsg(), prefix);
	cr_assert(strstr(scx_errmsg(), want), "message '%s' lacks '%s'", scx_errmsg(), want);
	unlink(p);
}

static const char *basic_hints =
	"{\"pid\":2001,\"tgid\":1000,\"hints\":7,\"timestamp\":100}\n"
	"{\"pid\":2001,\"tgid\":1000,\"hints\":9,\"timestamp\":300}\n"
	"{\"pid\":3002,\"tgid\":1000,\"hints\":5,\"timestamp\":150}\n";

Test(hints, profile_basic_fixture)
{
	struct hints_index *h = load_text(basic_hints);
	const uint32_t tid[] = { 2001, 2001, 2001, 2001, 3002, 3002, 3002, 5000 };
	const uint64_t t[] = { 50, 100, 250, 300, 140, 150, 220, 220 };
	const uint64_t want[] = { 0, 7, 7, 9, 0, 5, 5, 0 };
	struct hints_stats st;

	for (int i = 0; i < 8; i++)
		cr_expect_eq(hints_lookup(h, tid[i], t[i]), want[i], "sample %d", i);
	hints_get_stats(h, &st);
	cr_expect_eq(st.updates, 3);
	cr_expect_eq(st.tids, 2);
	cr_expect_eq(st.lookups, 8);
	cr_expect_eq(st.hinted, 5);
	cr_expect_eq(st.nonzero, 5);
	cr_expect_eq(st.unordered_updates, 0);
	cr_expect_eq(st.unordered_lookups, 0);
	cr_expect_eq(st.nr_unordered_update_tids, 0);
	cr_expect_eq(st.nr_unordered_lookup_tids, 0);
	cr_expect_eq(st.first_timestamp, 100);
	cr_expect_eq(st.last_timestamp, 300);
	hints_free(h);
}

/* Upstream's profile_out_of_order fixture, plus lookups going back. */
Test(hints, out_of_order_updates_and_lookups)
{
	struct hints_index *h = load_text(
		"{\"pid\":4004,\"tgid\":1000,\"hints\":9,\"timestamp\":200}\n"
		"{\"pid\":4004,\"tgid\":1000,\"hints\":7,\"timestamp\":100}\n"
		"{\"pid\":4005,\"tgid\":1000,\"hints\":1,\"timestamp\":500}\n"
		"{\"pid\":4005,\"tgid\":1000,\"hints\":2,\"timestamp\":400}\n"
		"{\"pid\":4005,\"tgid\":1000,\"hints\":3,\"timestamp\":300}\n");
	struct hints_stats st;

	hints_get_stats(h, &st);
	cr_expect_eq(st.unordered_updates, 3);
	cr_expect_eq(st.unordered_update_tids_total, 2);
	cr_assert_eq(st.nr_unordered_update_tids, 2);
	cr_expect_eq(st.unordered_update_tids[0], 4004);
	cr_expect_eq(st.unordered_update_tids[1], 4005);
	cr_expect_eq(st.first_timestamp, 100);
	cr_expect_eq(st.last_timestamp, 500);

	/* upstream's samples: 250 then 150 */
	cr_expect_eq(hints_lookup(h, 4004, 250), 9);
	cr_expect_eq(hints_lookup(h, 4004, 150), 7);
	cr_expect_eq(hints_lookup(h, 4004, 99), 0);
	cr_expect_eq(hints_lookup(h, 4004, 200), 9);
	cr_expect_eq(hints_lookup(h, 4005, 1000), 1);
	cr_expect_eq(hints_lookup(h, 4005, 350), 3);
	cr_expect_eq(hints_lookup(h, 4005, 450), 2);
	/* a tid without hints going back is counted too (as upstream) */
	cr_expect_eq(hints_lookup(h, 7777, 10), 0);
	cr_expect_eq(hints_lookup(h, 7777, 5), 0);
	hints_get_stats(h, &st);
	cr_expect_eq(st.unordered_lookups, 4);
	cr_expect_eq(st.unordered_lookup_tids_total, 3);
	cr_assert_eq(st.nr_unordered_lookup_tids, 3);
	cr_expect_eq(st.unordered_lookup_tids[0], 4004);
	cr_expect_eq(st.unordered_lookup_tids[1], 4005);
	cr_expect_eq(st.unordered_lookup_tids[2], 7777);
	cr_expect_eq(st.lookups, 9);
	cr_expect_eq(st.hinted, 6);
	hints_free(h);
}

Test(hints, equal_timestamps_later_line_wins)
{
	struct hints_index *h = load_text(
		"{\"pid\":1,\"tgid\":1,\"hints\":10,\"timestamp\":100}\n"
		"{\"pid\":1,\"tgid\":1,\"hints\":11,\"timestamp\":100}\n"
		"{\"pid\":1,\"tgid\":1,\"hints\":12,\"timestamp\":100}\n"
		"{\"pid\":1,\"tgid\":1,\"hints\":20,\"timestamp\":200}\n"
		"{\"pid\":1,\"tgid\":1,\"hints\":13,\"timestamp\":100}\n");

	cr_expect_eq(hints_lookup(h, 1, 100), 13);  /* cursor walk */
	cr_expect_eq(hints_lookup(h, 1, 150), 13);
	cr_expect_eq(hints_lookup(h, 1, 200), 20);
	cr_expect_eq(hints_lookup(h, 1, 100), 13);  /* binary search */
	cr_expect_eq(hints_lookup(h, 1, 99), 0);
	cr_expect_eq(hints_lookup(h, 1, 100), 13);
	hints_free(h);
}

Test(hints, zero_value_counts_as_hinted)
{
	struct hints_index *h = load_text("{\"pid\":5,\"tgid\":5,\"hints\":0,\"timestamp\":1}\n");
	struct hints_stats st;

	cr_expect_eq(hints_lookup(h, 5, 2), 0);
	hints_get_stats(h, &st);
	cr_expect_eq(st.hinted, 1);
	cr_expect_eq(st.nonzero, 0);
	hints_free(h);
}

Test(hints, examples_keep_first_eight_distinct)
{
	struct hints_index *h = load_text(basic_hints);
	struct hints_stats st;

	for (uint32_t tid = 100; tid < 120; tid++) {
		hints_lookup(h, tid, 50);
		hints_lookup(h, tid, 40);
		hints_lookup(h, tid, 30);
	}
	hints_get_stats(h, &st);
	cr_expect_eq(st.unordered_lookups, 40);
	cr_expect_eq(st.unordered_lookup_tids_total, 20);
	cr_assert_eq(st.nr_unordered_lookup_tids, HINTS_MAX_EXAMPLES);
	for (int i = 0; i < HINTS_MAX_EXAMPLES; i++)
		cr_expect_eq(st.unordered_lookup_tids[i], 100 + (uint32_t)i);
	hints_free(h);
}

Test(hints, extreme_values_blank_lines_extra_keys)
{
	struct hints_index *h = load_text(
		"\n"
		"  {\"tgid\": -1, \"extra\": [1, {\"a\": \"b\"}], \"pid\": 0,"
		" \"hints\": 18446744073709551615, \"timestamp\": 18446744073709551615}  \r\n"
		"   \n"
		"{\"pid\":2147483647,\"tgid\":0,\"hints\":9223372036854775808,\"timestamp\":0}");
	struct hints_stats st;

	cr_expect_eq(hints_lookup(h, 0, UINT64_MAX), UINT64_MAX);
	cr_expect_eq(hints_lookup(h, 0, UINT64_MAX - 1), 0);
	cr_expect_eq(hints_lookup(h, 2147483647, 0), 9223372036854775808ull);
	hints_get_stats(h, &st);
	cr_expect_eq(st.updates, 2);
	cr_expect_eq(st.first_timestamp, 0);
	cr_expect_eq(st.last_timestamp, UINT64_MAX);
	hints_free(h);
}

Test(hints, long_line)
{
	size_t n = 200000;
	char *text = malloc(n + 200);
	struct hints_index *h;

	strcpy(text, "{\"pad\":\"");
	memset(text + 8, 'x', n);
	strcpy(text + 8 + n, "\",\"pid\":3,\"tgid\":3,\"hints\":4,\"timestamp\":5}\n");
	h = load_text(text);
	cr_expect_eq(hints_lookup(h, 3, 5), 4);
	hints_free(h);
	free(text);
}

Test(hints, errors_name_path_line_and_problem)
{
	const char *ok = "{\"pid\":1,\"tgid\":1,\"hints\":1,\"timestamp\":1}\n\n";
	struct { const char *line, *want; } cases[] = {
		{ "{\"tgid\":1,\"hints\":1,\"timestamp\":1}", "missing key \"pid\"" },
		{ "{\"pid\":1,\"hints\":1,\"timestamp\":1}", "missing key \"tgid\"" },
		{ "{\"pid\":1,\"tgid\":1,\"timestamp\":1}", "missing key \"hints\"" },
		{ "{\"pid\":1,\"tgid\":1,\"hints\":1}", "missing key \"timestamp\"" },
		{ "{\"pid\":\"1\",\"tgid\":1,\"hints\":1,\"timestamp\":1}", "\"pid\" is not an integer" },
		{ "{\"pid\":1,\"tgid\":1,\"hints\":1.5,\"timestamp\":1}", "\"hints\" is not an integer" },
		{ "{\"pid\":1,\"tgid\":1,\"hints\":1e3,\"timestamp\":1}", "\"hints\" is not an integer" },
		{ "{\"pid\":1,\"tgid\":1,\"hints\":null,\"timestamp\":1}", "\"hints\" is not an integer" },
		{ "{\"pid\":1,\"tgid\":1,\"hints\":-1,\"timestamp\":1}", "\"hints\" is negative" },
		{ "{\"pid\":1,\"tgid\":1,\"hints\":1,\"timestamp\":-5}", "\"timestamp\" is negative" },
		{ "{\"pid\":1,\"tgid\":1,\"hints\":18446744073709551616,\"timestamp\":1}",
		  "\"hints\" does not fit in 64 bits" },
		{ "{\"pid\":1,\"tgid\":1,\"hints\":1,\"timestamp\":99999999999999999999999}",
		  "\"timestamp\" does not fit in 64 bits" },
		{ "{\"pid\":-1,\"tgid\":1,\"hints\":1,\"timestamp\":1}", "\"pid\" -1 is out of range" },
		{ "{\"pid\":4294967296,\"tgid\":1,\"hints\":1,\"timestamp\":1}", "\"pid\" 4294967296 is out of range" },
		{ "{\"pid\":1,\"tgid\":1,\"hints\":1,\"timestamp\":1} x", "JSON" },
		{ "{\"pid\":1,\"tgid\":1,\"hints\":1,\"timestamp\":1}{}", "JSON" },
		{ "[1,2]", "not a JSON object" },
		{ "42", "not a JSON object" },
		{ "{\"pid\":1,", "truncated JSON" },
		{ "{pid:1}", "invalid JSON" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];

		snprintf(text, sizeof(text), "%s%s\n", ok, cases[i].line);
		expect_error(text, 3, cases[i].want);
	}
}

Test(hints, huge_value_check_ignores_escaped_key)
{
	/* only the real key's text counts, not a "hints" inside a string */
	struct hints_index *h = load_text(
		"{\"s\":\"\\\"hints\\\": 99999999999999999999999\",\"pid\":1,\"tgid\":1,"
		"\"hints\":18446744073709551615,\"timestamp\":1}\n");

	cr_expect_eq(hints_lookup(h, 1, 1), UINT64_MAX);
	hints_free(h);
}

Test(hints, missing_file)
{
	struct hints_index *h = (void *)1;

	cr_assert_eq(hints_load(&h, "/nonexistent/hints.jsonl", NULL), -1);
	cr_assert_null(h);
	cr_expect(strstr(scx_errmsg(), "/nonexistent/hints.jsonl"));
}

Test(hints, copy_is_verbatim)
{
	const char *text = "{\"pid\":1,\"tgid\":1,\"hints\":1,\"timestamp\":1}\r\n"
			   "\n   \n"
			   "{ \"pid\" : 2, \"tgid\":1,\"hints\":1,\"timestamp\":1, \"x\": \"y\" }";
	const char *p = write_tmp(text);
	struct hints_index *h = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *copy = open_memstream(&buf, &len);

	cr_assert_eq(hints_load(&h, p, copy), 0, "%s", scx_errmsg());
	fclose(copy);
	cr_expect_eq(len, strlen(text) + 1);
	cr_expect(memcmp(buf, text, strlen(text)) == 0);
	cr_expect_eq(buf[len - 1], '\n');
	hints_free(h);
	free(buf);
	unlink(p);
}

Test(hints, copy_write_error)
{
	const char *p = write_tmp(basic_hints);
	struct hints_index *h = (void *)1;
	FILE *full = fopen("/dev/full", "w");

	if (!full)
		cr_skip_test("SKIP: no /dev/full");
	cr_expect_eq(hints_load(&h, p, full), -1);
	cr_expect_null(h);
	cr_expect(strstr(scx_errmsg(), "cannot write"), "%s", scx_errmsg());
	fclose(full);
	unlink(p);
}

Test(hints, empty_index)
{
	struct hints_index *h = hints_empty();
	struct hints_stats st;

	cr_expect_eq(hints_lookup(h, 1, 100), 0);
	cr_expect_eq(hints_lookup(h, 1, 50), 0);
	hints_get_stats(h, &st);
	cr_expect_eq(st.lookups, 2);
	cr_expect_eq(st.hinted, 0);
	cr_expect_eq(st.updates, 0);
	cr_expect_eq(st.unordered_lookups, 0);
	cr_expect_eq(st.first_timestamp, 0);
	cr_expect_eq(st.last_timestamp, 0);
	hints_free(h);
	hints_free(NULL);
}

/* ---- randomized check against a brute-force answer ------------------- */

struct upd {
	uint32_t tid;
	uint64_t ts, val;
};

static uint64_t brute(const struct upd *u, size_t n, uint32_t tid, uint64_t t)
{
	uint64_t best_ts = 0, val = 0;
	bool found = false;

	for (size_t i = 0; i < n; i++) /* last in file order among equal timestamps */
		if (u[i].tid == tid && u[i].ts <= t && (!found || u[i].ts >= best_ts)) {
			best_ts = u[i].ts;
			val = u[i].val;
			found = true;
		}
	return val;
}

Test(hints, random_against_brute_force)
{
	enum { NU = 3000, NL = 20000, NT = 40 };
	static struct upd u[NU];
	size_t cap = NU * 80, off = 0;
	char *text = malloc(cap);
	struct hints_index *h;
	uint64_t now[NT] = { 0 };

	srand(12345);
	for (int i = 0; i < NU; i++) {
		u[i].tid = (uint32_t)(rand() % NT) * 1000003u % 4000000u;
		u[i].ts = (uint64_t)(rand() % 5000);
		u[i].val = (uint64_t)(rand() % 7);
		off += (size_t)snprintf(text + off, cap - off,
					"{\"pid\":%u,\"tgid\":1,\"hints\":%llu,\"timestamp\":%llu}\n",
					u[i].tid, (unsigned long long)u[i].val,
					(unsigned long long)u[i].ts);
	}
	h = load_text(text);
	for (int i = 0; i < NL; i++) {
		int k = rand() % (NT + 2);
		uint32_t tid = (uint32_t)k * 1000003u % 4000000u;
		uint64_t t;

		/* mostly forward per tid, sometimes back in time */
		if (k < NT) {
			now[k] += (uint64_t)(rand() % 30);
			t = rand() % 10 == 0 ? (uint64_t)(rand() % 5200) : now[k];
		} else {
			t = (uint64_t)(rand() % 5200);
		}
		cr_assert_eq(hints_lookup(h, tid, t), brute(u, NU, tid, t),
			     "lookup %d tid %u t %llu", i, tid, (unsigned long long)t);
	}
	hints_free(h);
	free(text);
}

#define NR_LOOKUPS 10000000

/*
 * 10M in-order lookups over 1000 tids with 100 updates each cost O(1)
 * each: no binary search, and each tid's cursor moves over each of its
 * updates at most once in all (a count of work, not a time: the machine
 * may be loaded; bench/ measures speed).
 */
Test(hints, in_order_lookups_walk_each_update_once)
{
	enum { NT = 1000, NUP = 100 };
	size_t cap = (size_t)NT * NUP * 70, off = 0;
	char *text = malloc(cap);
	struct hints_index *h;
	struct hints_stats st;
	uint64_t sum = 0;

	for (int k = 0; k < NUP; k++)
		for (int tid = 0; tid < NT; tid++)
			off += (size_t)snprintf(text + off, cap - off,
						"{\"pid\":%d,\"tgid\":1,\"hints\":%d,\"timestamp\":%d}\n",
						tid * 7 + 1, k + 1, k * 100000);
	h = load_text(text);
	for (uint64_t i = 0; i < NR_LOOKUPS; i++)
		sum += hints_lookup(h, (uint32_t)(i % NT) * 7 + 1, i);
	hints_get_stats(h, &st);
	cr_expect_eq(st.lookups, NR_LOOKUPS);
	cr_expect_eq(st.unordered_lookups, 0);
	cr_expect_eq(st.lookup_searches, 0);
	/* the lookups reach t = 10M - 1, past every update: each cursor
	 * walks from the first of its 100 updates to the last, once */
	cr_expect_eq(st.lookup_steps, (uint64_t)NT * (NUP - 1));
	cr_expect_gt(sum, 0);
	hints_free(h);
	free(text);
}
