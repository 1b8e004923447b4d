/*
 * placement.c - worst-fit decreasing placement of subcells (or threads)
 * on LLCs (see placement.h).
 */
#include "extract/llc/placement.h"

#include <stdlib.h>

#include "lib/error.h"

struct item {
	double demand;
	size_t index;
};

static int by_demand_desc(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->demand != y->demand)
		return x->demand > y->demand ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
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
