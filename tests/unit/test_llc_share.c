/*
 * test_llc_share.c - the cross-LLC measure's parts: the Wilson interval,
 * the worst-fit placement, the epoch window, the config matcher, and one
 * end-to-end count with chosen CPUs and keys (measured vs predicted).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extract/sharing/cell_config.h"
#include "extract/llc/config_match.h"
#include "extract/llc/llc_map.h"
#include "extract/llc/llc_share.h"
#include "extract/llc/placement.h"
#include "extract/llc/share_rule.h"

Test(llc_share, wilson_interval)
{
	struct llc_share_ratio r;

	llc_share_wilson(30, 60, &r);
	cr_assert_float_eq(r.share, 0.5, 1e-12);
	cr_assert_float_eq(r.low, 0.37739, 1e-4);
	cr_assert_float_eq(r.high, 0.62261, 1e-4);
	llc_share_wilson(0, 5, &r);
	cr_assert(r.low == 0 && r.high > 0.43 && r.high < 0.44, "0 of 5: [0, 0.434], got [%g, %g]", r.low, r.high);
	llc_share_wilson(5, 5, &r);
	cr_assert(r.high == 1 && r.low > 0.56 && r.low < 0.57);
	llc_share_wilson(0, 0, &r);
	cr_assert(r.n == 0 && r.share == 0 && r.low == 0 && r.high == 0);
}

Test(llc_share, worst_fit_decreasing)
{
	const double demand[] = {0.5, 1.5, 3.0, 0.2};
	const unsigned cpus[] = {2, 2};
	double load[2] = {0, 0};
	int out[4];

	cr_assert_eq(placement_worst_fit(demand, 4, cpus, 2, load, true, out), 0);
	cr_assert_eq(out[2], -1, "3 CPUs fit no 2-CPU LLC");
	cr_assert_eq(out[1], 0, "the largest that fits goes first, to the lowest of equally free LLCs");
	cr_assert_eq(out[0], 1, "then the most free LLC");
	cr_assert_eq(out[3], 1);
	cr_assert_float_eq(load[0], 1.5, 1e-12);
	cr_assert_float_eq(load[1], 0.7, 1e-12);
	/* without need_fit the item overcommits the freest LLC */
	cr_assert_eq(placement_worst_fit(&demand[2], 1, cpus, 2, load, false, out), 0);
	cr_assert_eq(out[0], 1);
}

Test(llc_share, epoch_window)
{
	const uint64_t page = 0, line = 1ULL << 63; /* a page key (K:, physical) and a line key (A:, F:) */

	cr_assert(share_rule_concurrent(page, 5, 5) && share_rule_concurrent(page, 5, 6) && share_rule_concurrent(page, 6, 5));
	cr_assert(!share_rule_concurrent(page, 5, 7) && !share_rule_concurrent(page, 9, 5));
	cr_assert(share_rule_concurrent(page, 0, 0xffff), "the epoch counter wraps");
	cr_assert(share_rule_concurrent(line, 5, 20) && !share_rule_concurrent(line, 5, 21), "lines: 15 epochs either side");
	cr_assert(share_rule_concurrent(line, 250, 4) && !share_rule_concurrent(line, 240, 0), "modulo 256");
	cr_assert_eq(share_rule_epoch(line | 0x1234), 0x34);
	cr_assert_eq(share_rule_ident(line | 0x1234), (line | 0x1234) >> 8);
}

static void build_config(struct cell_config *cfg)
{
	struct cell *a, *w, *r, *s;

	memset(cfg, 0, sizeof(*cfg));
	cr_assert(a = cell_config_add(cfg, "allotment", TOP_CGROUP_REGEX, "tw-[a-z]+\\.allotment"));
	cr_assert(s = cell_config_add_subcell(a, "alpha+beta"));
	cr_assert_eq(cell_config_add_clause(s, "alpha", false, 0), 0);
	cr_assert_eq(cell_config_add_clause(s, "beta", false, 0), 0);
	cr_assert(s = cell_config_add_subcell(a, "gamma@hint=7"));
	cr_assert_eq(cell_config_add_clause(s, "gamma", true, 7), 0);
	cr_assert(s = cell_config_add_subcell(a, "rest"));
	cr_assert_eq(cell_config_add_clause(s, NULL, false, 0), 0);
	cr_assert(w = cell_config_add(cfg, "workload.slice", TOP_CGROUP_CONTAINS, "workload.slice"));
	cr_assert(r = cell_config_add(cfg, "rest", TOP_EMPTY, NULL));
	(void)w;
	(void)r;
}

Test(llc_share, config_match_as_a_scheduler)
{
	struct cell_config cfg;
	struct config_matcher m;
	long c, s;
	const char *allot = "/workload.slice/tw-x.allotment/app";

	build_config(&cfg);
	cr_assert_eq(config_match_init(&m, &cfg, "workload.slice", "tw-[a-z]+\\.allotment"), 0);
	cr_assert_eq(config_match(&m, allot, strlen(allot), "beta-3", 6, 0, &c, &s), 0);
	cr_assert(c == 0 && s == 0, "beta-3 is in alpha+beta (got %ld/%ld)", c, s);
	config_match(&m, allot, strlen(allot), "gamma1", 6, 7, &c, &s);
	cr_assert(c == 0 && s == 1, "gamma with hint 7");
	config_match(&m, allot, strlen(allot), "gamma1", 6, 8, &c, &s);
	cr_assert(c == 0 && s == 2, "gamma with another hint is in rest");
	config_match(&m, "/workload.slice/other", 21, "alpha", 5, 0, &c, &s);
	cr_assert(c == 1 && s == -1, "the workload cell has no subcells");
	config_match(&m, "/system.slice/tw-x.allotment", 28, "alpha", 5, 0, &c, &s);
	cr_assert(c == 2, "outside the workload cgroup: rest, whatever the regex says");
	config_match_free(&m);
	cell_config_free(&cfg);
}

static struct mem_sample sample(const char *comm, int64_t tid, const char *data_id, int64_t cpu, uint64_t t_ns)
{
	static const char *cg = "/workload.slice/tw-x.allotment/app";
	struct mem_sample s = {0};

	s.comm = comm;
	s.comm_len = strlen(comm);
	s.cgroup = cg;
	s.cgroup_len = strlen(cg);
	s.tid = s.pid = tid;
	s.phys_addr = 0x1000;
	s.data_page_size = 4096;
	s.data_id = data_id;
	s.data_id_len = strlen(data_id);
	s.cpu = cpu;
	s.has_cpu = cpu >= 0;
	s.time_ns = t_ns;
	return s;
}

/* alpha (cpu0) and beta (cpu1, another LLC) on one page: measured cross, predicted not (one subcell). */
Test(llc_share, measured_follows_cpus_predicted_follows_config)
{
	char path[] = "/tmp/llc-topo-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct llc_map map;
	struct llc_share s;
	struct llc_share_result r;
	struct cell_config cfg;
	struct llc_share_eval e = {0};
	int i;

	fprintf(f, "{\"version\":1,\"cpus\":[{\"cpu\":0,\"llc\":0,\"node\":0,\"llc_cpus\":\"0\"},"
		   "{\"cpu\":1,\"llc\":1,\"node\":1,\"llc_cpus\":\"1\"}]}");
	fclose(f);
	cr_assert_eq(llc_map_from_json(path, &map), 0);
	unlink(path);
	cr_assert(map.nr_llcs == 2 && map.nr_nodes == 2 && map.llc_of[1] == 1);
	build_config(&cfg);
	llc_share_init(&s, false, 0);
	for (i = 0; i < 40; i++) {
		struct mem_sample a = sample("alpha", 10, "F:1:2:0:1", 0, 1000), b = sample("beta", 20, "F:1:2:0:1", 1, 2000);
		struct mem_sample g = sample("gamma", 30, "F:1:2:0:9", 1, 3000), x = sample("beta", 20, "F:1:2:0:1", -1, 0);

		cr_assert_eq(llc_share_add(&s, &a), 0);
		cr_assert_eq(llc_share_add(&s, &b), 0);
		cr_assert_eq(llc_share_add(&s, &g), 0);
		cr_assert_eq(llc_share_add(&s, &x), 0);
	}
	e = (struct llc_share_eval){.cfg = &cfg, .workload = "workload.slice", .allotment_re = "tw-[a-z]+\\.allotment",
				    .map = &map, .online_cpus = 1}; /* alpha+beta: 120 of 160 samples = 0.75 CPUs, fits a 1-CPU LLC */
	cr_assert_eq(llc_share_evaluate(&s, &e, &r), 0);
	cr_assert_eq(r.no_cpu, 40);
	cr_assert_eq(r.total.shared, 80, "alpha's and beta's samples are on shared data; gamma's are not");
	cr_assert_eq(r.total.llc_measured, 80);
	cr_assert_eq(r.total.node_measured, 80);
	cr_assert_eq(r.total.llc_predicted, 0, "alpha+beta share one LLC under the config");
	cr_assert_eq(r.subs[0].f.shared, 80);
	cr_assert_eq(r.subs[0].threads, 2);
	cr_assert_eq(r.subs[0].llc, 0);
	llc_share_result_free(&r);
	/* on 2 recorded CPUs the same subcell needs 1.5 CPUs: larger than an LLC, its threads go one by one */
	e.online_cpus = 2;
	cr_assert_eq(llc_share_evaluate(&s, &e, &r), 0);
	cr_assert_eq(r.subs[0].llc, -1);
	cr_assert_eq(r.total.llc_predicted, 80, "alpha and beta placed on different LLCs");
	llc_share_result_free(&r);
	llc_share_free(&s);
	cell_config_free(&cfg);
	llc_map_free(&map);
}
