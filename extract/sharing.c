/*
 * sharing.c - TF-IDF cosine affinity between units and average-linkage
 * agglomerative clustering under a CPU cap (see sharing.h). Unit counts
 * are small (at most ~20 significant comms per group, times their hint
 * splits), so the clustering is the plain O(n^3) algorithm on a full
 * matrix; the work is in building the sparse vectors.
 */
#include "extract/sharing.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

#ifndef SHARE_MIN_DF
#define SHARE_MIN_DF 2
#endif

void evidence_free(struct evidence *e)
{
	free(e->keys);
	free(e->w);
	memset(e, 0, sizeof(*e));
}

static int add_hint_pages(struct u64cnt *acc, const struct hint_rec *h)
{
	size_t pos = 0;
	uint64_t k, v, *slot;

	while (u64cnt_next(&h->pages, &pos, &k, &v)) {
		if (!(slot = u64cnt_slot(acc, k)))
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
static int evidence_from_map(const struct u64cnt *acc, struct evidence *e)
{
	size_t pos = 0, i = 0;
	uint64_t k, v, *pairs = malloc((acc->len ? acc->len : 1) * 2 * sizeof(uint64_t));

	e->keys = malloc((acc->len ? acc->len : 1) * sizeof(*e->keys));
	e->w = malloc((acc->len ? acc->len : 1) * sizeof(*e->w));
	if (!pairs || !e->keys || !e->w) {
		free(pairs);
		evidence_free(e);
		return scx_fail("out of memory (evidence of %zu keys)", acc->len);
	}
	while (u64cnt_next(acc, &pos, &k, &v)) {
		pairs[2 * i] = k;
		pairs[2 * i + 1] = v;
		i++;
	}
	qsort(pairs, i, 2 * sizeof(uint64_t), cmp_key);
	for (e->n = 0; e->n < i; e->n++) {
		e->keys[e->n] = pairs[2 * e->n];
		e->w[e->n] = (double)pairs[2 * e->n + 1];
		e->total += e->w[e->n];
	}
	free(pairs);
	return 0;
}

int evidence_of_unit(const struct mem_agg *a, const struct unit *u, struct evidence *e)
{
	struct u64cnt acc;
	size_t s, h;
	int rc = 0;

	memset(e, 0, sizeof(*e));
	u64cnt_init(&acc);
	for (s = 0; s < u->comm->nr_srcs && !rc; s++) {
		const struct comm_rec *c = &a->groups[u->comm->srcs[s].group].comms[u->comm->srcs[s].comm];

		for (h = 0; h < c->nr_hints && !rc; h++)
			if (!u->by_hint || (c->hints[h].hint == u->hint && !c->hints[h].other))
				rc = add_hint_pages(&acc, &c->hints[h]);
	}
	if (!rc)
		rc = evidence_from_map(&acc, e);
	u64cnt_free(&acc);
	return rc;
}

/*
 * Replace raw weights by tf * idf (tf: the key's share of the unit's
 * weight) and return each unit's norm. Keys fewer than SHARE_MIN_DF units
 * touched get weight 0. The norm is that of tf * idf_max on the kept keys,
 * so cos = dot / (norm_a * norm_b) stays in [0, 1] (Cauchy-Schwarz, since
 * idf <= idf_max) but is only near 1 for memory specific to few units:
 * two units whose common memory is the background score low even though
 * their background profiles look alike.
 */
static int weigh_tf_idf(struct evidence *ev, size_t n, double *norm)
{
	struct u64cnt df;
	size_t i, j;
	uint64_t *slot;
	double idf_max = log((double)(n + 1) / SHARE_MIN_DF);

	u64cnt_init(&df);
	for (i = 0; i < n; i++)
		for (j = 0; j < ev[i].n; j++) {
			if (!(slot = u64cnt_slot(&df, ev[i].keys[j]))) {
				u64cnt_free(&df);
				return -1;
			}
			(*slot)++;
		}
	for (i = 0; i < n; i++) {
		double sum = 0;

		for (j = 0; j < ev[i].n; j++) {
			uint64_t d = *u64cnt_find(&df, ev[i].keys[j]);
			double tf = ev[i].w[j] / ev[i].total;

			ev[i].w[j] = d < SHARE_MIN_DF ? 0 : tf * log((double)(n + 1) / (double)d);
			if (d >= SHARE_MIN_DF)
				sum += tf * tf * idf_max * idf_max;
		}
		norm[i] = sqrt(sum);
	}
	u64cnt_free(&df);
	return 0;
}

static double dot(const struct evidence *a, const struct evidence *b)
{
	size_t i = 0, j = 0;
	double s = 0;

	while (i < a->n && j < b->n) {
		if (a->keys[i] < b->keys[j])
			i++;
		else if (a->keys[i] > b->keys[j])
			j++;
		else
			s += a->w[i++] * b->w[j++];
	}
	return s;
}

double *affinity_matrix(const struct evidence *ev_in, size_t n)
{
	struct evidence *ev = calloc(n ? n : 1, sizeof(*ev));
	double *norm = calloc(n ? n : 1, sizeof(*norm)), *m = calloc(n * n + 1, sizeof(*m));
	size_t i, j;

	if (!ev || !norm || !m)
		goto oom;
	for (i = 0; i < n; i++) {
		ev[i].n = ev_in[i].n;
		ev[i].total = ev_in[i].total;
		ev[i].keys = ev_in[i].keys; /* borrowed */
		ev[i].w = malloc((ev[i].n ? ev[i].n : 1) * sizeof(double));
		if (!ev[i].w)
			goto oom;
		memcpy(ev[i].w, ev_in[i].w, ev[i].n * sizeof(double));
	}
	if (weigh_tf_idf(ev, n, norm) < 0)
		goto oom;
	for (i = 0; i < n; i++) {
		m[i * n + i] = 1;
		for (j = i + 1; j < n; j++) {
			double c = norm[i] > 0 && norm[j] > 0 ? dot(&ev[i], &ev[j]) / (norm[i] * norm[j]) : 0;

			c = c > 1 ? 1 : c;
			m[i * n + j] = m[j * n + i] = c;
		}
	}
	goto out;
oom:
	scx_fail("out of memory (affinity of %zu units)", n);
	free(m);
	m = NULL;
out:
	for (i = 0; ev && i < n; i++)
		free(ev[i].w);
	free(ev);
	free(norm);
	return m;
}

/* --- average linkage --- */

struct agglo {
	size_t n;         /* units */
	double *aff;      /* cluster x cluster average affinity (indexed by first unit slot) */
	bool *refused;    /* pair already refused for the cap */
	bool *alive;
	size_t *size;     /* units per cluster */
	double *demand;
	size_t *owner;    /* unit -> cluster slot */
};

static const struct unit_list *name_units; /* qsort context */

static int unit_name_cmp(const void *x, const void *y)
{
	return strcmp(name_units->v[*(const size_t *)x].name, name_units->v[*(const size_t *)y].name);
}

/* "a+b+c" of a cluster slot's units, sorted by name (malloc'd). */
static char *cluster_name(const struct unit_list *u, const struct agglo *g, size_t slot)
{
	size_t i, k = 0, len = 1, *m = malloc(g->n * sizeof(*m));
	char *s;

	if (!m)
		return NULL;
	for (i = 0; i < g->n; i++)
		if (g->owner[i] == slot) {
			m[k++] = i;
			len += strlen(u->v[i].name) + 1;
		}
	name_units = u;
	qsort(m, k, sizeof(*m), unit_name_cmp);
	s = malloc(len);
	if (s) {
		s[0] = '\0';
		for (i = 0; i < k; i++) {
			if (i)
				strcat(s, "+");
			strcat(s, u->v[m[i]].name);
		}
	}
	free(m);
	return s;
}

static void log_top_pairs(FILE *log, const struct unit_list *u, const double *aff, size_t n)
{
	size_t shown = 0, i, j, best_i = 0, best_j = 0;
	bool *done = calloc(n * n + 1, 1);

	if (!done)
		return;
	fprintf(log, "  top shared pairs:\n");
	while (shown < 10) {
		double best = 0;

		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				if (!done[i * n + j] && aff[i * n + j] > best) {
					best = aff[i * n + j];
					best_i = i;
					best_j = j;
				}
		if (best <= 0)
			break;
		done[best_i * n + best_j] = true;
		fprintf(log, "    %s ~ %s: %.3f\n", u->v[best_i].name, u->v[best_j].name, best);
		shown++;
	}
	if (!shown)
		fprintf(log, "    (none: no unit shares memory with another)\n");
	free(done);
}

/* The best alive, not refused pair (a < b); false when none is above threshold. */
static bool best_pair(const struct agglo *g, double threshold, size_t *pa, size_t *pb, double *best)
{
	size_t a, b, n = g->n;
	bool found = false;

	*best = -1;
	for (a = 0; a < n; a++) {
		if (!g->alive[a])
			continue;
		for (b = a + 1; b < n; b++) {
			if (!g->alive[b] || g->refused[a * n + b])
				continue;
			if (g->aff[a * n + b] > *best) {
				*best = g->aff[a * n + b];
				*pa = a;
				*pb = b;
				found = true;
			}
		}
	}
	return found && *best > threshold;
}

/* Merge slot b into slot a (UPGMA update). */
static void merge_slots(struct agglo *g, size_t a, size_t b)
{
	size_t k, n = g->n;
	double sa = (double)g->size[a], sb = (double)g->size[b];

	for (k = 0; k < n; k++) {
		if (!g->alive[k] || k == a || k == b)
			continue;
		g->aff[a * n + k] = g->aff[k * n + a] = (sa * g->aff[a * n + k] + sb * g->aff[b * n + k]) / (sa + sb);
		g->refused[a * n + k] = g->refused[k * n + a] = g->refused[a * n + k] || g->refused[b * n + k];
	}
	g->size[a] += g->size[b];
	g->demand[a] += g->demand[b];
	g->alive[b] = false;
	for (k = 0; k < n; k++)
		if (g->owner[k] == b)
			g->owner[k] = a;
}

static void log_step(FILE *log, const struct unit_list *u, const struct agglo *g, size_t a, size_t b,
		     double aff, bool refused, double cap)
{
	char *na = cluster_name(u, g, a), *nb = cluster_name(u, g, b);

	if (refused)
		fprintf(log, "  refuse %s + %s: affinity %.3f, demand %.2f CPUs > cap %.2f\n", na ? na : "?",
			nb ? nb : "?", aff, g->demand[a] + g->demand[b], cap);
	else
		fprintf(log, "  merge %s + %s: affinity %.3f, demand %.2f CPUs\n", na ? na : "?", nb ? nb : "?",
			aff, g->demand[a] + g->demand[b]);
	free(na);
	free(nb);
}

static void agglomerate(struct agglo *g, const struct unit_list *u, const struct sharing_params *p, FILE *log)
{
	size_t a, b;
	double best;

	while (best_pair(g, p->threshold, &a, &b, &best)) {
		bool too_big = g->demand[a] + g->demand[b] > p->cap_cpus;

		if (log)
			log_step(log, u, g, a, b, best, too_big, p->cap_cpus);
		if (too_big)
			g->refused[a * g->n + b] = g->refused[b * g->n + a] = true;
		else
			merge_slots(g, a, b);
	}
	if (log) {
		if (best >= 0)
			fprintf(log, "  stop: best remaining affinity %.3f <= threshold %.3f\n", best, p->threshold);
		else
			fprintf(log, "  stop: no pair left to merge\n");
	}
}

static int collect_clusters(const struct agglo *g, const struct unit_list *u, struct clustering *out)
{
	size_t slot, i;

	memset(out, 0, sizeof(*out));
	out->v = calloc(g->n ? g->n : 1, sizeof(*out->v));
	if (!out->v)
		return scx_fail("out of memory");
	/* a slot is its cluster's smallest unit index, so slot order = first-unit order */
	for (slot = 0; slot < g->n; slot++) {
		struct unit_cluster *c;

		if (!g->alive[slot])
			continue;
		c = &out->v[out->n++];
		c->members = malloc(g->size[slot] * sizeof(size_t));
		if (!c->members)
			return scx_fail("out of memory");
		for (i = 0; i < g->n; i++)
			if (g->owner[i] == slot)
				c->members[c->n++] = i;
		c->demand = g->demand[slot];
		name_units = u;
		qsort(c->members, c->n, sizeof(size_t), unit_name_cmp);
	}
	return 0;
}

static void agglo_free(struct agglo *g)
{
	free(g->aff);
	free(g->refused);
	free(g->alive);
	free(g->size);
	free(g->demand);
	free(g->owner);
}

static int agglo_init(struct agglo *g, const struct unit_list *u, const struct sharing_params *p, double *aff)
{
	size_t i, n = u->n;

	memset(g, 0, sizeof(*g));
	g->n = n;
	g->aff = aff;
	g->refused = calloc(n * n + 1, sizeof(bool));
	g->alive = calloc(n ? n : 1, sizeof(bool));
	g->size = calloc(n ? n : 1, sizeof(size_t));
	g->demand = calloc(n ? n : 1, sizeof(double));
	g->owner = calloc(n ? n : 1, sizeof(size_t));
	if (!g->refused || !g->alive || !g->size || !g->demand || !g->owner)
		return scx_fail("out of memory");
	for (i = 0; i < n; i++) {
		g->alive[i] = true;
		g->size[i] = 1;
		g->owner[i] = i;
		if (p->demand)
			g->demand[i] = p->demand[i];
		else
			g->demand[i] = p->total_samples ? (double)u->v[i].count / (double)p->total_samples * p->online_cpus : 0;
	}
	return 0;
}

int sharing_cluster(const struct mem_agg *a, const struct unit_list *units, const struct sharing_params *p,
		    const char *cell_name, FILE *log, struct clustering *out)
{
	struct evidence *ev = calloc(units->n ? units->n : 1, sizeof(*ev));
	struct agglo g = {0};
	double *aff = NULL;
	size_t i;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!ev)
		return scx_fail("out of memory");
	for (i = 0; i < units->n; i++)
		if (evidence_of_unit(a, &units->v[i], &ev[i]) < 0)
			goto out;
	if (!(aff = affinity_matrix(ev, units->n)))
		goto out;
	if (log) {
		fprintf(log, "\nSharing clusters of %s: %zu units, threshold %.3f, cap %.2f CPUs, evidence %s",
			cell_name, units->n, p->threshold, p->cap_cpus, a->o.line_granularity ? "lines" : "pages");
		if (a->level)
			fprintf(log, " (sampled: 1 in %llu keys)", 1ULL << a->level);
		fputc('\n', log);
		log_top_pairs(log, units, aff, units->n);
	}
	rc = agglo_init(&g, units, p, aff);
	aff = NULL; /* owned by g */
	if (rc < 0)
		goto out;
	agglomerate(&g, units, p, log);
	rc = collect_clusters(&g, units, out);
out:
	for (i = 0; i < units->n; i++)
		evidence_free(&ev[i]);
	free(ev);
	free(aff);
	agglo_free(&g);
	if (rc)
		clustering_free(out);
	return rc;
}

void clustering_free(struct clustering *c)
{
	size_t i;

	for (i = 0; c->v && i < c->n; i++)
		free(c->v[i].members);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

char *unit_cluster_name(const struct unit_list *u, const struct unit_cluster *c)
{
	size_t i, len = 1;
	char *s;

	for (i = 0; i < c->n; i++)
		len += strlen(u->v[c->members[i]].name) + 1;
	if (!(s = malloc(len)))
		return NULL;
	s[0] = '\0';
	for (i = 0; i < c->n; i++) {
		if (i)
			strcat(s, "+");
		strcat(s, u->v[c->members[i]].name);
	}
	return s;
}
