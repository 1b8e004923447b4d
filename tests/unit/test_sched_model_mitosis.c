/*
 * test_sched_model_mitosis.c - the scx_mitosis model
 * (llc/sched_model_mitosis.c) against layouts worked out by hand
 * from the reader's allocator (docs/llc-sharing.md "The scx_mitosis
 * model"): equal cells, a cpuset beside an unpinned cell, hot and idle
 * subcells under rebalancing, a run across an LLC boundary, --virt-llc,
 * the EPYC 9254 numbering, and how cgroups become cells.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "extract/sharing/sharing.h"
#include "llc/llc.h"

static int seq[256];

static void init_seq(void)
{
	for (int i = 0; i < 256; i++)
		seq[i] = i;
}

/* The CPUs owner gives recipient r, as a cpulist. */
static const char *run_of(char *buf, size_t len, const int *domain, size_t n, const int *owner, int r)
{
	int cpus[256];
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (owner[i] == r)
			cpus[k++] = domain[i];
	return mitosis_cpulist(buf, len, cpus, k);
}

Test(sched_model_mitosis, three_equal_cells_on_16_cpus)
{
	/* targets 1 + floor(13/3) = 5 each, one remainder to the lowest id: 6, 5, 5; runs in id order */
	struct mitosis_recipient r[3] = {{1, NULL, 0, true}, {1, NULL, 0, false}, {1, NULL, 0, false}};
	int owner[16];
	char b[64];

	init_seq();
	cr_assert_eq(mitosis_allocate(seq, 16, r, 3, owner), 0);
	cr_expect_str_eq(run_of(b, sizeof(b), seq, 16, owner, 0), "0-5");
	cr_expect_str_eq(run_of(b, sizeof(b), seq, 16, owner, 1), "6-10");
	cr_expect_str_eq(run_of(b, sizeof(b), seq, 16, owner, 2), "11-15");
}

Test(sched_model_mitosis, cpuset_beside_an_unpinned_cell)
{
	/*
	 * targets 6, 5, 5; cell 1 claims 8-11 (4); the 12 unclaimed CPUs by
	 * deficit 6 : 5 -> 6.55, 5.45 -> floors 6 + 5, the remainder to the
	 * larger fraction (cell 0): 7 and 5, runs of what is left.
	 */
	int set[4] = {8, 9, 10, 11};
	struct mitosis_recipient r[3] = {{1, NULL, 0, true}, {1, set, 4, false}, {1, NULL, 0, false}};
	int owner[16];
	char b[64];

	init_seq();
	cr_assert_eq(mitosis_allocate(seq, 16, r, 3, owner), 0);
	cr_expect_str_eq(run_of(b, sizeof(b), seq, 16, owner, 0), "0-6");
	cr_expect_str_eq(run_of(b, sizeof(b), seq, 16, owner, 1), "8-11");
	cr_expect_str_eq(run_of(b, sizeof(b), seq, 16, owner, 2), "7,12-15");
}

Test(sched_model_mitosis, contested_cpuset_split_by_deficit)
{
	/* cells 1 and 2 both claim 0-7 of 8: each gets one, then the rest by deficit (targets 3, 3, 2) */
	int set[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct mitosis_recipient r[3] = {{1, NULL, 0, true}, {1, set, 8, false}, {1, set, 8, false}};
	int owner[8];

	init_seq();
	cr_expect_neq(mitosis_allocate(seq, 8, r, 3, owner), 0, "cell 0 gets nothing when cpusets cover every CPU");
}

Test(sched_model_mitosis, too_few_cpus_refused)
{
	struct mitosis_recipient r[3] = {{1, NULL, 0, true}, {1, NULL, 0, false}, {1, NULL, 0, false}};
	int owner[2];

	init_seq();
	cr_expect_neq(mitosis_allocate(seq, 2, r, 3, owner), 0);
}

/* A topology of n CPUs, LLC of CPU c = llc(c). */
struct topo {
	int llc[256], node[256], core[256];
	struct mitosis_topo t;
};

static void make_topo(struct topo *tp, size_t n, size_t nr_llcs, int (*llc)(int), int (*core)(int))
{
	memset(tp, 0, sizeof(*tp));
	for (size_t c = 0; c < n; c++) {
		tp->llc[c] = llc((int)c);
		tp->node[c] = 0;
		tp->core[c] = core ? core((int)c) : (int)c;
	}
	tp->t = (struct mitosis_topo){n, tp->llc, tp->node, core ? tp->core : NULL, nr_llcs, 1};
}

static int one_llc(int c)
{
	(void)c;
	return 0;
}

Test(sched_model_mitosis, hot_and_idle_subcells_under_rebalancing)
{
	/*
	 * The reader's runtime test: a cell of 120 CPUs, an idle catch-all and
	 * a hot subcell. First equal (60/60); then the idle one's utilisation is
	 * 0, its weight 0: 1 + 0 for it, 1 + 118 for the hot one, runs in id order.
	 */
	struct topo tp;
	double demand[2] = {0, 100};
	struct mitosis_cell_in in = {NULL, 0, 2, demand};
	struct mitosis_opts o = {.rebalancing = true, .llc_aware = true};
	struct mitosis_layout l;
	char b[64];

	make_topo(&tp, 120, 1, one_llc, NULL);
	cr_assert_eq(mitosis_layout(&tp.t, &o, &in, 1, &l), 0);
	cr_expect(l.converged);
	cr_expect_eq(l.cells[0].cpus.n, 120);
	cr_expect_eq(l.cells[0].subs[0].n, 1);
	cr_expect_eq(l.cells[0].subs[1].n, 119);
	cr_expect_str_eq(mitosis_cpulist(b, sizeof(b), l.cells[0].subs[1].cpus, l.cells[0].subs[1].n), "1-119");
	mitosis_layout_free(&l);

	/* without --enable-rebalancing: equal halves whatever the demand */
	o.rebalancing = false;
	cr_assert_eq(mitosis_layout(&tp.t, &o, &in, 1, &l), 0);
	cr_expect_eq(l.cells[0].subs[0].n, 60);
	cr_expect_eq(l.cells[0].subs[1].n, 60);
	mitosis_layout_free(&l);
}

Test(sched_model_mitosis, all_idle_subcells_stay_equal)
{
	struct topo tp;
	double demand[3] = {0, 0, 0};
	struct mitosis_cell_in in = {NULL, 0, 3, demand};
	struct mitosis_opts o = {.rebalancing = true, .llc_aware = true};
	struct mitosis_layout l;

	make_topo(&tp, 12, 1, one_llc, NULL);
	cr_assert_eq(mitosis_layout(&tp.t, &o, &in, 1, &l), 0);
	cr_expect_eq(l.cells[0].subs[0].n, 4);
	cr_expect_eq(l.cells[0].subs[1].n, 4);
	cr_expect_eq(l.cells[0].subs[2].n, 4);
	mitosis_layout_free(&l);
}

static int half8(int c)
{
	return c < 4 ? 0 : 1;
}

Test(sched_model_mitosis, run_across_an_llc_boundary)
{
	/*
	 * 8 CPUs, LLCs 0-3 and 4-7; one cell of three subcells: targets
	 * 1 + floor(5/3) = 2 each, two remainders to ids 0 and 1: 3, 3, 2 ->
	 * rest 0-2, a 3-5, b 6-7. a's threads: 1/3 on LLC 0, 2/3 on LLC 1; two
	 * of them are on two LLCs with 1 - (1/9 + 4/9) = 4/9, one of a and
	 * one of b (all LLC 1) with 1 - 2/3 = 1/3.
	 */
	struct topo tp;
	struct mitosis_cell_in in = {NULL, 0, 3, NULL};
	struct mitosis_opts o = {.llc_aware = true};
	struct mitosis_layout l;
	float da[2], db[2];
	char b[64];

	make_topo(&tp, 8, 2, half8, NULL);
	cr_assert_eq(mitosis_layout(&tp.t, &o, &in, 1, &l), 0);
	cr_expect_str_eq(mitosis_cpulist(b, sizeof(b), l.cells[0].subs[0].cpus, l.cells[0].subs[0].n), "0-2");
	cr_expect_str_eq(mitosis_cpulist(b, sizeof(b), l.cells[0].subs[1].cpus, l.cells[0].subs[1].n), "3-5");
	cr_expect_str_eq(mitosis_cpulist(b, sizeof(b), l.cells[0].subs[2].cpus, l.cells[0].subs[2].n), "6-7");
	mitosis_run_dist(&tp.t, &l.cells[0].subs[1], da, NULL);
	mitosis_run_dist(&tp.t, &l.cells[0].subs[2], db, NULL);
	cr_expect_float_eq(da[0], 1.0f / 3, 1e-6);
	cr_expect_float_eq(da[1], 2.0f / 3, 1e-6);
	cr_expect_float_eq(mitosis_pcross(da, da, 2), 4.0 / 9, 1e-6);
	cr_expect_float_eq(mitosis_pcross(da, db, 2), 1.0 / 3, 1e-6);
	cr_expect_float_eq(mitosis_pcross(db, db, 2), 0, 1e-9);
	mitosis_layout_free(&l);
}

static int core32(int c)
{
	return c % 32;
}

Test(sched_model_mitosis, virt_llc_8_8_on_a_32_core_llc)
{
	/* 32 cores, SMT siblings c and c + 32: 32 % 8 == 0, four virtual LLCs of 8 cores (16 CPUs) */
	struct topo tp;
	int v[64];

	make_topo(&tp, 64, 1, one_llc, core32);
	cr_assert_eq(mitosis_virt_llcs(&tp.t, 8, 8, v), 4);
	cr_expect_eq(v[0], 0);
	cr_expect_eq(v[7], 0);
	cr_expect_eq(v[39], 0, "CPU 39 is core 7's sibling");
	cr_expect_eq(v[8], 1);
	cr_expect_eq(v[40], 1);
	cr_expect_eq(v[31], 3);
	cr_expect_eq(v[63], 3);
	/* the split size: the smallest exact divisor, else the least remainder (smaller on ties) */
	cr_expect_eq(mitosis_split_size(12, 5, 7), 6);
	cr_expect_eq(mitosis_split_size(10, 3, 4), 3);
	cr_expect_eq(mitosis_split_size(3, 4, 8), 3);
	cr_expect_eq(mitosis_split_size(11, 2, 8), 2, "11 %% 2 = 1 is the least remainder, first at 2");
	cr_expect_neq(mitosis_virt_llcs(&tp.t, 0, 8, v), 4, "min 0 refused");
}

Test(sched_model_mitosis, virt_llc_limits)
{
	/* 64 single-core... 128 CPUs in one LLC cut 1-1 are 128 domains: more than the reader's 64 */
	struct topo tp;
	struct mitosis_cell_in in = {NULL, 0, 1, NULL};
	struct mitosis_opts o = {.llc_aware = true, .vllc_min = 1, .vllc_max = 1};
	struct mitosis_layout l;

	make_topo(&tp, 128, 1, one_llc, NULL);
	cr_expect_neq(mitosis_layout(&tp.t, &o, &in, 1, &l), 0);
	o.vllc_min = o.vllc_max = 2;
	cr_assert_eq(mitosis_layout(&tp.t, &o, &in, 1, &l), 0);
	cr_expect_eq(l.nr_domains, 64);
	mitosis_layout_free(&l);
	o.llc_aware = false;
	cr_expect_neq(mitosis_layout(&tp.t, &o, &in, 1, &l), 0, "--virt-llc needs LLC awareness");
}

static int epyc9254(int c)
{
	return (c % 24) / 6; /* 0-5+24-29, 6-11+30-35, 12-17+36-41, 18-23+42-47 */
}

static int epyc_core(int c)
{
	return c % 24;
}

Test(sched_model_mitosis, epyc_9254_numbering)
{
	/*
	 * 48 CPUs, 4 LLCs; one cell of four subcells: 12 CPUs each, 0-11,
	 * 12-23, 24-35, 36-47. 0-11 is half LLC 0 (0-5), half LLC 1 (6-11), as
	 * is 24-35 (24-29, 30-35): two threads of subcell 0 are on two LLCs
	 * half the time, as are one of subcell 0 and one of subcell 2;
	 * subcell 0 and subcell 1 (LLCs 2, 3) never share one.
	 */
	struct topo tp;
	struct mitosis_cell_in in = {NULL, 0, 4, NULL};
	struct mitosis_opts o = {.llc_aware = true};
	struct mitosis_layout l;
	float d[4][4];
	int v[48];
	char b[64];

	make_topo(&tp, 48, 4, epyc9254, epyc_core);
	cr_assert_eq(mitosis_layout(&tp.t, &o, &in, 1, &l), 0);
	for (int s = 0; s < 4; s++) {
		cr_expect_eq(l.cells[0].subs[s].n, 12);
		mitosis_run_dist(&tp.t, &l.cells[0].subs[s], d[s], NULL);
	}
	cr_expect_str_eq(mitosis_cpulist(b, sizeof(b), l.cells[0].subs[2].cpus, 12), "24-35");
	cr_expect_float_eq(d[0][0], 0.5f, 1e-6);
	cr_expect_float_eq(d[0][1], 0.5f, 1e-6);
	cr_expect_float_eq(mitosis_pcross(d[0], d[0], 4), 0.5, 1e-6);
	cr_expect_float_eq(mitosis_pcross(d[0], d[2], 4), 0.5, 1e-6);
	cr_expect_float_eq(mitosis_pcross(d[0], d[1], 4), 1.0, 1e-6);
	mitosis_layout_free(&l);
	/* --virt-llc 3-3: each CCD's 6 cores (12 CPUs) in two virtual LLCs: 8 domains; 0-2+24-26 is one */
	cr_assert_eq(mitosis_virt_llcs(&tp.t, 3, 3, v), 8);
	cr_expect_eq(v[0], v[26]);
	cr_expect_neq(v[0], v[3]);
	cr_expect_eq(v[3], v[29]);
}

Test(sched_model_mitosis, cpulist_text)
{
	int c[] = {0, 1, 2, 5, 7, 8};
	char b[64];

	cr_expect_str_eq(mitosis_cpulist(b, sizeof(b), c, 6), "0-2,5,7-8");
	cr_expect_str_eq(mitosis_cpulist(b, sizeof(b), c, 0), "");
}

static void allot_config(struct cell_config *cfg)
{
	struct cell *a, *s;

	memset(cfg, 0, sizeof(*cfg));
	cr_assert(a = cell_config_add(cfg, "allotment", TOP_CGROUP_REGEX, "[a-z]\\.allotment"));
	cr_assert(s = cell_config_add_subcell(a, "alpha+beta"));
	cr_assert_eq(cell_config_add_clause(s, "alpha", false, 0), 0);
	cr_assert_eq(cell_config_add_clause(s, "beta", false, 0), 0);
	cr_assert(s = cell_config_add_subcell(a, "rest"));
	cr_assert_eq(cell_config_add_clause(s, NULL, false, 0), 0);
	cr_assert(s = cell_config_add_subcell(a, "gamma"));
	cr_assert_eq(cell_config_add_clause(s, "gamma", false, 0), 0);
	cr_assert(cell_config_add(cfg, "workload", TOP_CGROUP_CONTAINS, "workload.slice"));
	cr_assert(cell_config_add(cfg, "rest", TOP_EMPTY, NULL));
}

Test(sched_model_mitosis, cgroups_become_cells)
{
	/*
	 * /workload.slice matches the workload spec (1), each allotment the
	 * regex (0, earlier: a cell of its own below it); a.allotment/x matches
	 * spec 0 too but its ancestor a.allotment holds that spec: it joins it.
	 * Sorted paths: cells 1 /workload.slice, 2 a.allotment, 3 b.allotment.
	 */
	struct cell_config cfg;
	struct mitosis_cells c;
	const char *cg[] = {"/workload.slice/a.allotment/x", "/workload.slice/b.allotment", "/system.slice/foo",
			    "/workload.slice/other"};

	allot_config(&cfg);
	cr_assert_eq(mitosis_resolve_cells(&cfg, cg, 4, &c), 0);
	cr_assert_eq(c.nr, 4);
	cr_expect_str_eq(c.path[1], "/workload.slice");
	cr_expect_str_eq(c.path[2], "/workload.slice/a.allotment");
	cr_expect_str_eq(c.path[3], "/workload.slice/b.allotment");
	cr_expect_eq(c.spec[0], 2, "cell 0 is the catch-all spec");
	cr_expect_eq(c.spec[1], 1);
	cr_expect_eq(c.spec[2], 0);
	cr_expect_eq(c.cell_of[0], 2);
	cr_expect_eq(c.cell_of[1], 3);
	cr_expect_eq(c.cell_of[2], 0);
	cr_expect_eq(c.cell_of[3], 1);
	mitosis_cells_free(&c);
	cell_config_free(&cfg);
}

Test(sched_model_mitosis, anchored_regex_never_matches)
{
	/* the reader matches /sys/fs/cgroup/workload.slice/...: ^/workload never holds */
	struct cell_config cfg;
	struct mitosis_cells c;
	const char *cg[] = {"/workload.slice/a"};

	memset(&cfg, 0, sizeof(cfg));
	cr_assert(cell_config_add(&cfg, "w", TOP_CGROUP_REGEX, "^/workload\\.slice"));
	cr_assert(cell_config_add(&cfg, "rest", TOP_EMPTY, NULL));
	cr_assert_eq(mitosis_resolve_cells(&cfg, cg, 1, &c), 0);
	cr_expect_eq(c.nr, 1);
	cr_expect_eq(c.cell_of[0], 0);
	mitosis_cells_free(&c);
	cell_config_free(&cfg);
}

Test(sched_model_mitosis, subcell_ids_and_matching)
{
	/* the catch-all "rest" (second in the file) is id 0; alpha+beta 1, gamma 2 */
	struct cell_config cfg;
	long id[3];
	size_t nr;

	allot_config(&cfg);
	mitosis_subcell_ids(&cfg.cells[0], id, &nr);
	cr_expect_eq(nr, 3);
	cr_expect_eq(id[0], 1);
	cr_expect_eq(id[1], 0);
	cr_expect_eq(id[2], 2);
	cr_expect_eq(mitosis_match_subcell(&cfg.cells[0], "beta-3", 6), 1);
	cr_expect_eq(mitosis_match_subcell(&cfg.cells[0], "gamma", 5), 2, "after the catch-all in the file, still matched");
	cr_expect_eq(mitosis_match_subcell(&cfg.cells[0], "delta", 5), 0);
	cr_expect_eq(mitosis_match_subcell(&cfg.cells[1], "alpha", 5), 0, "a spec without subcells: rest only");
	mitosis_subcell_ids(&cfg.cells[1], id, &nr);
	cr_expect_eq(nr, 1);
	cell_config_free(&cfg);
}

Test(sched_model_mitosis, three_equal_cells_layout_with_subcells)
{
	/* the cells of 16 CPUs 0-5, 6-10, 11-15; cell 1's two subcells split 6-10 as 6-8 and 9-10 */
	struct topo tp;
	struct mitosis_cell_in in[3] = {{NULL, 0, 1, NULL}, {NULL, 0, 2, NULL}, {NULL, 0, 1, NULL}};
	struct mitosis_opts o = {.llc_aware = true};
	struct mitosis_layout l;
	char b[64];

	make_topo(&tp, 16, 1, one_llc, NULL);
	cr_assert_eq(mitosis_layout(&tp.t, &o, in, 3, &l), 0);
	cr_expect_str_eq(mitosis_cpulist(b, sizeof(b), l.cells[1].cpus.cpus, l.cells[1].cpus.n), "6-10");
	cr_expect_str_eq(mitosis_cpulist(b, sizeof(b), l.cells[1].subs[0].cpus, l.cells[1].subs[0].n), "6-8");
	cr_expect_str_eq(mitosis_cpulist(b, sizeof(b), l.cells[1].subs[1].cpus, l.cells[1].subs[1].n), "9-10");
	mitosis_layout_free(&l);
}

Test(sched_model_mitosis, configs_the_reader_refuses)
{
	struct cell_config cfg;
	struct cell *a, *s;
	char why[256], name[16];

	allot_config(&cfg);
	cr_expect_null(mitosis_config_refusal(&cfg, why, sizeof(why)));
	/* 8 subcells with the catch-all: accepted; a ninth: refused, as the reader says it */
	a = &cfg.cells[0];
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "u%d", i);
		cr_assert(s = cell_config_add_subcell(a, name));
		cr_assert_eq(cell_config_add_clause(s, name, false, 0), 0);
	}
	cr_expect_null(mitosis_config_refusal(&cfg, why, sizeof(why)));
	cr_assert(s = cell_config_add_subcell(a, "u9"));
	cr_assert_eq(cell_config_add_clause(s, "u9", false, 0), 0);
	cr_assert_not_null(mitosis_config_refusal(&cfg, why, sizeof(why)));
	cr_expect(strstr(why, "too many subcells: 9 > 8"), "%s", why);
	cell_config_free(&cfg);

	allot_config(&cfg);
	cr_assert(s = cell_config_add_subcell(&cfg.cells[0], "rest2"));
	cr_assert_eq(cell_config_add_clause(s, NULL, false, 0), 0);
	cr_assert_not_null(mitosis_config_refusal(&cfg, why, sizeof(why)));
	cr_expect(strstr(why, "multiple catch-all subcells"), "%s", why);
	cell_config_free(&cfg);

	allot_config(&cfg);
	cr_assert_eq(cell_config_add_clause(&cfg.cells[0].subcells[2], "gamma", true, 5), 0);
	cr_assert_not_null(mitosis_config_refusal(&cfg, why, sizeof(why)));
	cr_expect(strstr(why, "Hint"), "%s", why);
	cell_config_free(&cfg);
}
