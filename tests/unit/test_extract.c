/*
 * test_extract.c - unit tests of extract mem's pieces: the perf.jsonl line
 * scanner (escapes, skipped values, errors), comm normalization, the
 * significance rule, cpulists, evidence keys, the affinity's properties and
 * the serde-style config printer.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/cell_config.h"
#include "extract/jsonl_scan.h"
#include "extract/mem_agg.h"
#include "extract/mem_groups.h"
#include "extract/sharing.h"
#include "extract/topology.h"

static int scan(const char *text, struct mem_sample *s, char *err)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s", text);
	return jsonl_scan_mem(buf, strlen(buf), s, err, 256);
}

#define BASE "\"tid\":-1,\"pid\":2,\"cgroup\":\"/a\",\"phys_addr\":\"0x1F000\",\"data_page_size\":2097152"

Test(jsonl_scan, decodes_needed_keys_and_skips_nested_values)
{
	struct mem_sample s;
	char err[256];

	cr_assert_eq(scan("{\"comm\":\"web 1\"," BASE ",\"x\":{\"a\":[1,2,{\"b\":\"}\"}]},\"weight\":77,"
			  "\"hint\":18446744073709551615,\"f\":-1.5e3,\"t\":true,\"n\":null}", &s, err), 0, "%s", err);
	cr_assert_eq(s.comm_len, 5);
	cr_assert(!memcmp(s.comm, "web 1", 5));
	cr_assert_eq(s.tid, -1);
	cr_assert_eq(s.pid, 2);
	cr_assert_eq(s.phys_addr, 0x1f000);
	cr_assert_eq(s.data_page_size, 2097152);
	cr_assert_eq(s.hint, UINT64_MAX);
	cr_assert(s.has_weight);
	cr_assert_eq(s.weight, 77);
}

Test(jsonl_scan, decodes_escapes_and_surrogate_pairs_to_utf8)
{
	struct mem_sample s;
	char err[256];

	cr_assert_eq(scan("{\"comm\":\"a\\\"b\\\\c\\/d\\u00e9\\ud83d\\ude80\\t\"," BASE "}", &s, err), 0, "%s", err);
	cr_assert_eq(s.comm_len, strlen("a\"b\\c/d\xc3\xa9\xf0\x9f\x9a\x80\t"));
	cr_assert(!memcmp(s.comm, "a\"b\\c/d\xc3\xa9\xf0\x9f\x9a\x80\t", s.comm_len));
	cr_assert_eq(s.hint, 0, "hint defaults to 0 when absent");
	cr_assert(!s.has_weight);
}

Test(jsonl_scan, rejects_malformed_lines_saying_what)
{
	struct mem_sample s;
	char err[256];

	cr_assert_eq(scan("{\"comm\":\"a\",\"tid\":1,\"pid\":1,\"phys_addr\":\"1\",\"data_page_size\":0}", &s, err), -1);
	cr_assert_str_eq(err, "missing key \"cgroup\"");
	cr_assert_eq(scan("{\"comm\":\"\\udc00\"," BASE "}", &s, err), -1);
	cr_assert(strstr(err, "lone low surrogate"), "%s", err);
	cr_assert_eq(scan("{\"comm\":\"a\x01\"," BASE "}", &s, err), -1);
	cr_assert(strstr(err, "control character"), "%s", err);
	cr_assert_eq(scan("{\"comm\":\"a\"," BASE ",\"x\":[1,}", &s, err), -1);
	cr_assert_eq(scan("{\"comm\":\"a\"," BASE ",\"x\":tru}", &s, err), -1);
	cr_assert_eq(scan("{\"comm\":1," BASE "}", &s, err), -1);
	cr_assert_str_eq(err, "\"comm\": expected a string");
	cr_assert_eq(scan("{\"comm\":\"a\",\"pid\":99999999999999999999," BASE "}", &s, err), -1);
	cr_assert(strstr(err, "out of range"), "%s", err);
	cr_assert_eq(scan("[]", &s, err), -1);
	cr_assert_str_eq(err, "not a JSON object");
}

Test(mem_groups, normalize_strips_trailing_digits_only)
{
	cr_assert_eq(normalize_comm("web12", 5), 3);
	cr_assert_eq(normalize_comm("kworker/3:1", 11), 10);
	cr_assert_eq(normalize_comm("1234", 4), 4, "an all-digit comm stays");
	cr_assert_eq(normalize_comm("a1b", 3), 3);
}

Test(mem_groups, significance_is_strictly_above_five_percent)
{
	cr_assert(!is_significant(5, 100));
	cr_assert(is_significant(6, 110));
	cr_assert(!is_significant(1, 20));
	cr_assert(!is_significant(0, 0));
}

Test(topology, cpulist_count)
{
	cr_assert_eq(cpulist_count("0-3,8,10-11\n"), 7);
	cr_assert_eq(cpulist_count(""), 0);
	cr_assert_eq(cpulist_count("3-1"), -1);
	cr_assert_eq(cpulist_count("x"), -1);
}

Test(mem_agg, evidence_key_separates_page_sizes_and_lines)
{
	cr_assert_eq(mem_evidence_key(0x1fff, 4096, false), mem_evidence_key(0x1000, 0, false));
	cr_assert_neq(mem_evidence_key(0x200000, 4096, false), mem_evidence_key(0x200000, 2097152, false));
	cr_assert_neq(mem_evidence_key(0x1000, 4096, true), mem_evidence_key(0x1040, 4096, true));
	cr_assert_eq(mem_evidence_key(0x1000, 4096, true), mem_evidence_key(0x103f, 4096, true));
}

static struct evidence vec(const uint64_t *keys, const double *w, size_t n)
{
	struct evidence e = {malloc(n * sizeof(uint64_t)), malloc(n * sizeof(double)), n, 0};

	memcpy(e.keys, keys, n * sizeof(uint64_t));
	memcpy(e.w, w, n * sizeof(double));
	for (size_t i = 0; i < n; i++)
		e.total += w[i];
	return e;
}

Test(sharing, affinity_bounds_scale_invariance_and_background)
{
	/* a and b share keys 1-2; c shares only the background key 9 with them; d is c doubled */
	uint64_t ka[] = {1, 2, 9, 100}, kb[] = {1, 2, 9, 200}, kc[] = {9, 300}, kd[] = {9, 300};
	double wa[] = {1, 1, 1, 5}, wb[] = {3, 3, 3, 1}, wc[] = {1, 1}, wd[] = {2, 2};
	struct evidence ev[4] = {vec(ka, wa, 4), vec(kb, wb, 4), vec(kc, wc, 2), vec(kd, wd, 2)};
	double *m = affinity_matrix(ev, 4);

	cr_assert(m);
	for (int i = 0; i < 16; i++)
		cr_assert(m[i] >= 0 && m[i] <= 1, "affinity %d = %f", i, m[i]);
	cr_assert(m[0 * 4 + 1] > 0.3, "a~b share specific memory: %f", m[1]);
	cr_assert(m[0 * 4 + 2] < m[0 * 4 + 1] / 4, "background-only sharing is weak: %f", m[2]);
	cr_assert(fabs(m[0 * 4 + 2] - m[0 * 4 + 3]) < 1e-12, "scaling a unit's weights changes nothing");
	cr_assert(fabs(m[1 * 4 + 0] - m[0 * 4 + 1]) < 1e-12, "symmetric");
	free(m);
	for (int i = 0; i < 4; i++)
		evidence_free(&ev[i]);
}

Test(sharing, two_units_sharing_everything_have_affinity_one)
{
	uint64_t k[] = {1, 2, 3};
	double w[] = {1, 2, 3};
	struct evidence ev[2] = {vec(k, w, 3), vec(k, w, 3)};
	double *m = affinity_matrix(ev, 2);

	cr_assert(fabs(m[1] - 1.0) < 1e-9, "%f", m[1]);
	free(m);
	evidence_free(&ev[0]);
	evidence_free(&ev[1]);
}

Test(cell_config, prints_like_serde_pretty)
{
	struct cell_config c = {0};
	struct cell *top = cell_config_add(&c, "allotment", TOP_CGROUP_REGEX, "a\\.b"), *sub;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	sub = cell_add_subcell(top, "x\ny");
	cell_add_clause(sub, "x", true, 7);
	sub = cell_add_subcell(top, "rest");
	cell_add_clause(sub, NULL, false, 0);
	cell_config_add(&c, "rest", TOP_EMPTY, NULL);
	cr_assert_eq(cell_config_write(&c, f), 0);
	fclose(f);
	cr_assert_str_eq(buf,
			 "[\n  {\n    \"name\": \"allotment\",\n    \"matches\": {\n      \"CgroupRegex\": \"a\\\\.b\"\n    },\n"
			 "    \"subcells\": [\n      {\n        \"name\": \"x\\ny\",\n        \"matches\": [\n          [\n"
			 "            {\n              \"CommPrefix\": \"x\"\n            },\n            {\n"
			 "              \"Hint\": 7\n            }\n          ]\n        ]\n      },\n      {\n"
			 "        \"name\": \"rest\",\n        \"matches\": [\n          []\n        ]\n      }\n    ]\n  },\n"
			 "  {\n    \"name\": \"rest\",\n    \"matches\": {}\n  }\n]\n");
	free(buf);
	cell_config_free(&c);
}

Test(cell_config, empty_config_is_an_empty_array)
{
	struct cell_config c = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(cell_config_write(&c, f), 0);
	fclose(f);
	cr_assert_str_eq(buf, "[]\n");
	free(buf);
}
