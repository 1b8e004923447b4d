/*
 * sharing_lines.c - the line-level estimate of how much two units share
 * (see sharing.h, "Line evidence", and docs/clustering.md "Estimator").
 *
 * Sampling sees a random subset of accesses, so "how many of a's samples
 * fall on lines b was also sampled on" grows with b's sample density and
 * shrinks with the size of the shared data. Divided by b's own recapture
 * rate on the same data (the share of b's samples whose line b was
 * sampled on again within the window: Good-Turing's coverage of b's
 * sampling, a capture-recapture estimate), it estimates the share of a's
 * accesses that go to lines b uses, and the density cancels:
 *
 *   f_a = hits_a / (n_a x cover_b),  cover_b = repeats_b / n_b(J)
 *
 * where J is the data both touched at block level (2 MiB of one region),
 * so a unit's hot private data (its stack) does not inflate its coverage.
 * The counts are Poisson-like; bounds on each give a confidence interval,
 * and the pair is "shared" when the interval is above the floor,
 * "apart" when it is below (the block level bounds it too: sharing lines
 * needs sharing blocks), and "cannot tell" otherwise.
 */
#include "extract/sharing/sharing.h"

#include <math.h>
#include <string.h>

/* |epoch a - epoch b| modulo 2^8 within the window (line keys) */
static bool within(uint64_t ka, uint64_t kb, unsigned window)
{
	uint64_t d = (EV_LINE_EPOCH(ka) - EV_LINE_EPOCH(kb)) & EV_LINE_EPOCH_MASK;

	return d <= window || EV_LINE_EPOCH_MASK + 1 - d <= window;
}

/* The first line key of e (keys are sorted; line keys have bit 63 set). */
size_t sharing_first_line_key(const struct evidence *e)
{
	size_t lo = 0, hi = e->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (EV_IS_LINE(e->keys[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* end of the run of keys from i whose key >> shift is the same */
static size_t run_end(const struct evidence *e, size_t i, unsigned shift)
{
	uint64_t v = e->keys[i] >> shift;

	while (i < e->n && e->keys[i] >> shift == v)
		i++;
	return i;
}

static uint64_t samples_in(const struct evidence *e, size_t i0, size_t i1)
{
	uint64_t n = 0;

	for (size_t i = i0; i < i1; i++)
		n += e->samples[i];
	return n;
}

/* x's samples in [i0, i1) (one line) with another x sample on the line within the window */
static uint64_t repeats(const struct evidence *x, size_t i0, size_t i1, unsigned window)
{
	uint64_t r = 0;

	for (size_t i = i0; i < i1; i++) {
		bool again = x->samples[i] >= 2;

		for (size_t j = i0; j < i1 && !again; j++)
			again = j != i && within(x->keys[i], x->keys[j], window);
		if (again)
			r += x->samples[i];
	}
	return r;
}

/* x's samples in [i0, i1) with a y sample in [j0, j1) (the same line) within the window */
static uint64_t hits(const struct evidence *x, size_t i0, size_t i1, const struct evidence *y, size_t j0, size_t j1,
		     unsigned window, double *w)
{
	uint64_t h = 0;

	for (size_t i = i0; i < i1; i++)
		for (size_t j = j0; j < j1; j++)
			if (within(x->keys[i], y->keys[j], window)) {
				h += x->samples[i];
				*w += x->w[i];
				break;
			}
	return h;
}

/* x's samples in [i0, i1) that share their block with another x sample */
static uint64_t block_repeats(const struct evidence *x, size_t i0, size_t i1)
{
	uint64_t r = 0;

	for (size_t i = i0, e; i < i1; i = e) {
		uint64_t n;

		e = run_end(x, i, EV_BLOCK_SHIFT);
		if ((n = samples_in(x, i, e)) >= 2)
			r += n;
	}
	return r;
}

/* One common block: line-level counts. */
static void common_block(const struct evidence *a, size_t i, size_t i1, const struct evidence *b, size_t j, size_t j1,
			 unsigned window, struct line_estimate *o)
{
	o->ja += samples_in(a, i, i1);
	o->jb += samples_in(b, j, j1);
	while (i < i1 || j < j1) {
		uint64_t la = i < i1 ? EV_LINE_IDENT(a->keys[i]) : UINT64_MAX;
		uint64_t lb = j < j1 ? EV_LINE_IDENT(b->keys[j]) : UINT64_MAX;
		size_t ie = i, je = j;

		if (la <= lb)
			ie = run_end(a, i, EV_LINE_SHIFT);
		if (lb <= la)
			je = run_end(b, j, EV_LINE_SHIFT);
		o->ra += repeats(a, i, ie, window);
		o->rb += repeats(b, j, je, window);
		if (la == lb) {
			uint64_t ha = hits(a, i, ie, b, j, je, window, &o->wa), hb = hits(b, j, je, a, i, ie, window, &o->wb);

			o->ha += ha;
			o->hb += hb;
			o->lines += ha > 0;
		}
		i = ie;
		j = je;
	}
}

typedef void common_fn(const struct evidence *a, size_t i, size_t i1, const struct evidence *b, size_t j, size_t j1,
		       unsigned window, struct line_estimate *o);

/* The runs of keys with the same key >> shift that a[i..i1) and b[j..j1)
 * (both sorted) both have, each handed to each() in key order. Inlined, so
 * each() is a direct call as in the two loops this replaces. */
static inline __attribute__((always_inline)) void common_runs(const struct evidence *a, size_t i, size_t i1,
							       const struct evidence *b, size_t j, size_t j1,
							       unsigned shift, common_fn *each, unsigned window,
							       struct line_estimate *o)
{
	while (i < i1 && j < j1) {
		uint64_t ka = a->keys[i] >> shift, kb = b->keys[j] >> shift;
		size_t ie, je;

		if (ka < kb) {
			i = run_end(a, i, shift);
			continue;
		}
		if (kb < ka) {
			j = run_end(b, j, shift);
			continue;
		}
		ie = run_end(a, i, shift);
		je = run_end(b, j, shift);
		each(a, i, ie, b, j, je, window, o);
		i = ie;
		j = je;
	}
}

/* One common region: block-level counts, and line-level ones in common blocks. */
static void common_region(const struct evidence *a, size_t i, size_t i1, const struct evidence *b, size_t j, size_t j1,
			  unsigned window, struct line_estimate *o)
{
	o->na_r += samples_in(a, i, i1);
	o->nb_r += samples_in(b, j, j1);
	o->ra_blk += block_repeats(a, i, i1);
	o->rb_blk += block_repeats(b, j, j1);
	common_runs(a, i, i1, b, j, j1, EV_BLOCK_SHIFT, common_block, window, o);
}

/*
 * One-sided Poisson bounds for a count x at z standard deviations
 * (Wilson-Hilferty; within a few percent of the exact chi-square bounds).
 */
double sharing_poisson_low(double x, double z)
{
	double t;

	if (x <= 0)
		return 0;
	t = 1 - 1 / (9 * x) - z / (3 * sqrt(x));
	return t > 0 ? x * t * t * t : 0;
}

double sharing_poisson_high(double x, double z)
{
	double t = 1 - 1 / (9 * (x + 1)) + z / (3 * sqrt(x + 1));

	return (x + 1) * t * t * t;
}

static double cap1(double x)
{
	return x > 1 ? 1 : x;
}

/* f = hits x n_other(J) / (n x repeats_other), capped at 1; +inf (capped) when repeats is 0 */
static double frac(double hits, double n_other, double n, double reps)
{
	if (hits <= 0)
		return 0;
	if (reps <= 0 || n <= 0)
		return 1;
	return cap1(hits * n_other / (n * reps));
}

/* frac's bounds at z: the fewest hits and most repeats the counts allow (low), or the other way round (high) */
static double frac_low(uint64_t hits, uint64_t n_other, uint64_t n, uint64_t reps, double z)
{
	return frac(sharing_poisson_low((double)hits, z), (double)n_other, (double)n, sharing_poisson_high((double)reps, z));
}

static double frac_high(uint64_t hits, uint64_t n_other, uint64_t n, uint64_t reps, double z)
{
	return frac(sharing_poisson_high((double)hits, z), (double)n_other, (double)n, sharing_poisson_low((double)reps, z));
}

/* The bounds and verdict of o's counts at floor and z. */
static void decide(struct line_estimate *o, double floor, double z)
{
	double fa = frac((double)o->ha, (double)o->jb, (double)o->n_a, (double)o->rb);
	double fb = frac((double)o->hb, (double)o->ja, (double)o->n_b, (double)o->ra);
	double lo_a = frac_low(o->ha, o->jb, o->n_a, o->rb, z), lo_b = frac_low(o->hb, o->ja, o->n_b, o->ra, z);
	double hi_a = frac_high(o->ha, o->jb, o->n_a, o->rb, z), hi_b = frac_high(o->hb, o->ja, o->n_b, o->ra, z);
	/* sharing lines needs sharing blocks: the block-level share bounds it from above */
	double bhi_a = frac_high(o->ja, o->nb_r, o->n_a, o->rb_blk, z);
	double bhi_b = frac_high(o->jb, o->na_r, o->n_b, o->ra_blk, z);

	if (!o->n_a || !o->n_b || (!o->na_r && !o->nb_r)) {
		o->verdict = SHARING_APART; /* no data in common: nothing to estimate */
		return;
	}
	o->f_a = fa;
	o->f_b = fb;
	/* f stays 0 until both sides have a coverage to divide by */
	o->f = o->rb && o->ra ? sqrt(fa * fb) : 0;
	o->low = sqrt(lo_a * lo_b);
	o->high = sqrt((hi_a < bhi_a ? hi_a : bhi_a) * (hi_b < bhi_b ? hi_b : bhi_b));
	/*
	 * Samples that are no random subset of the accesses: the recaptures
	 * contradict the block bound, or first touches (page faults: one
	 * sample per page a process maps, so a line is hardly sampled twice)
	 * where a side has no recapture, hence no coverage. What the samples
	 * show is then the share of each side's samples on lines the other
	 * touched (its footprint overlap), which says nothing about how often
	 * either uses those lines: reported, never a verdict.
	 */
	o->unsampled = o->low > o->high || (o->first_touch && (!o->ra || !o->rb));
	if (o->unsampled) { /* no estimate of the access share: f and low 0, the block bound as high */
		o->f_touch = sqrt(cap1((double)o->ha / (double)o->n_a) * cap1((double)o->hb / (double)o->n_b));
		o->low = o->f = 0;
	}
	if (o->f > o->high) /* the caps at 1 and the block bound can cross the point estimate */
		o->f = o->high;
	if (o->f < o->low)
		o->f = o->low;
	if (o->unsampled)
		o->verdict = SHARING_CANNOT_TELL;
	else if (o->low > floor)
		o->verdict = SHARING_SHARED;
	else if (o->high <= floor)
		o->verdict = SHARING_APART;
	else
		o->verdict = SHARING_CANNOT_TELL;
}

/*
 * How many times the coincidence counts would have to grow for a verdict:
 * the counts scaled by c (zero counts taken as 1/2) until the bounds clear
 * the floor, on a geometric grid up to 10^6 (0: not within it).
 */
static double more_needed(const struct line_estimate *o, double floor, double z)
{
	for (double c = 1.25; c <= 1e6; c *= 1.25) {
		struct line_estimate s = *o;
		s.ha = (uint64_t)ceil((double)o->ha * c);
		s.hb = (uint64_t)ceil((double)o->hb * c);
		s.ra = (uint64_t)ceil((o->ra ? (double)o->ra : 0.5) * c);
		s.rb = (uint64_t)ceil((o->rb ? (double)o->rb : 0.5) * c);
		s.ja = (uint64_t)ceil((double)o->ja * c);
		s.jb = (uint64_t)ceil((double)o->jb * c);
		s.ra_blk = (uint64_t)ceil((double)o->ra_blk * c);
		s.rb_blk = (uint64_t)ceil((double)o->rb_blk * c);
		s.n_a = (uint64_t)ceil((double)o->n_a * c);
		s.n_b = (uint64_t)ceil((double)o->n_b * c);
		s.na_r = (uint64_t)ceil((double)o->na_r * c);
		s.nb_r = (uint64_t)ceil((double)o->nb_r * c);
		decide(&s, floor, z);
		if (s.verdict != SHARING_CANNOT_TELL)
			return c;
	}
	return 0;
}

void sharing_line_side(const struct line_estimate *o, bool side_b, double z, double *f, double *lo, double *hi)
{
	double h = (double)(side_b ? o->hb : o->ha), n = (double)(side_b ? o->n_b : o->n_a);
	double j = (double)(side_b ? o->ja : o->jb), r = (double)(side_b ? o->ra : o->rb);
	double jr = (double)(side_b ? o->jb : o->ja), nr = (double)(side_b ? o->na_r : o->nb_r);
	double rblk = (double)(side_b ? o->ra_blk : o->rb_blk);
	double bhi = frac(sharing_poisson_high(jr, z), nr, n, sharing_poisson_low(rblk, z));

	*hi = frac(sharing_poisson_high(h, z), j, n, sharing_poisson_low(r, z));
	if (*hi > bhi)
		*hi = bhi;
	if (!o->n_a || !o->n_b || (!o->na_r && !o->nb_r)) {
		*f = *lo = *hi = 0;
		return;
	}
	if (o->unsampled) {
		*f = *lo = 0;
		return;
	}
	*f = r > 0 ? frac(h, j, n, r) : 0;
	*lo = frac(sharing_poisson_low(h, z), j, n, sharing_poisson_high(r, z));
	if (*lo > *hi)
		*lo = *hi;
	if (*f > *hi)
		*f = *hi;
	if (*f < *lo)
		*f = *lo;
}

void sharing_line_estimate(const struct evidence *a, const struct evidence *b, unsigned window, double floor,
			   double z, bool first_touch, struct line_estimate *o)
{
	size_t i = sharing_first_line_key(a), j = sharing_first_line_key(b);

	memset(o, 0, sizeof(*o));
	o->first_touch = first_touch;
	o->n_a = samples_in(a, i, a->n);
	o->n_b = samples_in(b, j, b->n);
	common_runs(a, i, a->n, b, j, b->n, EV_REGION_SHIFT, common_region, window, o);
	sharing_line_decide(o, floor, z);
}

void sharing_line_decide(struct line_estimate *o, double floor, double z)
{
	decide(o, floor, z);
	if (o->verdict == SHARING_CANNOT_TELL && !o->unsampled)
		o->more = more_needed(o, floor, z);
}

const char *sharing_verdict_name(enum sharing_verdict v)
{
	return v == SHARING_SHARED ? "shared" : v == SHARING_APART ? "apart" : "cannot tell";
}
