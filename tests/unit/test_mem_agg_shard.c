/*
 * test_mem_agg_shard.c - mem_agg's evidence shards (extract/mem/mem_agg_shard.c)
 * give what one thread gives, for any number of shards: the same sampling
 * level, keys and values in every hint_rec, the same objects, on a stream
 * that exceeds the key budget while names, hints and allotment groups are
 * folded (the folds drop and merge evidence, so the level depends on the
 * counts just before them).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/mem/mem_agg.h"
#include "lib/error.h"

#define NR_SAMPLES 50000

static uint64_t rnd(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

/*
 * Sample i of a fixed stream: 12 allotment cgroups (k = 3 groups folds
 * them), names of letters (digits would be normalized away), 4 in the first
 * half (k = 3: up to 6 live names), physical pages and
 * data_ids, two object names per page. The first half has 100 hints (more
 * than 2 x 32: hints fold into "other") and pages from a large pool; the
 * second half one hint, 8 other names (the first half's are folded with
 * their keys) and a few pages: the budget is exceeded in the first half
 * and not at the end, so the level is what the counts before the folds
 * decided.
 */
static void sample_at(uint64_t *x, size_t i, struct mem_sample *s, char *comm, char *cgroup, char *id, char *sym)
{
	bool late = i >= NR_SAMPLES / 2;
	unsigned c = late ? 8 + (unsigned)rnd(x) % 8 : (unsigned)rnd(x) % 4, g = (unsigned)rnd(x) % 12;
	uint64_t page = rnd(x) % (late ? 4 : i % 3 == 0 ? 64 : 4000);

	memset(s, 0, sizeof(*s));
	snprintf(comm, 16, "n%c", 'a' + c);
	snprintf(cgroup, 64, "/workload.slice/workload-tw-%c.allotment.slice", 'a' + g);
	s->comm = comm;
	s->comm_len = strlen(comm);
	s->cgroup = cgroup;
	s->cgroup_len = strlen(cgroup);
	s->tid = s->pid = 100 + c;
	s->hint = late ? 7 : rnd(x) % 100;
	s->time_ns = 1000000000ULL + i * 20000ULL;
	s->data_page_size = 4096;
	if (rnd(x) % 4) {
		s->phys_addr = (page + 1) << 12 | (rnd(x) % 64) << 6;
	} else {
		snprintf(id, 64, "%c:%u:%llx", rnd(x) % 8 ? 'A' : 'K', (unsigned)(rnd(x) % 3),
			 (unsigned long long)page);
		s->data_id = id;
		s->data_id_len = strlen(id);
		s->addr = page << 12 | (rnd(x) % 64) << 6;
	}
	snprintf(sym, 32, "sym%llu", (unsigned long long)(page % 7 + rnd(x) % 2));
	s->data_map = "/tmp/map";
	s->data_map_len = 8;
	s->data_sym = sym;
	s->data_sym_len = strlen(sym);
}

/* hints folded in the comms live at mid-stream (the second half folds those names) */
static uint64_t hints_folded_at_half(const struct mem_agg *a)
{
	uint64_t n = 0;

	for (size_t g = 0; g < a->nr_groups; g++)
		for (size_t c = 0; c < a->groups[g].nr_comms; c++)
			n += a->groups[g].comms[c].hints_folded;
	return n;
}

static uint64_t half_hints_folded;

static void aggregate(struct mem_agg *a, size_t shards, bool lines)
{
	struct mem_agg_opts o = {
		.workload = "workload.slice", .allotment_re = "workload-tw-[^/]+\\.allotment\\.slice",
		.evidence = true, .line_granularity = lines, .max_keys = 3000, .objects = true,
		.max_names = 3, .max_groups = 3,
	};
	char comm[16], cgroup[64], id[64], sym[32];
	uint64_t x = 42;
	struct mem_sample s;

	cr_assert_eq(mem_agg_init(a, &o), 0);
	cr_assert_eq(mem_agg_shards_start(a, shards), 0, "%s", scx_errmsg());
	for (size_t i = 0; i < NR_SAMPLES; i++) {
		sample_at(&x, i, &s, comm, cgroup, id, sym);
		cr_assert_eq(mem_agg_add(a, &s), 0, "%s", scx_errmsg());
		if (i == NR_SAMPLES / 2 - 1)
			half_hints_folded = hints_folded_at_half(a);
	}
	cr_assert_eq(mem_agg_shards_finish(a), 0, "%s", scx_errmsg());
	cr_assert_null(a->shards);
}

static void same_map(const struct u64map *x, const struct u64map *y, const char *what)
{
	size_t pos = 0;
	uint64_t k, v, *w;

	cr_assert_eq(x->len, y->len, "%s: %zu keys vs %zu", what, x->len, y->len);
	while (u64map_next_u64(x, &pos, &k, &v)) {
		w = u64map_find(y, k);
		cr_assert(w && *w == v, "%s: key %llx", what, (unsigned long long)k);
	}
}

static void same_agg(const struct mem_agg *a, const struct mem_agg *b, size_t shards)
{
	size_t g, c, h, keys = 0, names_folded = 0;

	cr_assert_eq(a->level, b->level, "%zu shards: level %u vs %u", shards, a->level, b->level);
	cr_assert_eq(a->nr_keys, b->nr_keys, "%zu shards: %zu keys vs %zu", shards, a->nr_keys, b->nr_keys);
	cr_assert_eq(a->nr_groups, b->nr_groups);
	cr_assert_eq(a->group_fold.groups, b->group_fold.groups);
	for (g = 0; g < a->nr_groups; g++) {
		cr_assert_eq(a->groups[g].nr_comms, b->groups[g].nr_comms);
		names_folded += a->groups[g].mg.evicted;
		for (c = 0; c < a->groups[g].nr_comms; c++) {
			const struct comm_rec *ca = &a->groups[g].comms[c], *cb = &b->groups[g].comms[c];

			cr_assert_eq(ca->nr_hints, cb->nr_hints);
			for (h = 0; h < ca->nr_hints; h++) {
				same_map(&ca->hints[h].pages, &cb->hints[h].pages, ca->comm);
				keys += ca->hints[h].pages.len;
			}
		}
	}
	cr_assert_eq(keys, a->nr_keys);
	cr_assert_eq(a->nr_objects, b->nr_objects);
	for (size_t i = 0; i < a->nr_objects; i++)
		cr_assert_str_eq(a->object_names[i], b->object_names[i]);
	same_map(&a->ident_object, &b->ident_object, "objects");
	/* the stream does what it is for */
	cr_assert_gt(a->level, 0, "the key budget was exceeded");
	cr_assert_gt(a->group_fold.groups, 0, "groups were folded");
	cr_assert_gt(names_folded + a->group_fold.names, 0, "names were folded");
	cr_assert_gt(half_hints_folded, 0, "hints were folded");
}

static void check(bool lines)
{
	struct mem_agg one, many;
	size_t n[] = {1, 2, 5};

	aggregate(&one, 0, lines);
	for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		aggregate(&many, n[i], lines);
		same_agg(&one, &many, n[i]);
		mem_agg_free(&many);
	}
	mem_agg_free(&one);
}

Test(mem_agg_shard, any_number_of_shards_holds_what_one_thread_holds)
{
	check(false);
}

Test(mem_agg_shard, the_same_with_line_keys)
{
	check(true);
}

Test(mem_agg_shard, freeing_without_finishing_stops_the_threads)
{
	struct mem_agg_opts o = {.workload = "w", .allotment_re = "x", .evidence = true, .max_keys = 10};
	struct mem_agg a;
	struct mem_sample s = {.comm = "c", .comm_len = 1, .cgroup = "/w", .cgroup_len = 2, .phys_addr = 0x5000};

	cr_assert_eq(mem_agg_init(&a, &o), 0);
	cr_assert_eq(mem_agg_shards_start(&a, 3), 0);
	for (int i = 0; i < 100; i++, s.phys_addr += 4096)
		cr_assert_eq(mem_agg_add(&a, &s), 0);
	mem_agg_free(&a); /* an error path: no finish */
	cr_assert_null(a.shards);
}
