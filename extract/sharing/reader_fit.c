/*
 * reader_fit.c - one cell's clustering fitted to the reader's limits (see
 * sharing.h): too many CommPrefix terms in a subcell become shorter
 * prefixes that cover exactly its comms, else the subcell is split where
 * the least shared traffic is cut; too many subcells, the least valuable
 * go to the catch-all. Every change is a choice the caller shows.
 */
#include "extract/sharing/sharing.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

static bool starts_with(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* The clauses of a set of units (copies). */
struct clauses {
	struct cell_clause *v;
	size_t n;
};

static void clauses_free(struct clauses *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].comm_prefix);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static int clauses_add(struct clauses *c, const char *prefix, bool has_hint, uint64_t hint)
{
	struct cell_clause *v = realloc(c->v, (c->n + 1) * sizeof(*v));

	if (!v)
		return scx_fail("out of memory");
	c->v = v;
	v[c->n] = (struct cell_clause){prefix ? strdup(prefix) : NULL, has_hint, hint};
	if (prefix && !v[c->n].comm_prefix)
		return scx_fail("out of memory");
	c->n++;
	return 0;
}

static int clauses_of(const struct unit_list *u, const size_t *members, size_t n, struct clauses *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t m = 0; m < n; m++)
		for (size_t i = 0; i < u->v[members[m]].nr_clauses; i++) {
			const struct cell_clause *c = &u->v[members[m]].clauses[i];

			if (clauses_add(out, c->comm_prefix, c->has_hint, c->hint) < 0)
				return -1;
		}
	return 0;
}

/*
 * May P replace clauses of these members: every comm seen in the cell that
 * starts with P is one the members' own clauses (orig) match?
 */
static bool prefix_covers_only(const char *p, size_t plen, const struct clauses *orig, const struct fit_input *in)
{
	for (size_t i = 0; i < in->nr_comms; i++) {
		const char *c = in->comms[i];
		bool own = false;

		if (strncmp(c, p, plen))
			continue;
		for (size_t j = 0; j < orig->n && !own; j++)
			own = orig->v[j].comm_prefix && starts_with(c, orig->v[j].comm_prefix);
		if (!own)
			return false;
	}
	return true;
}

/*
 * Shorten c to at most l->or_groups clauses: merge the two clauses with
 * the longest common prefix that covers no comm of the cell but the
 * members', dropping the clauses it covers, until they fit. Only without
 * Hint terms and with the cell's comms known. True when they fit.
 */
static bool shorten(struct clauses *c, const struct fit_input *in)
{
	struct clauses orig = *c;
	bool ok = true;

	if (c->n <= in->l->or_groups)
		return true;
	if (!in->comms)
		return false;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].has_hint || !c->v[i].comm_prefix)
			return false;
	/* orig keeps the members' own clauses; c gets new strings */
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < orig.n && ok; i++)
		ok = clauses_add(c, orig.v[i].comm_prefix, false, 0) == 0;
	while (ok && c->n > in->l->or_groups) {
		size_t best = 0, bi = 0, bj = 0;

		for (size_t i = 0; i < c->n; i++)
			for (size_t j = i + 1; j < c->n; j++) {
				const char *a = c->v[i].comm_prefix, *b = c->v[j].comm_prefix;
				size_t k = 0;

				while (a[k] && a[k] == b[k])
					k++;
				if (k > best && prefix_covers_only(a, k, &orig, in)) {
					best = k;
					bi = i;
					bj = j;
				}
			}
		if (!best) {
			ok = false;
			break;
		}
		c->v[bi].comm_prefix[best] = '\0';
		/* drop every other clause the shorter prefix covers */
		for (size_t k = c->n; k-- > 0;)
			if (k != bi && starts_with(c->v[k].comm_prefix, c->v[bi].comm_prefix)) {
				free(c->v[k].comm_prefix);
				memmove(&c->v[k], &c->v[k + 1], (c->n - k - 1) * sizeof(c->v[0]));
				c->n--;
				if (k < bi)
					bi--;
			}
		(void)bj;
	}
	if (!ok) {
		clauses_free(c);
		*c = orig;
		return false;
	}
	clauses_free(&orig);
	return true;
}

static void *grow(void *v, size_t n, size_t size)
{
	void *p = realloc(v, (n + 1) * size);

	if (!p)
		scx_fail("out of memory");
	return p;
}

static int choose(struct cell_fit *f, enum fit_kind kind, const char *subcell, double value, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int choose(struct cell_fit *f, enum fit_kind kind, const char *subcell, double value, const char *fmt, ...)
{
	struct fit_choice *v = grow(f->choices, f->nr_choices, sizeof(*v));
	va_list ap;
	int rc;

	if (!v)
		return -1;
	f->choices = v;
	v = &v[f->nr_choices];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	v->value = value;
	va_start(ap, fmt);
	rc = vasprintf(&v->detail, fmt, ap);
	va_end(ap);
	if (rc < 0 || !(v->subcell = strdup(subcell))) {
		free(rc < 0 ? NULL : v->detail);
		return scx_fail("out of memory");
	}
	f->nr_choices++;
	return 0;
}

static double unit_demand(const struct fit_input *in, size_t i)
{
	return in->demand ? in->demand[i] : (double)in->u->v[i].count;
}

static double aff_of(const struct fit_input *in, size_t i, size_t j)
{
	return in->aff ? in->aff[i * in->u->n + j] : 0;
}

/* Summed pairwise affinity inside a set of units. */
static double inner_aff(const struct fit_input *in, const size_t *m, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			s += aff_of(in, m[i], m[j]);
	return s;
}

static int add_sub(struct cell_fit *f, const struct fit_input *in, const size_t *members, size_t n,
		   struct clauses *c)
{
	struct fit_sub *v = grow(f->v, f->n, sizeof(*v));
	struct unit_cluster uc = {.members = (size_t *)members, .n = n};

	if (!v)
		return -1;
	f->v = v;
	v = &v[f->n];
	memset(v, 0, sizeof(*v));
	if (!(v->members = malloc((n ? n : 1) * sizeof(size_t))) || !(v->name = sharing_cluster_name(in->u, &uc))) {
		free(v->members);
		return scx_fail("out of memory");
	}
	memcpy(v->members, members, n * sizeof(size_t));
	v->n = n;
	v->clauses = c->v;
	v->nr_clauses = c->n;
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < n; i++)
		v->demand += unit_demand(in, members[i]);
	v->inner_aff = inner_aff(in, members, n);
	f->n++;
	return 0;
}

/* A unit alone with more clauses than allowed, none shorter: keep the first ones. */
static int truncate_clauses(struct cell_fit *f, const struct fit_input *in, const char *name, struct clauses *c)
{
	size_t n = c->n;

	while (c->n > in->l->or_groups)
		free(c->v[--c->n].comm_prefix);
	return choose(f, FIT_TRUNCATED, name, 0,
		      "%zu CommPrefix terms, the reader allows %u and no shorter prefix covers only its comms: the first %u "
		      "kept, the threads of the others go to the catch-all",
		      n, in->l->or_groups, in->l->or_groups);
}

/*
 * A CommPrefix longer than the reader keeps (l->prefix_bytes) is cut as
 * the reader would cut it when the cut one covers only the members'
 * comms, else dropped (its threads go to the catch-all). Real comms are 15
 * bytes at most (TASK_COMM_LEN), so this is for other readers' limits and
 * for comms that are not the kernel's.
 */
static int cut_long(struct cell_fit *f, const struct fit_input *in, const char *name, struct clauses *c)
{
	struct clauses orig;
	size_t lim = in->l->prefix_bytes;
	int rc = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].comm_prefix && strlen(c->v[i].comm_prefix) > lim)
			break;
		else if (i + 1 == c->n)
			return 0;
	if (!c->n)
		return 0;
	if (clauses_of(in->u, NULL, 0, &orig) < 0)
		return -1;
	for (size_t i = 0; i < c->n && !rc; i++)
		rc = clauses_add(&orig, c->v[i].comm_prefix, c->v[i].has_hint, c->v[i].hint);
	for (size_t i = c->n; i-- > 0 && !rc;) {
		char *p = c->v[i].comm_prefix;
		size_t len = p ? strlen(p) : 0;

		if (len <= lim)
			continue;
		if (in->comms && prefix_covers_only(p, lim, &orig, in)) {
			p[lim] = '\0';
			rc = choose(f, FIT_SHORTENED, name, 0,
				    "CommPrefix of %zu bytes: the reader keeps %zu; cut to \"%s\", which covers only its comms", len,
				    lim, p);
		} else {
			rc = choose(f, FIT_TRUNCATED, name, 0,
				    "CommPrefix of %zu bytes: the reader keeps %zu, and the cut one would match other comms of "
				    "the cell: dropped, its threads go to the catch-all",
				    len, lim);
			free(p);
			memmove(&c->v[i], &c->v[i + 1], (c->n - i - 1) * sizeof(c->v[0]));
			c->n--;
		}
	}
	clauses_free(&orig);
	return rc;
}

struct part {
	size_t *m, n;
};

/* Split one cluster into parts of at most or_groups clauses each, merging
 * the parts with the most affinity between them first. */
static int index_cmp(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return (a > b) - (a < b);
}

static int split(struct cell_fit *f, const struct fit_input *in, const struct unit_cluster *uc, const char *name,
		 size_t nr_clauses)
{
	struct part *p = calloc(uc->n, sizeof(*p));
	size_t np = uc->n, i, j;
	double total = inner_aff(in, uc->members, uc->n), kept = 0;
	int rc = 0;
	char *names = NULL;
	size_t names_len = 0;
	FILE *ns;

	if (!p)
		return scx_fail("out of memory");
	for (i = 0; i < np; i++) {
		if (!(p[i].m = malloc(uc->n * sizeof(size_t)))) {
			np = i;
			rc = scx_fail("out of memory");
			goto out;
		}
		p[i].m[0] = uc->members[i];
		p[i].n = 1;
	}
	for (;;) {
		double best = 0;
		size_t bi = 0, bj = 0;
		bool found = false;

		for (i = 0; i < np; i++)
			for (j = i + 1; j < np; j++) {
				double s = 0;
				struct clauses c;
				size_t m[p[i].n + p[j].n];
				bool fits;

				for (size_t a = 0; a < p[i].n; a++)
					for (size_t b = 0; b < p[j].n; b++)
						s += aff_of(in, p[i].m[a], p[j].m[b]);
				if (s <= 0 || (found && s <= best))
					continue;
				memcpy(m, p[i].m, p[i].n * sizeof(size_t));
				memcpy(m + p[i].n, p[j].m, p[j].n * sizeof(size_t));
				if (clauses_of(in->u, m, p[i].n + p[j].n, &c) < 0) {
					clauses_free(&c);
					rc = -1;
					goto out;
				}
				fits = shorten(&c, in);
				clauses_free(&c);
				if (fits) {
					best = s;
					bi = i;
					bj = j;
					found = true;
				}
			}
		if (!found)
			break;
		kept += best;
		memcpy(p[bi].m + p[bi].n, p[bj].m, p[bj].n * sizeof(size_t));
		p[bi].n += p[bj].n;
		free(p[bj].m);
		memmove(&p[bj], &p[bj + 1], (np - bj - 1) * sizeof(*p));
		np--;
	}
	for (i = 0; i < np && !rc; i++) {
		struct clauses c;

		if (p[i].n > 1)
			qsort(p[i].m, p[i].n, sizeof(size_t), index_cmp);
		rc = clauses_of(in->u, p[i].m, p[i].n, &c);
		if (!rc && !shorten(&c, in))
			rc = truncate_clauses(f, in, in->u->v[p[i].m[0]].name, &c);
		if (!rc)
			rc = add_sub(f, in, p[i].m, p[i].n, &c);
		clauses_free(&c);
	}
	if (rc)
		goto out;
	if (!(ns = open_memstream(&names, &names_len))) {
		rc = scx_fail("out of memory");
		goto out;
	}
	for (i = f->n - np; i < f->n; i++)
		fprintf(ns, "%s%s", i > f->n - np ? ", " : "", f->v[i].name);
	fclose(ns);
	rc = choose(f, FIT_SPLIT, name, total - kept,
		    "%zu CommPrefix terms, the reader allows %u and no shorter prefix covers only its comms: split into %zu "
		    "subcells (%s), keeping %.3f of its %.3f summed pairwise affinity together",
		    nr_clauses, in->l->or_groups, np, names ? names : "", kept, total);
out:
	for (i = 0; i < np; i++)
		free(p[i].m);
	free(p);
	free(names);
	return rc;
}

/* A fitted subcell's value: what keeping it apart from the catch-all buys. */
static double value_of(const struct fit_sub *s)
{
	return s->demand * (1.0 + s->inner_aff);
}

static int fold(struct cell_fit *f, const struct fit_input *in)
{
	size_t keep = in->l->subcells - 1, nf = f->n - keep, total = f->n;

	while (f->n > keep) {
		size_t worst = 0;

		for (size_t i = 1; i < f->n; i++) {
			double a = value_of(&f->v[i]), b = value_of(&f->v[worst]);

			if (a < b || (a == b && strcmp(f->v[i].name, f->v[worst].name) > 0))
				worst = i;
		}
		if (choose(f, FIT_FOLDED, f->v[worst].name, value_of(&f->v[worst]),
			   "%zu subcells besides the catch-all, the reader takes %u in all: one of the %zu least valuable goes "
			   "to the catch-all (value = demand x (1 + summed pairwise affinity) = %.4g: demand %.4g %s, "
			   "affinity %.3f)",
			   total, in->l->subcells, nf, value_of(&f->v[worst]), f->v[worst].demand,
			   in->demand ? "CPUs" : "samples", f->v[worst].inner_aff) < 0)
			return -1;
		reader_fit_sub_free(&f->v[worst]);
		memmove(&f->v[worst], &f->v[worst + 1], (f->n - worst - 1) * sizeof(f->v[0]));
		f->n--;
	}
	return 0;
}

int reader_fit_cell(const struct fit_input *in, const struct clustering *cl, struct cell_fit *out)
{
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (size_t k = 0; k < cl->n && !rc; k++) {
		const struct unit_cluster *uc = &cl->v[k];
		struct clauses c;
		char *name = sharing_cluster_name(in->u, uc);
		size_t n;

		if (!name)
			return scx_fail("out of memory");
		rc = clauses_of(in->u, uc->members, uc->n, &c);
		if (!rc)
			rc = cut_long(out, in, name, &c);
		n = c.n;
		if (!rc && !c.n) {
			rc = choose(out, FIT_TRUNCATED, name, 0, "no CommPrefix left: the subcell goes to the catch-all");
		} else if (!rc && c.n > in->l->or_groups) {
			if (shorten(&c, in)) {
				char *list = NULL;
				size_t list_len = 0;
				FILE *m = open_memstream(&list, &list_len);

				if (!m) {
					rc = scx_fail("out of memory");
				} else {
					for (size_t i = 0; i < c.n; i++)
						fprintf(m, "%s\"%s\"", i ? ", " : "", c.v[i].comm_prefix);
					fclose(m);
					rc = choose(out, FIT_SHORTENED, name, 0,
						    "%zu CommPrefix terms, the reader allows %u: %zu shorter (%s), which cover exactly "
						    "its comms and no other comm seen in the cell",
						    n, in->l->or_groups, c.n, list ? list : "");
					free(list);
				}
				if (!rc)
					rc = add_sub(out, in, uc->members, uc->n, &c);
			} else if (uc->n > 1) {
				rc = split(out, in, uc, name, n);
			} else {
				rc = truncate_clauses(out, in, name, &c);
				if (!rc)
					rc = add_sub(out, in, uc->members, uc->n, &c);
			}
		} else if (!rc) {
			rc = add_sub(out, in, uc->members, uc->n, &c);
		}
		clauses_free(&c);
		free(name);
	}
	if (!rc && out->n > in->l->subcells - 1)
		rc = fold(out, in);
	if (rc)
		reader_fit_free(out);
	return rc;
}

void reader_fit_sub_free(struct fit_sub *s)
{
	for (size_t i = 0; i < s->nr_clauses; i++)
		free(s->clauses[i].comm_prefix);
	free(s->clauses);
	free(s->members);
	free(s->name);
	memset(s, 0, sizeof(*s));
}

void reader_fit_free(struct cell_fit *f)
{
	for (size_t i = 0; i < f->n; i++)
		reader_fit_sub_free(&f->v[i]);
	for (size_t i = 0; i < f->nr_choices; i++) {
		free(f->choices[i].subcell);
		free(f->choices[i].detail);
	}
	free(f->v);
	free(f->choices);
	memset(f, 0, sizeof(*f));
}

const char *reader_fit_kind_name(enum fit_kind k)
{
	static const char *const names[] = {"shortened", "split", "folded", "truncated"};

	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

int reader_fit_log_add(struct reader_fit_log *log, const char *cell, const struct cell_fit *f)
{
	for (size_t i = 0; i < f->nr_choices; i++) {
		struct reader_fit_entry *v = grow(log->v, log->n, sizeof(*v));
		const struct fit_choice *c = &f->choices[i];

		if (!v)
			return -1;
		log->v = v;
		v = &v[log->n];
		*v = (struct reader_fit_entry){strdup(cell), strdup(c->subcell), strdup(c->detail), c->kind, c->value};
		log->n++;
		if (!v->cell || !v->subcell || !v->detail)
			return scx_fail("out of memory");
	}
	return 0;
}

void reader_fit_log_free(struct reader_fit_log *log)
{
	for (size_t i = 0; i < log->n; i++) {
		free(log->v[i].cell);
		free(log->v[i].subcell);
		free(log->v[i].detail);
	}
	free(log->v);
	log->v = NULL;
	log->n = 0;
}
