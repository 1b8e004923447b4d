/*
 * llc_region.c - each thread of a big region against the region's other
 * threads in aggregate (see llc_region.h): the no-coincidence bound of its
 * share over the others' samples and repeats, and P from the others'
 * last places kept as masses per LLC (node) at each change of a member's
 * place.
 */
#include "llc/llc_region.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "llc/llc_types.h"
#include "llc/share_rule.h"

/* i's samples in region `region` and those of them on a (line, epoch) it was sampled on twice or more. */
void llc_region_counts(const struct evidence *e, uint64_t region, double *n, double *rep)
{
	*n = *rep = 0;
	for (size_t k = 0; k < e->n; k++)
		if (share_rule_region(e->keys[k]) == region) {
			*n += (double)e->samples[k];
			*rep += e->samples[k] >= 2 ? (double)e->samples[k] : 0;
		}
}

/* h x j / (n x r) at no coincidence (the line estimate's high bound for h = 0), capped at 1. */
static double no_hit_high(double j, double n, double r)
{
	double rl = sharing_poisson_low(r, LLC_SHARE_Z95), v;

	if (rl <= 0 || n <= 0)
		return 1;
	v = sharing_poisson_high(0, LLC_SHARE_Z95) * j / (n * rl);
	return v > 1 ? 1 : v;
}

struct step {
	uint64_t t;
	size_t at; /* index of its masses in the mass array */
};

struct change {
	uint64_t t;
	uint32_t member;
	int32_t place;
};

static int by_time(const void *x, const void *y)
{
	const struct change *a = x, *b = y;

	return a->t < b->t ? -1 : a->t > b->t;
}

/*
 * P of each member k of a big region against the others in aggregate: at
 * time t, of the others' weight (their samples in the region) whose last
 * place is known, the share not on k's place; over k's timeline as
 * llc_est_pcross_bounds does with one partner. The others' places are kept as
 * masses per place at each change of a member's place, so the cost is the
 * members' segments plus, per member, the changes within its segments.
 */
static int agg_p(const struct llc_region_in *in, const struct llc_region_member *mem, size_t nm, bool by_node,
		 struct llc_region_agg *out, int slot)
{
	size_t places = by_node ? in->map->nr_nodes : in->map->nr_llcs, nch = 0, ns = 0, k, x;
	struct change *ch;
	struct step *st = NULL;
	double *mass = NULL, *cur = calloc(places + 1, sizeof(double)), known = 0;
	int32_t *last = malloc((nm + 1) * sizeof(*last));
	int rc = -1;

	for (k = 0; k < nm; k++)
		nch += in->tl[mem[k].actor].n;
	ch = malloc((nch + 1) * sizeof(*ch));
	if (!ch || !cur || !last) {
		scx_fail("out of memory");
		goto out;
	}
	for (nch = 0, k = 0; k < nm; k++) {
		const struct llc_timeline *t = &in->tl[mem[k].actor];
		int32_t prev = -1;

		last[k] = -1;
		for (x = 0; x < t->n; x++) {
			int32_t pl = by_node ? t->v[x].node : t->v[x].llc;

			if (pl != prev && pl >= 0 && (size_t)pl < places)
				ch[nch++] = (struct change){t->v[x].start, (uint32_t)k, pl};
			prev = pl;
		}
	}
	qsort(ch, nch, sizeof(*ch), by_time);
	if (!(st = malloc((nch + 1) * sizeof(*st))) || !(mass = malloc((nch + 1) * (places + 1) * sizeof(double)))) {
		scx_fail("out of memory");
		goto out;
	}
	for (x = 0; x < nch;) {
		uint64_t t = ch[x].t;

		for (; x < nch && ch[x].t == t; x++) {
			uint32_t m = ch[x].member;

			if (last[m] >= 0)
				cur[last[m]] -= mem[m].n;
			else
				known += mem[m].n;
			cur[ch[x].place] += mem[m].n;
			last[m] = ch[x].place;
		}
		st[ns] = (struct step){t, ns * (places + 1)};
		memcpy(&mass[ns * (places + 1)], cur, places * sizeof(double));
		mass[ns * (places + 1) + places] = known;
		ns++;
	}
	for (k = 0; k < nm; k++) {
		const struct llc_timeline *t = &in->tl[mem[k].actor];
		double kn = 0, cross = 0, clo = 0, chi = 0;
		size_t q = 0;

		for (x = 0; x < t->n; x++) {
			const struct llc_seg *sg = &t->v[x];
			int32_t pl = by_node ? sg->node : sg->llc;
			uint64_t u = sg->start;
			double sk = 0, sc = 0, dens = sg->end > sg->start ? sg->weight / (double)(sg->end - sg->start) : 0;

			if (pl < 0 || (size_t)pl >= places)
				continue;
			while (q + 1 < ns && st[q + 1].t <= u)
				q++;
			do {
				const double *m = &mass[st[q].at];
				uint64_t next = q + 1 < ns && st[q + 1].t < sg->end ? st[q + 1].t : sg->end;
				double others = m[places] - mem[k].n, w = sg->end > sg->start ? dens * (double)(next - u) : sg->weight;

				if (others > 1e-9 * (m[places] + 1)) {
					double same = m[pl] - mem[k].n;

					sk += w;
					sc += w * (others - (same > 0 ? same : 0)) / others;
				}
				u = next;
				if (u < sg->end)
					q++;
			} while (u < sg->end);
			kn += sk;
			cross += sc;
			if (sk > 0)
				llc_est_span_bounds(sk, sg->fill, sc / sk, &clo, &chi);
		}
		out[k].p[slot] = kn > 0 ? (float)(cross / kn) : -1;
		out[k].plo[slot] = kn > 0 ? (float)(clo / kn) : -1;
		out[k].phi[slot] = kn > 0 ? (float)(chi / kn) : -1;
	}
	rc = 0;
out:
	free(ch);
	free(st);
	free(mass);
	free(cur);
	free(last);
	return rc;
}

static size_t mitosis_dims(const struct llc_region_in *in, int by_node)
{
	size_t n = by_node ? in->map->nr_nodes : in->map->nr_llcs;

	return n <= MITOSIS_MAX_LLCS ? n : 0;
}

/* A member's samples spread over the LLCs and nodes of its scx_mitosis run. */
static void mitosis_mass(const struct llc_region_in *in, const struct llc_measure_actor *a, double n,
			 double M[2][MITOSIS_MAX_LLCS])
{
	const float *d[2] = {a->mllc, a->mnode};

	for (int k = 0; k < 2; k++)
		for (size_t l = 0; d[k] && l < mitosis_dims(in, k); l++)
			M[k][l] += n * d[k][l];
}

/* The scx_mitosis model's P of a member against the others: the share of their samples on another LLC (node). */
static void mitosis_agg(const struct llc_region_in *in, const struct llc_measure_actor *a, double n, double others,
			double M[2][MITOSIS_MAX_LLCS], struct llc_region_agg *g)
{
	const float *d[2] = {a->mllc, a->mnode};

	for (int k = 0; k < 2; k++) {
		size_t slot = k ? LLC_FIG_NODE_MITOSIS : LLC_FIG_LLC_MITOSIS;
		double same = 0;

		for (size_t l = 0; d[k] && l < mitosis_dims(in, k); l++)
			same += d[k][l] * (M[k][l] - n * d[k][l]);
		g->p[slot] = others > 0 && d[k] ? (float)((others - same) / others) : 0;
		if (g->p[slot] < 0)
			g->p[slot] = 0;
		g->plo[slot] = g->phi[slot] = g->p[slot];
	}
}

/*
 * The members of one big region (mem[0..nm)) against the others in aggregate into out[0..nm), sums
 * updated. -1 on OOM.
 */
int llc_region_aggregates(const struct llc_region_in *in, const struct llc_region_member *mem, size_t nm,
			  struct llc_est_sums *sums, struct llc_region_agg *out)
{
	double N = 0, REP = 0, NL = 0, T[2][64] = {{0}}, M[2][MITOSIS_MAX_LLCS] = {{0}};
	size_t k;

	for (k = 0; k < nm; k++) {
		const struct llc_measure_actor *a = &in->act[mem[k].actor];

		N += mem[k].n;
		REP += mem[k].rep;
		NL += in->n[mem[k].actor];
		if (a->pllc >= 0 && a->pllc < 64)
			T[0][a->pllc] += mem[k].n;
		if (a->pnode >= 0 && a->pnode < 64)
			T[1][a->pnode] += mem[k].n;
		mitosis_mass(in, a, mem[k].n, M);
	}
	for (k = 0; k < nm; k++) {
		size_t i = mem[k].actor;
		const struct llc_measure_actor *a = &in->act[i];
		struct llc_region_agg *g = &out[k];
		double others = N - mem[k].n;

		g->i = i;
		g->n_rest = NL - in->n[i];
		g->hi_i = no_hit_high(others, in->n[i], REP - mem[k].rep);
		g->hi_r = no_hit_high(mem[k].n, g->n_rest, mem[k].rep);
		g->mid_i = llc_est_point_s(0, 0, g->hi_i, false);
		g->mid_r = llc_est_point_s(0, 0, g->hi_r, false);
		g->p[1] = others > 0 && a->pllc >= 0 && a->pllc < 64 ? (float)((others - (T[0][a->pllc] - mem[k].n)) / others) : 0;
		g->p[3] = others > 0 && a->pnode >= 0 && a->pnode < 64 ? (float)((others - (T[1][a->pnode] - mem[k].n)) / others)
								       : 0;
		g->plo[1] = g->phi[1] = g->p[1];
		g->plo[3] = g->phi[3] = g->p[3];
		mitosis_agg(in, a, mem[k].n, others, M, g);
		sums[i].d += g->n_rest * g->mid_r;
		sums[i].hi += g->n_rest * g->hi_r;
		sums[i].partners++;
		sums[i].positive += g->mid_i > 0;
	}
	if (agg_p(in, mem, nm, false, out, 0) < 0 || agg_p(in, mem, nm, true, out, 2) < 0)
		return -1;
	return 0;
}

