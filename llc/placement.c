/*
 * placement.c - worst-fit decreasing placement of subcells (or threads)
 * on LLCs (see placement.h).
 */
#include "llc/placement.h"

#include <stdlib.h>

#include "lib/error.h"
#include "lib/grow.h"

struct item {
	double demand;
	size_t index;
};

static int by_demand_desc(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	return CMP3(y->demand, x->demand) ?: CMP3(x->index, y->index); /* demands are >= 0, never NaN */
}

int placement_worst_fit(const double *demand, size_t n, const unsigned *llc_cpus, size_t nr_llcs, double *load,
			bool need_fit, int *out)
{
	struct item *v = malloc((n ? n : 1) * sizeof(*v));
	size_t i, l;

	if (!v)
		return scx_fail("out of memory");
	for (i = 0; i < n; i++)
		v[i] = (struct item){demand[i] > 0 ? demand[i] : 0, i};
	qsort(v, n, sizeof(*v), by_demand_desc);
	for (i = 0; i < n; i++) {
		int best = -1;

		for (l = 0; l < nr_llcs; l++) {
			if (need_fit && v[i].demand > (double)llc_cpus[l])
				continue;
			if (best < 0 || (double)llc_cpus[l] - load[l] > (double)llc_cpus[best] - load[best])
				best = (int)l;
		}
		out[v[i].index] = best;
		if (best >= 0)
			load[best] += v[i].demand;
	}
	free(v);
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static bool one_by_one(const struct placement_item *it, const int *sub_llc)
{
	return it->sub < 0 || sub_llc[it->sub] < 0;
}

/* The items placed one by one: their distinct tids (sorted) and each tid's LLC by worst fit. */
static int place_threads(const struct placement_item *it, size_t n, const int *sub_llc, const unsigned *llc_cpus,
			 size_t nr_llcs, double *load, int *item_llc)
{
	int64_t *tids = malloc((n + 1) * sizeof(*tids));
	double *tdemand = NULL;
	int *tllc = NULL;
	size_t i, k, nt = 0;
	int rc = -1;

	if (!tids)
		return scx_fail("out of memory");
	for (i = 0; i < n; i++)
		if (one_by_one(&it[i], sub_llc))
			tids[nt++] = it[i].tid;
	qsort(tids, nt, sizeof(*tids), cmp_i64);
	for (i = k = 0; i < nt; i++)
		if (!k || tids[k - 1] != tids[i])
			tids[k++] = tids[i];
	nt = k;
	if (!(tdemand = calloc(nt + 1, sizeof(*tdemand))) || !(tllc = calloc(nt + 1, sizeof(*tllc)))) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (one_by_one(&it[i], sub_llc))
			tdemand[(int64_t *)bsearch(&it[i].tid, tids, nt, sizeof(*tids), cmp_i64) - tids] += it[i].demand;
	if (placement_worst_fit(tdemand, nt, llc_cpus, nr_llcs, load, false, tllc) < 0)
		goto out;
	for (i = 0; i < n; i++)
		if (one_by_one(&it[i], sub_llc))
			item_llc[i] = tllc[(int64_t *)bsearch(&it[i].tid, tids, nt, sizeof(*tids), cmp_i64) - tids];
		else
			item_llc[i] = sub_llc[it[i].sub];
	rc = 0;
out:
	free(tids);
	free(tdemand);
	free(tllc);
	return rc;
}

int placement_assign(const struct placement_item *it, size_t n, size_t nr_subs, const unsigned *llc_cpus,
		     size_t nr_llcs, double *load, int *sub_llc, double *sub_demand, int *item_llc)
{
	double *demand = calloc(nr_subs + 1, sizeof(double));
	size_t *idx = malloc((nr_subs + 1) * sizeof(size_t));
	double *d = calloc(nr_subs + 1, sizeof(double));
	int *out = calloc(nr_subs + 1, sizeof(int));
	size_t i, m = 0;
	int rc = -1;

	if (!demand || !idx || !d || !out) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (it[i].sub >= 0)
			demand[it[i].sub] += it[i].demand;
	if (sub_demand)
		for (i = 0; i < nr_subs; i++)
			sub_demand[i] = demand[i];
	/* the subcells to place now, in their order (worst fit's tie-break) */
	for (i = 0; i < nr_subs; i++)
		if (sub_llc[i] == PLACEMENT_UNSET) {
			idx[m] = i;
			d[m++] = demand[i];
		}
	if (placement_worst_fit(d, m, llc_cpus, nr_llcs, load, true, out) < 0)
		goto out;
	for (i = 0; i < m; i++)
		sub_llc[idx[i]] = out[i];
	rc = place_threads(it, n, sub_llc, llc_cpus, nr_llcs, load, item_llc);
out:
	free(demand);
	free(idx);
	free(d);
	free(out);
	return rc;
}
