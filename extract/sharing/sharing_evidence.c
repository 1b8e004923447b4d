/*
 * sharing_evidence.c - each unit's evidence as a sorted sparse vector, and
 * the affinity of two units (see sharing.h): the page affinity over keys
 * without lines (K: kernel pages, samples without a data_id), and the line
 * estimate of sharing_lines.c over A:/F: line keys, decided at a floor.
 */
#include "extract/sharing/sharing.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

void sharing_evidence_free(struct evidence *e)
{
	free(e->keys);
	free(e->w);
	free(e->samples);
	memset(e, 0, sizeof(*e));
}

static int add_hint_pages(struct u64map *acc, const struct hint_rec *h)
{
	size_t pos = 0;
	uint64_t k, v, *slot;

	while (u64map_next_u64(&h->pages, &pos, &k, &v)) {
		if (!(slot = u64map_slot(acc, k)))
			return -1;
		*slot += v;
	}
	return 0;
}

static int cmp_key(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* acc -> sorted parallel arrays */
static int evidence_from_map(const struct u64map *acc, struct evidence *e)
{
	size_t pos = 0, i = 0, cap = acc->len ? acc->len : 1;
	uint64_t k, v, *pairs = malloc(cap * 2 * sizeof(uint64_t));

	e->keys = malloc(cap * sizeof(*e->keys));
	e->w = malloc(cap * sizeof(*e->w));
	e->samples = malloc(cap * sizeof(*e->samples));
	if (!pairs || !e->keys || !e->w || !e->samples) {
		free(pairs);
		sharing_evidence_free(e);
		return scx_fail("out of memory (evidence of %zu keys)", acc->len);
	}
	while (u64map_next_u64(acc, &pos, &k, &v)) {
		pairs[2 * i] = k;
		pairs[2 * i + 1] = v;
		i++;
	}
	qsort(pairs, i, 2 * sizeof(uint64_t), cmp_key);
	for (e->n = 0; e->n < i; e->n++) {
		e->keys[e->n] = pairs[2 * e->n];
		e->w[e->n] = (double)EV_WEIGHT(pairs[2 * e->n + 1]);
		e->samples[e->n] = EV_SAMPLES(pairs[2 * e->n + 1]);
		e->total += e->w[e->n];
	}
	free(pairs);
	return 0;
}

int sharing_evidence_of_unit(const struct mem_agg *a, const struct unit *u, struct evidence *e)
{
	struct u64map acc;
	size_t s, h;
	int rc = 0;

	memset(e, 0, sizeof(*e));
	u64map_init_cap(&acc, U64MAP_SMALL);
	for (s = 0; s < u->comm->nr_srcs && !rc; s++) {
		const struct comm_rec *c = &a->groups[u->comm->srcs[s].group].comms[u->comm->srcs[s].comm];

		for (h = 0; h < c->nr_hints && !rc; h++)
			if (!u->by_hint || (c->hints[h].hint == u->hint && !c->hints[h].other))
				rc = add_hint_pages(&acc, &c->hints[h]);
	}
	if (!rc)
		rc = evidence_from_map(&acc, e);
	u64map_free(&acc);
	return rc;
}

int sharing_evidence_df(const struct evidence *ev, size_t n, struct u64map *df)
{
	size_t i, j;
	uint64_t *slot;

	u64map_init_cap(df, U64MAP_SMALL);
	for (i = 0; i < n; i++)
		for (j = 0; j < ev[i].n && !EV_IS_LINE(ev[i].keys[j]); j++) {
			if (j > 0 && EV_IDENT(ev[i].keys[j]) == EV_IDENT(ev[i].keys[j - 1]))
				continue; /* one count per unit and identity */
			if (!(slot = u64map_slot(df, EV_IDENT(ev[i].keys[j]))))
				return -1;
			(*slot)++;
		}
	return 0;
}

/* Same or adjacent epochs (modulo 2^16). */
static bool concurrent(uint64_t ka, uint64_t kb)
{
	uint64_t d = (EV_EPOCH(ka) - EV_EPOCH(kb)) & EV_EPOCH_MASK;

	return d <= 1 || d == EV_EPOCH_MASK;
}

/*
 * Sum over the keys [i0, i1) of x that have a concurrent key in [j0, j1) of
 * y. Both runs are one identity's keys, sorted by epoch: one merge pass,
 * plus the wrap of the 16-bit epoch (the last epoch is adjacent to 0).
 */
static bool side_shared(const struct evidence *x, size_t i0, size_t i1, const struct evidence *y, size_t j0, size_t j1,
			double idf_ratio, double *wsum, double *raw, uint64_t *samples)
{
	uint64_t first = EV_EPOCH(y->keys[j0]), last = EV_EPOCH(y->keys[j1 - 1]);
	bool any = false;
	size_t j = j0;

	for (size_t i = i0; i < i1; i++) {
		uint64_t e = EV_EPOCH(x->keys[i]);
		bool hit;

		while (j < j1 && EV_EPOCH(y->keys[j]) + 1 < e)
			j++;
		hit = j < j1 && concurrent(x->keys[i], y->keys[j]);
		hit = hit || (e == 0 && last == EV_EPOCH_MASK) || (e == EV_EPOCH_MASK && first == 0);
		if (hit) {
			*wsum += x->w[i] * idf_ratio;
			*raw += x->w[i];
			*samples += x->samples[i];
			any = true;
		}
	}
	return any;
}

bool sharing_enough_evidence(const struct pair_evidence *pe, size_t min_keys, uint64_t min_samples)
{
	uint64_t fewest = pe->samples_a < pe->samples_b ? pe->samples_a : pe->samples_b;

	if (!min_keys)
		min_keys = 1;
	if (pe->keys == 0 || fewest < min_samples)
		return false;
	/* min_keys identities, or as many samples a side as min_keys identities
	 * at the sample floor would carry, on fewer identities */
	return pe->keys >= min_keys || fewest >= (uint64_t)min_keys * min_samples;
}

/* The page affinity over the keys without lines (those sort first). */
static void page_evidence(const struct evidence *a, const struct evidence *b, const struct u64map *df, size_t n,
			  size_t min_keys, uint64_t min_samples, struct pair_evidence *out)
{
	size_t i = 0, j = 0, an = sharing_first_line_key(a), bn = sharing_first_line_key(b);
	double idf_max = log((double)(n + 1) / 2.0), fa = 0, fb = 0;

	while (i < an && j < bn) {
		uint64_t ia = EV_IDENT(a->keys[i]), ib = EV_IDENT(b->keys[j]);
		size_t i1 = i, j1 = j;
		const uint64_t *d;
		double ratio;
		bool sa, sb;

		if (ia < ib) {
			i++;
			continue;
		}
		if (ia > ib) {
			j++;
			continue;
		}
		while (i1 < an && EV_IDENT(a->keys[i1]) == ia)
			i1++;
		while (j1 < bn && EV_IDENT(b->keys[j1]) == ib)
			j1++;
		d = u64map_find(df, ia);
		ratio = d && *d > 2 && idf_max > 0 ? log((double)(n + 1) / (double)*d) / idf_max : 1.0;
		sa = side_shared(a, i, i1, b, j, j1, ratio, &fa, &out->share_a, &out->samples_a);
		sb = side_shared(b, j, j1, a, i, i1, ratio, &fb, &out->share_b, &out->samples_b);
		out->keys += sa && sb;
		i = i1;
		j = j1;
	}
	out->page_wa = fa;
	out->page_wb = fb;
	if (sharing_enough_evidence(out, min_keys, min_samples) && a->total > 0 && b->total > 0)
		out->page_affinity = sqrt((fa / a->total) * (fb / b->total));
	if (out->page_affinity > 1)
		out->page_affinity = 1;
}

void sharing_pair_evidence_at(const struct evidence *a, const struct evidence *b, const struct u64map *df, size_t n,
			      const struct sharing_params *p, struct pair_evidence *out)
{
	memset(out, 0, sizeof(*out));
	page_evidence(a, b, df, n, p->min_keys, p->min_samples, out);
	sharing_line_estimate(a, b, p->window ? p->window : SHARE_WINDOW_EPOCHS, p->threshold,
			      p->z > 0 ? p->z : SHARE_Z_DEFAULT, sharing_params_first_touch(p), &out->line);
	/* the line evidence's shared lines count with the pages */
	out->keys += out->line.lines;
	out->samples_a += out->line.ha;
	out->samples_b += out->line.hb;
	out->share_a = a->total > 0 ? (out->share_a + out->line.wa) / a->total : 0;
	out->share_b = b->total > 0 ? (out->share_b + out->line.wb) / b->total : 0;
	out->affinity = out->page_affinity;
	if (out->line.verdict == SHARING_SHARED && out->line.f > out->affinity)
		out->affinity = out->line.f;
}

bool sharing_params_first_touch(const struct sharing_params *p)
{
	return p->fault_samples > 0 && p->fault_samples >= p->total_samples - p->fault_samples;
}

double *sharing_affinity_matrix_df(const struct evidence *ev, size_t n, const struct u64map *df,
				   const struct sharing_params *p)
{
	double *m = calloc(n * n + 1, sizeof(*m));
	struct pair_evidence pe;
	size_t i, j;

	if (!m) {
		scx_fail("out of memory (affinity of %zu units)", n);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		m[i * n + i] = 1;
		for (j = i + 1; j < n; j++) {
			sharing_pair_evidence_at(&ev[i], &ev[j], df, n, p, &pe);
			m[i * n + j] = m[j * n + i] = pe.affinity;
		}
	}
	return m;
}
