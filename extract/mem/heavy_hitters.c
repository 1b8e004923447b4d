/*
 * heavy_hitters.c - Misra-Gries counters with batched decrements (see
 * heavy_hitters.h). A round costs O(k) (quickselect + one pass) and frees
 * at least k slots, so admissions cost O(1) amortized.
 */
#include "extract/mem/heavy_hitters.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

void mg_init(struct mg_counters *m, size_t k)
{
	memset(m, 0, sizeof(*m));
	m->k = k ? k : 1;
}

void mg_free(struct mg_counters *m)
{
	free(m->c);
	free(m->since);
	free(m->scratch);
	memset(m, 0, sizeof(*m));
}

/* Arrays grow by doubling up to 2k entries: small groups stay small. */
static int mg_grow(struct mg_counters *m)
{
	size_t cap = m->cap ? m->cap * 2 : 8;
	uint64_t *c, *since, *scratch;

	if (cap > 2 * m->k)
		cap = 2 * m->k;
	c = realloc(m->c, cap * sizeof(*c));
	if (c)
		m->c = c;
	since = realloc(m->since, cap * sizeof(*since));
	if (since)
		m->since = since;
	scratch = realloc(m->scratch, cap * sizeof(*scratch));
	if (scratch)
		m->scratch = scratch;
	if (!c || !since || !scratch)
		return scx_fail("out of memory (%zu name counters)", cap);
	m->cap = cap;
	return 0;
}

long mg_admit(struct mg_counters *m)
{
	size_t i = m->n;

	if (i == m->cap && mg_grow(m) < 0)
		return -1;
	m->n++;
	m->c[i] = 0;
	m->since[i] = m->decrements;
	return (long)i;
}

static void swap_u64(uint64_t *a, uint64_t *b)
{
	uint64_t t = *a;

	*a = *b;
	*b = t;
}

/* Three-way quickselect with a median-of-three pivot. */
uint64_t mg_select_desc(uint64_t *v, size_t n, size_t r)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		uint64_t a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
		uint64_t p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		size_t lt = lo, i = lo, gt = hi;

		/* [lo, lt) > p, [lt, i) == p, [gt, hi) < p */
		while (i < gt) {
			if (v[i] > p)
				swap_u64(&v[lt++], &v[i++]);
			else if (v[i] < p)
				swap_u64(&v[i], &v[--gt]);
			else
				i++;
		}
		if (r < lt)
			hi = lt;
		else if (r >= gt)
			lo = gt;
		else
			return p;
	}
	return v[lo];
}

size_t mg_round(struct mg_counters *m, size_t *remap)
{
	size_t i, kept = 0, before = m->n;
	uint64_t delta;

	if (m->n <= m->k) {
		for (i = 0; i < m->n; i++)
			remap[i] = i;
		return 0;
	}
	memcpy(m->scratch, m->c, m->n * sizeof(*m->c));
	delta = mg_select_desc(m->scratch, m->n, m->k);
	for (i = 0; i < m->n; i++) {
		if (m->c[i] <= delta) {
			remap[i] = SIZE_MAX;
			continue;
		}
		m->c[kept] = m->c[i] - delta;
		m->since[kept] = m->since[i];
		remap[i] = kept++;
	}
	m->evicted += before - kept;
	m->decrements += delta;
	m->rounds++;
	m->n = kept;
	return before - kept;
}
