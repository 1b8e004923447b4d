/*
 * llc_est.c - the cross-LLC estimator's arithmetic (see llc_est.h):
 * timelines and P_ij, the pair weights with their bounds, the weighted
 * mean with its interval. No I/O, no knowledge of samples: unit-tested on
 * synthetic timelines with exact answers.
 */
#include "extract/llc/llc_est.h"

#include <stdlib.h>

#include "lib/error.h"
#include "lib/grow.h"

int llc_timeline_add(struct llc_timeline *t, uint64_t start, uint64_t end, double weight, int32_t llc, int32_t node)
{
	if (t->n == t->cap && !GROW(t->v, t->cap, 8))
		return scx_fail("out of memory");
	t->v[t->n++] = (struct llc_seg){start, end < start ? start : end, weight, llc, node};
	return 0;
}

void llc_timeline_free(struct llc_timeline *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

static int32_t place(const struct llc_seg *s, bool by_node)
{
	return by_node ? s->node : s->llc;
}

double llc_est_pcross(const struct llc_timeline *i, const struct llc_timeline *j, bool by_node, double *known)
{
	double cross = 0, kn = 0;
	size_t a, k = 0;

	*known = 0;
	if (!j->n)
		return 0;
	for (a = 0; a < i->n; a++) {
		const struct llc_seg *s = &i->v[a];
		uint64_t t = s->start;
		double dens;

		if (s->end == s->start) { /* all its weight at one instant */
			while (k + 1 < j->n && j->v[k + 1].start <= t)
				k++;
			if (j->v[0].start > t)
				continue;
			kn += s->weight;
			cross += place(&j->v[k], by_node) != place(s, by_node) ? s->weight : 0;
			continue;
		}
		dens = s->weight / (double)(s->end - s->start);
		if (t < j->v[0].start) /* before j's first run its place is unknown */
			t = j->v[0].start < s->end ? j->v[0].start : s->end;
		while (t < s->end) {
			uint64_t next;
			double w;

			while (k + 1 < j->n && j->v[k + 1].start <= t)
				k++;
			next = k + 1 < j->n && j->v[k + 1].start < s->end ? j->v[k + 1].start : s->end;
			w = dens * (double)(next - t);
			kn += w;
			if (place(&j->v[k], by_node) != place(s, by_node))
				cross += w;
			t = next;
		}
	}
	*known = kn;
	return kn > 0 ? cross / kn : 0;
}

static void dir(const double *n, const struct llc_est_sums *si, size_t i, size_t j, double s_ij, double lo_ij, double hi_ij,
		double s_ji, double lo_ji, double hi_ji, struct llc_est_dir *o)
{
	double w, wlo, whi, rest_hi, rest_lo;

	o->i = i;
	o->j = j;
	if (si->partners == 1) {
		w = wlo = whi = 1; /* the only other thread on i's shared data */
	} else {
		double mine = n[j] * s_ji;

		w = si->d > 0 ? mine / si->d : (s_ij > 0 && si->positive ? 1.0 / (double)si->positive : 0);
		rest_hi = si->hi - n[j] * hi_ji;
		rest_lo = si->lo - n[j] * lo_ji;
		wlo = n[j] * lo_ji + rest_hi > 0 ? n[j] * lo_ji / (n[j] * lo_ji + rest_hi) : 0;
		whi = n[j] * hi_ji + (rest_lo > 0 ? rest_lo : 0) > 0 ? n[j] * hi_ji / (n[j] * hi_ji + (rest_lo > 0 ? rest_lo : 0))
								  : 1;
		if (w < wlo)
			w = wlo;
		if (w > whi)
			w = whi;
	}
	o->w = n[i] * s_ij * w;
	o->lo = n[i] * lo_ij * wlo;
	o->hi = n[i] * hi_ij * whi;
}

void llc_est_sums(const double *n, const struct llc_est_pair *p, size_t np, struct llc_est_sums *s)
{
	for (size_t k = 0; k < np; k++) {
		const struct llc_est_pair *q = &p[k];

		s[q->a].d += n[q->b] * q->s_ba;
		s[q->a].lo += n[q->b] * q->lo_ba;
		s[q->a].hi += n[q->b] * q->hi_ba;
		s[q->a].partners++;
		s[q->a].positive += q->s_ab > 0;
		s[q->b].d += n[q->a] * q->s_ab;
		s[q->b].lo += n[q->a] * q->lo_ab;
		s[q->b].hi += n[q->a] * q->hi_ab;
		s[q->b].partners++;
		s[q->b].positive += q->s_ba > 0;
	}
}

void llc_est_pair_dirs(const double *n, const struct llc_est_sums *s, const struct llc_est_pair *q,
		       struct llc_est_dir out[2])
{
	dir(n, &s[q->a], q->a, q->b, q->s_ab, q->lo_ab, q->hi_ab, q->s_ba, q->lo_ba, q->hi_ba, &out[0]);
	dir(n, &s[q->b], q->b, q->a, q->s_ba, q->lo_ba, q->hi_ba, q->s_ab, q->lo_ab, q->hi_ab, &out[1]);
	out[0].shared = out[1].shared = q->shared;
	out[0].apart = out[1].apart = q->apart;
}

int llc_est_weights(const double *n, size_t nt, const struct llc_est_pair *p, size_t np, struct llc_est_dir *out)
{
	struct llc_est_sums *s = calloc(nt ? nt : 1, sizeof(*s));

	if (!s)
		return scx_fail("out of memory");
	llc_est_sums(n, p, np, s);
	for (size_t k = 0; k < np; k++)
		llc_est_pair_dirs(n, s, &p[k], &out[2 * k]);
	free(s);
	return 0;
}

/* Terms are gathered by P into this many buckets for the interval (P within 1/LLC_EST_BUCKETS). */
#define LLC_EST_BUCKETS 4096

struct bucket {
	double lo, hi, lop, hip;
};

void llc_est_figure(struct llc_est_term *t, size_t n, bool any_shared, bool any_undecided, struct llc_est_fig *out)
{
	double sw = 0, swp = 0, slo = 0, shi = 0, slop = 0, ship = 0, hk = 0, hpk = 0, lk = 0, lpk = 0;
	double lo = 1, hi = 0;
	struct bucket *b;
	size_t k;

	*out = (struct llc_est_fig){LLC_EST_NONE, 0, 0, 0, 0};
	for (k = 0; k < n; k++) {
		sw += t[k].w;
		swp += t[k].w * t[k].p;
		slo += t[k].lo;
		slop += t[k].lo * t[k].p;
		shi += t[k].hi;
		ship += t[k].hi * t[k].p;
	}
	out->weight = sw;
	if (shi <= 0 || (!any_shared && !any_undecided))
		return;
	if (!(b = calloc(LLC_EST_BUCKETS + 1, sizeof(*b)))) { /* no interval without memory: the widest */
		lo = 0;
		hi = 1;
		goto point;
	}
	for (k = 0; k < n; k++) {
		double p = t[k].p < 0 ? 0 : t[k].p > 1 ? 1 : t[k].p;
		struct bucket *x = &b[(size_t)(p * LLC_EST_BUCKETS)];

		x->lo += t[k].lo;
		x->hi += t[k].hi;
		x->lop += t[k].lo * t[k].p;
		x->hip += t[k].hi * t[k].p;
	}
	/*
	 * The extreme weighted means over weights within [lo, hi]: the lowest
	 * puts the high weights on the k lowest P and the low ones on the rest,
	 * the highest the other way round, for some k (hk, hpk: the sums of hi
	 * and hi x P over the k lowest; lk, lpk: of lo). Terms are taken by
	 * bucket of P, so the order within one (1/4096 wide) is not searched.
	 */
	for (k = 0; k <= LLC_EST_BUCKETS + 1; k++) {
		double dmin = hk + (slo - lk), nmin = hpk + (slop - lpk);
		double dmax = lk + (shi - hk), nmax = lpk + (ship - hpk);

		if (dmin > 0 && nmin / dmin < lo)
			lo = nmin / dmin;
		if (dmax > 0 && nmax / dmax > hi)
			hi = nmax / dmax;
		if (k == LLC_EST_BUCKETS + 1)
			break;
		hk += b[k].hi;
		hpk += b[k].hip;
		lk += b[k].lo;
		lpk += b[k].lop;
	}
	free(b);
point:
	out->low = lo > hi ? hi : lo;
	out->high = hi;
	if (out->low < 0)
		out->low = 0;
	if (out->high > 1)
		out->high = 1;
	if (any_shared && slo > 0 && sw > 0) {
		out->state = LLC_EST_POINT;
		out->share = swp / sw;
		if (out->share < out->low)
			out->share = out->low;
		if (out->share > out->high)
			out->share = out->high;
	} else {
		out->state = LLC_EST_TOO_FEW;
	}
}
