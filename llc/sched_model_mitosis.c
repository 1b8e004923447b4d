/*
 * sched_model_mitosis.c - the scx_mitosis model: its CPU allocator, its
 * virtual LLCs, a layout of cells and subcells with the rebalancing fixed
 * point, and a run's LLCs (see sched_model_mitosis.h; the config as it
 * reads it is sched_model_mitosis_config.c).
 */
#include "llc/sched_model_mitosis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/* ---- the allocator ---- */

struct share {
	size_t id;
	double frac;
	size_t count;
	bool positive;
};

/* Stable by fraction, largest first (a sort of the reader's that keeps id order on ties). */
static void sort_by_frac(struct share *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct share x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1].frac < x.frac; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/*
 * Largest remainders: n over k recipients, base each and the other
 * n - base * k in proportion to w (floors, then the largest remainders,
 * ties in id order), into v sorted by remainder (v[i].positive: w > 0).
 * All-zero weights split n equally (the first ones one more) into out,
 * and return false.
 */
static bool apportion(size_t n, size_t base, const double *w, size_t k, struct share *v, size_t *out)
{
	double tw = 0;
	size_t i, assigned = base * k, rem;

	for (i = 0; i < k; i++)
		tw += w[i];
	if (tw <= 0) {
		for (i = 0; i < k; i++)
			out[i] = n / k + (i < n % k);
		return false;
	}
	for (i = 0; i < k; i++) {
		double f = w[i] / tw * (double)(n - base * k), fl = floor(f);

		v[i] = (struct share){i, f - fl, base + (size_t)fl, w[i] > 0};
		assigned += (size_t)fl;
	}
	rem = assigned < n ? n - assigned : 0;
	sort_by_frac(v, k);
	for (i = 0; i < k && rem; i++, rem--)
		v[i].count++;
	return true;
}

/*
 * compute_targets: each of k recipients 1 CPU, the other total - k in
 * proportion to w (floors, then the largest remainders); all-zero weights
 * split equally (the first ones one more).
 */
static void targets(size_t total, const double *w, size_t k, struct share *v, size_t *out)
{
	if (!apportion(total, 1, w, k, v, out))
		return;
	for (size_t i = 0; i < k; i++)
		out[v[i].id] = v[i].count;
}

/*
 * distribute_cpus_proportional's counts: n CPUs over k recipients in
 * proportion to w (weight 0 gets none; all zero: equal), then a recipient
 * of positive weight left at 0 takes one from the largest (the last of
 * equals, as Iterator::max_by_key picks) that has more than one.
 */
static void distribute(size_t n, const double *w, size_t k, struct share *v, size_t *out)
{
	size_t i;

	if (!apportion(n, 0, w, k, v, out))
		return;
	for (;;) {
		size_t starved = k, donor = k;

		for (i = 0; i < k && starved == k; i++)
			if (v[i].positive && !v[i].count)
				starved = i;
		if (starved == k)
			break;
		for (i = 0; i < k; i++)
			if (v[i].count > 1 && (donor == k || v[i].count >= v[donor].count))
				donor = i;
		if (donor == k)
			break;
		v[donor].count--;
		v[starved].count++;
	}
	for (i = 0; i < k; i++)
		out[v[i].id] = v[i].count;
}

static bool in_set(const int *set, size_t n, int cpu)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == cpu)
			return true;
	return false;
}

/* Give cpus[0..n) to the recipients ids[0..k) (ascending) in runs by the counts of w. */
static void give(const int *cpus, size_t n, const size_t *ids, const double *w, size_t k, struct share *v,
		 size_t *cnt, const int *domain, size_t nd, int *owner, size_t *assigned)
{
	size_t i, c = 0;

	distribute(n, w, k, v, cnt);
	for (i = 0; i < k; i++)
		for (size_t m = 0; m < cnt[i] && c < n; m++, c++) {
			for (size_t d = 0; d < nd; d++)
				if (domain[d] == cpus[c])
					owner[d] = (int)ids[i];
			assigned[ids[i]]++;
		}
}

int mitosis_allocate(const int *domain, size_t n, const struct mitosis_recipient *r, size_t nr, int *owner)
{
	size_t *nclaim = calloc(n + 1, sizeof(size_t)), *assigned = calloc(nr + 1, sizeof(size_t));
	size_t *target = calloc(nr + 1, sizeof(size_t)), *choices = calloc(nr + 1, sizeof(size_t));
	size_t *ids = calloc(nr + 1, sizeof(size_t)), *cnt = calloc(nr + 1, sizeof(size_t));
	double *w = calloc(nr + 1, sizeof(double)), *deficit = calloc(nr + 1, sizeof(double));
	struct share *v = calloc(nr + 1, sizeof(*v));
	int *cpus = calloc(n + 1, sizeof(int));
	bool *done = calloc(n + 1, sizeof(bool));
	size_t i, k, j;
	int rc = -1;

	if (!nclaim || !assigned || !target || !choices || !ids || !cnt || !w || !deficit || !v || !cpus || !done) {
		scx_fail("out of memory");
		goto out;
	}
	if (!nr || n < nr) {
		scx_fail("not enough CPUs (%zu) for %zu recipients (need at least 1 each)", n, nr);
		goto out;
	}
	for (k = 0; k < n; k++) {
		owner[k] = -1;
		for (i = 0; i < nr; i++)
			nclaim[k] += r[i].cpuset && in_set(r[i].cpuset, r[i].nr_cpuset, domain[k]);
	}
	/* exclusive claims */
	for (k = 0; k < n; k++)
		if (nclaim[k] == 1)
			for (i = 0; i < nr; i++)
				if (r[i].cpuset && in_set(r[i].cpuset, r[i].nr_cpuset, domain[k])) {
					owner[k] = (int)i;
					assigned[i]++;
					done[k] = true;
				}
	/* contested CPUs first give each claimant still at 0 one (fewest alternatives, then lowest id) */
	for (k = 0; k < n; k++)
		if (nclaim[k] > 1)
			for (i = 0; i < nr; i++)
				choices[i] += r[i].cpuset && in_set(r[i].cpuset, r[i].nr_cpuset, domain[k]);
	for (k = 0; k < n; k++) {
		size_t best = nr;

		if (nclaim[k] < 2)
			continue;
		for (i = 0; i < nr; i++)
			if (r[i].cpuset && in_set(r[i].cpuset, r[i].nr_cpuset, domain[k]) && !r[i].root && !assigned[i] &&
			    (best == nr || choices[i] < choices[best]))
				best = i;
		if (best < nr) {
			owner[k] = (int)best;
			assigned[best]++;
			done[k] = true;
		}
	}
	for (i = 0; i < nr; i++)
		w[i] = r[i].weight;
	targets(n, w, nr, v, target);
	for (i = 0; i < nr; i++)
		deficit[i] = target[i] > assigned[i] ? (double)(target[i] - assigned[i]) : 0;
	/* the rest of the contested CPUs, per set of claimants, by the deficits before any of them */
	for (k = 0; k < n; k++) {
		size_t nc = 0, m = 0;
		bool all_zero = true;

		if (nclaim[k] < 2 || done[k])
			continue;
		for (i = 0; i < nr; i++)
			if (r[i].cpuset && in_set(r[i].cpuset, r[i].nr_cpuset, domain[k])) {
				ids[m] = i;
				w[m] = deficit[i];
				all_zero &= deficit[i] <= 0;
				m++;
			}
		for (j = k; j < n; j++) { /* the group: the CPUs claimed by exactly these */
			bool same = nclaim[j] == m && !done[j];

			for (i = 0; same && i < m; i++)
				same = in_set(r[ids[i]].cpuset, r[ids[i]].nr_cpuset, domain[j]);
			if (same) {
				cpus[nc++] = domain[j];
				done[j] = true;
			}
		}
		if (all_zero)
			for (i = 0; i < m; i++)
				w[i] = 1;
		give(cpus, nc, ids, w, m, v, cnt, domain, n, owner, assigned);
	}
	/* the unclaimed CPUs, ascending, to the unpinned recipients by deficit, ids ascending */
	{
		size_t nc = 0, m = 0;
		bool all_zero = true;

		for (k = 0; k < n; k++)
			if (!nclaim[k])
				cpus[nc++] = domain[k];
		for (i = 0; i < nr; i++)
			if (!r[i].cpuset) {
				ids[m] = i;
				w[m] = target[i] > assigned[i] ? (double)(target[i] - assigned[i]) : 0;
				all_zero &= w[m] <= 0;
				m++;
			}
		if (nc && !m) {
			scx_fail("%zu CPUs claimed by no cpuset and no unpinned recipient to take them", nc);
			goto out;
		}
		if (all_zero)
			for (i = 0; i < m; i++)
				w[i] = 1;
		if (nc)
			give(cpus, nc, ids, w, m, v, cnt, domain, n, owner, assigned);
	}
	for (i = 0; i < nr; i++)
		if (!assigned[i]) {
			scx_fail("recipient %zu would get no CPU (%zu CPUs, %zu recipients)", i, n, nr);
			goto out;
		}
	rc = 0;
out:
	free(nclaim);
	free(assigned);
	free(target);
	free(choices);
	free(ids);
	free(cnt);
	free(w);
	free(deficit);
	free(v);
	free(cpus);
	free(done);
	return rc;
}

/* ---- virtual LLCs ---- */

size_t mitosis_split_size(size_t total, size_t min, size_t max)
{
	size_t best = min;

	if (total <= min)
		return total;
	for (size_t s = min; s <= max; s++) {
		if (total % s == 0)
			return s;
		if (total % s < total % best)
			best = s;
	}
	return best;
}

int mitosis_virt_llcs(const struct mitosis_topo *t, unsigned min, unsigned max, int *vllc_of)
{
	int *core_idx = malloc((t->nr_cpus + 1) * sizeof(int));
	int next = 0;

	if (!core_idx)
		return scx_fail("out of memory");
	if (!min || min > max) {
		free(core_idx);
		return scx_fail("--virt-llc %u-%u: the minimum must be at least 1 and at most the maximum", min, max);
	}
	for (size_t c = 0; c < t->nr_cpus; c++)
		vllc_of[c] = -1;
	for (size_t l = 0; l < t->nr_llcs; l++) {
		size_t ncores = 0, best, parts;

		/* the LLC's cores, numbered by their lowest CPU */
		for (size_t c = 0; c < t->nr_cpus; c++) {
			core_idx[c] = -1;
			if (t->llc_of[c] != (int)l)
				continue;
			for (size_t d = 0; d < c && core_idx[c] < 0; d++)
				if (t->llc_of[d] == (int)l && t->core_of && t->core_of[c] >= 0 && t->core_of[d] == t->core_of[c])
					core_idx[c] = core_idx[d];
			if (core_idx[c] < 0)
				core_idx[c] = (int)ncores++;
		}
		if (!ncores)
			continue;
		best = mitosis_split_size(ncores, min, max);
		parts = ncores / best;
		for (size_t c = 0; c < t->nr_cpus; c++)
			if (core_idx[c] >= 0) {
				size_t p = (size_t)core_idx[c] / best;

				vllc_of[c] = next + (int)(p < parts - 1 ? p : parts - 1);
			}
		next += (int)parts;
	}
	free(core_idx);
	return next;
}

/* ---- a layout ---- */

static void run_free(struct mitosis_run *r)
{
	free(r->cpus);
	r->cpus = NULL;
	r->n = 0;
}

void mitosis_layout_free(struct mitosis_layout *l)
{
	for (size_t i = 0; l->cells && i < l->nr_cells; i++) {
		struct mitosis_cell_out *c = &l->cells[i];

		run_free(&c->cpus);
		for (size_t j = 0; c->subs && j < c->nr_subs; j++)
			run_free(&c->subs[j]);
		free(c->subs);
		free(c->sub_weight);
	}
	free(l->cells);
	free(l->domain_of);
	memset(l, 0, sizeof(*l));
}

/* The recipients' runs out of owner[]: runs[i] = the domain CPUs owner gives i. */
static int runs_of(const int *domain, size_t n, const int *owner, struct mitosis_run *runs, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		runs[i].n = 0;
		free(runs[i].cpus);
		if (!(runs[i].cpus = malloc((n + 1) * sizeof(int))))
			return scx_fail("out of memory");
	}
	for (size_t k = 0; k < n; k++)
		if (owner[k] >= 0 && (size_t)owner[k] < nr)
			runs[owner[k]].cpus[runs[owner[k]].n++] = domain[k];
	return 0;
}

/* One round: cells by wc, each cell's subcells by ws (NULL rows: equal). */
static int lay_out(const int *online, size_t nonline, const struct mitosis_cell_in *in, size_t nr,
		   const double *wc, double *const *ws, struct mitosis_layout *out, int *owner,
		   struct mitosis_recipient *rec)
{
	size_t i, j, maxsubs = 1;

	for (i = 0; i < nr; i++) {
		rec[i] = (struct mitosis_recipient){wc[i], in[i].cpuset, in[i].nr_cpuset, i == 0};
		if (in[i].nr_subs > maxsubs)
			maxsubs = in[i].nr_subs;
	}
	if (mitosis_allocate(online, nonline, rec, nr, owner) < 0)
		return -1;
	{
		struct mitosis_run *cr = calloc(nr + 1, sizeof(*cr));
		int rc = 0;

		if (!cr)
			return scx_fail("out of memory");
		if (runs_of(online, nonline, owner, cr, nr) < 0)
			rc = -1;
		for (i = 0; i < nr; i++) {
			if (!rc) {
				free(out->cells[i].cpus.cpus);
				out->cells[i].cpus = cr[i];
				out->cells[i].weight = wc[i];
			} else {
				run_free(&cr[i]);
			}
		}
		free(cr);
		if (rc)
			return -1;
	}
	for (i = 0; i < nr; i++) {
		struct mitosis_cell_out *c = &out->cells[i];

		for (j = 0; j < in[i].nr_subs; j++) {
			rec[j] = (struct mitosis_recipient){ws[i][j], NULL, 0, false};
			c->sub_weight[j] = ws[i][j];
		}
		if (mitosis_allocate(c->cpus.cpus, c->cpus.n, rec, in[i].nr_subs, owner) < 0) {
			scx_fail_prefix("cell %zu (%zu CPUs, %zu subcells)", i, c->cpus.n, in[i].nr_subs);
			return -1;
		}
		if (runs_of(c->cpus.cpus, c->cpus.n, owner, c->subs, in[i].nr_subs) < 0)
			return -1;
	}
	return 0;
}

static bool same_layout(const struct mitosis_layout *a, const size_t *prev, size_t nprev)
{
	size_t k = 0;

	for (size_t i = 0; i < a->nr_cells; i++) {
		if (k >= nprev || prev[k++] != a->cells[i].cpus.n)
			return false;
		for (size_t j = 0; j < a->cells[i].nr_subs; j++)
			if (k >= nprev || prev[k++] != a->cells[i].subs[j].n)
				return false;
	}
	return k == nprev;
}

#define MITOSIS_MAX_ROUNDS 500

int mitosis_layout(const struct mitosis_topo *t, const struct mitosis_opts *o, const struct mitosis_cell_in *in,
		   size_t nr, struct mitosis_layout *out)
{
	int *online = NULL, *owner = NULL;
	double *wc = NULL, *uc = NULL, **ws = NULL, **us = NULL, *dc = NULL;
	size_t *prev = NULL, nonline = 0, nprev = 0, i, j, stable = 0;
	struct mitosis_recipient *rec = NULL;
	size_t maxr = nr;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (o->vllc_min && !o->llc_aware)
		return scx_fail("--virt-llc requires LLC awareness (the reader refuses it without)");
	if (!(out->domain_of = malloc((t->nr_cpus + 1) * sizeof(int))))
		return scx_fail("out of memory");
	if (o->vllc_min) {
		int nd = mitosis_virt_llcs(t, o->vllc_min, o->vllc_max, out->domain_of);

		if (nd < 0)
			goto out;
		out->nr_domains = (size_t)nd;
	} else {
		memcpy(out->domain_of, t->llc_of, t->nr_cpus * sizeof(int));
		out->nr_domains = t->nr_llcs;
	}
	if (out->nr_domains > MITOSIS_MAX_LLCS) {
		scx_fail("%zu LLC domains, the reader supports at most %d (a larger --virt-llc core range)",
			 out->nr_domains, MITOSIS_MAX_LLCS);
		goto out;
	}
	for (i = 0; i < nr; i++)
		if (in[i].nr_subs > maxr)
			maxr = in[i].nr_subs;
	if (!(online = malloc((t->nr_cpus + 1) * sizeof(int))) || !(owner = malloc((t->nr_cpus + 1) * sizeof(int))) ||
	    !(wc = calloc(nr + 1, sizeof(double))) || !(uc = calloc(nr + 1, sizeof(double))) ||
	    !(dc = calloc(nr + 1, sizeof(double))) || !(ws = calloc(nr + 1, sizeof(double *))) ||
	    !(us = calloc(nr + 1, sizeof(double *))) || !(rec = calloc(maxr + 1, sizeof(*rec))) ||
	    !(out->cells = calloc(nr + 1, sizeof(*out->cells)))) {
		scx_fail("out of memory");
		goto out;
	}
	out->nr_cells = nr;
	for (i = 0; i < nr; i++) {
		size_t ns = in[i].nr_subs ? in[i].nr_subs : 1;

		if (!(ws[i] = calloc(ns, sizeof(double))) || !(us[i] = calloc(ns, sizeof(double))) ||
		    !(out->cells[i].subs = calloc(ns, sizeof(struct mitosis_run))) ||
		    !(out->cells[i].sub_weight = calloc(ns, sizeof(double)))) {
			scx_fail("out of memory");
			goto out;
		}
		out->cells[i].nr_subs = in[i].nr_subs;
		for (j = 0; j < in[i].nr_subs; j++) {
			ws[i][j] = 1;
			dc[i] += in[i].sub_demand ? in[i].sub_demand[j] : 0;
		}
		wc[i] = 1;
		nprev += 1 + in[i].nr_subs;
	}
	for (size_t c = 0; c < t->nr_cpus; c++)
		if (t->llc_of[c] >= 0)
			online[nonline++] = (int)c;
	if (!(prev = calloc(nprev + 1, sizeof(size_t)))) {
		scx_fail("out of memory");
		goto out;
	}
	nprev = 0;
	for (out->rounds = 1;; out->rounds++) {
		bool any_c = false;

		if (lay_out(online, nonline, in, nr, wc, ws, out, owner, rec) < 0)
			goto out;
		if (!o->rebalancing) {
			out->converged = true;
			break;
		}
		stable = same_layout(out, prev, nprev) ? stable + 1 : 0;
		if (stable >= 20 || out->rounds >= MITOSIS_MAX_ROUNDS) {
			out->converged = stable >= 20;
			break;
		}
		nprev = 0;
		for (i = 0; i < nr; i++) {
			const struct mitosis_cell_out *c = &out->cells[i];
			double ncell = (double)c->cpus.n, run = dc[i] < ncell ? dc[i] : ncell;
			double scale = dc[i] > ncell && dc[i] > 0 ? ncell / dc[i] : 1;
			bool any_s = false;

			prev[nprev++] = c->cpus.n;
			uc[i] = MITOSIS_DEMAND_SMOOTHING * (100.0 * run / ncell) + (1 - MITOSIS_DEMAND_SMOOTHING) * uc[i];
			any_c |= uc[i] > 0;
			for (j = 0; j < in[i].nr_subs; j++) {
				double d = (in[i].sub_demand ? in[i].sub_demand[j] : 0) * scale;

				prev[nprev++] = c->subs[j].n;
				us[i][j] = MITOSIS_DEMAND_SMOOTHING * (100.0 * d / (double)c->subs[j].n) +
					   (1 - MITOSIS_DEMAND_SMOOTHING) * us[i][j];
				any_s |= us[i][j] > 0;
			}
			for (j = 0; j < in[i].nr_subs; j++)
				ws[i][j] = any_s ? us[i][j] : 1;
		}
		/* the cells' weights are their utilisations (all zero: the allocator splits equally) */
		for (i = 0; i < nr; i++)
			wc[i] = uc[i];
		(void)any_c;
	}
	rc = 0;
out:
	if (rc)
		mitosis_layout_free(out);
	for (i = 0; ws && i < nr; i++)
		free(ws[i]);
	for (i = 0; us && i < nr; i++)
		free(us[i]);
	free(ws);
	free(us);
	free(wc);
	free(uc);
	free(dc);
	free(prev);
	free(rec);
	free(online);
	free(owner);
	return rc;
}

void mitosis_run_dist(const struct mitosis_topo *t, const struct mitosis_run *run, float *llc, float *node)
{
	if (llc)
		for (size_t l = 0; l < t->nr_llcs; l++)
			llc[l] = 0;
	if (node)
		for (size_t l = 0; l < t->nr_nodes; l++)
			node[l] = 0;
	for (size_t k = 0; k < run->n; k++) {
		int c = run->cpus[k];

		if (c < 0 || (size_t)c >= t->nr_cpus)
			continue;
		if (llc && t->llc_of[c] >= 0 && (size_t)t->llc_of[c] < t->nr_llcs)
			llc[t->llc_of[c]] += 1.0f / (float)run->n;
		if (node && t->node_of && t->node_of[c] >= 0 && (size_t)t->node_of[c] < t->nr_nodes)
			node[t->node_of[c]] += 1.0f / (float)run->n;
	}
}

double mitosis_pcross(const float *a, const float *b, size_t n)
{
	double same = 0;

	for (size_t l = 0; l < n; l++)
		same += (double)a[l] * (double)b[l];
	return same >= 1 ? 0 : 1 - same;
}
