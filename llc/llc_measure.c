/*
 * llc_measure.c - from the counts to the figures (see llc_measure.h and
 * docs/llc-sharing.md "The measure").
 */
#include "llc/llc_measure.h"

#include <stdlib.h>
#include <string.h>

#include "extract/sharing/sharing.h"
#include "lib/error.h"
#include "llc/llc_region.h"
#include "llc/share_rule.h"

struct line_actor {
	uint64_t line;
	uint32_t actor;
};

/* One direction i -> j as a term of the four figures, with i's scope (kept small: one per direction). */
struct dterm {
	int32_t scope, cell;
	float w, lo, hi;
	float p[LLC_FIG_N]; /* llc measured, llc packing, node measured, node packing, llc mitosis, node mitosis */
	float plo[LLC_FIG_N], phi[LLC_FIG_N]; /* P's bounds (the timelines' spans; predicted: exact) */
	bool shared, apart;
};

/* A region sampled by more than LLC_LINE_MAX_THREADS threads: its actors in la[start, end) of ctx->rla. */
struct big_region {
	size_t start, end;
};

struct ctx {
	const struct llc_share *s;
	const struct llc_share_eval *e;
	const struct llc_measure_actor *act;
	struct llc_share_result *r;
	uint32_t *order;           /* recs by (actor, key) */
	uint64_t *keys, *samples;  /* line keys in that order */
	double *w;
	struct evidence *ev;       /* per actor: its line keys */
	double *n;                 /* per actor: samples on line keys */
	struct llc_est_pair *pairs;
	size_t np;
	struct llc_est_dir *dirs;
	struct llc_timeline *tl;   /* per actor */
	struct dterm *terms;
	size_t nterms;
	struct line_actor *rla;    /* (region, actor), sorted */
	double *rn, *rrep;         /* per rla entry of a big region: its samples there, and its repeats */
	struct big_region *big;
	size_t nbig;
};

static const struct llc_share *sort_s;

static int by_actor_key(const void *x, const void *y)
{
	const struct llc_rec *a = &sort_s->recs[*(const uint32_t *)x], *b = &sort_s->recs[*(const uint32_t *)y];

	if (a->actor != b->actor)
		return a->actor < b->actor ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

/* Each actor's line keys as evidence (keys ascending); page keys only counted. */
static int evidence(struct ctx *c)
{
	const struct llc_share *s = c->s;
	size_t i, k = 0;

	if (!(c->order = malloc((s->nr_recs + 1) * sizeof(*c->order))) ||
	    !(c->keys = malloc((s->nr_recs + 1) * sizeof(*c->keys))) ||
	    !(c->samples = malloc((s->nr_recs + 1) * sizeof(*c->samples))) ||
	    !(c->w = malloc((s->nr_recs + 1) * sizeof(*c->w))) || !(c->ev = calloc(s->nr_actors + 1, sizeof(*c->ev))) ||
	    !(c->n = calloc(s->nr_actors + 1, sizeof(*c->n))))
		return scx_fail("out of memory");
	for (i = 0; i < s->nr_recs; i++)
		c->order[i] = (uint32_t)i;
	sort_s = s;
	qsort(c->order, s->nr_recs, sizeof(*c->order), by_actor_key);
	for (i = 0; i < s->nr_recs; i++) {
		const struct llc_rec *r = &s->recs[c->order[i]];
		struct evidence *e = &c->ev[r->actor];

		if (!share_rule_is_line(r->key)) {
			c->r->page_keys += r->samples;
			continue;
		}
		if (!e->n)
			e->keys = &c->keys[k], e->samples = &c->samples[k], e->w = &c->w[k];
		c->keys[k] = r->key;
		c->samples[k] = r->samples;
		c->w[k] = r->samples;
		e->n++;
		e->total += r->samples;
		c->n[r->actor] += r->samples;
		c->r->with_key += r->samples;
		k++;
	}
	return 0;
}

/*
 * A line or region sampled by more threads than this names no pair by
 * itself (its k x k pairs would cost more than the rest: a global counter,
 * allocator metadata, a process of many threads); its threads are paired
 * through the other lines they share.
 */
#define LLC_LINE_MAX_THREADS 64

static int by_line(const void *x, const void *y)
{
	const struct line_actor *a = x, *b = y;

	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->actor < b->actor ? -1 : a->actor > b->actor;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The pair's line estimate and both sides into c->pairs (when the pair has data in common). */
static void estimate(struct ctx *c, size_t a, size_t b)
{
	struct line_estimate o;
	struct llc_est_pair *p;

	sharing_line_estimate(&c->ev[a], &c->ev[b], SHARE_WINDOW_EPOCHS, SHARE_THRESHOLD_DEFAULT, SHARE_Z_DEFAULT,
			      c->r->first_touch, &o);
	if (!o.na_r && !o.nb_r)
		return;
	p = &c->pairs[c->np++];
	p->a = a;
	p->b = b;
	sharing_line_side(&o, false, LLC_SHARE_Z95, &p->s_ab, &p->lo_ab, &p->hi_ab);
	sharing_line_side(&o, true, LLC_SHARE_Z95, &p->s_ba, &p->lo_ba, &p->hi_ba);
	p->shared = o.verdict == SHARING_SHARED;
	p->apart = o.verdict == SHARING_APART;
}

/*
 * Every pair of actors (different threads) within one group of la[0..nla)
 * (sorted by key) of at most LLC_LINE_MAX_THREADS actors into seen; *n
 * counts the new ones; with regions, the larger groups into c->big. -1 on
 * OOM.
 */
static int pairs_of_groups(struct ctx *c, const struct line_actor *la, size_t nla, struct u64map *seen, size_t *n,
			   bool regions)
{
	const struct llc_share *s = c->s;
	size_t i, g;

	for (g = 0; g < nla; g = i) {
		for (i = g; i < nla && la[i].line == la[g].line; i++)
			;
		if (i - g > LLC_LINE_MAX_THREADS) {
			if (regions) { /* counted in aggregate (llc_region.h) */
				struct big_region *b = realloc(c->big, (c->nbig + 1) * sizeof(*b));

				if (!b)
					return scx_fail("out of memory");
				c->big = b;
				c->big[c->nbig++] = (struct big_region){g, i};
			}
			continue;
		}
		for (size_t x = g; x < i; x++)
			for (size_t y = x + 1; y < i; y++) {
				uint64_t key = (uint64_t)la[x].actor << 32 | la[y].actor, *slot;

				if (s->actors[la[x].actor].tid == s->actors[la[y].actor].tid)
					continue;
				if (!(slot = u64map_slot(seen, key + 1)))
					return -1;
				*n += !*slot;
				*slot = 1;
			}
	}
	return 0;
}

/* la[0..) as (line, or region with region, actor) of every actor's line keys, sorted; their count. */
static size_t line_actors(const struct ctx *c, struct line_actor *la, bool region)
{
	size_t nla = 0;

	for (size_t i = 0; i < c->s->nr_actors; i++)
		for (size_t j = 0; j < c->ev[i].n; j++) {
			uint64_t k = c->ev[i].keys[j];
			uint64_t id = region ? share_rule_region(k) : share_rule_ident(k);

			if (j == 0 || id != (region ? share_rule_region(c->ev[i].keys[j - 1])
						    : share_rule_ident(c->ev[i].keys[j - 1])))
				la[nla++] = (struct line_actor){id, (uint32_t)i};
		}
	qsort(la, nla, sizeof(*la), by_line);
	return nla;
}

/*
 * The pairs of actors (different threads) sampled on a common line (in any
 * epoch), and those sampled in a common region (a process's memory, a
 * file) of at most LLC_LINE_MAX_THREADS threads, each with its line
 * estimate. A pair in one region without a line in common is not known to
 * share nothing: its estimate is 0 within [0, the bound the line estimate
 * gives without a coincidence] and, undecided, it enters the point at the
 * midpoint (docs/llc-sharing.md "The point"). A larger region names no
 * pair: its threads are counted against the region's others in aggregate
 * (llc_region.h).
 */
static int pairs(struct ctx *c)
{
	const struct llc_share *s = c->s;
	struct line_actor *la = malloc((s->nr_recs + 1) * sizeof(*la));
	struct u64map seen;
	uint64_t *keys = NULL, k, v;
	size_t nla, i, n = 0, pos = 0;
	int rc = -1;

	u64map_init(&seen);
	if (!la)
		return scx_fail("out of memory");
	nla = line_actors(c, la, false);
	if (pairs_of_groups(c, la, nla, &seen, &n, false) < 0)
		goto out;
	nla = line_actors(c, la, true);
	if (pairs_of_groups(c, la, nla, &seen, &n, true) < 0)
		goto out;
	if (!(c->pairs = calloc(n + 1, sizeof(*c->pairs))) || !(keys = malloc((n + 1) * sizeof(*keys)))) {
		scx_fail("out of memory");
		goto out;
	}
	for (n = 0; u64map_next_u64(&seen, &pos, &k, &v);)
		keys[n++] = k - 1;
	qsort(keys, n, sizeof(*keys), cmp_u64); /* in order of the actors, whatever the map's */
	for (i = 0; i < n; i++)
		estimate(c, keys[i] >> 32, keys[i] & 0xffffffffu);
	rc = 0;
	if (c->nbig) { /* keep the (region, actor) list and the members' counts (the keys are freed next) */
		if (!(c->rn = calloc(nla + 1, sizeof(double))) || !(c->rrep = calloc(nla + 1, sizeof(double)))) {
			rc = scx_fail("out of memory");
			goto out;
		}
		for (k = 0; k < c->nbig; k++)
			for (i = c->big[k].start; i < c->big[k].end; i++)
				llc_region_counts(&c->ev[la[i].actor], la[i].line, &c->rn[i], &c->rrep[i]);
		c->rla = la;
		la = NULL;
	}
out:
	free(la);
	free(keys);
	u64map_free(&seen);
	return rc;
}

static int by_actor_bin(const void *x, const void *y)
{
	const struct llc_bin *a = x, *b = y;

	if (a->actor != b->actor)
		return a->actor < b->actor ? -1 : 1;
	if (a->bin != b->bin)
		return a->bin < b->bin ? -1 : 1;
	return a->cpu < b->cpu ? -1 : a->cpu > b->cpu;
}

/* An actor's timeline from its samples: each 100 ms bin split among its CPUs by their samples. */
static int timeline_of_bins(struct ctx *c, const struct llc_bin *b, size_t n, struct llc_timeline *t)
{
	size_t i, g;

	for (g = 0; g < n; g = i) {
		uint64_t tot = 0, cum = 0, start = b[g].bin * LLC_SHARE_BIN_NS;

		for (i = g; i < n && b[i].bin == b[g].bin; i++)
			if (llc_map_llc(c->e->map, b[i].cpu) >= 0)
				tot += b[i].samples;
		for (i = g; i < n && b[i].bin == b[g].bin; i++) {
			int llc = llc_map_llc(c->e->map, b[i].cpu);

			if (llc < 0)
				continue;
			if (llc_timeline_add(t, start + LLC_SHARE_BIN_NS * cum / tot,
					     start + LLC_SHARE_BIN_NS * (cum + b[i].samples) / tot, (double)b[i].samples, llc,
					     llc_map_node(c->e->map, b[i].cpu)) < 0)
				return -1;
			cum += b[i].samples;
		}
	}
	return 0;
}

/* Every actor's timeline: its thread's runs in the scheduling trace, else its samples' CPUs. */
static int timelines(struct ctx *c)
{
	const struct llc_share *s = c->s;
	struct llc_bin *b = malloc((s->nr_bins + 1) * sizeof(*b));
	size_t i, g, a;

	if (!b || !(c->tl = calloc(s->nr_actors + 1, sizeof(*c->tl)))) {
		free(b);
		return scx_fail("out of memory");
	}
	if (s->nr_bins)
		memcpy(b, s->bins, s->nr_bins * sizeof(*b));
	qsort(b, s->nr_bins, sizeof(*b), by_actor_bin);
	for (i = 0; i < s->nr_bins; i++)
		if (llc_map_llc(c->e->map, b[i].cpu) < 0)
			c->r->unmapped += b[i].samples;
	for (a = 0, g = 0; a < s->nr_actors; a++) {
		size_t nruns = 0, e;
		const struct sched_run *runs = c->e->thread_runs ? c->e->thread_runs(c->e->thread_ctx, s->actors[a].tid, &nruns)
								 : NULL;

		while (g < s->nr_bins && b[g].actor < a)
			g++;
		for (e = g; e < s->nr_bins && b[e].actor == a; e++)
			;
		for (i = 0; runs && i < nruns; i++) {
			int llc = llc_map_llc(c->e->map, runs[i].cpu);

			if (llc >= 0 && llc_timeline_add_run(&c->tl[a], runs[i].start, runs[i].end, runs[i].runtime, llc,
							     llc_map_node(c->e->map, runs[i].cpu)) < 0)
				goto fail;
		}
		if (c->tl[a].n)
			c->r->timeline_sched++;
		else if (timeline_of_bins(c, &b[g], e - g, &c->tl[a]) < 0)
			goto fail;
		else if (c->tl[a].n)
			c->r->timeline_samples++;
		else if (c->ev[a].n)
			c->r->timeline_none++;
		g = e;
	}
	free(b);
	return 0;
fail:
	free(b);
	return -1;
}

/* The scx_mitosis model's P of a pair: the chance its two threads are on two LLCs (nodes), exact. */
static void mitosis_terms(const struct ctx *c, const struct llc_measure_actor *ai, const struct llc_measure_actor *aj,
			  struct dterm *t)
{
	const struct llc_map *m = c->e->map;

	t->p[LLC_FIG_LLC_MITOSIS] = ai->mllc && aj->mllc ? (float)mitosis_pcross(ai->mllc, aj->mllc, m->nr_llcs) : 0;
	t->p[LLC_FIG_NODE_MITOSIS] = ai->mnode && aj->mnode ? (float)mitosis_pcross(ai->mnode, aj->mnode, m->nr_nodes) : 0;
	for (size_t k = LLC_FIG_LLC_MITOSIS; k <= LLC_FIG_NODE_MITOSIS; k++)
		t->plo[k] = t->phi[k] = t->p[k];
}

/* The share of one side of pair q as the point takes it: a's (to_b) or b's. */
static double point_side(const struct llc_est_pair *q, bool a_side)
{
	bool decided = q->shared || q->apart;

	return a_side ? llc_est_point_s(q->s_ab, q->lo_ab, q->hi_ab, decided)
		      : llc_est_point_s(q->s_ba, q->lo_ba, q->hi_ba, decided);
}

/*
 * Each direction's co-run factor (docs/llc-sharing.md "Co-run"): f[2k] for
 * a -> b of pair k, f[2k + 1] for b -> a. For thread i, its partners'
 * time-resolved shares (llc_est_corun, partner j's rate n_j s_ji) over the
 * shares the whole recording gives them (rate over the sum of its
 * partners' rates): 1 when every thread ran evenly through the recording,
 * near 0 for a partner that ran only while i did not (set-up). -1 on OOM.
 */
static int corun_factors(const struct ctx *c, double *f)
{
	size_t na = c->s->nr_actors, *start = calloc(na + 2, sizeof(size_t)), *pos = NULL, k, i;
	struct pside { size_t pair; bool a_side; } *adj = NULL;
	const struct llc_timeline **tk = NULL;
	double *rate = NULL, *share = NULL;
	int rc = -1;

	if (!start || !(adj = malloc((2 * c->np + 1) * sizeof(*adj))) || !(pos = calloc(na + 1, sizeof(size_t))) ||
	    !(tk = malloc((2 * c->np + 1) * sizeof(*tk))) || !(rate = malloc((2 * c->np + 1) * sizeof(double))) ||
	    !(share = malloc((2 * c->np + 1) * sizeof(double)))) {
		scx_fail("out of memory");
		goto out;
	}
	for (k = 0; k < c->np; k++) {
		start[c->pairs[k].a + 1]++;
		start[c->pairs[k].b + 1]++;
	}
	for (i = 0; i < na; i++)
		start[i + 1] += start[i];
	for (k = 0; k < c->np; k++) {
		adj[start[c->pairs[k].a] + pos[c->pairs[k].a]++] = (struct pside){k, true};
		adj[start[c->pairs[k].b] + pos[c->pairs[k].b]++] = (struct pside){k, false};
	}
	for (i = 0; i < na; i++) {
		size_t m = start[i + 1] - start[i], x;
		const struct pside *ps = &adj[start[i]];
		double sum = 0;

		if (!m)
			continue;
		for (int pass = 0; pass < 2 && sum <= 0; pass++) /* the partners' rates: points, else high bounds */
			for (x = 0, sum = 0; x < m; x++) {
				const struct llc_est_pair *q = &c->pairs[ps[x].pair];
				size_t j = ps[x].a_side ? q->b : q->a;
				double s_ji = pass ? (ps[x].a_side ? q->hi_ba : q->hi_ab) : point_side(q, !ps[x].a_side);

				tk[x] = &c->tl[j];
				rate[x] = c->n[j] * s_ji;
				sum += rate[x];
			}
		if (llc_est_corun(&c->tl[i], tk, rate, m, share) < 0)
			goto out;
		for (x = 0; x < m; x++)
			f[2 * ps[x].pair + !ps[x].a_side] = sum > 0 && rate[x] > 0 ? share[x] * sum / rate[x] : 1;
	}
	rc = 0;
out:
	free(start);
	free(pos);
	free(adj);
	free(tk);
	free(rate);
	free(share);
	return rc;
}

/* A direction's weight and bounds times its co-run factor, none above what i's side allows (its partner share at 1). */
static void corun_scale(struct llc_est_dir *d, double f, double n_i, double s, double lo, double hi)
{
	d->w = d->w * f < n_i * s ? d->w * f : n_i * s;
	d->lo = d->lo * f < n_i * lo ? d->lo * f : n_i * lo;
	d->hi = d->hi * f < n_i * hi ? d->hi * f : n_i * hi;
}

/*
 * The terms: every direction with a weight, P measured from the timelines
 * and predicted from the placement; and each member of a big region
 * against the region's others in aggregate.
 */
static int terms(struct ctx *c)
{
	struct llc_est_sums *sums = calloc(c->s->nr_actors + 1, sizeof(*sums));
	struct llc_region_agg *ag = NULL;
	struct llc_region_member *mem = NULL;
	struct llc_region_in in = {c->tl, c->act, c->n, c->e->map};
	double *cf = malloc((2 * c->np + 1) * sizeof(double));
	size_t k, x, nag = 0;
	int rc = -1;

	for (k = 0; k < c->nbig; k++)
		nag += c->big[k].end - c->big[k].start;
	free(c->r->pw);
	c->r->npw = 0;
	if (!sums || !cf || !(c->terms = calloc(2 * c->np + nag + 1, sizeof(*c->terms))) ||
	    !(c->r->pw = calloc(2 * c->np + 1, sizeof(*c->r->pw))) ||
	    !(ag = calloc(nag + 1, sizeof(*ag))) || !(mem = calloc(nag + 1, sizeof(*mem)))) {
		scx_fail("out of memory");
		goto out;
	}
	llc_est_sums(c->n, c->pairs, c->np, sums);
	if (corun_factors(c, cf) < 0)
		goto out;
	for (k = 0, nag = 0; k < c->nbig; k++) {
		size_t b0 = c->big[k].start, nm = c->big[k].end - b0;

		for (x = 0; x < nm; x++)
			mem[x] = (struct llc_region_member){c->rla[b0 + x].actor, c->rn[b0 + x], c->rrep[b0 + x]};
		if (llc_region_aggregates(&in, mem, nm, sums, &ag[nag]) < 0)
			goto out;
		nag += c->big[k].end - c->big[k].start;
	}
	for (k = 0; k < c->np; k++) {
		const struct llc_est_pair *q = &c->pairs[k];
		struct llc_est_dir dirs[2];

		llc_est_pair_dirs(c->n, sums, q, dirs);
		corun_scale(&dirs[0], cf[2 * k], c->n[q->a], point_side(q, true), q->lo_ab, q->hi_ab);
		corun_scale(&dirs[1], cf[2 * k + 1], c->n[q->b], point_side(q, false), q->lo_ba, q->hi_ba);
		for (x = 0; x < 2; x++) {
			const struct llc_est_dir *d = &dirs[x];
			const struct llc_measure_actor *ai = &c->act[d->i], *aj = &c->act[d->j];
			struct dterm *t = &c->terms[c->nterms];
			double known, known_node, p_llc, p_node, lo_llc, hi_llc, lo_node, hi_node;

			if (d->hi <= 0)
				continue;
			p_llc = llc_est_pcross_bounds(&c->tl[d->i], &c->tl[d->j], false, &known, &lo_llc, &hi_llc);
			if (known <= 0) /* no time when both places are known: not in any figure */
				continue;
			p_node = llc_est_pcross_bounds(&c->tl[d->i], &c->tl[d->j], true, &known_node, &lo_node, &hi_node);
			*t = (struct dterm){(int32_t)ai->scope, (int32_t)ai->cell, (float)d->w, (float)d->lo, (float)d->hi,
					    {(float)p_llc, ai->pllc != aj->pllc, (float)p_node, ai->pnode != aj->pnode},
					    {(float)lo_llc, ai->pllc != aj->pllc, (float)lo_node, ai->pnode != aj->pnode},
					    {(float)hi_llc, ai->pllc != aj->pllc, (float)hi_node, ai->pnode != aj->pnode},
					    d->shared, d->apart};
			mitosis_terms(c, ai, aj, t);
			c->nterms++;
			c->r->pw[c->r->npw++] = (struct llc_pair_w){(uint32_t)d->i, (uint32_t)d->j, (float)d->w};
		}
	}
	for (k = 0; k < nag; k++) {
		const struct llc_region_agg *g = &ag[k];
		const struct llc_measure_actor *ai = &c->act[g->i];
		struct llc_est_dir d;
		struct dterm *t = &c->terms[c->nterms];

		llc_est_dir(c->n[g->i], g->n_rest, &sums[g->i], g->i, g->i, g->mid_i, 0, g->hi_i, g->mid_r, 0, g->hi_r, &d);
		if (d.hi <= 0 || g->p[0] < 0) /* no time when the others' places are known */
			continue;
		*t = (struct dterm){(int32_t)ai->scope, (int32_t)ai->cell, (float)d.w, (float)d.lo, (float)d.hi,
				    {0}, {0}, {0}, false, false};
		memcpy(t->p, g->p, sizeof(t->p));
		memcpy(t->plo, g->plo, sizeof(t->plo));
		memcpy(t->phi, g->phi, sizeof(t->phi));
		for (x = 0; x < LLC_FIG_N; x++)
			if (t->p[x] < 0) /* node: no time known (cannot be, with LLCs known): nothing crosses */
				t->p[x] = t->plo[x] = t->phi[x] = 0;
		c->nterms++;
	}
	rc = 0;
out:
	free(sums);
	free(cf);
	free(ag);
	free(mem);
	return rc;
}

/* The figures of the terms v[0..n) (pointers into c->terms) into f. -1 on OOM. */
static int figure(const struct dterm *const *v, size_t n, bool first_touch, struct llc_share_fig *f)
{
	struct llc_est_term *t = malloc((n + 1) * sizeof(*t));
	struct llc_est_fig *out[LLC_FIG_N] = {&f->llc_measured, &f->llc_predicted, &f->node_measured, &f->node_predicted,
					      &f->llc_other, &f->node_other}; /* llc_share.c swaps them for --sched-model mitosis */
	bool undecided = false, shared = false;
	size_t i, k;

	if (!t)
		return scx_fail("out of memory");
	f->pairs = n;
	for (i = 0; i < n; i++) {
		f->pairs_shared += v[i]->shared;
		f->pairs_apart += v[i]->apart;
		undecided |= !v[i]->shared && !v[i]->apart;
		shared |= v[i]->shared;
	}
	for (k = 0; k < LLC_FIG_N; k++) {
		for (i = 0; i < n; i++)
			t[i] = (struct llc_est_term){v[i]->w, v[i]->lo, v[i]->hi, v[i]->p[k], v[i]->plo[k], v[i]->phi[k]};
		llc_est_figure(t, n, shared, undecided, first_touch, out[k]);
	}
	f->shared = f->llc_measured.weight;
	free(t);
	return 0;
}

static long key_scope(const struct dterm *t)
{
	return t->scope;
}

static long key_cell(const struct dterm *t)
{
	return t->cell;
}

static long (*sort_key)(const struct dterm *);

static int by_sort_key(const void *x, const void *y)
{
	long a = sort_key(*(const struct dterm *const *)x), b = sort_key(*(const struct dterm *const *)y);

	return a < b ? -1 : a > b;
}

/* The figures of every scope (subs or cells, by key) out of v, sorted by key; scope i's into f(i). */
static int figures_by(const struct dterm **v, size_t n, long (*key)(const struct dterm *), bool first_touch,
		      struct llc_share_scope *sc, size_t nsc)
{
	size_t i, g;

	sort_key = key;
	qsort(v, n, sizeof(*v), by_sort_key);
	for (g = 0; g < n; g = i) {
		long k = key(v[g]);

		for (i = g; i < n && key(v[i]) == k; i++)
			;
		if (k >= 0 && (size_t)k < nsc && figure(&v[g], i - g, first_touch, &sc[k].f) < 0)
			return -1;
	}
	return 0;
}

int llc_measure(const struct llc_share *s, const struct llc_share_eval *e, const struct llc_measure_actor *act,
		struct llc_share_result *r)
{
	struct ctx c = {.s = s, .e = e, .act = act, .r = r};
	const struct dterm **v = NULL;
	size_t i, a;
	int rc = -1;

	r->first_touch = s->seen.faults * 2 > s->seen.samples;
	if (evidence(&c) < 0 || pairs(&c) < 0)
		goto out;
	/* the keys were for the pairs' estimates: give their memory back before the timelines and terms */
	free(c.order);
	free(c.keys);
	free(c.samples);
	free(c.w);
	c.order = NULL;
	c.keys = c.samples = NULL;
	c.w = NULL;
	if (timelines(&c) < 0 || terms(&c) < 0)
		goto out;
	free(c.pairs);
	c.pairs = NULL;
	for (a = 0; a < s->nr_actors; a++) {
		r->total.samples += (uint64_t)c.n[a];
		if (act[a].scope >= 0) {
			r->subs[act[a].scope].f.samples += (uint64_t)c.n[a];
			r->cells[act[a].cell].f.samples += (uint64_t)c.n[a];
		}
	}
	if (!(v = malloc((c.nterms + 1) * sizeof(*v)))) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < c.nterms; i++)
		v[i] = &c.terms[i];
	if (figure(v, c.nterms, r->first_touch, &r->total) < 0 ||
	    figures_by(v, c.nterms, key_scope, r->first_touch, r->subs, r->nr_subs) < 0 ||
	    figures_by(v, c.nterms, key_cell, r->first_touch, r->cells, r->nr_cells) < 0)
		goto out;
	rc = 0;
out:
	free(v);
	free(c.order);
	free(c.keys);
	free(c.samples);
	free(c.w);
	free(c.ev);
	free(c.n);
	free(c.pairs);
	free(c.terms);
	free(c.rla);
	free(c.rn);
	free(c.rrep);
	free(c.big);
	for (a = 0; c.tl && a < s->nr_actors; a++)
		llc_timeline_free(&c.tl[a]);
	free(c.tl);
	return rc;
}
