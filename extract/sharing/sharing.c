/*
 * sharing.c - average-linkage agglomerative clustering of units under a
 * CPU cap (see sharing.h), and its -v explanation. Unit counts are small
 * (at most ~20 significant comms per group, times their hint splits), so
 * the clustering is the plain O(n^3) algorithm on a full matrix; the
 * evidence vectors and affinities are in sharing_evidence.c and
 * sharing_lines.c.
 */
#include "extract/sharing/sharing.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/* --- average linkage --- */

/* A cluster slot: the cluster whose smallest unit index is the slot's. */
struct slot {
	bool alive;
	size_t size;      /* units */
	double demand;    /* CPUs */
};

/* A merge done (with evidence): its evidence, the slot it merged into. */
struct done_merge {
	struct sharing_merge m;
	size_t slot;
};

struct agglo {
	size_t n;         /* units (and slots) */
	const double *unit_aff;       /* unit x unit affinity (for -v: the strongest link) */
	const struct evidence *ev;    /* per unit */
	const struct u64map *df;
	const struct mem_agg *agg;
	const struct sharing_params *p;
	double *aff;      /* cluster x cluster average affinity (indexed by first unit slot) */
	bool *refused;    /* pair already refused for the cap */
	struct slot *slots;
	size_t *owner;    /* unit -> cluster slot */
	double duration_s; /* of the samples (-v: seconds more that would decide) */
	struct done_merge *merges; /* with evidence (ev): each merge done, in order */
	size_t nmerges;
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

/* The best alive, not refused pair (a < b); false when none is above threshold. */
static bool best_pair(const struct agglo *g, double threshold, size_t *pa, size_t *pb, double *best)
{
	size_t a, b, n = g->n;
	bool found = false;

	*best = -1;
	for (a = 0; a < n; a++) {
		if (!g->slots[a].alive)
			continue;
		for (b = a + 1; b < n; b++) {
			if (!g->slots[b].alive || g->refused[a * n + b])
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
	double sa = (double)g->slots[a].size, sb = (double)g->slots[b].size;

	for (k = 0; k < n; k++) {
		if (!g->slots[k].alive || k == a || k == b)
			continue;
		g->aff[a * n + k] = g->aff[k * n + a] = (sa * g->aff[a * n + k] + sb * g->aff[b * n + k]) / (sa + sb);
		g->refused[a * n + k] = g->refused[k * n + a] = g->refused[a * n + k] || g->refused[b * n + k];
	}
	g->slots[a].size += g->slots[b].size;
	g->slots[a].demand += g->slots[b].demand;
	g->slots[b].alive = false;
	for (k = 0; k < n; k++)
		if (g->owner[k] == b)
			g->owner[k] = a;
}

/* The member pair (x in slot a, y in slot b) with the highest unit affinity. */
static void strongest_link(const struct agglo *g, size_t a, size_t b, size_t *x, size_t *y)
{
	double best = -1;

	for (size_t i = 0; i < g->n; i++)
		for (size_t j = 0; j < g->n; j++)
			if (g->owner[i] == a && g->owner[j] == b && g->unit_aff[i * g->n + j] > best) {
				best = g->unit_aff[i * g->n + j];
				*x = i;
				*y = j;
			}
}

struct obj_weight {
	size_t obj;
	double w;
};

static int obj_cmp(const void *x, const void *y)
{
	const struct obj_weight *a = x, *b = y;

	return a->w < b->w ? 1 : a->w > b->w ? -1 : (a->obj > b->obj) - (a->obj < b->obj);
}

/* The evidence of the link x ~ y into m (pe, objects); the caller sets the rest. */
static void link_evidence(const struct agglo *g, size_t x, size_t y, struct sharing_merge *m)
{
	const struct evidence *a = &g->ev[x], *b = &g->ev[y];
	struct obj_weight *ow = NULL;
	size_t i = 0, j = 0, nobj = 0, k;
	double total = 0;

	m->x = x;
	m->y = y;
	m->nobj = 0;
	m->obj_total = 0;
	sharing_pair_evidence_at(a, b, g->df, g->n, g->p, &m->pe);
	/* the objects (data_map data_sym) of the shared identities, by weight */
	while (g->agg && g->agg->nr_objects && i < a->n && j < b->n) {
		uint64_t ia = EV_OBJECT(a->keys[i]), ib = EV_OBJECT(b->keys[j]);
		size_t obj;

		if (ia != ib) {
			ia < ib ? i++ : j++;
			continue;
		}
		obj = mem_agg_object(g->agg, ia);
		for (; i < a->n && EV_OBJECT(a->keys[i]) == ia; i++) {
			for (k = 0; k < nobj && ow[k].obj != obj; k++)
				;
			if (k == nobj) {
				struct obj_weight *t = realloc(ow, (nobj + 1) * sizeof(*ow));

				if (!t)
					break;
				ow = t;
				ow[nobj++] = (struct obj_weight){obj, 0};
			}
			ow[k].w += a->w[i];
			total += a->w[i];
		}
		while (j < b->n && EV_OBJECT(b->keys[j]) == ib)
			j++;
	}
	if (nobj && total > 0) {
		qsort(ow, nobj, sizeof(*ow), obj_cmp);
		for (k = 0; k < nobj && k < SHARING_LINK_OBJECTS; k++) {
			m->obj[k].obj = ow[k].obj;
			m->obj[k].weight = ow[k].w;
		}
		m->nobj = k;
		m->obj_total = total;
	}
	free(ow);
}

/* "    a ~ b: K shared keys, ... ; objects: X 60%, Y 30%" */
static void log_link(FILE *log, const struct unit_list *u, const struct agglo *g, const struct sharing_merge *m)
{
	const struct pair_evidence *pe = &m->pe;

	fprintf(log, "    %s ~ %s: %zu shared keys, %llu + %llu samples; %.1f%% of %s's weight, %.1f%% of %s's",
		u->v[m->x].name, u->v[m->y].name, pe->keys, (unsigned long long)pe->samples_a,
		(unsigned long long)pe->samples_b, pe->share_a * 100, u->v[m->x].name, pe->share_b * 100,
		u->v[m->y].name);
	if (m->nobj) {
		fprintf(log, "; objects:");
		for (size_t k = 0; k < m->nobj; k++)
			fprintf(log, "%s %s %.0f%%", k ? "," : "",
				m->obj[k].obj ? mem_agg_object_name(g->agg, m->obj[k].obj) : "(unknown)",
				m->obj[k].weight * 100 / m->obj_total);
	}
	fputc('\n', log);
	sharing_log_line_detail(log, "      ", pe, g->p, g->duration_s);
}

/* One step; m: its merge with the link's evidence (NULL without evidence vectors). */
static void log_step(FILE *log, const struct unit_list *u, const struct agglo *g, size_t a, size_t b,
		     double aff, bool refused, double cap, const struct sharing_merge *m)
{
	char *na = cluster_name(u, g, a), *nb = cluster_name(u, g, b);

	if (refused)
		fprintf(log, "  refuse %s + %s: affinity %.3f, demand %.2f CPUs > cap %.2f\n", na ? na : "?",
			nb ? nb : "?", aff, g->slots[a].demand + g->slots[b].demand, cap);
	else
		fprintf(log, "  merge %s + %s: affinity %.3f, demand %.2f CPUs\n", na ? na : "?", nb ? nb : "?",
			aff, g->slots[a].demand + g->slots[b].demand);
	if (m)
		log_link(log, u, g, m);
	free(na);
	free(nb);
}

static void agglomerate(struct agglo *g, const struct unit_list *u, const struct sharing_params *p, FILE *log)
{
	size_t a, b;
	double best;

	while (best_pair(g, p->threshold, &a, &b, &best)) {
		bool too_big = g->slots[a].demand + g->slots[b].demand > p->cap_cpus;
		struct sharing_merge step = {.affinity = best, .demand = g->slots[a].demand + g->slots[b].demand}, *m = NULL;

		if (g->ev) {
			size_t x = a, y = b;

			/* a merge's evidence goes to its cluster; a refused one's only to -v */
			m = too_big ? &step : &g->merges[g->nmerges].m;
			*m = step;
			strongest_link(g, a, b, &x, &y);
			link_evidence(g, x, y, m);
		}
		if (log)
			log_step(log, u, g, a, b, best, too_big, p->cap_cpus, m);
		if (too_big) {
			g->refused[a * g->n + b] = g->refused[b * g->n + a] = true;
		} else {
			if (g->ev)
				g->merges[g->nmerges++].slot = a;
			merge_slots(g, a, b);
		}
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

		if (!g->slots[slot].alive)
			continue;
		c = &out->v[out->n++];
		c->members = malloc(g->slots[slot].size * sizeof(size_t));
		if (!c->members)
			return scx_fail("out of memory");
		for (i = 0; i < g->n; i++)
			if (g->owner[i] == slot)
				c->members[c->n++] = i;
		c->demand = g->slots[slot].demand;
		name_units = u;
		qsort(c->members, c->n, sizeof(size_t), unit_name_cmp);
		for (i = 0; i < g->nmerges; i++)
			c->nmerges += g->owner[g->merges[i].slot] == slot;
		if (c->nmerges && !(c->merges = malloc(c->nmerges * sizeof(*c->merges))))
			return scx_fail("out of memory");
		c->nmerges = 0;
		for (i = 0; i < g->nmerges; i++)
			if (g->owner[g->merges[i].slot] == slot)
				c->merges[c->nmerges++] = g->merges[i].m;
	}
	return 0;
}

static void agglo_free(struct agglo *g)
{
	free(g->aff);
	free((void *)g->unit_aff);
	free(g->refused);
	free(g->slots);
	free(g->owner);
	free(g->merges);
}

static int agglo_init(struct agglo *g, const struct unit_list *u, const struct sharing_params *p, double *aff)
{
	size_t i, n = u->n;

	memset(g, 0, sizeof(*g));
	g->n = n;
	g->aff = aff;
	g->refused = calloc(n * n + 1, sizeof(bool));
	g->slots = calloc(n ? n : 1, sizeof(*g->slots));
	g->owner = calloc(n ? n : 1, sizeof(size_t));
	g->merges = calloc(n ? n : 1, sizeof(*g->merges));
	if (!g->refused || !g->slots || !g->owner || !g->merges)
		return scx_fail("out of memory");
	for (i = 0; i < n; i++) {
		g->slots[i] = (struct slot){.alive = true, .size = 1};
		g->owner[i] = i;
		if (p->demand)
			g->slots[i].demand = p->demand[i];
		else
			g->slots[i].demand = p->total_samples ? (double)u->v[i].count / (double)p->total_samples * p->online_cpus : 0;
	}
	return 0;
}

static double normal_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2));
}

static double duration_s(const struct mem_agg *a)
{
	return a->last_ns > a->first_ns ? (double)(a->last_ns - a->first_ns) / 1e9 : 0;
}

static void log_header(FILE *log, const struct mem_agg *a, const struct unit_list *units,
		       const struct sharing_params *p, const char *cell_name)
{
	fprintf(log, "\nSharing clusters of %s: %zu units, threshold %.3f, cap %.2f CPUs, evidence %s",
		cell_name, units->n, p->threshold, p->cap_cpus, a->o.line_granularity ? "lines" : "pages");
	if (a->level)
		fprintf(log, " (sampled: 1 in %llu keys)", 1ULL << a->level);
	fputc('\n', log);
	fprintf(log, "  evidence rules: same data (data_id, else physical page) in the same or adjacent %.1f s epoch "
		     "(physical page: %.1f s; kernel pages: %.1f s, weight 1/%d); at least %zu shared keys and %llu "
		     "samples a side, or %llu samples a side on fewer keys\n",
		(double)EV_EPOCH_NS / 1e9, (double)EV_PHYS_EPOCH_NS / 1e9, (double)EV_KERNEL_EPOCH_NS / 1e9,
		EV_SCALE_USER / EV_SCALE_KERNEL,
		p->min_keys, (unsigned long long)p->min_samples,
		(unsigned long long)(p->min_keys ? p->min_keys : 1) * p->min_samples);
	fprintf(log, "  line evidence (A:/F: data): 64-byte lines touched by both within %u s; shared fraction = samples on "
		     "the other's lines / the other's recapture rate; shared when its %.1f%% lower bound is above %.3f, "
		     "apart when the upper bound is not, else cannot tell (not merged)\n",
		p->window ? p->window : SHARE_WINDOW_EPOCHS, 100 * normal_cdf(p->z > 0 ? p->z : SHARE_Z_DEFAULT),
		p->threshold);
}

/* A copy of the n x n matrix aff (the agglomeration changes the first); NULL (scx_fail) on OOM. */
static double *copy_matrix(const double *aff, size_t n)
{
	double *m = malloc((n * n + 1) * sizeof(double));

	if (!m)
		scx_fail("out of memory");
	else
		memcpy(m, aff, n * n * sizeof(double));
	return m;
}

/*
 * Every pair's evidence, once: -v's pair lines (log) and, with
 * p->keep_undecided, the pairs the line evidence cannot tell into
 * *undecided (unit order, malloc'ed; *nr of them). -1 (scx_fail) on OOM.
 */
static int pair_pass(const struct mem_agg *a, const struct unit_list *units, const struct sharing_params *p,
		     const char *cell_name, const struct evidence *ev, const struct u64map *df, FILE *log,
		     struct sharing_pair **undecided, size_t *nr)
{
	size_t n = units->n, i, j, nu = 0;
	struct pair_evidence *pe = calloc(n * n + 1, sizeof(*pe));
	int rc = 0;

	if (!pe)
		return scx_fail("out of memory");
	if (log)
		log_header(log, a, units, p, cell_name);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			sharing_pair_evidence_at(&ev[i], &ev[j], df, n, p, &pe[i * n + j]);
			nu += pe[i * n + j].line.verdict == SHARING_CANNOT_TELL;
		}
	if (log)
		rc = sharing_log_pairs(log, units, pe, n, p, duration_s(a));
	if (!rc && p->keep_undecided && nu) {
		if (!(*undecided = calloc(nu, sizeof(**undecided))))
			rc = scx_fail("out of memory");
		for (i = 0; !rc && i < n; i++)
			for (j = i + 1; j < n; j++)
				if (pe[i * n + j].line.verdict == SHARING_CANNOT_TELL)
					(*undecided)[(*nr)++] = (struct sharing_pair){.a = i, .b = j, .pe = pe[i * n + j]};
	}
	free(pe);
	return rc;
}

int sharing_cluster(const struct mem_agg *a, const struct unit_list *units, const struct sharing_params *p,
		    const char *cell_name, FILE *log, struct clustering *out)
{
	struct evidence *ev = calloc(units->n ? units->n : 1, sizeof(*ev));
	struct agglo g = {0};
	struct u64map df;
	double *aff = NULL, *unit_aff = NULL, *keep = NULL;
	struct sharing_pair *undecided = NULL;
	size_t i, n = units->n, nr_undecided = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	u64map_init_cap(&df, U64MAP_SMALL);
	if (!ev)
		return scx_fail("out of memory");
	for (i = 0; i < n; i++)
		if (sharing_evidence_of_unit(a, &units->v[i], &ev[i]) < 0)
			goto out;
	if (sharing_evidence_df(ev, n, &df) < 0) { /* the matrix's and each merge's evidence */
		scx_fail("out of memory");
		goto out;
	}
	if (!(aff = sharing_affinity_matrix_df(ev, n, &df, p)))
		goto out;
	if (!(unit_aff = malloc((n * n + 1) * sizeof(double)))) {
		scx_fail("out of memory");
		goto out;
	}
	memcpy(unit_aff, aff, n * n * sizeof(double));
	if ((log || p->keep_undecided) &&
	    pair_pass(a, units, p, cell_name, ev, &df, log, &undecided, &nr_undecided) < 0)
		goto out;
	if (!(keep = copy_matrix(aff, n)))
		goto out;
	rc = agglo_init(&g, units, p, aff);
	aff = NULL; /* owned by g */
	g.unit_aff = unit_aff;
	unit_aff = NULL;
	g.duration_s = duration_s(a);
	g.ev = ev;
	g.df = &df;
	g.agg = a;
	g.p = p;
	if (rc < 0)
		goto out;
	agglomerate(&g, units, p, log);
	rc = collect_clusters(&g, units, out);
	if (!rc) {
		out->unit_aff = keep;
		out->nr_units = n;
		out->duration_s = duration_s(a);
		out->undecided = undecided;
		out->nr_undecided = nr_undecided;
		keep = NULL;
		undecided = NULL;
	}
out:
	for (i = 0; i < n; i++)
		sharing_evidence_free(&ev[i]);
	free(ev);
	free(aff);
	free(unit_aff);
	free(keep);
	free(undecided);
	u64map_free(&df);
	agglo_free(&g);
	if (rc)
		sharing_clustering_free(out);
	return rc;
}

int sharing_cluster_matrix(const struct unit_list *units, const double *aff, const struct sharing_params *p,
			   FILE *log, struct clustering *out)
{
	size_t n = units->n;
	double *m = malloc((n * n + 1) * sizeof(*m));
	struct agglo g = {0};
	int rc;

	memset(out, 0, sizeof(*out));
	if (!m)
		return scx_fail("out of memory");
	memcpy(m, aff, n * n * sizeof(*m));
	rc = agglo_init(&g, units, p, m);
	if (!rc) {
		agglomerate(&g, units, p, log);
		rc = collect_clusters(&g, units, out);
	}
	if (!rc && (out->unit_aff = copy_matrix(aff, n)))
		out->nr_units = n;
	else if (!rc)
		rc = -1;
	agglo_free(&g);
	if (rc)
		sharing_clustering_free(out);
	return rc;
}

void sharing_clustering_free(struct clustering *c)
{
	size_t i;

	for (i = 0; c->v && i < c->n; i++) {
		free(c->v[i].members);
		free(c->v[i].merges);
	}
	free(c->v);
	free(c->unit_aff);
	free(c->undecided);
	memset(c, 0, sizeof(*c));
}

void sharing_cluster_pair_affinity(struct unit_cluster *c, const double *aff, size_t n)
{
	size_t i, j, pairs = 0;

	c->mean_pair_affinity = c->min_pair_affinity = 0;
	if (c->n < 2)
		return;
	c->min_pair_affinity = 1;
	for (i = 0; i < c->n; i++)
		for (j = i + 1; j < c->n; j++) {
			double v = aff[c->members[i] * n + c->members[j]];

			c->mean_pair_affinity += v;
			c->min_pair_affinity = v < c->min_pair_affinity ? v : c->min_pair_affinity;
			pairs++;
		}
	c->mean_pair_affinity /= (double)pairs;
}

char *sharing_cluster_name(const struct unit_list *u, const struct unit_cluster *c)
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
