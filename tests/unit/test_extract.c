/*
 * test_extract.c - unit tests of extract mem's pieces: the perf.jsonl line
 * scanner (escapes, skipped values, errors), comm normalization, the
 * significance rule, cpulists, evidence keys, the affinity's properties and
 * the serde-style config printer, the CPU demand from samples alone.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/mem/mem_agg.h"
#include "extract/rec_topology.h"
#include "extract/sharing/sharing.h"
#include "lib/error.h"
#include "lib/sample_demand.h"

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

Test(sharing_units, normalize_strips_trailing_digits_only)
{
	cr_assert_eq(comm_name_normalize("web12", 5), 3);
	cr_assert_eq(comm_name_normalize("kworker/3:1", 11), 10);
	cr_assert_eq(comm_name_normalize("1234", 4), 4, "an all-digit comm stays");
	cr_assert_eq(comm_name_normalize("a1b", 3), 3);
}

Test(sharing_units, significance_is_strictly_above_five_percent)
{
	cr_assert(!sharing_is_significant(5, 100, SIGNIFICANT_PCT));
	cr_assert(sharing_is_significant(6, 110, SIGNIFICANT_PCT));
	cr_assert(!sharing_is_significant(1, 20, SIGNIFICANT_PCT));
	cr_assert(!sharing_is_significant(0, 0, SIGNIFICANT_PCT));
}

/* The one reader gives both users what they take: sched stats' llc/node
 * per CPU, extract mem's CPU count and largest LLC. */
Test(topology, one_reader_for_both_users)
{
	struct host_topology t;
	struct rec_topology r;
	struct cpu_topology c;
	char path[4096], missing[4096];
	const char *top = getenv("TOP");

	snprintf(path, sizeof(path), "%s%stests/fixtures/extract/topology-8cpu-2llc.json", top ? top : "", top ? "/" : "");
	snprintf(missing, sizeof(missing), "%s%stests/fixtures/extract/no-such-topology.json", top ? top : "",
		 top ? "/" : "");
	cr_assert_eq(host_topology_read_json(path, &t), 0, "%s", scx_errmsg());
	cr_assert_eq(t.n, 8);
	cr_assert_eq(t.cpus[5].cpu, 5);
	cr_assert_eq(t.cpus[5].llc, 4);
	cr_assert_eq(t.cpus[5].node, 0);
	cr_assert_eq(host_cpulist_count(t.cpus[5].llc_cpus), 4);
	host_topology_free(&t);
	cr_assert_eq(rec_topology_load(NULL, path, &r), 0, "%s", scx_errmsg()); /* extract mem's --topology FILE */
	cr_assert(r.found);
	cr_assert_str_eq(r.source, path);
	rec_topology_counts(&r.t, r.source, &c);
	rec_topology_unload(&r);
	cr_assert_eq(c.online_cpus, 8);
	cr_assert_eq(c.largest_llc_cpus, 4);
	cr_assert_eq(rec_topology_load(NULL, missing, &r), -1);
	cr_assert(!r.found);
	cr_assert_eq(host_topology_read_json(missing, &t), -1);
	cr_assert(strstr(scx_errmsg(), "no-such-topology.json"), "%s", scx_errmsg());
}

Test(mem_agg, evidence_key_separates_page_sizes_and_lines)
{
	cr_assert_eq(mem_agg_evidence_key(0x1fff, 4096, false), mem_agg_evidence_key(0x1000, 0, false));
	cr_assert_neq(mem_agg_evidence_key(0x200000, 4096, false), mem_agg_evidence_key(0x200000, 2097152, false));
	cr_assert_neq(mem_agg_evidence_key(0x1000, 4096, true), mem_agg_evidence_key(0x1040, 4096, true));
	cr_assert_eq(mem_agg_evidence_key(0x1000, 4096, true), mem_agg_evidence_key(0x103f, 4096, true));
}

/* keys are identities at epoch 0 unless given with EV_EPOCH bits */
#define K(id) ((uint64_t)(id) << EV_EPOCH_BITS)

static struct evidence vec(const uint64_t *keys, const double *w, size_t n)
{
	struct evidence e = {malloc(n * sizeof(uint64_t)), malloc(n * sizeof(double)), malloc(n * sizeof(uint64_t)), n, 0};

	for (size_t i = 0; i < n; i++) {
		e.keys[i] = keys[i] < (1u << EV_EPOCH_BITS) ? K(keys[i]) : keys[i];
		e.w[i] = w[i];
		e.samples[i] = 1;
		e.total += w[i];
	}
	return e;
}

/* The affinity matrix with the line evidence decided at the defaults. */
static double *affinity_at_defaults(const struct evidence *ev, size_t n, size_t min_keys, uint64_t min_samples)
{
	struct sharing_params p = {.threshold = SHARE_THRESHOLD_DEFAULT, .min_keys = min_keys, .min_samples = min_samples};
	struct u64map df;
	double *m;

	/* as extract's clustering does (sharing.c): the units' df, then the matrix */
	cr_assert_eq(sharing_evidence_df(ev, n, &df), 0);
	m = sharing_affinity_matrix_df(ev, n, &df, &p);
	u64map_free(&df);
	return m;
}

Test(sharing, affinity_bounds_scale_invariance_and_background)
{
	/* a and b share keys 1-2; c shares only the background key 9 with them; d is c doubled */
	uint64_t ka[] = {1, 2, 9, 100}, kb[] = {1, 2, 9, 200}, kc[] = {9, 300}, kd[] = {9, 300};
	double wa[] = {1, 1, 1, 5}, wb[] = {3, 3, 3, 1}, wc[] = {1, 1}, wd[] = {2, 2};
	struct evidence ev[4] = {vec(ka, wa, 4), vec(kb, wb, 4), vec(kc, wc, 2), vec(kd, wd, 2)};
	double *m = affinity_at_defaults(ev, 4, 1, 1);

	cr_assert(m);
	for (int i = 0; i < 16; i++)
		cr_assert(m[i] >= 0 && m[i] <= 1, "affinity %d = %f", i, m[i]);
	cr_assert(m[0 * 4 + 1] > 0.3, "a~b share specific memory: %f", m[1]);
	cr_assert(m[0 * 4 + 2] < m[0 * 4 + 1] / 4, "background-only sharing is weak: %f", m[2]);
	cr_assert(fabs(m[0 * 4 + 2] - m[0 * 4 + 3]) < 1e-12, "scaling a unit's weights changes nothing");
	cr_assert(fabs(m[1 * 4 + 0] - m[0 * 4 + 1]) < 1e-12, "symmetric");
	free(m);
	for (int i = 0; i < 4; i++)
		sharing_evidence_free(&ev[i]);
}

Test(sharing, two_units_sharing_everything_have_affinity_one)
{
	uint64_t k[] = {1, 2, 3};
	double w[] = {1, 2, 3};
	struct evidence ev[2] = {vec(k, w, 3), vec(k, w, 3)};
	double *m = affinity_at_defaults(ev, 2, 1, 1);

	cr_assert(fabs(m[1] - 1.0) < 1e-9, "%f", m[1]);
	free(m);
	sharing_evidence_free(&ev[0]);
	sharing_evidence_free(&ev[1]);
}

/* issue 10: one common sample out of 10,001 each scored 1.000 with the old cosine */
Test(sharing, one_shared_sample_among_many_is_weak)
{
	static uint64_t ka[10001], kb[10001];
	static double w[10001];
	struct evidence ev[2];
	double *m;

	for (size_t i = 0; i < 10001; i++) {
		ka[i] = K(1000 + i);
		kb[i] = K(i == 0 ? 1000 : 100000 + i);
		w[i] = 1;
	}
	ev[0] = vec(ka, w, 10001);
	ev[1] = vec(kb, w, 10001);
	m = affinity_at_defaults(ev, 2, 1, 1);
	cr_assert(m[1] < 0.001, "%f", m[1]);
	free(m);
	m = affinity_at_defaults(ev, 2, SHARE_MIN_KEYS_DEFAULT, SHARE_MIN_SAMPLES_DEFAULT);
	cr_assert(m[1] == 0, "below the minimum evidence: %f", m[1]);
	free(m);
	sharing_evidence_free(&ev[0]);
	sharing_evidence_free(&ev[1]);
}

/* redis with I/O threads: an I/O thread spends ~95% of its samples on one
 * page the main thread also hammers (hundreds of samples a side), with at
 * most 2-4 other shared pages: the merge must not hang on the stray ones */
Test(sharing, one_hot_shared_identity_with_many_samples_is_enough)
{
	struct pair_evidence pe = {.keys = 1, .samples_a = 350, .samples_b = 290};
	const size_t k = SHARE_MIN_KEYS_DEFAULT;
	const uint64_t s = SHARE_MIN_SAMPLES_DEFAULT;

	cr_assert(sharing_enough_evidence(&pe, k, s), "one identity, hundreds of samples a side");
	pe.samples_b = k * s - 1;
	cr_assert(!sharing_enough_evidence(&pe, k, s), "one identity, fewer than min_keys x min_samples on a side");
	pe.keys = k;
	cr_assert(sharing_enough_evidence(&pe, k, s), "min_keys identities at the sample floor");
	pe.samples_a = s - 1;
	cr_assert(!sharing_enough_evidence(&pe, k, s), "below the sample floor on one side");
	pe = (struct pair_evidence){.keys = 0, .samples_a = 1000, .samples_b = 1000};
	cr_assert(!sharing_enough_evidence(&pe, k, s), "nothing shared");

	/* through the matrix: one shared key, 40 samples a side on it */
	uint64_t ka[] = {K(1), K(2)}, kb[] = {K(1), K(3)};
	double w[] = {40, 1};
	struct evidence ev[2] = {vec(ka, w, 2), vec(kb, w, 2)};
	double *m;

	ev[0].samples[0] = ev[1].samples[0] = 40;
	m = affinity_at_defaults(ev, 2, k, s);
	cr_assert(m[1] > 0.9, "hot shared identity: %f", m[1]);
	free(m);
	ev[0].samples[0] = ev[1].samples[0] = 20;
	m = affinity_at_defaults(ev, 2, k, s);
	cr_assert(m[1] == 0, "20 samples a side on one identity is below the floor: %f", m[1]);
	free(m);
	sharing_evidence_free(&ev[0]);
	sharing_evidence_free(&ev[1]);
}

Test(sharing, only_same_or_adjacent_epochs_are_shared)
{
	/* a touched identities 1..4 in epoch 10; b in epoch 11 (adjacent); c in epoch 12 */
	uint64_t ka[] = {K(1) | 10, K(2) | 10, K(3) | 10, K(4) | 10}, kb[] = {K(1) | 11, K(2) | 11, K(3) | 11, K(4) | 11},
		 kc[] = {K(1) | 12, K(2) | 12, K(3) | 12, K(4) | 12};
	double w[] = {1, 1, 1, 1};
	struct evidence ev[3] = {vec(ka, w, 4), vec(kb, w, 4), vec(kc, w, 4)};
	double *m = affinity_at_defaults(ev, 3, 1, 1);

	cr_assert(m[0 * 3 + 1] > 0.4, "adjacent epochs: %f", m[1]);
	cr_assert(m[0 * 3 + 2] == 0, "two epochs apart: %f", m[2]);
	cr_assert(m[1 * 3 + 2] > 0.4, "adjacent epochs: %f", m[5]);
	free(m);
	for (int i = 0; i < 3; i++)
		sharing_evidence_free(&ev[i]);
}

Test(sharing, epochs_in_runs_and_across_the_wrap)
{
	/* identity 1: a in epochs 3, 7, 20; b in 8 and 30 -> only a's 7 is concurrent (with 8) */
	uint64_t ka[] = {K(1) | 3, K(1) | 7, K(1) | 20, K(2) | EV_EPOCH_MASK}, kb[] = {K(1) | 8, K(1) | 30, K(2) | 0};
	double wa[] = {1, 1, 1, 1}, wb[] = {1, 1, 1};
	struct evidence ev[2] = {vec(ka, wa, 4), vec(kb, wb, 3)};
	struct u64map df;
	struct pair_evidence pe;

	cr_assert(sharing_evidence_df(ev, 2, &df) == 0);
	sharing_pair_evidence_at(&ev[0], &ev[1], &df, 2,
				 &(struct sharing_params){.threshold = SHARE_THRESHOLD_DEFAULT, .min_keys = 1, .min_samples = 1}, &pe);
	cr_assert_eq(pe.keys, 2, "identity 1 (7 ~ 8) and identity 2 (the last epoch ~ 0): %zu", pe.keys);
	cr_assert_eq(pe.samples_a, 2);
	cr_assert_eq(pe.samples_b, 2);
	cr_assert(fabs(pe.share_a - 0.5) < 1e-9, "%f", pe.share_a);
	u64map_free(&df);
	sharing_evidence_free(&ev[0]);
	sharing_evidence_free(&ev[1]);
}

Test(mem_agg, sample_keys_by_identity_time_and_class)
{
	struct mem_sample a = {.data_id = "A:10:7f00", .data_id_len = 9, .phys_addr = 0x5000, .time_ns = 1500000000};
	struct mem_sample b = a, r = a, k = a, n = a;
	uint64_t ka, kb, kk, kn;
	unsigned sa, sk;

	cr_assert(mem_agg_sample_key(&a, false, &ka, &sa));
	cr_assert_eq(EV_EPOCH(ka), 1);
	b.time_ns = 2600000000;
	cr_assert(mem_agg_sample_key(&b, false, &kb, &sa));
	cr_assert_eq(EV_IDENT(ka), EV_IDENT(kb));
	cr_assert_eq(EV_EPOCH(kb), 2);
	b.phys_addr = 0x9000; /* the same identity on another physical page: not the same data */
	cr_assert(mem_agg_sample_key(&b, false, &kb, &sa));
	cr_assert_neq(EV_IDENT(ka), EV_IDENT(kb));
	r.data_id = "R:8:1:2a:0:3";
	r.data_id_len = strlen(r.data_id);
	cr_assert(!mem_agg_sample_key(&r, false, &kb, &sa), "read-only file text is no evidence");
	k.data_id = "K:5";
	k.data_id_len = 3;
	cr_assert(mem_agg_sample_key(&k, false, &kk, &sk));
	cr_assert_eq(EV_EPOCH(kk), 15, "kernel epochs are 100 ms");
	cr_assert_eq(sk * 4, sa, "kernel pages weigh 1/4");
	k.peer = true;
	cr_assert(mem_agg_sample_key(&k, false, &kk, &sk));
	cr_assert_eq(sk, EV_SCALE_KERNEL * EV_PEER_FACTOR);
	n.data_id = NULL;
	n.data_id_len = 0;
	cr_assert(mem_agg_sample_key(&n, false, &kn, &sa), "no data_id: the physical page");
	n.phys_addr = 0;
	cr_assert(!mem_agg_sample_key(&n, false, &kn, &sa));
}

/* One pass's decoding thread computes keys ahead: the same answers, and only for the granularity asked. */
Test(mem_agg, sample_keys_ahead_equal_computed_ones)
{
	struct mem_sample v[] = {
		{.data_id = "A:10:7f00", .data_id_len = 9, .phys_addr = 0x5040, .time_ns = 1500000000},
		{.data_id = "F:8:1:2a:0:3", .data_id_len = 12, .addr = 0x3080, .time_ns = 7, .peer = true},
		{.data_id = "R:8:1:2a:0:3", .data_id_len = 12, .phys_addr = 0x1000},
		{.data_id = "K:5", .data_id_len = 3, .phys_addr = 0x2000, .time_ns = 250000000, .peer = true},
		{.phys_addr = 0x7000, .data_page_size = 2 << 20, .time_ns = 1},
		{.time_ns = 3},
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (int lines = 0; lines < 2; lines++) {
			struct mem_sample s = v[i];
			uint64_t want = 0, got = 0, other = 0, again = 0;
			unsigned wscale = 0, gscale = 0, oscale = 0, ascale = 0;
			bool wev = mem_agg_sample_key(&s, lines, &want, &wscale), gev, oev;

			mem_agg_sample_key_ahead(&s, lines);
			cr_assert(s.key_ahead);
			gev = mem_agg_sample_key(&s, lines, &got, &gscale);
			cr_assert_eq(gev, wev, "sample %zu lines %d", i, lines);
			if (wev) {
				cr_assert_eq(got, want, "sample %zu lines %d", i, lines);
				cr_assert_eq(gscale, wscale);
			}
			/* asked for the other granularity: computed, not the cached answer */
			oev = mem_agg_sample_key(&v[i], !lines, &other, &oscale);
			cr_assert_eq(mem_agg_sample_key(&s, !lines, &again, &ascale), oev);
			if (oev)
				cr_assert_eq(again, other, "sample %zu lines %d: the other granularity's key", i, !lines);
		}
}

Test(cell_config, prints_like_serde_pretty)
{
	struct cell_config c = {0};
	struct cell *top = cell_config_add(&c, "allotment", TOP_CGROUP_REGEX, "a\\.b"), *sub;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	sub = cell_config_add_subcell(top, "x\ny");
	cell_config_add_clause(sub, "x", true, 7);
	sub = cell_config_add_subcell(top, "rest");
	cell_config_add_clause(sub, NULL, false, 0);
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

/* lib/sample_demand.h: the smaller of the sample share x CPUs and the share of the recording seen. */
Test(demand, by_samples_is_the_smaller_bound)
{
	cr_assert_eq(sample_demand_span_bins(1000000000, 3999999999), 30);
	cr_assert_eq(sample_demand_span_bins(0, 5), 0, "no time: no span");
	cr_assert_float_eq(sample_demand(50, 100, 48, 10, 40), 0.25, 1e-12, "seen a quarter of the time: 0.25, not 24");
	cr_assert_float_eq(sample_demand(1, 100, 8, 40, 40), 0.08, 1e-12, "a light thread seen all along: its share");
	cr_assert_float_eq(sample_demand(50, 100, 48, 0, 40), 1, 1e-12, "no bins: the share, at most one CPU");
	cr_assert_float_eq(sample_demand(5, 100, 8, 0, 0), 0.4, 1e-12, "no times: the share alone");
	cr_assert_float_eq(sample_demand(50, 100, 48, 90, 40), 1, 1e-12, "never more than one CPU");
}

static void seen_sample(struct mem_agg *a, const char *comm, int64_t tid, uint64_t t_ms)
{
	struct mem_sample s = {.comm = comm, .comm_len = strlen(comm), .tid = tid, .pid = tid,
			       .cgroup = "/workload.slice/workload-tw-x.allotment.slice", .phys_addr = 0x1000 + (uint64_t)tid,
			       .data_page_size = 4096, .time_ns = 1000000000 + t_ms * 1000000};

	s.cgroup_len = strlen(s.cgroup);
	cr_assert_eq(mem_agg_add(a, &s), 0, "%s", scx_errmsg());
}

/*
 * A workload-only recording on 48 CPUs: every sample is one of two threads
 * that ran one after the other, 1 s each of a 2 s recording. Their sample
 * shares (1/2 x 48 = 24 CPUs each) would refuse any merge under a 12-CPU
 * cap; seen half the time each, they demand 0.5 CPU each.
 */
Test(demand, units_without_a_sched_trace_are_bounded_by_their_time_seen)
{
	struct mem_agg_opts o = {.workload = "workload.slice", .allotment_re = "workload-tw-[^/]+\\.allotment\\.slice",
				 .track_seen = true};
	struct mem_agg a;
	struct comm_summary cs;
	struct unit_list u;
	size_t g;
	double demand[4];

	cr_assert_eq(mem_agg_init(&a, &o), 0);
	for (uint64_t t = 0; t < 2000; t += 5)
		seen_sample(&a, t < 1000 ? "writer" : "reader7", t < 1000 ? 10 : 11, t);
	cr_assert_eq(a.nr_seen, 2);
	for (g = 0; g < a.nr_groups && a.groups[g].kind != GROUP_ALLOTMENT; g++)
		;
	cr_assert_lt(g, a.nr_groups);
	cr_assert_eq(sharing_summary_build(&a, &g, 1, &cs), 0);
	sharing_summary_sort_by_name(&cs);
	cr_assert_eq(sharing_upstream_units(&cs, false, 5, &u), 0);
	cr_assert_eq(u.n, 2);
	mem_agg_seen_demand(&a, GROUP_ALLOTMENT, &u, 48, demand);
	for (size_t i = 0; i < u.n; i++)
		cr_assert_float_eq(demand[i], 0.5, 1e-9, "%s: %f", u.v[i].name, demand[i]);
	sharing_unit_list_free(&u);
	sharing_summary_free(&cs);
	mem_agg_free(&a);
}
