/*
 * mem_agg.c - the streaming side of extract mem (see mem_agg.h): cgroup
 * classification with a per-path cache, per-group comm and hint counts
 * under the per-group name bound, and the bounded per-unit page evidence.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "extract/mem_agg.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/comm_name.h"
#include "lib/error.h"
#include "lib/hash.h"
#include "lib/linereader.h"

int mem_agg_init(struct mem_agg *a, const struct mem_agg_opts *o)
{
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_code *re;

	memset(a, 0, sizeof(*a));
	a->o = *o;
	if (!a->o.max_keys)
		a->o.max_keys = MEM_AGG_DEFAULT_MAX_KEYS;
	if (!a->o.max_names)
		a->o.max_names = MEM_AGG_DEFAULT_MAX_NAMES;
	if (!a->o.max_groups)
		a->o.max_groups = MEM_AGG_DEFAULT_MAX_GROUPS;
	mg_init(&a->group_mg, a->o.max_groups);
	a->workload_len = strlen(o->workload);
	strmap_init(&a->group_index);
	strmap_init(&a->cgroup_cache);
	u64map_init_cap(&a->tid_groups, U64MAP_SMALL);
	u64map_init_cap(&a->pid_groups, U64MAP_SMALL);
	u64map_init_cap(&a->tid_hint, U64MAP_SMALL);
	u64map_init_cap(&a->ident_object, U64MAP_SMALL);
	strmap_init(&a->objects);
	re = pcre2_compile((PCRE2_SPTR)o->allotment_re, PCRE2_ZERO_TERMINATED,
			   PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &errcode, &erroff, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(errcode, msg, sizeof(msg));
		return scx_fail("--workload-allotment-cgroup-regex: %s at offset %zu", (char *)msg, (size_t)erroff);
	}
	pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* falls back to the interpreter */
	a->re = re;
	a->match = pcre2_match_data_create_from_pattern(re, NULL);
	if (!a->match) {
		pcre2_code_free(re);
		a->re = NULL;
		return scx_fail("out of memory (regex match data)");
	}
	return 0;
}

static void comm_rec_free(struct comm_rec *c)
{
	size_t i;

	for (i = 0; i < c->nr_hints; i++)
		u64map_free(&c->hints[i].pages);
	free(c->hints);
	u64map_free(&c->hint_index);
	free(c->comm);
}

void mem_agg_free(struct mem_agg *a)
{
	size_t g, c;

	for (g = 0; g < a->nr_groups; g++) {
		for (c = 0; c < a->groups[g].nr_comms; c++)
			comm_rec_free(&a->groups[g].comms[c]);
		free(a->groups[g].comms);
		free(a->groups[g].key);
		strmap_free(&a->groups[g].comm_index);
		strmap_free(&a->groups[g].name_index);
		free(a->groups[g].names);
		mg_free(&a->groups[g].mg);
	}
	free(a->groups);
	mg_free(&a->group_mg);
	free(a->mg_group);
	strmap_free(&a->group_index);
	strmap_free(&a->cgroup_cache);
	u64map_free(&a->tid_groups);
	u64map_free(&a->pid_groups);
	u64map_free(&a->tid_hint);
	u64map_free(&a->ident_object);
	strmap_free(&a->objects);
	free(a->object_names);
	if (a->match)
		pcre2_match_data_free((pcre2_match_data *)a->match);
	if (a->re)
		pcre2_code_free((pcre2_code *)a->re);
	memset(a, 0, sizeof(*a));
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 4;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*arr, n * elem);
	if (!p)
		return scx_fail("out of memory (%zu entries)", n);
	memset((char *)p + *cap * elem, 0, (n - *cap) * elem);
	*arr = p;
	*cap = n;
	return 0;
}

static enum group_kind kind_of(const struct mem_agg *a, const char *key, size_t len)
{
	if (len == 4 && !memcmp(key, "rest", 4))
		return GROUP_REST;
	if (len == a->workload_len && !memcmp(key, a->o.workload, len))
		return GROUP_WORKLOAD;
	return GROUP_ALLOTMENT;
}

/*
 * A new group record at the end of groups; indexed ones (all but the
 * folded-groups record) go in group_index and, when allotment, in the
 * groups' Misra-Gries table. Its index, -1 on OOM.
 */
static long new_group(struct mem_agg *a, const char *key, size_t len, enum group_kind kind, bool indexed)
{
	struct group_rec *g;
	int inserted;
	long e;

	if (grow((void **)&a->groups, &a->cap_groups, a->nr_groups + 1, sizeof(*a->groups)) < 0)
		return -1;
	g = &a->groups[a->nr_groups];
	if (!(g->key = strmap_key_dup(key, len)))
		return -1;
	g->key_len = len;
	g->kind = kind;
	strmap_init(&g->comm_index);
	strmap_init(&g->name_index);
	mg_init(&g->mg, a->o.max_names);
	if (indexed && !strmap_get_or_add(&a->group_index, key, len, a->nr_groups, &inserted))
		return -1;
	if (indexed && kind == GROUP_ALLOTMENT) {
		if ((e = mg_admit(&a->group_mg)) < 0 ||
		    grow((void **)&a->mg_group, &a->cap_mg_group, (size_t)e + 1, sizeof(*a->mg_group)) < 0)
			return -1;
		a->mg_group[e] = a->nr_groups;
		g->mg_entry = (size_t)e;
	}
	return (long)a->nr_groups++;
}

static int fold_groups(struct mem_agg *a);

/* Index of the group with this key, created on first use; -1 on OOM. */
static long group_by_key(struct mem_agg *a, const char *key, size_t len)
{
	struct strmap_slot *s = strmap_find(&a->group_index, key, len);
	enum group_kind kind;

	if (s)
		return (long)s->index;
	kind = kind_of(a, key, len);
	if (kind == GROUP_ALLOTMENT && mg_full(&a->group_mg) && fold_groups(a) < 0)
		return -1;
	return new_group(a, key, len, kind, true);
}

/* Upstream's classify_cgroup, answering with a group index. */
static long classify(struct mem_agg *a, const char *cgroup, size_t len)
{
	int rc;

	if (!memmem(cgroup, len, a->o.workload, a->workload_len))
		return group_by_key(a, "rest", 4);
	rc = pcre2_match((pcre2_code *)a->re, (PCRE2_SPTR)cgroup, len, 0, 0, (pcre2_match_data *)a->match, NULL);
	if (rc >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer((pcre2_match_data *)a->match);

		return group_by_key(a, cgroup + ov[0], ov[1] - ov[0]);
	}
	if (rc != PCRE2_ERROR_NOMATCH) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(rc, msg, sizeof(msg));
		return scx_fail("--workload-allotment-cgroup-regex: matching failed: %s", (char *)msg);
	}
	return group_by_key(a, a->o.workload, a->workload_len);
}

static long group_of(struct mem_agg *a, const char *cgroup, size_t len)
{
	struct strmap_slot *s = strmap_find(&a->cgroup_cache, cgroup, len);
	long g;
	int inserted;

	if (s)
		return (long)s->index;
	g = classify(a, cgroup, len);
	if (g < 0)
		return -1;
	if (a->cgroup_cache.len >= MEM_AGG_CGROUP_CACHE_MAX) /* only a cache: start over */
		strmap_free(&a->cgroup_cache);
	if (!strmap_get_or_add(&a->cgroup_cache, cgroup, len, (size_t)g, &inserted))
		return -1;
	return g;
}

static size_t comm_rec_keys(const struct comm_rec *c)
{
	size_t h, n = 0;

	for (h = 0; h < c->nr_hints; h++)
		n += c->hints[h].pages.len;
	return n;
}

/* The group's comm and name maps after a round moved their entries. */
static int rebuild_comm_index(struct group_rec *g)
{
	size_t i;
	int inserted;

	strmap_free(&g->comm_index);
	for (i = 0; i < g->nr_comms; i++)
		if (!g->comms[i].folded &&
		    !strmap_get_or_add(&g->comm_index, g->comms[i].comm, g->comms[i].len, i, &inserted))
			return -1;
	return 0;
}

/* m without the keys whose index remap sends to SIZE_MAX, the others' indexes remapped. */
static int rebuild_index(struct strmap *m, const size_t *remap)
{
	struct strmap old = *m;
	size_t i;
	int inserted, rc = 0;

	strmap_init(m);
	for (i = 0; i < old.cap && !rc; i++)
		if (old.slots[i].key && remap[old.slots[i].index] != SIZE_MAX &&
		    !strmap_get_or_add(m, old.slots[i].key, old.slots[i].len, remap[old.slots[i].index], &inserted))
			rc = -1;
	strmap_free(&old);
	return rc;
}

/*
 * A Misra-Gries round on the group's names (see heavy_hitters.h): the
 * evicted names go with all their comm_recs, hints and evidence; their
 * samples stay in the group's count and are added to folded_samples.
 */
static int fold_names(struct mem_agg *a, struct group_rec *g)
{
	size_t old_n = g->mg.n, *remap = malloc(old_n * sizeof(*remap)), i, kept = 0;
	int rc;

	if (!remap)
		return scx_fail("out of memory (folding names)");
	mg_round(&g->mg, remap);
	for (i = 0; i < g->nr_comms; i++) {
		struct comm_rec *c = &g->comms[i];

		if (remap[c->name] == SIZE_MAX) {
			g->folded_samples += c->count;
			a->nr_keys -= comm_rec_keys(c);
			comm_rec_free(c);
			continue;
		}
		c->name = remap[c->name];
		g->comms[kept++] = *c;
	}
	memset(g->comms + kept, 0, (g->nr_comms - kept) * sizeof(*g->comms));
	g->nr_comms = kept;
	/* remap keeps the order, so names move down in place */
	for (i = 0; i < old_n; i++)
		if (remap[i] != SIZE_MAX)
			g->names[remap[i]] = g->names[i];
	for (i = 0; i < g->mg.n; i++)
		g->names[i].folded = 0;
	for (i = 0; i < g->nr_comms; i++)
		if (g->comms[i].folded)
			g->names[g->comms[i].name].folded = i + 1;
	rc = rebuild_comm_index(g) < 0 || rebuild_index(&g->name_index, remap) < 0 ? -1 : 0;
	free(remap);
	return rc;
}

/* A new comm_rec for (the name at index name) in the group; NULL on OOM. */
static struct comm_rec *new_comm(struct group_rec *g, const char *comm, size_t len, size_t name, bool folded)
{
	struct comm_rec *c;
	int inserted;

	if (grow((void **)&g->comms, &g->cap_comms, g->nr_comms + 1, sizeof(*g->comms)) < 0)
		return NULL;
	if (!folded && !strmap_get_or_add(&g->comm_index, comm, len, g->nr_comms, &inserted))
		return NULL;
	c = &g->comms[g->nr_comms++];
	if (!(c->comm = strmap_key_dup(comm, len)))
		return NULL;
	c->len = len;
	c->name = name;
	c->folded = folded;
	u64map_init_cap(&c->hint_index, U64MAP_SMALL);
	if (folded)
		g->names[name].folded = g->nr_comms;
	else
		g->names[name].nr_concretes++;
	return c;
}

/* The index of a new name (after a fold round when the table is full); -1 on OOM. */
static long new_name(struct mem_agg *a, struct group_rec *g, const char *name, size_t len)
{
	int inserted;
	long i;

	if (mg_full(&g->mg) && fold_names(a, g) < 0)
		return -1;
	if ((i = mg_admit(&g->mg)) < 0)
		return -1;
	if (grow((void **)&g->names, &g->cap_names, (size_t)i + 1, sizeof(*g->names)) < 0 ||
	    !strmap_get_or_add(&g->name_index, name, len, (size_t)i, &inserted)) {
		g->mg.n--;
		return -1;
	}
	memset(&g->names[i], 0, sizeof(g->names[i]));
	return i;
}

/*
 * The comm_rec of comm in g, created when new: its own, or when its name
 * already has MEM_AGG_CONCRETES_MAX concretes (or folded: comm is the
 * name of another group's folded record) the name's folded one.
 */
static struct comm_rec *comm_in(struct mem_agg *a, struct group_rec *g, const char *comm, size_t len, bool folded)
{
	struct strmap_slot *s = folded ? NULL : strmap_find(&g->comm_index, comm, len);
	size_t n;
	long name;

	if (s)
		return &g->comms[s->index];
	n = folded ? len : comm_name_normalize(comm, len);
	s = strmap_find(&g->name_index, comm, n);
	if (s)
		name = (long)s->index;
	else if ((name = new_name(a, g, comm, n)) < 0)
		return NULL;
	if (!folded && g->names[name].nr_concretes < MEM_AGG_CONCRETES_MAX)
		return new_comm(g, comm, len, (size_t)name, false);
	if (g->names[name].folded)
		return &g->comms[g->names[name].folded - 1];
	return new_comm(g, comm, n, (size_t)name, true);
}

/* The comm_rec a sample of comm counts in, with its name's counter already incremented. */
static struct comm_rec *comm_of(struct mem_agg *a, struct group_rec *g, const char *comm, size_t len)
{
	struct comm_rec *c = comm_in(a, g, comm, len, false);

	if (c)
		mg_count(&g->mg, c->name, 1);
	return c;
}

/* Add src's evidence to dst's; a->nr_keys follows. -1 on OOM. */
static int merge_pages(struct mem_agg *a, struct u64map *dst, const struct u64map *src)
{
	size_t pos = 0, before = dst->len;
	uint64_t k, v, *slot;

	while (u64map_next_u64(src, &pos, &k, &v)) {
		if (!(slot = u64map_slot(dst, k)))
			return -1;
		*slot += v;
	}
	a->nr_keys = a->nr_keys + (dst->len - before) - src->len;
	return 0;
}

/* The comm's "other" hint_rec, created when it has none: its index, -1 on OOM. */
static long other_hint(struct comm_rec *c)
{
	if (!c->other_hint) {
		if (grow((void **)&c->hints, &c->cap_hints, c->nr_hints + 1, sizeof(*c->hints)) < 0)
			return -1;
		memset(&c->hints[c->nr_hints], 0, sizeof(*c->hints));
		c->hints[c->nr_hints].other = true;
		u64map_init_cap(&c->hints[c->nr_hints].pages, U64MAP_SMALL);
		c->other_hint = ++c->nr_hints;
	}
	return (long)c->other_hint - 1;
}

/*
 * A Misra-Gries round on the comm's hints (heavy_hitters.h's rule; a
 * hint's counter is count + since - decrements, which is what the
 * decrements since its admission left of its count). Evicted hints are
 * added to the "other" hint_rec: the comm's count and evidence stay whole.
 */
static int fold_hints(struct mem_agg *a, struct comm_rec *c)
{
	uint64_t *v = malloc(c->nr_hints * sizeof(*v)), delta;
	size_t i, n = 0, kept = 0, other;
	int rc = 0;

	if (!v)
		return scx_fail("out of memory (folding hints)");
	for (i = 0; i < c->nr_hints; i++)
		if (!c->hints[i].other)
			v[n++] = c->hints[i].count + c->hints[i].since - c->hint_decrements;
	delta = mg_select_desc(v, n, MEM_AGG_HINTS_K);
	free(v);
	if (other_hint(c) < 0)
		return -1;
	other = c->other_hint - 1;
	for (i = 0; i < c->nr_hints; i++) {
		struct hint_rec *h = &c->hints[i];

		if (!h->other && h->count + h->since - c->hint_decrements <= delta) {
			c->hints[other].count += h->count;
			if (!rc)
				rc = merge_pages(a, &c->hints[other].pages, &h->pages);
			u64map_free(&h->pages);
			c->hints_folded++;
			continue;
		}
		if (h->other)
			c->other_hint = kept + 1;
		if (i == other)
			other = kept;
		c->hints[kept++] = *h;
	}
	c->nr_hints = kept;
	c->hint_decrements += delta;
	c->last_hint = c->other_hint == 1 ? (kept > 1) : 0;
	u64map_free(&c->hint_index);
	for (i = 0; i < c->nr_hints && !rc; i++) {
		uint64_t *idx;

		if (c->hints[i].other)
			continue;
		if (!(idx = u64map_slot(&c->hint_index, c->hints[i].hint)))
			rc = -1;
		else
			*idx = i;
	}
	return rc;
}

static struct hint_rec *hint_of(struct mem_agg *a, struct comm_rec *c, uint64_t hint)
{
	uint64_t *idx;
	struct hint_rec *h;

	if (c->nr_hints && c->hints[c->last_hint].hint == hint && !c->hints[c->last_hint].other)
		return &c->hints[c->last_hint];
	idx = u64map_find(&c->hint_index, hint);
	if (idx) {
		c->last_hint = (size_t)*idx;
		return &c->hints[*idx];
	}
	if (c->nr_hints - (c->other_hint != 0) >= 2 * MEM_AGG_HINTS_K && fold_hints(a, c) < 0)
		return NULL;
	if (grow((void **)&c->hints, &c->cap_hints, c->nr_hints + 1, sizeof(*c->hints)) < 0)
		return NULL;
	if (!(idx = u64map_slot(&c->hint_index, hint)))
		return NULL;
	*idx = c->nr_hints;
	h = &c->hints[c->nr_hints];
	memset(h, 0, sizeof(*h));
	h->hint = hint;
	h->since = c->hint_decrements;
	u64map_init_cap(&h->pages, U64MAP_SMALL);
	c->last_hint = c->nr_hints++;
	return h;
}

/* Add comm_rec src (of another group) to group dst: counts, hints and evidence. -1 on OOM. */
static int merge_comm(struct mem_agg *a, struct group_rec *dst, const struct comm_rec *src)
{
	struct comm_rec *d = comm_in(a, dst, src->comm, src->len, src->folded);
	size_t h;

	if (!d)
		return -1;
	mg_count(&dst->mg, d->name, src->count);
	d->count += src->count;
	d->hints_folded += src->hints_folded;
	for (h = 0; h < src->nr_hints; h++) {
		const struct hint_rec *sh = &src->hints[h];
		struct hint_rec *dh;
		long o;

		if (sh->other) {
			if ((o = other_hint(d)) < 0)
				return -1;
			dh = &d->hints[o];
		} else if (!(dh = hint_of(a, d, sh->hint))) {
			return -1;
		}
		dh->count += sh->count;
		if (merge_pages(a, &dh->pages, &sh->pages) < 0)
			return -1;
	}
	return 0;
}

/* Merge group g into the folded-groups record f and free it. -1 on OOM. */
static int merge_group(struct mem_agg *a, size_t f, size_t g)
{
	struct group_rec *src = &a->groups[g];
	size_t c;
	int rc = 0;

	for (c = 0; c < src->nr_comms && !rc; c++)
		rc = merge_comm(a, &a->groups[f], &src->comms[c]);
	src = &a->groups[g];
	a->groups[f].count += src->count;
	a->group_fold.groups++;
	a->group_fold.samples += src->count;
	a->group_fold.names += src->mg.evicted;
	a->group_fold.name_samples += src->folded_samples;
	for (c = 0; c < src->nr_comms; c++) /* merge_pages took their keys off nr_keys */
		comm_rec_free(&src->comms[c]);
	free(src->comms);
	free(src->key);
	strmap_free(&src->comm_index);
	strmap_free(&src->name_index);
	free(src->names);
	mg_free(&src->mg);
	memset(src, 0, sizeof(*src));
	return rc;
}

/* (id, group) keys of m with their groups renumbered by gmap; counts of merged groups add up. */
static int remap_tid_groups(struct u64map *m, const size_t *gmap)
{
	struct u64map n;
	size_t pos = 0;
	uint64_t k, v, *slot;

	u64map_init_cap(&n, U64MAP_SMALL);
	while (u64map_next_u64(m, &pos, &k, &v)) {
		if (!(slot = u64map_slot(&n, MEM_AGG_TG_KEY(k >> 20, gmap[k & 0xfffff])))) {
			u64map_free(&n);
			return -1;
		}
		*slot += v;
	}
	u64map_free(m);
	*m = n;
	return 0;
}

/*
 * A Misra-Gries round on the allotment groups (k = max_groups, counters =
 * samples): the evicted groups are merged into one record (created on the
 * first round), so their comms, hints and evidence still count in the
 * allotment cell; the other groups move down in place.
 */
static int fold_groups(struct mem_agg *a)
{
	size_t n = a->group_mg.n, i, g, kept = 0, f, *remap = malloc(n * sizeof(*remap)), *gmap = NULL;
	long fl = a->folded_group ? (long)a->folded_group - 1
				  : new_group(a, MEM_AGG_FOLDED_GROUPS_KEY, strlen(MEM_AGG_FOLDED_GROUPS_KEY),
					      GROUP_ALLOTMENT, false);
	int rc = 0;

	if (!remap || fl < 0 || !(gmap = calloc(a->nr_groups, sizeof(*gmap)))) {
		free(remap);
		return fl < 0 ? -1 : scx_fail("out of memory (folding groups)");
	}
	f = (size_t)fl;
	a->groups[f].folded_groups = true;
	a->folded_group = f + 1;
	mg_round(&a->group_mg, remap);
	for (i = 0; i < n; i++) {
		g = a->mg_group[i];
		if (remap[i] != SIZE_MAX) {
			a->mg_group[remap[i]] = g; /* remap keeps the order: entries move down */
			a->groups[g].mg_entry = remap[i];
		} else {
			gmap[g] = SIZE_MAX;
			if (!rc)
				rc = merge_group(a, f, g);
		}
	}
	for (g = 0; g < a->nr_groups; g++) {
		if (gmap[g] == SIZE_MAX)
			continue;
		gmap[g] = kept;
		a->groups[kept++] = a->groups[g];
	}
	memset(a->groups + kept, 0, (a->nr_groups - kept) * sizeof(*a->groups));
	f = gmap[f];
	a->folded_group = f + 1;
	for (i = 0; i < a->group_mg.n; i++)
		a->mg_group[i] = gmap[a->mg_group[i]];
	if (!rc && rebuild_index(&a->group_index, gmap) < 0)
		rc = -1;
	for (g = 0; g < a->nr_groups; g++) /* the tid maps send the evicted groups' samples to f */
		if (gmap[g] == SIZE_MAX)
			gmap[g] = f;
	a->nr_groups = kept;
	strmap_free(&a->cgroup_cache); /* its indexes are stale */
	if (!rc && a->o.track_tids &&
	    (remap_tid_groups(&a->tid_groups, gmap) < 0 || remap_tid_groups(&a->pid_groups, gmap) < 0))
		rc = -1;
	free(gmap);
	free(remap);
	return rc;
}

uint64_t mem_agg_evidence_key(uint64_t phys_addr, uint64_t data_page_size, bool line_granularity)
{
	unsigned shift = 12;

	if (line_granularity)
		shift = 6;
	else if (data_page_size >= 64)
		shift = 63 - (unsigned)__builtin_clzll(data_page_size);
	return (phys_addr >> shift) << 6 | shift;
}

bool mem_agg_sample_key(const struct mem_sample *s, bool line_granularity, uint64_t *key, unsigned *scale)
{
	uint64_t ident, epoch_ns = EV_EPOCH_NS;

	*scale = EV_SCALE_USER;
	if (s->data_id && s->data_id_len >= 2 && s->data_id[1] == ':') {
		uint64_t phys = s->phys_addr ? mem_agg_evidence_key(s->phys_addr, s->data_page_size, line_granularity) : 0;

		if (s->data_id[0] == 'R')
			return false;
		if (s->data_id[0] == 'K') {
			*scale = EV_SCALE_KERNEL;
			epoch_ns = EV_KERNEL_EPOCH_NS;
		}
		/* the physical page is folded in: one identity on two pages at once is reuse, not sharing */
		ident = hash_bytes(s->data_id, s->data_id_len) ^ hash_mix64(phys + 1);
	} else if (s->phys_addr) {
		ident = hash_mix64(mem_agg_evidence_key(s->phys_addr, s->data_page_size, line_granularity));
		epoch_ns = EV_PHYS_EPOCH_NS;
	} else {
		return false;
	}
	if (s->peer)
		*scale *= EV_PEER_FACTOR;
	*key = (ident & ~EV_EPOCH_MASK) | ((s->time_ns / epoch_ns) & EV_EPOCH_MASK);
	return true;
}

/* Sampling keeps or drops an identity in all its epochs at once. */
static bool key_sampled(uint64_t key, unsigned level)
{
	return level == 0 || (hash_mix64(EV_IDENT(key)) >> (64 - level)) == 0;
}

static int keep_at_level(uint64_t key, void *arg)
{
	return key_sampled(key, *(unsigned *)arg);
}

static int keep_ident_at_level(uint64_t ident, void *arg)
{
	return key_sampled(ident << EV_EPOCH_BITS, *(unsigned *)arg);
}

/* Raise the sampling level until the evidence fits the budget again. */
static int shrink_evidence(struct mem_agg *a)
{
	while (a->nr_keys > a->o.max_keys && a->level < 63) {
		size_t g, c, h, dropped;

		a->level++;
		for (g = 0; g < a->nr_groups; g++)
			for (c = 0; c < a->groups[g].nr_comms; c++)
				for (h = 0; h < a->groups[g].comms[c].nr_hints; h++) {
					struct u64map *m = &a->groups[g].comms[c].hints[h].pages;

					if (u64map_filter(m, keep_at_level, &a->level, &dropped) < 0)
						return -1;
					a->nr_keys -= dropped;
				}
		if (u64map_filter(&a->ident_object, keep_ident_at_level, &a->level, &dropped) < 0)
			return -1;
	}
	return 0;
}

/* Remember the object name of an identity (bounded: MEM_AGG_MAX_OBJECTS names). */
static int note_object(struct mem_agg *a, uint64_t ident, const struct mem_sample *s)
{
	char name[512];
	int n, inserted;
	uint64_t *slot;
	struct strmap_slot *o;

	if (u64map_find(&a->ident_object, ident))
		return 0;
	n = snprintf(name, sizeof(name), "%.*s%s%.*s", (int)s->data_map_len, s->data_map, s->data_sym ? " " : "",
		     s->data_sym ? (int)s->data_sym_len : 0, s->data_sym ? s->data_sym : "");
	if (n < 0)
		return 0;
	if ((size_t)n >= sizeof(name))
		n = sizeof(name) - 1;
	o = strmap_find(&a->objects, name, (size_t)n);
	if (!o) {
		if (a->nr_objects >= MEM_AGG_MAX_OBJECTS)
			return 0;
		if (!a->object_names &&
		    !(a->object_names = calloc(MEM_AGG_MAX_OBJECTS, sizeof(*a->object_names))))
			return scx_fail("out of memory");
		if (!(o = strmap_get_or_add(&a->objects, name, (size_t)n, a->nr_objects, &inserted)))
			return -1;
		a->object_names[a->nr_objects++] = o->key;
	}
	if (!(slot = u64map_slot(&a->ident_object, ident)))
		return -1;
	*slot = o->index + 1;
	return 0;
}

size_t mem_agg_object(const struct mem_agg *a, uint64_t ident)
{
	const uint64_t *v = u64map_find(&a->ident_object, ident);

	return v ? (size_t)*v : 0;
}

static int add_evidence(struct mem_agg *a, struct hint_rec *h, const struct mem_sample *s)
{
	uint64_t key, w = s->has_weight && s->weight ? s->weight : 1;
	unsigned scale;
	size_t before = h->pages.len;
	uint64_t *v;

	if (!mem_agg_sample_key(s, a->o.line_granularity, &key, &scale)) {
		if (s->data_id && s->data_id_len >= 2 && s->data_id[0] == 'R')
			a->ev.readonly++;
		else
			a->ev.none++;
		return 0;
	}
	if (s->data_id)
		a->ev.by_id++;
	else
		a->ev.by_phys++;
	a->ev.kernel += s->data_id && s->data_id[0] == 'K';
	a->ev.peer += s->peer;
	if (!key_sampled(key, a->level))
		return 0;
	if (!(v = u64map_slot(&h->pages, key)))
		return -1;
	*v += EV_PACK(1, w * scale);
	if (a->o.objects && s->data_map && note_object(a, EV_IDENT(key), s) < 0)
		return -1;
	if (h->pages.len != before && ++a->nr_keys > a->o.max_keys)
		return shrink_evidence(a);
	return 0;
}

int mem_agg_add(struct mem_agg *a, const struct mem_sample *s)
{
	long gi = group_of(a, s->cgroup, s->cgroup_len);
	struct comm_rec *c;
	struct hint_rec *h;

	if (gi < 0)
		return -1;
	if (!(c = comm_of(a, &a->groups[gi], s->comm, s->comm_len)) || !(h = hint_of(a, c, s->hint)))
		return -1;
	a->groups[gi].count++;
	if (a->groups[gi].kind == GROUP_ALLOTMENT && !a->groups[gi].folded_groups)
		mg_count(&a->group_mg, a->groups[gi].mg_entry, 1);
	c->count++;
	h->count++;
	a->total++;
	if (a->o.track_tids) {
		uint64_t *t = u64map_slot(&a->tid_groups, MEM_AGG_TG_KEY(s->tid, gi)), *p, *hv;

		if (!t || !(p = u64map_slot(&a->pid_groups, MEM_AGG_TG_KEY(s->pid, gi))))
			return -1;
		++*t;
		++*p;
		if (!u64map_find(&a->tid_hint, (uint64_t)s->tid)) {
			if (!(hv = u64map_slot(&a->tid_hint, (uint64_t)s->tid)))
				return -1;
			*hv = s->hint;
		}
	}
	if (a->o.evidence)
		return add_evidence(a, h, s);
	return 0;
}

int mem_agg_read(struct mem_agg *a, FILE *f, const char *path, volatile int *stop)
{
	struct line_reader lr;
	char *line, err[256];
	size_t n;
	int rc;

	line_reader_init(&lr, f, path);
	lr.stop = stop;
	while ((rc = line_reader_next(&lr, &line, &n)) > 0) {
		struct mem_sample s;

		if (jsonl_scan_mem(line, n, &s, err, sizeof(err)) < 0) {
			rc = scx_fail("%s:%llu: %s", path, (unsigned long long)lr.lineno, err);
			break;
		}
		if (mem_agg_add(a, &s) < 0) {
			rc = -1;
			break;
		}
		if (stop && *stop && (lr.lineno & 0xfff) == 0) {
			rc = scx_fail("interrupted");
			break;
		}
	}
	line_reader_free(&lr);
	return rc < 0 ? -1 : 0;
}
