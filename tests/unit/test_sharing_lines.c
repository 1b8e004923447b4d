/*
 * test_sharing_lines.c - unit tests of the line evidence (extract/
 * sharing_lines.c): line keys from data_id and the page offset, and the
 * shared-fraction estimate, whose value must not depend on the sample
 * density or the size of the shared data, with its verdicts (shared,
 * apart, cannot tell).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/mem/mem_agg.h"
#include "extract/sharing/sharing.h"
#include "lib/u64map.h"

static bool key_of(const char *id, uint64_t phys, uint64_t addr, uint64_t t_ns, uint64_t *key)
{
	struct mem_sample s = {.data_id = id, .data_id_len = strlen(id), .phys_addr = phys, .addr = addr,
			       .time_ns = t_ns, .data_page_size = 4096};
	unsigned scale;

	return mem_agg_sample_key(&s, false, key, &scale);
}

Test(sharing_lines, line_keys_from_data_id_and_page_offset)
{
	uint64_t k1, k2, k3, k4, k5;

	cr_assert(key_of("A:10:7f00", 0x5000, 0, 0, &k1));
	cr_assert(EV_IS_LINE(k1));
	cr_assert(key_of("A:10:7f00", 0x5040, 0, 0, &k2)); /* the next line of the page */
	cr_assert_neq(EV_LINE_IDENT(k1), EV_LINE_IDENT(k2));
	cr_assert_eq(EV_OBJECT(k1), EV_OBJECT(k2), "one page, one object");
	cr_assert_eq(k1 >> EV_BLOCK_SHIFT, k2 >> EV_BLOCK_SHIFT);
	cr_assert(key_of("A:10:7f00", 0, 0x7f00040, 0, &k3)); /* no physical address: the line from addr */
	cr_assert_eq((k3 >> EV_LINE_SHIFT) & 63, 1);
	cr_assert(key_of("A:10:7f01", 0x6000, 0, 0, &k4)); /* the next page: same region and block */
	cr_assert_eq(k1 >> EV_BLOCK_SHIFT, k4 >> EV_BLOCK_SHIFT);
	cr_assert_neq(EV_OBJECT(k1), EV_OBJECT(k4));
	cr_assert(key_of("A:11:7f00", 0x5000, 0, 0, &k5)); /* another process: another region */
	cr_assert_neq(k1 >> EV_REGION_SHIFT, k5 >> EV_REGION_SHIFT);
	cr_assert(key_of("F:0:1a:abc:0:3", 0x9000, 0, 0, &k1));
	cr_assert(key_of("F:0:1a:abc:0:3", 0x9000, 0x7e0003000, 0, &k2)); /* another mapping address, same file page */
	cr_assert_eq(EV_LINE_IDENT(k1), EV_LINE_IDENT(k2));
	cr_assert(key_of("K:5", 0x5000, 0, 0, &k3));
	cr_assert(!EV_IS_LINE(k3), "kernel pages stay page keys");
	cr_assert(key_of("A:10:7f00", 0x5000, 0, 3500000000ULL, &k4));
	cr_assert_eq(EV_LINE_EPOCH(k4), 3);
}

/* a tiny deterministic generator */
static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* a unit's evidence from a map key -> samples */
static struct evidence from_map(struct u64map *m)
{
	struct evidence e = {0};
	size_t pos = 0, i = 0;
	uint64_t k, v;

	e.keys = malloc((m->len + 1) * sizeof(uint64_t));
	e.w = malloc((m->len + 1) * sizeof(double));
	e.samples = malloc((m->len + 1) * sizeof(uint64_t));
	while (u64map_next_u64(m, &pos, &k, &v))
		e.keys[i++] = k;
	qsort(e.keys, i, sizeof(uint64_t), cmp_u64);
	for (e.n = 0; e.n < i; e.n++) {
		e.samples[e.n] = *u64map_find(m, e.keys[e.n]);
		e.w[e.n] = (double)e.samples[e.n];
		e.total += e.w[e.n];
	}
	u64map_free(m);
	return e;
}

/*
 * Thread `who` of process 100, n samples over 5 s: 1/4 on its own stack (8
 * hot lines), 3/4 on data of `lines` lines starting at line `first`, every
 * `stride`-th line (stride 2, offset who: interleaved objects).
 */
static struct evidence unit(int who, uint64_t n, uint64_t first, uint64_t lines, uint64_t stride)
{
	struct u64map m;
	char id[64];

	u64map_init_cap(&m, U64MAP_SMALL);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t t = rnd() % 5000000000ULL, line, key, *slot;

		if (rnd() % 4 == 0)
			line = (0x7ffd0000000ULL + (uint64_t)who * 0x1000000ULL) + rnd() % 8;
		else
			line = first + (rnd() % (lines / stride)) * stride + (stride > 1 ? (uint64_t)who : 0);
		snprintf(id, sizeof(id), "A:100:%llx", (unsigned long long)(line >> 6));
		cr_assert(key_of(id, (line >> 6) << 12 | (line & 63) << 6, 0, t, &key));
		slot = u64map_slot(&m, key);
		++*slot;
	}
	return from_map(&m);
}

static void estimate(uint64_t n, uint64_t lines, uint64_t stride, struct line_estimate *o)
{
	struct evidence a = unit(0, n, 0x5555000000ULL >> 6, lines, stride), b = unit(1, n, 0x5555000000ULL >> 6, lines, stride);

	sharing_line_estimate(&a, &b, SHARE_WINDOW_EPOCHS, SHARE_THRESHOLD_DEFAULT, SHARE_Z_DEFAULT, false, o);
	sharing_evidence_free(&a);
	sharing_evidence_free(&b);
}

Test(sharing_lines, shared_fraction_does_not_depend_on_density_or_size)
{
	/* both threads spend 3/4 of their samples on one region: f = 0.75 */
	static const uint64_t sizes[] = {1 << 16, 1 << 19, 1 << 22}; /* 4, 32, 256 MiB in lines */
	struct line_estimate o;

	for (size_t s = 0; s < 3; s++) {
		estimate(200000, sizes[s], 1, &o);
		cr_assert_eq(o.verdict, SHARING_SHARED, "%llu lines: %s", (unsigned long long)sizes[s],
			     sharing_verdict_name(o.verdict));
		cr_assert(fabs(o.f - 0.75) < 0.1, "%llu lines, 200k samples: f %.3f", (unsigned long long)sizes[s], o.f);
	}
	estimate(20000, 1 << 16, 1, &o); /* ten times sparser: the same estimate */
	cr_assert_eq(o.verdict, SHARING_SHARED);
	cr_assert(fabs(o.f - 0.75) < 0.1, "20k samples: f %.3f", o.f);
}

Test(sharing_lines, too_few_samples_cannot_tell_and_say_how_many_more)
{
	struct line_estimate o;

	estimate(2000, 1 << 22, 1, &o); /* 2000 samples on 256 MiB: a coincidence or two */
	cr_assert_eq(o.verdict, SHARING_CANNOT_TELL, "%s (f %.3f [%.3f, %.3f])", sharing_verdict_name(o.verdict), o.f,
		     o.low, o.high);
	cr_assert(o.more > 1, "more: %f", o.more);
}

Test(sharing_lines, page_coresidence_is_not_sharing)
{
	struct line_estimate o;

	/* alpha on the even lines, beta on the odd lines of the same 8 MiB: every page both, no line */
	estimate(200000, 1 << 17, 2, &o);
	cr_assert_eq(o.verdict, SHARING_APART, "%s (f %.3f [%.3f, %.3f])", sharing_verdict_name(o.verdict), o.f, o.low,
		     o.high);
	cr_assert_eq(o.ha, 0);
	cr_assert(o.high < SHARE_THRESHOLD_DEFAULT);
}

Test(sharing_lines, poisson_bounds_bracket_the_count)
{
	for (double x = 0; x < 200; x += 7) {
		double lo = sharing_poisson_low(x, SHARE_Z_DEFAULT), hi = sharing_poisson_high(x, SHARE_Z_DEFAULT);

		cr_assert(lo <= x && x < hi, "%f: [%f, %f]", x, lo, hi);
	}
	/* exact one-sided 99% bounds: 0 -> 4.605, 10 -> [4.130, 20.14] */
	cr_assert(fabs(sharing_poisson_high(0, SHARE_Z_DEFAULT) - 4.605) < 0.3);
	cr_assert(fabs(sharing_poisson_low(10, SHARE_Z_DEFAULT) - 4.130) < 0.2);
	cr_assert(fabs(sharing_poisson_high(10, SHARE_Z_DEFAULT) - 20.14) < 0.4);
}

/* a's evidence of one sample at key, estimated against b: how many of a's samples hit b's lines */
static uint64_t hits_of(const struct evidence *b, uint64_t key)
{
	struct u64map m;
	struct evidence a;
	struct line_estimate o;

	u64map_init_cap(&m, U64MAP_SMALL);
	*u64map_slot(&m, key) = 1;
	a = from_map(&m);
	sharing_line_estimate(&a, b, SHARE_WINDOW_EPOCHS, SHARE_THRESHOLD_DEFAULT, SHARE_Z_DEFAULT, false, &o);
	cr_assert_eq(o.n_a, 1);
	cr_assert_eq(o.ha, o.hb, "one sample each: a hit is one on both sides");
	cr_assert_eq(o.lines, o.ha);
	sharing_evidence_free(&a);
	return o.ha;
}

Test(sharing_lines, a_key_is_shared_when_the_other_touched_its_line_in_the_window)
{
	struct u64map m;
	struct evidence b;
	uint64_t k, *slot, mine, far;

	u64map_init_cap(&m, U64MAP_SMALL);
	cr_assert(key_of("A:10:7f00", 0x5040, 0, 10000000000ULL, &k)); /* b at 10 s */
	slot = u64map_slot(&m, k);
	*slot = 1;
	b = from_map(&m);
	cr_assert(key_of("A:10:7f00", 0x5040, 0, 20000000000ULL, &mine)); /* a at 20 s, same line */
	cr_assert_eq(hits_of(&b, mine), 1);
	cr_assert(key_of("A:10:7f00", 0x5080, 0, 10000000000ULL, &far)); /* the next line */
	cr_assert_eq(hits_of(&b, far), 0);
	cr_assert(key_of("A:10:7f00", 0x5040, 0, 40000000000ULL, &far)); /* 30 s later */
	cr_assert_eq(hits_of(&b, far), 0);
	sharing_evidence_free(&b);
}

Test(sharing_lines, first_touch_samples_cannot_tell_the_share_of_accesses)
{
	/*
	 * The counts of two sqlite3 processes reading one mmapped database,
	 * recorded with the page-fault backend (docs/clustering.md, "First
	 * touches"): each faults once per page, on the same line as the other,
	 * so 65 and 64 hits with 2 and 0 recaptures. Before c8cd384 the
	 * coverage put the interval at "1.000 [1.000, 0.709]"; c8cd384 made it
	 * 0.39 (hits / samples) and "shared", which is the overlap of what the
	 * two map: the decode backend measured 2-3% of their accesses on the
	 * database (short rows) and said apart. With or without knowing the
	 * samples are faults, the crossed interval cannot tell: the overlap is
	 * reported as f_touch, never merged on, and more samples would not help.
	 */
	for (int ft = 0; ft < 2; ft++) {
		struct line_estimate o = {
			.n_a = 167, .n_b = 166, .na_r = 65, .nb_r = 64, .ja = 65, .jb = 64,
			.ha = 65, .hb = 64, .ra = 2, .rb = 0, .ra_blk = 65, .rb_blk = 63, .first_touch = ft,
		};

		sharing_line_decide(&o, SHARE_THRESHOLD_DEFAULT, SHARE_Z_DEFAULT);
		cr_assert(o.low <= o.f && o.f <= o.high, "f %.3f [%.3f, %.3f]", o.f, o.low, o.high);
		cr_assert(o.unsampled);
		cr_assert(fabs(o.f_touch - 0.39) < 0.02, "f_touch %.3f", o.f_touch);
		cr_assert_eq(o.verdict, SHARING_CANNOT_TELL, "%s", sharing_verdict_name(o.verdict));
		cr_assert_eq(o.more, 0);
	}
}

Test(sharing_lines, first_touches_without_recaptures_are_never_apart)
{
	/*
	 * Two units of one region, a few of their samples in common blocks,
	 * no line hit and no line recaptured: as a random sample of accesses
	 * (decode), the block bound says apart. As page faults (two threads of
	 * one process: the second never faults on a page the first mapped) the
	 * same counts say nothing about their accesses: cannot tell.
	 */
	struct line_estimate o = {
		.n_a = 10000, .n_b = 10000, .na_r = 10000, .nb_r = 10000, .ja = 100, .jb = 100,
		.ra_blk = 10000, .rb_blk = 10000,
	};
	struct line_estimate f = o;

	sharing_line_decide(&o, SHARE_THRESHOLD_DEFAULT, SHARE_Z_DEFAULT);
	cr_assert_eq(o.verdict, SHARING_APART, "%s, high %.3f", sharing_verdict_name(o.verdict), o.high);
	cr_assert(!o.unsampled);
	f.first_touch = true;
	sharing_line_decide(&f, SHARE_THRESHOLD_DEFAULT, SHARE_Z_DEFAULT);
	cr_assert_eq(f.verdict, SHARING_CANNOT_TELL, "%s", sharing_verdict_name(f.verdict));
	cr_assert(f.unsampled);
	cr_assert_eq(f.more, 0);
	cr_assert(f.f == 0 && f.low == 0 && f.high > 0, "f %.3f [%.3f, %.3f]", f.f, f.low, f.high);
}

Test(sharing_lines, first_touches_with_recaptures_are_decided)
{
	/*
	 * Page-fault samples of memory mapped again and again (the planted
	 * generator drops and re-touches its pages): lines are recaptured, the
	 * estimate applies and decides as on any sample of accesses.
	 */
	struct line_estimate s = {
		.n_a = 1000, .n_b = 1000, .na_r = 1000, .nb_r = 1000, .ja = 1000, .jb = 1000,
		.ha = 500, .hb = 500, .ra = 400, .rb = 400, .ra_blk = 1000, .rb_blk = 1000, .first_touch = true,
	};
	struct line_estimate a = {
		.n_a = 10000, .n_b = 10000, .na_r = 10000, .nb_r = 10000, .ja = 100, .jb = 100,
		.ra = 50, .rb = 50, .ra_blk = 10000, .rb_blk = 10000, .first_touch = true,
	};

	sharing_line_decide(&s, SHARE_THRESHOLD_DEFAULT, SHARE_Z_DEFAULT);
	cr_assert_eq(s.verdict, SHARING_SHARED, "%s", sharing_verdict_name(s.verdict));
	cr_assert(!s.unsampled);
	sharing_line_decide(&a, SHARE_THRESHOLD_DEFAULT, SHARE_Z_DEFAULT);
	cr_assert_eq(a.verdict, SHARING_APART, "%s, high %.3f", sharing_verdict_name(a.verdict), a.high);
}

Test(sharing_lines, fault_events_are_first_touches)
{
	char line[] = "{\"comm\":\"a\",\"tid\":1,\"pid\":1,\"cgroup\":\"/\",\"phys_addr\":\"1000\","
		      "\"data_page_size\":4096,\"event\":\"minor-faults\"}";
	char line2[] = "{\"comm\":\"a\",\"tid\":1,\"pid\":1,\"cgroup\":\"/\",\"phys_addr\":\"1000\","
		       "\"data_page_size\":4096,\"event\":\"cpu-clock\"}";
	struct mem_sample s;
	char err[128];

	cr_assert_eq(jsonl_scan_mem(line, strlen(line), &s, err, sizeof(err)), 0, "%s", err);
	cr_assert(s.fault);
	cr_assert_eq(jsonl_scan_mem(line2, strlen(line2), &s, err, sizeof(err)), 0, "%s", err);
	cr_assert(!s.fault);
	cr_assert(jsonl_event_is_fault("page-faults", 11) && jsonl_event_is_fault("major-faults:u", 14) &&
		  jsonl_event_is_fault("faults", 6));
	cr_assert(!jsonl_event_is_fault("cpu-clock", 9) && !jsonl_event_is_fault("cpu/mem-loads,ldlat=30/P", 24) &&
		  !jsonl_event_is_fault("minor-fault", 11));
}

Test(sharing_lines, a_short_recording_says_a_fraction_of_a_second_more)
{
	/*
	 * perf bench numa mem -l 1000 at -F 4000: two processes on one 4 MiB
	 * buffer for about half a second, 1 + 1 line hits. -v said "or 0 s
	 * more recording at this rate, would decide".
	 */
	struct pair_evidence pe = {
		.line = {.n_a = 220, .n_b = 210, .na_r = 220, .nb_r = 210, .ja = 220, .jb = 210, .ha = 1, .hb = 1,
			 .ra = 0, .rb = 0, .ra_blk = 220, .rb_blk = 210, .lines = 1},
	};
	struct sharing_params p = {.threshold = SHARE_THRESHOLD_DEFAULT};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	double s;

	sharing_line_decide(&pe.line, SHARE_THRESHOLD_DEFAULT, SHARE_Z_DEFAULT);
	cr_assert_eq(pe.line.verdict, SHARING_CANNOT_TELL, "%s", sharing_verdict_name(pe.line.verdict));
	sharing_log_line_detail(f, "", &pe, &p, 0.5);
	fclose(f);
	cr_assert(strstr(buf, " s more recording at this rate, would decide"), "%s", buf);
	cr_assert_eq(sscanf(strstr(buf, ", or ") + 5, "%lf", &s), 1, "%s", buf);
	cr_assert(s > 0 && s < 0.5 * (sqrt(pe.line.more) - 1) + 0.051, "%s", buf);
	free(buf);
}
