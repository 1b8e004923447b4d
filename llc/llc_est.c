/*
 * llc_est.c - the cross-LLC estimator's arithmetic (see llc_est.h):
 * timelines and P_ij, the pair weights with their bounds, the weighted
 * mean with its interval. No I/O, no knowledge of samples: unit-tested on
 * synthetic timelines with exact answers.
 */
#include "llc/llc_est.h"

#include <stdlib.h>

#include "extract/sharing/sharing.h"
#include "lib/error.h"
#include "lib/grow.h"

#define Z95 1.959963984540054

int llc_timeline_add(struct llc_timeline *t, uint64_t start, uint64_t end, double weight, int32_t llc, int32_t node)
{
	if (t->n == t->cap && !GROW(t->v, t->cap, 8))
		return scx_fail("out of memory");
	t->v[t->n++] = (struct llc_seg){start, end < start ? start : end, weight, 1, llc, node};
	return 0;
}

int llc_timeline_add_run(struct llc_timeline *t, uint64_t start, uint64_t end, uint64_t runtime, int32_t llc,
			 int32_t node)
{
	if (llc_timeline_add(t, start, end, (double)runtime, llc, node) < 0)
		return -1;
	if (end > start && runtime < end - start)
		t->v[t->n - 1].fill = (double)runtime / (double)(end - start);
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

/*
 * i's cross weight in one span of weight w and fill f (the share of the
 * span i ran) when j's place is other than i's for a share c of the span:
 * i's runtime is anywhere in the span, so between max(0, c - (1 - f)) / f
 * and min(c, f) / f of w.
 */
void llc_est_span_bounds(double w, double f, double c, double *lo, double *hi)
{
	if (f >= 1) {
		*lo += w * c;
		*hi += w * c;
		return;
	}
	*lo += c - (1 - f) > 0 ? w * (c - (1 - f)) / f : 0;
	*hi += w * (c < f ? c / f : 1);
}

double llc_est_pcross_bounds(const struct llc_timeline *i, const struct llc_timeline *j, bool by_node, double *known,
			     double *plo, double *phi)
{
	double cross = 0, kn = 0, clo = 0, chi = 0;
	size_t a, k = 0;

	*known = *plo = *phi = 0;
	if (!j->n)
		return 0;
	for (a = 0; a < i->n; a++) {
		const struct llc_seg *s = &i->v[a];
		uint64_t t = s->start;
		double dens, sc = 0, sk = 0;

		if (s->end == s->start) { /* all its weight at one instant */
			while (k + 1 < j->n && j->v[k + 1].start <= t)
				k++;
			if (j->v[0].start > t)
				continue;
			kn += s->weight;
			if (place(&j->v[k], by_node) != place(s, by_node)) {
				cross += s->weight;
				clo += s->weight;
				chi += s->weight;
			}
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
			sk += w;
			if (place(&j->v[k], by_node) != place(s, by_node))
				sc += w;
			t = next;
		}
		kn += sk;
		cross += sc;
		if (sk > 0)
			llc_est_span_bounds(sk, s->fill, sc / sk, &clo, &chi);
	}
	*known = kn;
	if (kn <= 0)
		return 0;
	*plo = clo / kn;
	*phi = chi / kn > 1 ? 1 : chi / kn;
	if (*plo > cross / kn)
		*plo = cross / kn;
	if (*phi < cross / kn)
		*phi = cross / kn;
	return cross / kn;
}

/* A change of one timeline's density at a time (co-run's sweep); k == m for i itself. */
struct corun_ev {
	uint64_t t;
	size_t k;
	double dens; /* from t on */
	bool start;  /* a segment's start (after the ends at the same instant) */
};

static int by_time(const void *x, const void *y)
{
	const struct corun_ev *a = x, *b = y;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (int)a->start - (int)b->start;
}

/*
 * The events of timeline t as thread k: its segments less than
 * LLC_EST_CORUN_GAP_NS apart joined into one span of activity, its weight
 * / total spread evenly over it (a point: over 1 ns).
 */
static size_t corun_events(const struct llc_timeline *t, size_t k, double scale, struct corun_ev *ev)
{
	size_t n = 0, a = 0;

	while (a < t->n) {
		uint64_t start = t->v[a].start, end = t->v[a].end;
		double w = t->v[a].weight > 0 ? t->v[a].weight : 0;

		for (a++; a < t->n && t->v[a].start < end + LLC_EST_CORUN_GAP_NS; a++) {
			w += t->v[a].weight > 0 ? t->v[a].weight : 0;
			if (t->v[a].end > end)
				end = t->v[a].end;
		}
		if (end <= start)
			end = start + 1;
		if (w <= 0)
			continue;
		ev[n++] = (struct corun_ev){start, k, scale * w / (double)(end - start), true};
		ev[n++] = (struct corun_ev){end, k, 0, false};
	}
	return n;
}

/*
 * The sweep: between events every density is constant; i's weight in a
 * piece over the partners' summed rho accumulates in g, and a partner's
 * share is its rho times the g accumulated while it had that rho (settled
 * whenever its rho changes). A partner's rho is its live density, but when
 * the last live partners stop, they keep the rho they had (held) until
 * some partner runs again.
 */
struct corun {
	double *live, *rho, *mark, *share;
	size_t *touched, *held;
	bool *is_touched;
	size_t ntouched, nheld, nlive;
	double sum, g;
};

static void corun_set(struct corun *c, size_t k, double rho)
{
	c->share[k] += c->rho[k] * (c->g - c->mark[k]);
	c->mark[k] = c->g;
	c->sum += rho - c->rho[k];
	c->rho[k] = rho;
}

/* After one instant's events: the new rhos (live, or the stopped ones held when none is live). */
static void corun_instant(struct corun *c)
{
	size_t x, k;

	if (c->nlive > 0) {
		for (x = 0; x < c->nheld; x++)
			if (c->live[c->held[x]] == 0)
				corun_set(c, c->held[x], 0);
		c->nheld = 0;
		for (x = 0; x < c->ntouched; x++)
			corun_set(c, c->touched[x], c->live[c->touched[x]]);
	} else {
		for (x = 0; x < c->ntouched; x++) /* the ones that stopped now keep their rho */
			if (c->rho[k = c->touched[x]] > 0)
				c->held[c->nheld++] = k;
	}
	for (x = 0; x < c->ntouched; x++)
		c->is_touched[c->touched[x]] = false;
	if (c->nlive == 0 && c->nheld == 0)
		c->sum = 0;
	c->ntouched = 0;
}

int llc_est_corun(const struct llc_timeline *ti, const struct llc_timeline *const *tk, const double *rate, size_t m,
		  double *share)
{
	struct corun c = {.share = share};
	struct corun_ev *ev;
	double total_i = 0, dens_i = 0;
	size_t n = 2 * ti->n, e, k;
	uint64_t now = 0;
	int rc = 0;

	for (k = 0; k < m; k++)
		n += 2 * tk[k]->n;
	for (k = 0; k < ti->n; k++)
		total_i += ti->v[k].weight > 0 ? ti->v[k].weight : 0;
	ev = malloc((n + 1) * sizeof(*ev));
	c.live = calloc(m + 1, sizeof(double));
	c.rho = calloc(m + 1, sizeof(double));
	c.mark = calloc(m + 1, sizeof(double));
	c.touched = calloc(m + 1, sizeof(size_t));
	c.held = calloc(m + 1, sizeof(size_t));
	c.is_touched = calloc(m + 1, sizeof(bool));
	if (!ev || !c.live || !c.rho || !c.mark || !c.touched || !c.held || !c.is_touched) {
		rc = scx_fail("out of memory");
		goto out;
	}
	n = corun_events(ti, m, total_i > 0 ? 1 / total_i : 0, ev);
	for (k = 0; k < m; k++) {
		double tot = 0;

		for (size_t a = 0; a < tk[k]->n; a++)
			tot += tk[k]->v[a].weight > 0 ? tk[k]->v[a].weight : 0;
		share[k] = 0;
		if (tot > 0 && rate[k] > 0)
			n += corun_events(tk[k], k, rate[k] / tot, ev + n);
	}
	qsort(ev, n, sizeof(*ev), by_time);
	for (e = 0; e < n;) {
		uint64_t t = ev[e].t;

		if (c.sum > 0 && dens_i > 0)
			c.g += dens_i * (double)(t - now) / c.sum;
		now = t;
		for (; e < n && ev[e].t == t; e++) {
			if ((k = ev[e].k) == m) {
				dens_i = ev[e].dens;
				continue;
			}
			c.nlive += (ev[e].dens > 0) - (c.live[k] > 0);
			if (c.live[k] == 0 && ev[e].dens == 0)
				continue;
			c.live[k] = ev[e].dens;
			if (!c.is_touched[k])
				c.touched[c.ntouched++] = k;
			c.is_touched[k] = true;
		}
		corun_instant(&c);
	}
	for (k = 0; k < m; k++)
		share[k] += c.rho[k] * (c.g - c.mark[k]);
out:
	free(ev);
	free(c.live);
	free(c.rho);
	free(c.mark);
	free(c.touched);
	free(c.held);
	free(c.is_touched);
	return rc;
}

double llc_est_point_s(double s, double lo, double hi, bool decided)
{
	return decided ? s : (lo + hi) / 2;
}

void llc_est_dir(double n_i, double n_j, const struct llc_est_sums *si, size_t i, size_t j, double s_ij, double lo_ij,
		 double hi_ij, double s_ji, double lo_ji, double hi_ji, struct llc_est_dir *o)
{
	double w, wlo, whi, rest_hi, rest_lo;

	o->i = i;
	o->j = j;
	if (si->partners == 1) {
		w = wlo = whi = 1; /* the only other thread on i's shared data */
	} else {
		double mine = n_j * s_ji;

		w = si->d > 0 ? mine / si->d : (s_ij > 0 && si->positive ? 1.0 / (double)si->positive : 0);
		rest_hi = si->hi - n_j * hi_ji;
		rest_lo = si->lo - n_j * lo_ji;
		wlo = n_j * lo_ji + rest_hi > 0 ? n_j * lo_ji / (n_j * lo_ji + rest_hi) : 0;
		whi = n_j * hi_ji + (rest_lo > 0 ? rest_lo : 0) > 0 ? n_j * hi_ji / (n_j * hi_ji + (rest_lo > 0 ? rest_lo : 0))
								  : 1;
		if (w < wlo)
			w = wlo;
		if (w > whi)
			w = whi;
	}
	o->w = n_i * s_ij * w;
	o->lo = n_i * lo_ij * wlo;
	o->hi = n_i * hi_ij * whi;
}

/* The point's shares of pair q: a's side and b's (llc_est_point_s). */
static void point_s(const struct llc_est_pair *q, double *ab, double *ba)
{
	bool decided = q->shared || q->apart;

	*ab = llc_est_point_s(q->s_ab, q->lo_ab, q->hi_ab, decided);
	*ba = llc_est_point_s(q->s_ba, q->lo_ba, q->hi_ba, decided);
}

void llc_est_sums(const double *n, const struct llc_est_pair *p, size_t np, struct llc_est_sums *s)
{
	for (size_t k = 0; k < np; k++) {
		const struct llc_est_pair *q = &p[k];
		double ab, ba;

		point_s(q, &ab, &ba);
		s[q->a].d += n[q->b] * ba;
		s[q->a].lo += n[q->b] * q->lo_ba;
		s[q->a].hi += n[q->b] * q->hi_ba;
		s[q->a].partners++;
		s[q->a].positive += ab > 0;
		s[q->b].d += n[q->a] * ab;
		s[q->b].lo += n[q->a] * q->lo_ab;
		s[q->b].hi += n[q->a] * q->hi_ab;
		s[q->b].partners++;
		s[q->b].positive += ba > 0;
	}
}

void llc_est_pair_dirs(const double *n, const struct llc_est_sums *s, const struct llc_est_pair *q,
		       struct llc_est_dir out[2])
{
	double ab, ba;

	point_s(q, &ab, &ba);
	llc_est_dir(n[q->a], n[q->b], &s[q->a], q->a, q->b, ab, q->lo_ab, q->hi_ab, ba, q->lo_ba, q->hi_ba, &out[0]);
	llc_est_dir(n[q->b], n[q->a], &s[q->b], q->b, q->a, ba, q->lo_ba, q->hi_ba, ab, q->lo_ab, q->hi_ab, &out[1]);
	out[0].shared = out[1].shared = q->shared;
	out[0].apart = out[1].apart = q->apart;
}

const char *llc_est_why_name(enum llc_est_why why)
{
	return why == LLC_WHY_UNDECIDED ? "undecided" : why == LLC_WHY_WIDE ? "wide" : why == LLC_WHY_FIRST_TOUCH ? "first_touch" : NULL;
}

const char *llc_est_why_text(enum llc_est_why why)
{
	switch (why) {
	case LLC_WHY_UNDECIDED:
		return "no pair of its threads is decided shared";
	case LLC_WHY_WIDE:
		return "pairs that cannot tell leave the interval wider than 50 points";
	case LLC_WHY_FIRST_TOUCH:
		return "first-touch samples do not weigh the pairs, and the weights decide it";
	default:
		return "";
	}
}

/* Terms are gathered by P into this many buckets for the interval (P within 1/LLC_EST_BUCKETS). */
#define LLC_EST_BUCKETS 4096

struct bucket {
	double lo, hi, lop, hip;
};

/*
 * The lowest (highest) weighted mean over weights within [lo, hi] and P
 * at its low (high) bound: the lowest puts the high weights on the k
 * lowest P and the low ones on the rest, the highest the other way round,
 * for some k. Terms are taken by bucket of P, so the order within one
 * (1/4096 wide) is not searched. -1 on OOM.
 */
static double extreme(const struct llc_est_term *t, size_t n, bool highest)
{
	double slo = 0, shi = 0, slop = 0, ship = 0, hk = 0, hpk = 0, lk = 0, lpk = 0, best = highest ? 0 : 1;
	struct bucket *b = calloc(LLC_EST_BUCKETS + 1, sizeof(*b));
	size_t k;

	if (!b)
		return -1;
	for (k = 0; k < n; k++) {
		double p = highest ? t[k].phi : t[k].plo;
		struct bucket *x;

		p = p < 0 ? 0 : p > 1 ? 1 : p;
		x = &b[(size_t)(p * LLC_EST_BUCKETS)];
		x->lo += t[k].lo;
		x->hi += t[k].hi;
		x->lop += t[k].lo * p;
		x->hip += t[k].hi * p;
		slo += t[k].lo;
		slop += t[k].lo * p;
		shi += t[k].hi;
		ship += t[k].hi * p;
	}
	for (k = 0; k <= LLC_EST_BUCKETS + 1; k++) {
		double dmin = hk + (slo - lk), nmin = hpk + (slop - lpk);
		double dmax = lk + (shi - hk), nmax = lpk + (ship - hpk);

		if (!highest && dmin > 0 && nmin / dmin < best)
			best = nmin / dmin;
		if (highest && dmax > 0 && nmax / dmax > best)
			best = nmax / dmax;
		if (k == LLC_EST_BUCKETS + 1)
			break;
		hk += b[k].hi;
		hpk += b[k].hip;
		lk += b[k].lo;
		lpk += b[k].lop;
	}
	free(b);
	return best;
}

void llc_est_figure(struct llc_est_term *t, size_t n, bool any_shared, bool any_undecided, bool first_touch,
		    struct llc_est_fig *out)
{
	double sw = 0, swp = 0, slo = 0, shi = 0, lo, hi;
	size_t k;

	*out = (struct llc_est_fig){LLC_EST_NONE, LLC_WHY_NONE, 0, 0, 0, 0};
	for (k = 0; k < n; k++) {
		if (t[k].plo > t[k].p)
			t[k].plo = t[k].p;
		if (t[k].phi < t[k].p)
			t[k].phi = t[k].p;
		if (first_touch) /* a first touch's count is no access rate: the weight is anywhere up to its high bound */
			t[k].lo = 0;
		sw += t[k].w;
		swp += t[k].w * t[k].p;
		slo += t[k].lo;
		shi += t[k].hi;
	}
	out->weight = sw;
	if (shi <= 0 || (!any_shared && !any_undecided))
		return;
	lo = extreme(t, n, false);
	hi = extreme(t, n, true);
	if (lo < 0 || hi < 0) { /* no interval without memory: the widest */
		lo = 0;
		hi = 1;
	}
	out->low = lo > hi ? hi : lo;
	out->high = hi;
	if (out->low < 0)
		out->low = 0;
	if (out->high > 1)
		out->high = 1;
	out->state = LLC_EST_TOO_FEW;
	if (!any_shared || (slo <= 0 && !first_touch) || sw <= 0) {
		out->why = LLC_WHY_UNDECIDED;
		return;
	}
	if ((any_undecided || first_touch) && out->high - out->low > LLC_EST_MAX_WIDTH) {
		out->why = first_touch ? LLC_WHY_FIRST_TOUCH : LLC_WHY_WIDE;
		return;
	}
	out->state = LLC_EST_POINT;
	out->share = swp / sw;
	if (out->share < out->low)
		out->share = out->low;
	if (out->share > out->high)
		out->share = out->high;
}
