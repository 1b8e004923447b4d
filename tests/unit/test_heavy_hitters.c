/*
 * test_heavy_hitters.c - the Misra-Gries name table (extract/mem/heavy_hitters)
 * and extract mem's bounded aggregation on top of it: every name with more
 * than N/(k+1) of the weight survives, a kept name's count is short by at
 * most the decrements before its admission, evictions are counted, and the
 * folded records keep a name's (and a comm's) total exact.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/mem/heavy_hitters.h"
#include "extract/mem/mem_agg.h"
#include "extract/sharing/sharing.h"

/* A caller of mg_counters: key and since-admission count per entry. */
struct driver {
	struct mg_counters mg;
	uint64_t key[4096], seen[4096];
	size_t *remap;
	uint64_t admissions;
};

static void drive(struct driver *d, uint64_t key, uint64_t w)
{
	size_t i;
	long j;

	for (i = 0; i < d->mg.n && d->key[i] != key; i++)
		;
	if (i == d->mg.n) {
		if (mg_full(&d->mg)) {
			size_t old = d->mg.n, evicted = mg_round(&d->mg, d->remap);

			cr_assert_geq(evicted, d->mg.k, "a round frees at least k slots");
			for (i = 0; i < old; i++)
				if (d->remap[i] != SIZE_MAX) {
					cr_assert_leq(d->remap[i], i);
					d->key[d->remap[i]] = d->key[i];
					d->seen[d->remap[i]] = d->seen[i];
				}
		}
		j = mg_admit(&d->mg);
		cr_assert_geq(j, 0);
		i = (size_t)j;
		d->key[i] = key;
		d->seen[i] = 0;
		d->admissions++;
	}
	mg_count(&d->mg, i, w);
	d->seen[i] += w;
}

/* Check the guarantee against the true weights truth[0..nkeys). */
static void check_guarantee(struct driver *d, const uint64_t *truth, size_t nkeys, uint64_t total)
{
	size_t i, j;

	cr_assert_leq(d->mg.decrements * (d->mg.k + 1), total, "D <= N/(k+1)");
	cr_assert_eq(d->mg.evicted, d->admissions - d->mg.n, "every eviction counted");
	for (i = 0; i < nkeys; i++) {
		for (j = 0; j < d->mg.n && d->key[j] != i; j++)
			;
		if (truth[i] > d->mg.decrements)
			cr_assert_lt(j, d->mg.n, "key %zu with %llu > D = %llu was lost", i, (unsigned long long)truth[i],
				     (unsigned long long)d->mg.decrements);
		if (j < d->mg.n) {
			cr_assert_leq(d->seen[j], truth[i]);
			cr_assert_geq(d->seen[j] + d->mg.since[j], truth[i], "short by more than the decrements before admission");
			if (d->mg.since[j] == 0)
				cr_assert_eq(d->seen[j], truth[i], "admitted before any round: exact");
		}
	}
}

Test(heavy_hitters, keeps_every_key_above_n_over_k_plus_1)
{
	static uint64_t truth[200000];
	struct driver d = {0};
	uint64_t total = 0, next_rare = 10;
	unsigned seed = 7;
	size_t n, i;

	mg_init(&d.mg, 16);
	d.remap = malloc(2 * 16 * sizeof(size_t));
	for (n = 0; n < 150000; n++) {
		unsigned r = (unsigned)rand_r(&seed) % 100;
		uint64_t key, w = 1 + (unsigned)rand_r(&seed) % 3;

		if (r < 10)
			key = 0; /* 10%: far above 1/17 */
		else if (r < 17)
			key = 1 + r % 2; /* two at 3.5%: below 1/17, still likely kept */
		else if (r < 24)
			key = 3 + (unsigned)rand_r(&seed) % 7; /* seven at 1% */
		else
			key = next_rare++; /* a fresh key each time */
		if (key >= sizeof(truth) / sizeof(truth[0]))
			key = 10 + key % 1000;
		truth[key] += w;
		total += w;
		drive(&d, key, w);
	}
	cr_assert_gt(d.mg.rounds, 100, "the stream must exercise rounds");
	for (i = 0; i < 3; i++)
		cr_assert_gt(truth[i] * 17, total / 2, "test keys are heavy");
	check_guarantee(&d, truth, next_rare < 200000 ? next_rare : 200000, total);
	free(d.remap);
	mg_free(&d.mg);
}

Test(heavy_hitters, late_heavy_key_after_early_eviction)
{
	static uint64_t truth[100000];
	struct driver d = {0};
	uint64_t total = 0, key = 1;
	size_t i;

	mg_init(&d.mg, 8);
	d.remap = malloc(2 * 8 * sizeof(size_t));
	/* key 0 once, then a flood of distinct keys evicts it, then key 0 heavy */
	drive(&d, 0, 1);
	truth[0] = 1;
	total = 1;
	for (i = 0; i < 5000; i++, total++)
		drive(&d, key, 1), truth[key++] = 1;
	for (i = 0; i < 20000; i++) {
		uint64_t k = i % 3 ? 0 : key++;

		drive(&d, k, 1);
		truth[k]++;
		total++;
	}
	check_guarantee(&d, truth, key, total);
	for (i = 0; i < d.mg.n && d.key[i] != 0; i++)
		;
	cr_assert_lt(i, d.mg.n, "the heavy key is kept");
	cr_assert_gt(d.mg.since[i], 0, "it was admitted again after a round");
	cr_assert_lt(d.seen[i], truth[0], "its early sample is lost (and bounded by since)");
	free(d.remap);
	mg_free(&d.mg);
}

static int cmp_desc(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a < b) - (a > b);
}

Test(heavy_hitters, select_matches_sort_with_ties)
{
	uint64_t v[257], s[257];
	unsigned seed = 3;
	size_t n, r, i;

	for (n = 1; n < 257; n += 17)
		for (r = 0; r < n; r += 1 + n / 5) {
			for (i = 0; i < n; i++)
				v[i] = s[i] = (unsigned)rand_r(&seed) % (n / 3 + 1);
			qsort(s, n, sizeof(*s), cmp_desc);
			cr_assert_eq(mg_select_desc(v, n, r), s[r], "n %zu r %zu", n, r);
		}
}

/* --- extract mem's aggregation under the bound --- */

static void add(struct mem_agg *a, const char *comm, uint64_t hint, uint64_t page)
{
	struct mem_sample s = {0};

	s.comm = comm;
	s.comm_len = strlen(comm);
	s.cgroup = "/workload.slice/workload-tw-a.allotment.slice";
	s.cgroup_len = strlen(s.cgroup);
	s.hint = hint;
	s.phys_addr = page << 12;
	s.data_page_size = 4096;
	cr_assert_eq(mem_agg_add(a, &s), 0);
}

static uint64_t name_count(const struct mem_agg *a, const char *name, size_t *nr_concretes)
{
	struct comm_summary s;
	size_t g = 0, i;
	uint64_t n = 0;

	cr_assert_eq(sharing_summary_build(a, &g, 1, &s), 0);
	for (i = 0; i < s.nr; i++)
		if (!strcmp(s.comms[i].name, name)) {
			n = s.comms[i].count;
			if (nr_concretes)
				*nr_concretes = s.comms[i].nr_concretes;
		}
	sharing_summary_free(&s);
	return n;
}

Test(mem_agg_bound, distinct_comms_fold_heavy_ones_exact)
{
	struct mem_agg_opts o = {.workload = "workload.slice", .allotment_re = "workload-tw-[^/]+\\.allotment\\.slice",
				 .evidence = true, .max_names = 20};
	struct mem_agg a;
	uint64_t kept = 0, web = 0, db = 0;
	char comm[32];
	size_t i, c, nc = 0;

	cr_assert_eq(mem_agg_init(&a, &o), 0);
	for (i = 0; i < 20000; i++) {
		if (i % 10 == 0) {
			snprintf(comm, sizeof(comm), "web%zu", i % 70); /* 7 concretes: 4 kept, 3 folded together */
			add(&a, comm, i % 20 == 0, 1 + i % 8);
			web++;
		} else if (i % 10 == 1) {
			add(&a, "db", 0, 100);
			db++;
		} else {
			snprintf(comm, sizeof(comm), "x%zuq", i); /* its own name */
			add(&a, comm, 0, 1000 + i);
		}
	}
	cr_assert_eq(a.nr_groups, 1);
	cr_assert_gt(a.groups[0].mg.evicted, 15000, "distinct names were folded");
	cr_assert_leq(a.groups[0].mg.n, 40, "at most 2k names live");
	cr_assert_leq(a.groups[0].nr_comms, 40 * (MEM_AGG_CONCRETES_MAX + 1));
	cr_assert_eq(name_count(&a, "web", &nc), web, "web: exact");
	cr_assert_eq(nc, MEM_AGG_CONCRETES_MAX + 1, "4 concretes + the folded record");
	cr_assert_eq(name_count(&a, "db", NULL), db, "db: exact");
	for (c = 0; c < a.groups[0].nr_comms; c++)
		kept += a.groups[0].comms[c].count;
	cr_assert_eq(kept + a.groups[0].folded_samples, a.groups[0].count, "every sample kept or folded");
	mem_agg_free(&a);
}

Test(mem_agg_bound, distinct_hints_fold_into_other)
{
	struct mem_agg_opts o = {.workload = "workload.slice", .allotment_re = "workload-tw-[^/]+\\.allotment\\.slice",
				 .evidence = true};
	struct mem_agg a;
	const struct comm_rec *c;
	uint64_t sum = 0, h7 = 0;
	size_t i, h, others = 0;

	cr_assert_eq(mem_agg_init(&a, &o), 0);
	for (i = 0; i < 10000; i++) {
		if (i % 4 == 0) {
			add(&a, "svc", 7, 5);
			h7++;
		} else {
			add(&a, "svc", 1000 + i, 10 + i % 3);
		}
	}
	c = &a.groups[0].comms[0];
	cr_assert_eq(a.groups[0].nr_comms, 1);
	cr_assert_eq(c->count, 10000);
	cr_assert_gt(c->hints_folded, 7000);
	cr_assert_leq(c->nr_hints, 2 * MEM_AGG_HINTS_K + 1);
	for (h = 0; h < c->nr_hints; h++) {
		sum += c->hints[h].count;
		others += c->hints[h].other;
		if (!c->hints[h].other && c->hints[h].hint == 7)
			cr_assert_eq(c->hints[h].count, h7, "the heavy hint is exact");
	}
	cr_assert_eq(others, 1);
	cr_assert_eq(sum, c->count, "hint counts add up to the comm's");
	mem_agg_free(&a);
}
