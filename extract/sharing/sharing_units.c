/*
 * sharing_units.c - comm summaries and upstream's significant units (see
 * sharing.h). Summaries are built once per group set at the end of the
 * stream, so clarity wins over speed here: collect, sort, merge.
 */
#include "extract/sharing/sharing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/mem/mem_agg.h"
#include "lib/error.h"

bool sharing_is_significant(uint64_t count, uint64_t total, double pct)
{
	return total > 0 && ((double)count / (double)total) * 100.0 > pct;
}

/*
 * elem at the end of *arr. Every array here starts empty and grows only
 * through append, so its capacity is implicit: it doubles when *n is 0 or a
 * power of two (a realloc per element copies the whole array each time
 * where realloc moves it, as ASan's always does: quadratic in a comm seen
 * in 12k groups).
 */
static int append(void **arr, size_t *n, const void *elem, size_t size)
{
	void *p = *arr;

	if (!(*n & (*n - 1)) && !(p = realloc(*arr, (*n ? 2 * *n : 1) * size)))
		return scx_fail("out of memory");
	memcpy((char *)p + *n * size, elem, size);
	*arr = p;
	(*n)++;
	return 0;
}

static int add_comm_rec(struct norm_comm *nc, const struct comm_rec *c, struct comm_ref ref)
{
	struct name_count con = {c->comm, c->count, c->folded};
	size_t i;

	nc->count += c->count;
	if (append((void **)&nc->srcs, &nc->nr_srcs, &ref, sizeof(ref)) < 0)
		return -1;
	for (i = 0; i < nc->nr_concretes && (nc->concretes[i].folded != c->folded || strcmp(nc->concretes[i].name, c->comm)); i++)
		;
	if (i < nc->nr_concretes)
		nc->concretes[i].count += c->count;
	else if (append((void **)&nc->concretes, &nc->nr_concretes, &con, sizeof(con)) < 0)
		return -1;
	for (size_t h = 0; h < c->nr_hints; h++) {
		struct hint_count hc = {c->hints[h].hint, c->hints[h].count, c->hints[h].other};

		for (i = 0; i < nc->nr_hints && (nc->hints[i].other != hc.other || nc->hints[i].hint != hc.hint); i++)
			;
		if (i < nc->nr_hints)
			nc->hints[i].count += hc.count;
		else if (append((void **)&nc->hints, &nc->nr_hints, &hc, sizeof(hc)) < 0)
			return -1;
	}
	return 0;
}

int sharing_summary_build(const struct mem_agg *a, const size_t *groups, size_t nr_groups,
		       struct comm_summary *out)
{
	struct strmap index;
	size_t g, c;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	strmap_init(&index);
	for (g = 0; g < nr_groups && !rc; g++) {
		const struct group_rec *gr = &a->groups[groups[g]];

		out->total += gr->count;
		for (c = 0; c < gr->nr_comms && !rc; c++) {
			const struct comm_rec *cr = &gr->comms[c];
			size_t n = comm_name_normalize(cr->comm, cr->len);
			int inserted;
			struct strmap_slot *s = strmap_get_or_add(&index, cr->comm, n, out->nr, &inserted);
			struct norm_comm empty = {0};

			if (!s) {
				rc = -1;
				break;
			}
			if (inserted) {
				empty.name = strndup(cr->comm, n);
				if (!empty.name || append((void **)&out->comms, &out->nr, &empty, sizeof(empty)) < 0) {
					free(empty.name);
					rc = scx_fail("out of memory");
					break;
				}
			}
			rc = add_comm_rec(&out->comms[s->index], cr, (struct comm_ref){groups[g], c});
		}
	}
	strmap_free(&index);
	return rc;
}

/* Concrete comm names are borrowed from the comm_recs; only arrays are owned. */
void sharing_summary_free(struct comm_summary *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		free(s->comms[i].name);
		free(s->comms[i].concretes);
		free(s->comms[i].hints);
		free(s->comms[i].srcs);
	}
	free(s->comms);
	memset(s, 0, sizeof(*s));
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

static int norm_by_count(const void *x, const void *y)
{
	const struct norm_comm *a = x, *b = y;

	return cmp_u64_desc(a->count, b->count) ?: strcmp(a->name, b->name);
}

static int norm_by_name(const void *x, const void *y)
{
	return strcmp(((const struct norm_comm *)x)->name, ((const struct norm_comm *)y)->name);
}

static int concrete_by_count(const void *x, const void *y)
{
	const struct name_count *a = x, *b = y;

	return cmp_u64_desc(a->count, b->count) ?: strcmp(a->name, b->name);
}

static int concrete_by_name(const void *x, const void *y)
{
	return strcmp(((const struct name_count *)x)->name, ((const struct name_count *)y)->name);
}

static int hint_by_count(const void *x, const void *y)
{
	const struct hint_count *a = x, *b = y;

	return (int)a->other - (int)b->other ?: cmp_u64_desc(a->count, b->count) ?: (a->hint > b->hint) - (a->hint < b->hint);
}

static int hint_by_value(const void *x, const void *y)
{
	const struct hint_count *a = x, *b = y;

	return (int)a->other - (int)b->other ?: (a->hint > b->hint) - (a->hint < b->hint);
}

static void sort_summary(struct comm_summary *s, int (*comms)(const void *, const void *),
			 int (*concretes)(const void *, const void *), int (*hints)(const void *, const void *))
{
	size_t i;

	if (s->nr)
		qsort(s->comms, s->nr, sizeof(*s->comms), comms);
	for (i = 0; i < s->nr; i++) {
		if (s->comms[i].nr_concretes)
			qsort(s->comms[i].concretes, s->comms[i].nr_concretes, sizeof(struct name_count), concretes);
		if (s->comms[i].nr_hints)
			qsort(s->comms[i].hints, s->comms[i].nr_hints, sizeof(struct hint_count), hints);
	}
}

void sharing_summary_sort_by_count(struct comm_summary *s)
{
	sort_summary(s, norm_by_count, concrete_by_count, hint_by_count);
}

void sharing_summary_sort_by_name(struct comm_summary *s)
{
	sort_summary(s, norm_by_name, concrete_by_name, hint_by_value);
}

/*
 * Upstream's emitted_comm_patterns: one CommPrefix of the normalized name
 * when several concrete comms all start with it, else one per concrete comm
 * (in name order).
 */
static int add_comm_clauses(struct unit *u, const struct norm_comm *c, bool has_hint, uint64_t hint)
{
	size_t i, n = strlen(c->name);
	bool one = c->nr_concretes > 1 && n > 0;

	for (i = 0; one && i < c->nr_concretes; i++)
		one = !strncmp(c->concretes[i].name, c->name, n);
	if (one)
		return append((void **)&u->clauses, &u->nr_clauses,
			      &(struct cell_clause){strdup(c->name), has_hint, hint}, sizeof(struct cell_clause));
	for (i = 0; i < c->nr_concretes; i++)
		if (append((void **)&u->clauses, &u->nr_clauses,
			   &(struct cell_clause){strdup(c->concretes[i].name), has_hint, hint},
			   sizeof(struct cell_clause)) < 0)
			return -1;
	return 0;
}

static int add_unit(struct unit_list *out, const struct norm_comm *c, bool by_hint, uint64_t hint,
		    uint64_t count)
{
	struct unit u = {0};
	size_t i;

	if (by_hint) {
		if (asprintf(&u.name, "%s@hint=%llu", c->name, (unsigned long long)hint) < 0)
			u.name = NULL;
	} else {
		u.name = strdup(c->name);
	}
	u.comm = c;
	u.by_hint = by_hint;
	u.hint = hint;
	u.count = count;
	if (!u.name || add_comm_clauses(&u, c, by_hint, hint) < 0)
		goto oom;
	for (i = 0; i < u.nr_clauses; i++)
		if (!u.clauses[i].comm_prefix)
			goto oom;
	if (append((void **)&out->v, &out->n, &u, sizeof(u)) < 0)
		goto oom;
	return 0;
oom:
	for (i = 0; i < u.nr_clauses; i++)
		free(u.clauses[i].comm_prefix);
	free(u.clauses);
	free(u.name);
	return scx_fail("out of memory");
}

int sharing_upstream_units(const struct comm_summary *s, bool use_hints, double min_share, struct unit_list *out)
{
	size_t i, h;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < s->nr; i++) {
		const struct norm_comm *c = &s->comms[i];
		bool split = false;

		if (!sharing_is_significant(c->count, s->total, min_share))
			continue;
		if (use_hints && c->nr_hints > 1) {
			for (h = 0; h < c->nr_hints; h++) {
				if (c->hints[h].other || !sharing_is_significant(c->hints[h].count, c->count, min_share))
					continue;
				split = true;
				if (add_unit(out, c, true, c->hints[h].hint, c->hints[h].count) < 0)
					return -1;
			}
		}
		if (!split && add_unit(out, c, false, 0, c->count) < 0)
			return -1;
	}
	return 0;
}

void sharing_unit_list_free(struct unit_list *u)
{
	size_t i, j;

	for (i = 0; i < u->n; i++) {
		for (j = 0; j < u->v[i].nr_clauses; j++)
			free(u->v[i].clauses[j].comm_prefix);
		free(u->v[i].clauses);
		free(u->v[i].name);
	}
	free(u->v);
	memset(u, 0, sizeof(*u));
}

static const struct mem_agg *order_agg; /* qsort context (single-threaded use) */

static int group_cmp(const void *x, const void *y)
{
	const struct group_rec *a = &order_agg->groups[*(const size_t *)x];
	const struct group_rec *b = &order_agg->groups[*(const size_t *)y];

	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	if (a->folded_groups != b->folded_groups) /* the folded allotment groups last */
		return (int)a->folded_groups - (int)b->folded_groups;
	return strcmp(a->key, b->key);
}

size_t *sharing_groups_of_kind(const struct mem_agg *a, enum group_kind kind, size_t *n)
{
	size_t *v = malloc((a->nr_groups + 1) * sizeof(*v)), i;

	*n = 0;
	if (!v) {
		scx_fail("out of memory");
		return NULL;
	}
	for (i = 0; i < a->nr_groups; i++)
		if ((int)kind < 0 || a->groups[i].kind == kind)
			v[(*n)++] = i;
	order_agg = a;
	qsort(v, *n, sizeof(*v), group_cmp);
	return v;
}

size_t *sharing_groups_in_order(const struct mem_agg *a, size_t *n)
{
	return sharing_groups_of_kind(a, (enum group_kind)-1, n);
}
