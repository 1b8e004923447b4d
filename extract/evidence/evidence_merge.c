/*
 * evidence_merge.c - the combine over recordings (see evidence.h):
 * check that the recordings were extracted alike, build each top-level
 * cell's units as the union by name, sum every pair's statistics over the
 * recordings that have both units, decide on the sums as one recording's
 * would be decided (page affinity, line estimate: extract/sharing/sharing.h),
 * cluster, and print the config and the -v report.
 */
#include "extract/evidence/evidence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "extract/sharing/sharing.h"
#include "lib/error.h"

/* One unit of the combined cell. */
struct munit {
	const struct evf_unit *first; /* its record in the first recording that has it */
	struct cell_clause *clauses;  /* the union over recordings, in order of appearance (borrowed strings) */
	size_t nr_clauses;
	uint64_t samples;
	double demand;                /* the largest over the recordings */
	unsigned recordings;
};

/* One pair's sums over the recordings that have both units. */
struct macc {
	struct evf_pair s;
	uint64_t n_a, n_b;  /* line samples of each unit */
	double ta, tb;      /* evidence weight of each unit */
	unsigned both, seen; /* recordings with both units / where they shared something */
};

struct mcell {
	const struct evf_cell *proto; /* name, kind, match */
	struct munit *u;
	size_t n;
	struct macc *acc; /* n x n, a < b used */
};

static int munit_cmp(const struct munit *x, const struct munit *y)
{
	const struct evf_unit *a = x->first, *b = y->first;
	int c = strcmp(a->comm, b->comm);

	if (c)
		return c;
	if (a->by_hint != b->by_hint)
		return a->by_hint ? 1 : -1;
	if (a->hint != b->hint)
		return a->hint < b->hint ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int munit_qcmp(const void *x, const void *y)
{
	return munit_cmp(x, y);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int check_alike(const struct evf_recording *recs, size_t n)
{
	const struct evf_recording *a = &recs[0];

	for (size_t i = 1; i < n; i++) {
		const struct evf_recording *b = &recs[i];

		if (a->line_granularity != b->line_granularity)
			return scx_fail("%s and %s: evidence at different --granularity (%s, %s)", a->source, b->source,
					a->line_granularity ? "line" : "page", b->line_granularity ? "line" : "page");
		if (a->use_hints != b->use_hints)
			return scx_fail("%s and %s: one extracted with --use-hints, the other without", a->source, b->source);
		if (a->min_share != b->min_share)
			return scx_fail("%s and %s: different --min-share (%g, %g)", a->source, b->source, a->min_share,
					b->min_share);
		for (size_t c = 0; c < b->nr_cells; c++)
			for (size_t d = 0; d < a->nr_cells; d++)
				if (a->cells[d].kind == b->cells[c].kind &&
				    (!same_str(a->cells[d].match, b->cells[c].match) ||
				     strcmp(a->cells[d].name, b->cells[c].name)))
					return scx_fail("%s and %s: the %s cell differs ('%s', '%s'): extract them with the "
							"same cgroup options",
							a->source, b->source, evf_kind_name(b->cells[c].kind),
							a->cells[d].match ? a->cells[d].match : a->cells[d].name,
							b->cells[c].match ? b->cells[c].match : b->cells[c].name);
	}
	return 0;
}

static const struct evf_cell *cell_of(const struct evf_recording *r, enum evf_cell_kind k)
{
	for (size_t i = 0; i < r->nr_cells; i++)
		if (r->cells[i].kind == k)
			return &r->cells[i];
	return NULL;
}

static ssize_t find_unit(const struct mcell *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++) /* n is at most EVF_MAX_UNITS per recording's cell */
		if (!strcmp(m->u[i].first->name, name))
			return (ssize_t)i;
	return -1;
}

static bool same_clause(const struct cell_clause *a, const struct cell_clause *b)
{
	return same_str(a->comm_prefix, b->comm_prefix) && a->has_hint == b->has_hint && (!a->has_hint || a->hint == b->hint);
}

static int add_clauses(struct munit *m, const struct evf_unit *u)
{
	for (size_t i = 0; i < u->nr_clauses; i++) {
		size_t k;

		for (k = 0; k < m->nr_clauses && !same_clause(&m->clauses[k], &u->clauses[i]); k++)
			;
		if (k < m->nr_clauses)
			continue;
		struct cell_clause *t = realloc(m->clauses, (m->nr_clauses + 1) * sizeof(*t));

		if (!t)
			return scx_fail("out of memory");
		m->clauses = t;
		m->clauses[m->nr_clauses++] = u->clauses[i];
	}
	return 0;
}

/* The union of the recordings' units of kind k, in config order. */
static int build_units(const struct evf_recording *recs, size_t n, enum evf_cell_kind k, struct mcell *m)
{
	for (size_t r = 0; r < n; r++) {
		const struct evf_cell *c = cell_of(&recs[r], k);

		for (size_t i = 0; c && i < c->nr_units; i++) {
			ssize_t at = find_unit(m, c->units[i].name);
			struct munit *u;

			if (at < 0) {
				if (m->n >= EVF_MAX_UNITS)
					return scx_fail("cell %s: more than %d units over the recordings", c->name, EVF_MAX_UNITS);
				struct munit *t = realloc(m->u, (m->n + 1) * sizeof(*t));

				if (!t)
					return scx_fail("out of memory");
				m->u = t;
				at = (ssize_t)m->n++;
				m->u[at] = (struct munit){.first = &c->units[i]};
			}
			u = &m->u[at];
			if (add_clauses(u, &c->units[i]) < 0)
				return -1;
			u->samples += c->units[i].samples;
			if (c->units[i].demand > u->demand)
				u->demand = c->units[i].demand;
			u->recordings++;
		}
	}
	if (m->n)
		qsort(m->u, m->n, sizeof(*m->u), munit_qcmp);
	return 0;
}

static void add_pair(struct macc *acc, const struct evf_pair *p, bool swap)
{
	struct evf_pair *s = &acc->s;

	s->keys += p->keys;
	s->samples_a += swap ? p->samples_b : p->samples_a;
	s->samples_b += swap ? p->samples_a : p->samples_b;
	s->wa += swap ? p->wb : p->wa;
	s->wb += swap ? p->wa : p->wb;
	s->na_r += swap ? p->nb_r : p->na_r;
	s->nb_r += swap ? p->na_r : p->nb_r;
	s->ja += swap ? p->jb : p->ja;
	s->jb += swap ? p->ja : p->jb;
	s->ha += swap ? p->hb : p->ha;
	s->hb += swap ? p->ha : p->hb;
	s->ra += swap ? p->rb : p->ra;
	s->rb += swap ? p->ra : p->rb;
	s->ra_blk += swap ? p->rb_blk : p->ra_blk;
	s->rb_blk += swap ? p->ra_blk : p->rb_blk;
	s->lines += p->lines;
	s->lwa += swap ? p->lwb : p->lwa;
	s->lwb += swap ? p->lwa : p->lwb;
}

static void decide_pair(const struct macc *a, const struct sharing_params *p, struct pair_evidence *pe);

/* Would the pair's evidence of this recording alone merge it (-v: "seen sharing on K recordings")? */
static bool shares_alone(const struct evf_cell *c, const struct evf_pair *p, const struct sharing_params *sp)
{
	struct macc one = {
		.n_a = c->units[p->a].line_samples, .n_b = c->units[p->b].line_samples,
		.ta = c->units[p->a].weight, .tb = c->units[p->b].weight,
	};
	struct pair_evidence pe;

	add_pair(&one, p, false);
	decide_pair(&one, sp, &pe);
	return pe.affinity > sp->threshold;
}

/* Sum the pairs of kind k's cell over the recordings. */
static int sum_pairs(const struct evf_recording *recs, size_t n, enum evf_cell_kind k, const struct sharing_params *sp,
		     struct mcell *m)
{
	size_t *map = malloc((EVF_MAX_UNITS + 1) * sizeof(*map));

	m->acc = calloc(m->n * m->n + 1, sizeof(*m->acc));
	if (!map || !m->acc) {
		free(map);
		return scx_fail("out of memory (%zu units)", m->n);
	}
	for (size_t r = 0; r < n; r++) {
		const struct evf_cell *c = cell_of(&recs[r], k);

		if (!c)
			continue;
		for (size_t i = 0; i < c->nr_units; i++)
			map[i] = (size_t)find_unit(m, c->units[i].name);
		for (size_t i = 0; i < c->nr_units; i++)
			for (size_t j = i + 1; j < c->nr_units; j++) {
				size_t x = map[i], y = map[j];
				const struct evf_unit *ui = &c->units[i], *uj = &c->units[j];
				struct macc *a;

				if (x > y) {
					size_t t = x;
					const struct evf_unit *tu = ui;

					x = y;
					y = t;
					ui = uj;
					uj = tu;
				}
				a = &m->acc[x * m->n + y];
				a->n_a += ui->line_samples;
				a->n_b += uj->line_samples;
				a->ta += ui->weight;
				a->tb += uj->weight;
				a->both++;
			}
		for (size_t p = 0; p < c->nr_pairs; p++) {
			size_t x = map[c->pairs[p].a], y = map[c->pairs[p].b];
			struct macc *a = &m->acc[(x < y ? x : y) * m->n + (x < y ? y : x)];

			add_pair(a, &c->pairs[p], x > y);
			a->seen += shares_alone(c, &c->pairs[p], sp);
		}
	}
	free(map);
	return 0;
}

/* Sums over many recordings stay within what the decision's arithmetic takes (evidence.h). */
static uint64_t cl(uint64_t x)
{
	return x < EVF_MAX_COUNT ? x : EVF_MAX_COUNT;
}

/* The decision on a pair's sums, as sharing_pair_evidence_at() takes it on one recording. */
static void decide_pair(const struct macc *a, const struct sharing_params *p, struct pair_evidence *pe)
{
	struct line_estimate *l = &pe->line;

	memset(pe, 0, sizeof(*pe));
	pe->keys = a->s.keys;
	pe->samples_a = a->s.samples_a;
	pe->samples_b = a->s.samples_b;
	pe->page_wa = a->s.wa;
	pe->page_wb = a->s.wb;
	if (sharing_enough_evidence(pe, p->min_keys, p->min_samples) && a->ta > 0 && a->tb > 0)
		pe->page_affinity = sqrt((a->s.wa / a->ta) * (a->s.wb / a->tb));
	if (pe->page_affinity > 1)
		pe->page_affinity = 1;
	*l = (struct line_estimate){
		.n_a = cl(a->n_a), .n_b = cl(a->n_b), .na_r = cl(a->s.na_r), .nb_r = cl(a->s.nb_r), .ja = cl(a->s.ja),
		.jb = cl(a->s.jb), .ha = cl(a->s.ha), .hb = cl(a->s.hb), .ra = cl(a->s.ra), .rb = cl(a->s.rb),
		.ra_blk = cl(a->s.ra_blk), .rb_blk = cl(a->s.rb_blk), .lines = a->s.lines, .wa = a->s.lwa, .wb = a->s.lwb,
		.first_touch = sharing_params_first_touch(p),
	};
	sharing_line_decide(l, p->threshold, p->z > 0 ? p->z : SHARE_Z_DEFAULT);
	pe->keys += l->lines;
	pe->samples_a += l->ha;
	pe->samples_b += l->hb;
	pe->affinity = pe->page_affinity;
	if (l->verdict == SHARING_SHARED && l->f > pe->affinity)
		pe->affinity = l->f;
}

struct ranked {
	size_t a, b;
	double aff;
};

static int ranked_cmp(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	if (a->aff != b->aff)
		return a->aff < b->aff ? 1 : -1;
	return a->a != b->a ? (a->a > b->a) - (a->a < b->a) : (a->b > b->b) - (a->b < b->b);
}

/* -v: the units and the pairs with anything in common, with on how many recordings */
static int log_cell(FILE *log, const struct mcell *m, const struct pair_evidence *pe, const struct sharing_params *p,
		    size_t nrec, double duration_s)
{
	struct ranked *r = calloc(m->n * m->n / 2 + 1, sizeof(*r));
	size_t nr = 0, i, j;

	if (!r)
		return scx_fail("out of memory");
	fprintf(log, "\nCombined sharing of %s: %zu units over %zu recordings, threshold %.3f, cap %.2f CPUs\n",
		m->proto->name, m->n, nrec, p->threshold, p->cap_cpus);
	for (i = 0; i < m->n; i++)
		fprintf(log, "  unit %s: %llu samples on %u of %zu recordings, demand %.2f CPUs (largest)\n",
			m->u[i].first->name, (unsigned long long)m->u[i].samples, m->u[i].recordings, nrec, m->u[i].demand);
	for (i = 0; i < m->n; i++)
		for (j = i + 1; j < m->n; j++)
			if (m->acc[i * m->n + j].s.keys || m->acc[i * m->n + j].s.na_r || m->acc[i * m->n + j].s.nb_r ||
			    pe[i * m->n + j].affinity > 0)
				r[nr++] = (struct ranked){i, j, pe[i * m->n + j].affinity};
	qsort(r, nr, sizeof(*r), ranked_cmp);
	fprintf(log, "  top pairs (affinity; on how many recordings the pair alone was above the threshold, of those "
		     "with both units):\n");
	for (i = 0; i < nr && i < 20; i++) {
		const struct macc *a = &m->acc[r[i].a * m->n + r[i].b];
		const struct pair_evidence *e = &pe[r[i].a * m->n + r[i].b];

		fprintf(log, "    %s ~ %s: %.3f, seen sharing on %u of the %u recordings with both units (of %zu); page affinity %.3f, "
			     "%zu shared keys\n",
			m->u[r[i].a].first->name, m->u[r[i].b].first->name, r[i].aff, a->seen, a->both, nrec,
			e->page_affinity, e->keys);
		sharing_log_line_detail(log, "      ", e, p, duration_s);
	}
	if (!nr)
		fprintf(log, "    (none: no unit shares memory with another)\n");
	else if (nr > 20)
		fprintf(log, "    ... %zu more pairs with anything in common\n", nr - 20);
	free(r);
	return 0;
}

/*
 * The cell's subcells fitted to the reader's limits (reader_fit.c): split
 * only, no shorter prefix, since the evidence files do not list the cell's
 * other comms; -v names each choice.
 */
static int add_config_cell(struct cell_config *cfg, const struct mcell *m, const struct clustering *cl,
			   const struct unit_list *ul, const double *demand, const struct evidence_merge_opts *o,
			   FILE *log)
{
	static const enum cell_top_match tops[EVF_KINDS] = {TOP_CGROUP_REGEX, TOP_CGROUP_CONTAINS, TOP_EMPTY};
	struct cell *cell = cell_config_add(cfg, m->proto->name, tops[m->proto->kind], m->proto->match);
	const struct reader_limits *l = o->limits ? o->limits : &reader_limits_default;
	struct fit_input in = {.u = ul, .demand = demand, .aff = cl->unit_aff, .l = l};
	struct cell_fit f;
	struct cell *rest;
	int rc = 0;

	if (!cell)
		return -1;
	if (!m->n)
		return 0;
	if (reader_fit_cell(&in, cl, &f) < 0)
		return -1;
	for (size_t i = 0; i < f.n && !rc; i++) {
		struct cell *sub = cell_config_add_subcell(cell, f.v[i].name);

		if (!sub) {
			rc = -1;
			break;
		}
		for (size_t c = 0; c < f.v[i].nr_clauses && !rc; c++)
			rc = cell_config_add_clause(sub, f.v[i].clauses[c].comm_prefix, f.v[i].clauses[c].has_hint,
						    f.v[i].clauses[c].hint);
	}
	if (!rc && log && f.nr_choices) {
		fprintf(log, "\n%s: the reader (%s) takes at most %u subcells, %u OR groups (from evidence files: no "
			     "shorter prefix, they do not list the cell's other comms):\n",
			cell->name, l->name, l->subcells, l->or_groups);
		for (size_t i = 0; i < f.nr_choices; i++)
			fprintf(log, "  %s %s: %s\n", reader_fit_kind_name(f.choices[i].kind), f.choices[i].subcell,
				f.choices[i].detail);
	}
	reader_fit_free(&f);
	if (!rc && (!(rest = cell_config_add_subcell(cell, "rest")) || cell_config_add_clause(rest, NULL, false, 0) < 0))
		rc = -1;
	return rc;
}

/* One top-level cell: combine, decide, cluster, add to cfg. */
static int merge_cell(size_t n, const struct mcell *m, struct sharing_params *sp, FILE *log, double duration_s,
		      const struct evidence_merge_opts *o, struct cell_config *cfg)
{
	struct pair_evidence *pe = calloc(m->n * m->n + 1, sizeof(*pe));
	double *aff = calloc(m->n * m->n + 1, sizeof(*aff)), *demand = calloc(m->n + 1, sizeof(*demand));
	struct unit_list ul = {0};
	struct clustering cl = {0};
	int rc = -1;

	ul.v = calloc(m->n + 1, sizeof(*ul.v));
	if (!pe || !aff || !demand || !ul.v) {
		scx_fail("out of memory (%zu units)", m->n);
		goto out;
	}
	ul.n = m->n;
	for (size_t i = 0; i < m->n; i++) {
		ul.v[i].name = m->u[i].first->name;
		ul.v[i].count = m->u[i].samples;
		ul.v[i].clauses = m->u[i].clauses; /* borrowed */
		ul.v[i].nr_clauses = m->u[i].nr_clauses;
		demand[i] = m->u[i].demand;
		aff[i * m->n + i] = 1;
		for (size_t j = i + 1; j < m->n; j++) {
			decide_pair(&m->acc[i * m->n + j], sp, &pe[i * m->n + j]);
			aff[i * m->n + j] = aff[j * m->n + i] = pe[i * m->n + j].affinity;
		}
	}
	sp->demand = demand;
	if (m->n && log && log_cell(log, m, pe, sp, n, duration_s) < 0)
		goto out;
	if (m->n && sharing_cluster_matrix(&ul, aff, sp, log, &cl) < 0)
		goto out;
	rc = add_config_cell(cfg, m, &cl, &ul, demand, o, log);
out:
	sp->demand = NULL;
	sharing_clustering_free(&cl);
	free(ul.v);
	free(pe);
	free(aff);
	free(demand);
	return rc;
}

static int rec_cmp(const void *x, const void *y)
{
	const struct evf_recording *a = x, *b = y;
	int c = strcmp(a->source, b->source);

	if (c)
		return c;
	return (a->samples > b->samples) - (a->samples < b->samples);
}

int evidence_merge_run(struct evf_recording *recs, size_t n, const struct evidence_merge_opts *o, FILE *out,
		       FILE *log)
{
	struct sharing_params sp = {0};
	struct cell_config cfg = {0};
	double duration_s = 0;
	int rc = -1;

	if (!n)
		return scx_fail("no recordings to combine");
	qsort(recs, n, sizeof(*recs), rec_cmp);
	if (check_alike(recs, n) < 0)
		return -1;
	if (!o->verbose)
		log = NULL;
	sp.threshold = o->share_threshold >= 0 ? o->share_threshold : SHARE_THRESHOLD_DEFAULT;
	sp.min_keys = o->min_keys ? o->min_keys : SHARE_MIN_KEYS_DEFAULT;
	sp.min_samples = o->min_samples ? o->min_samples : SHARE_MIN_SAMPLES_DEFAULT;
	sp.cap_cpus = o->max_cell_cpus > 0 ? o->max_cell_cpus : 0;
	for (size_t r = 0; r < n; r++) {
		sp.total_samples += recs[r].samples;
		sp.fault_samples += recs[r].fault_samples;
		duration_s += recs[r].duration_s;
		if (o->max_cell_cpus <= 0 && recs[r].cap_cpus > 0 && (sp.cap_cpus <= 0 || recs[r].cap_cpus < sp.cap_cpus))
			sp.cap_cpus = recs[r].cap_cpus;
	}
	if (log) {
		fprintf(log, "Evidence of %zu recording%s (units matched by name; each pair's evidence summed over the "
			     "recordings that have both units; demand: a unit's largest; cap: the smallest)\n",
			n, n == 1 ? "" : "s");
		for (size_t r = 0; r < n; r++)
			fprintf(log, "  %s: %llu samples, %.3f s, cap %.2f CPUs\n", recs[r].source,
				(unsigned long long)recs[r].samples, recs[r].duration_s, recs[r].cap_cpus);
		if (sharing_params_first_touch(&sp))
			fprintf(log, "  evidence: first touches (%llu of %llu samples are page faults, taken when a process "
				     "maps a page, not when it uses it): a pair is decided only on lines sampled again, "
				     "else it cannot tell\n",
				(unsigned long long)sp.fault_samples, (unsigned long long)sp.total_samples);
	}
	for (int k = 0; k < EVF_KINDS; k++) {
		struct mcell m = {0};
		size_t r;

		for (r = 0; r < n && !(m.proto = cell_of(&recs[r], (enum evf_cell_kind)k)); r++)
			;
		if (!m.proto)
			continue;
		rc = build_units(recs, n, (enum evf_cell_kind)k, &m);
		if (!rc)
			rc = sum_pairs(recs, n, (enum evf_cell_kind)k, &sp, &m);
		if (!rc)
			rc = merge_cell(n, &m, &sp, log, duration_s, o, &cfg);
		for (size_t i = 0; i < m.n; i++)
			free(m.u[i].clauses);
		free(m.u);
		free(m.acc);
		if (rc < 0)
			goto out;
	}
	if (log && fflush(log) != 0) {
		rc = scx_fail_errno("writing the report failed");
		goto out;
	}
	rc = cell_config_write_checked(&cfg, o->limits, "the combined config", out);
out:
	cell_config_free(&cfg);
	return rc;
}
