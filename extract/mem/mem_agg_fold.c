/*
 * mem_agg_fold.c - mem_agg's records and their bounds (see mem_agg.h):
 * groups, comm_recs and hint_recs, created on first use, and the
 * Misra-Gries rounds that fold names, hints and allotment groups.
 */
#include <stdlib.h>
#include <string.h>

#include "extract/mem/mem_agg.h"
#include "extract/mem/mem_agg_internal.h"
#include "lib/error.h"

void mem_agg_comm_rec_free(struct comm_rec *c)
{
	size_t i;

	for (i = 0; i < c->nr_hints; i++)
		u64map_free(&c->hints[i].pages);
	free(c->hints);
	u64map_free(&c->hint_index);
	free(c->comm);
}

/*
 * A hint_rec's ev_id: one of a folded hint_rec's, else a new one. Reuse is
 * safe with shards: the fold's DROP or MERGE of the old one's map reaches
 * every shard before any ADD under the same id.
 */
static uint32_t new_ev_id(struct mem_agg *a)
{
	return a->nr_free_ev_ids ? a->free_ev_ids[--a->nr_free_ev_ids] : a->next_ev_id++;
}

/* The ev_id of a hint_rec folded away (best effort: without memory it is not reused). */
static void release_ev_id(struct mem_agg *a, uint32_t id)
{
	if (mem_agg_grow((void **)&a->free_ev_ids, &a->cap_free_ev_ids, a->nr_free_ev_ids + 1,
			 sizeof(*a->free_ev_ids)) == 0)
		a->free_ev_ids[a->nr_free_ev_ids++] = id;
}

static void release_comm_ev_ids(struct mem_agg *a, const struct comm_rec *c)
{
	for (size_t h = 0; h < c->nr_hints; h++)
		release_ev_id(a, c->hints[h].ev_id);
}


long mem_agg_new_group(struct mem_agg *a, const char *key, size_t len, int kind, bool indexed)
{
	struct group_rec *g;
	int inserted;
	long e;

	if (mem_agg_grow((void **)&a->groups, &a->cap_groups, a->nr_groups + 1, sizeof(*a->groups)) < 0)
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
		    mem_agg_grow((void **)&a->mg_group, &a->cap_mg_group, (size_t)e + 1, sizeof(*a->mg_group)) < 0)
			return -1;
		a->mg_group[e] = a->nr_groups;
		g->mg_entry = (size_t)e;
	}
	return (long)a->nr_groups++;
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
			for (size_t h = 0; a->shards && h < c->nr_hints; h++)
				if (mem_agg_shard_drop(a, c->hints[h].ev_id) < 0) {
					free(remap);
					return -1;
				}
			release_comm_ev_ids(a, c);
			mem_agg_comm_rec_free(c);
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

	if (mem_agg_grow((void **)&g->comms, &g->cap_comms, g->nr_comms + 1, sizeof(*g->comms)) < 0)
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
	if (mem_agg_grow((void **)&g->names, &g->cap_names, (size_t)i + 1, sizeof(*g->names)) < 0 ||
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
struct comm_rec *mem_agg_comm_of(struct mem_agg *a, struct group_rec *g, const char *comm, size_t len)
{
	struct comm_rec *c = comm_in(a, g, comm, len, false);

	if (c)
		mg_count(&g->mg, c->name, 1);
	return c;
}

/* Add src's evidence to dst's (in the shards when they hold it); a->nr_keys follows. -1 on OOM. */
static int merge_pages(struct mem_agg *a, struct hint_rec *dh, const struct hint_rec *sh)
{
	struct u64map *dst = &dh->pages;
	const struct u64map *src = &sh->pages;
	size_t pos = 0, before = dst->len;
	uint64_t k, v, *slot;

	if (a->shards)
		return mem_agg_shard_merge(a, sh->ev_id, dh->ev_id);
	while (u64map_next_u64(src, &pos, &k, &v)) {
		if (!(slot = u64map_slot(dst, k)))
			return -1;
		*slot += v;
	}
	a->nr_keys = a->nr_keys + (dst->len - before) - src->len;
	return 0;
}

/* The comm's "other" hint_rec, created when it has none: its index, -1 on OOM. */
static long other_hint(struct mem_agg *a, struct comm_rec *c)
{
	if (!c->other_hint) {
		if (mem_agg_grow((void **)&c->hints, &c->cap_hints, c->nr_hints + 1, sizeof(*c->hints)) < 0)
			return -1;
		memset(&c->hints[c->nr_hints], 0, sizeof(*c->hints));
		c->hints[c->nr_hints].other = true;
		c->hints[c->nr_hints].ev_id = new_ev_id(a);
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
	if (other_hint(a, c) < 0)
		return -1;
	other = c->other_hint - 1;
	for (i = 0; i < c->nr_hints; i++) {
		struct hint_rec *h = &c->hints[i];

		if (!h->other && h->count + h->since - c->hint_decrements <= delta) {
			c->hints[other].count += h->count;
			if (!rc)
				rc = merge_pages(a, &c->hints[other], h);
			u64map_free(&h->pages);
			release_ev_id(a, h->ev_id);
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

struct hint_rec *mem_agg_hint_of(struct mem_agg *a, struct comm_rec *c, uint64_t hint)
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
	if (mem_agg_grow((void **)&c->hints, &c->cap_hints, c->nr_hints + 1, sizeof(*c->hints)) < 0)
		return NULL;
	if (!(idx = u64map_slot(&c->hint_index, hint)))
		return NULL;
	*idx = c->nr_hints;
	h = &c->hints[c->nr_hints];
	memset(h, 0, sizeof(*h));
	h->hint = hint;
	h->since = c->hint_decrements;
	h->ev_id = new_ev_id(a);
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
			if ((o = other_hint(a, d)) < 0)
				return -1;
			dh = &d->hints[o];
		} else if (!(dh = mem_agg_hint_of(a, d, sh->hint))) {
			return -1;
		}
		dh->count += sh->count;
		if (merge_pages(a, dh, sh) < 0)
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
	for (c = 0; c < src->nr_comms; c++) { /* merge_pages took their keys off nr_keys */
		release_comm_ev_ids(a, &src->comms[c]);
		mem_agg_comm_rec_free(&src->comms[c]);
	}
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
		if (!(slot = u64map_slot(&n, MEM_AGG_TG_KEY(MEM_AGG_TG_ID(k), gmap[MEM_AGG_TG_GROUP(k)])))) {
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
int mem_agg_fold_groups(struct mem_agg *a)
{
	size_t n = a->group_mg.n, i, g, kept = 0, f, *remap = malloc(n * sizeof(*remap)), *gmap = NULL;
	long fl = a->folded_group ? (long)a->folded_group - 1
				  : mem_agg_new_group(a, MEM_AGG_FOLDED_GROUPS_KEY, strlen(MEM_AGG_FOLDED_GROUPS_KEY),
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
	if (!rc && a->o.track_seen && mem_agg_seen_remap(a, gmap) < 0)
		rc = -1;
	free(gmap);
	free(remap);
	return rc;
}

