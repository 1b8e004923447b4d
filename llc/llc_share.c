/*
 * llc_share.c - counting samples per (key, thread) and per (thread, 100
 * ms bin, CPU) while extract reads; then the evaluation: each thread's
 * subcell, CPU demand and predicted LLC (the placement model), the
 * figures from llc/llc_measure.c (see llc_share.h). Printing is
 * in llc_share_print.c.
 */
#include "llc/llc_share.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/grow.h"
#include "lib/hash.h"
#include "lib/sample_demand.h"
#include "llc/config_match.h"
#include "llc/llc_measure.h"
#include "llc/llc_mitosis.h"
#include "llc/llc_order.h"
#include "llc/placement.h"
#include "llc/share_rule.h"
#include "llc/thread_demand.h"

#define LLC_SHARE_DEFAULT_MAX_RECS ((size_t)1 << 18)

void llc_share_init(struct llc_share *s, bool line_granularity, size_t max_recs)
{
	memset(s, 0, sizeof(*s));
	s->line_granularity = line_granularity;
	s->max_recs = max_recs ? max_recs : LLC_SHARE_DEFAULT_MAX_RECS;
	u64map_init(&s->actor_index);
	u64map_init(&s->rec_index);
	u64map_init(&s->bin_index);
	strmap_init(&s->cgroups);
}

void llc_share_free(struct llc_share *s)
{
	size_t i;

	for (i = 0; i < s->nr_actors; i++)
		free(s->actors[i].comm);
	free(s->actors);
	free(s->cgroup_names);
	free(s->recs);
	free(s->bins);
	u64map_free(&s->actor_index);
	u64map_free(&s->rec_index);
	u64map_free(&s->bin_index);
	strmap_free(&s->cgroups);
	memset(s, 0, sizeof(*s));
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	return grow_to(arr, cap, need, elem, 64) ? 0 : scx_fail("out of memory");
}

static long cgroup_index(struct llc_share *s, const char *cg, size_t len)
{
	int inserted = 0;
	struct strmap_slot *slot = strmap_get_or_add(&s->cgroups, cg, len, s->nr_cgroups, &inserted);

	if (!slot)
		return -1;
	if (inserted) {
		if (grow((void **)&s->cgroup_names, &s->cap_cgroups, s->nr_cgroups + 1, sizeof(char *)) < 0)
			return -1;
		s->cgroup_names[s->nr_cgroups++] = slot->key;
	}
	return (long)slot->index;
}

/*
 * The slot of an index (entry i kept as i + 1, 0 empty) holding the entry
 * under hash h that same(s, i, want) accepts, else the empty slot where a
 * new one goes (same NULL: the first empty one): the chain h,
 * hash_mix64(h + 1), ... by which every index here is both filled and
 * searched. NULL on OOM.
 */
static uint64_t *find_slot(const struct llc_share *s, struct u64map *index, uint64_t h,
			   bool (*same)(const struct llc_share *s, size_t i, const void *want), const void *want)
{
	for (;;) {
		uint64_t *slot = u64map_slot(index, h);

		if (!slot || !*slot || (same && same(s, (size_t)(*slot - 1), want)))
			return slot;
		h = hash_mix64(h + 1);
	}
}

struct actor_want {
	const struct mem_sample *m;
	uint32_t cgroup;
};

static bool same_actor(const struct llc_share *s, size_t i, const void *want)
{
	const struct actor_want *w = want;
	const struct llc_actor *a = &s->actors[i];

	return a->tid == w->m->tid && a->cgroup == w->cgroup && a->hint == w->m->hint &&
	       a->comm_len == w->m->comm_len && !memcmp(a->comm, w->m->comm, w->m->comm_len);
}

/* The actor of a sample, created on first use: index, -2 when over the bound, -1 on OOM. */
static long actor_of(struct llc_share *s, const struct mem_sample *m)
{
	uint64_t h, *slot;
	struct llc_actor *a;
	long cg;

	if (s->last_actor) {
		a = &s->actors[s->last_actor - 1];
		if (a->tid == m->tid && a->hint == m->hint && a->comm_len == m->comm_len &&
		    a->cgroup_len == m->cgroup_len && !memcmp(a->comm, m->comm, m->comm_len) &&
		    !memcmp(s->cgroup_names[a->cgroup], m->cgroup, m->cgroup_len))
			return (long)(s->last_actor - 1);
	}
	if ((cg = cgroup_index(s, m->cgroup, m->cgroup_len)) < 0)
		return -1;
	h = hash_bytes(m->comm, m->comm_len) ^ hash_mix64((uint64_t)m->tid * 0x9e3779b97f4a7c15ULL + (uint64_t)cg) ^
	    hash_mix64(~m->hint);
	if (!(slot = find_slot(s, &s->actor_index, h, same_actor, &(struct actor_want){m, (uint32_t)cg})))
		return -1;
	if (*slot) {
		s->last_actor = *slot;
		return (long)(*slot - 1);
	}
	if (s->nr_actors >= LLC_SHARE_MAX_ACTORS)
		return -2;
	if (grow((void **)&s->actors, &s->cap_actors, s->nr_actors + 1, sizeof(*s->actors)) < 0)
		return -1;
	a = &s->actors[s->nr_actors];
	memset(a, 0, sizeof(*a));
	if (!(a->comm = strmap_key_dup(m->comm, m->comm_len)))
		return -1;
	a->comm_len = m->comm_len;
	a->tid = m->tid;
	a->pid = m->pid;
	a->cgroup = (uint32_t)cg;
	a->cgroup_len = m->cgroup_len;
	a->hint = m->hint;
	*slot = ++s->nr_actors;
	s->last_actor = s->nr_actors;
	return (long)(s->nr_actors - 1);
}

static uint64_t rec_hash(uint64_t key, uint32_t actor)
{
	return hash_mix64(key ^ hash_mix64((uint64_t)actor << 32 | 0x5bd1e995u));
}

static bool ident_sampled(uint64_t key, unsigned level)
{
	return level == 0 || (hash_mix64(share_rule_object(key)) >> (64 - level)) == 0;
}

static int index_rec(struct llc_share *s, size_t i)
{
	uint64_t *slot = find_slot(s, &s->rec_index, rec_hash(s->recs[i].key, s->recs[i].actor), NULL, NULL);

	if (!slot)
		return -1;
	*slot = i + 1;
	return 0;
}

/* Raise the sampling level until the records fit again; rebuild the index. */
static int shrink(struct llc_share *s)
{
	size_t i, n;

	while (s->nr_recs > s->max_recs && s->level < 63) {
		s->level++;
		for (i = n = 0; i < s->nr_recs; i++)
			if (ident_sampled(s->recs[i].key, s->level))
				s->recs[n++] = s->recs[i];
		s->nr_recs = n;
	}
	u64map_free(&s->rec_index);
	u64map_init(&s->rec_index);
	for (i = 0; i < s->nr_recs; i++)
		if (index_rec(s, i) < 0)
			return -1;
	return 0;
}

static bool same_bin(const struct llc_share *s, size_t i, const void *want)
{
	const struct llc_bin *b = &s->bins[i], *w = want;

	return b->bin == w->bin && b->actor == w->actor && b->cpu == w->cpu;
}

/* One more sample of actor a on cpu in its 100 ms bin. -1 on OOM. */
static int bin_add(struct llc_share *s, uint32_t a, int32_t cpu, uint64_t time_ns)
{
	uint64_t bin = time_ns / LLC_SHARE_BIN_NS, h = hash_mix64(bin * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)a << 32 | (uint32_t)cpu)),
		 *slot = find_slot(s, &s->bin_index, h, same_bin, &(struct llc_bin){.bin = bin, .actor = a, .cpu = cpu});

	if (!slot)
		return -1;
	if (*slot) {
		s->bins[*slot - 1].samples++;
		return 0;
	}
	if (grow((void **)&s->bins, &s->cap_bins, s->nr_bins + 1, sizeof(*s->bins)) < 0)
		return -1;
	s->bins[s->nr_bins] = (struct llc_bin){bin, a, cpu, 1};
	*slot = ++s->nr_bins;
	return 0;
}

static bool same_rec(const struct llc_share *s, size_t i, const void *want)
{
	const struct llc_rec *r = &s->recs[i], *w = want;

	return r->key == w->key && r->actor == w->actor;
}

int llc_share_add(struct llc_share *s, const struct mem_sample *m)
{
	uint64_t key, *slot;
	long a;

	s->seen.samples++;
	s->seen.faults += m->fault;
	if ((a = actor_of(s, m)) == -1)
		return -1;
	if (a == -2) {
		s->seen.dropped++;
		return 0;
	}
	s->actors[a].samples++;
	if (!m->has_cpu || m->cpu < 0 || m->cpu > INT32_MAX)
		s->seen.no_cpu++;
	else if (bin_add(s, (uint32_t)a, (int32_t)m->cpu, m->time_ns) < 0)
		return -1;
	if (!share_rule_key(m, s->line_granularity, &key)) {
		s->seen.no_key++;
		return 0;
	}
	if (!ident_sampled(key, s->level))
		return 0;
	slot = find_slot(s, &s->rec_index, rec_hash(key, (uint32_t)a), same_rec,
			 &(struct llc_rec){.key = key, .actor = (uint32_t)a});
	if (!slot)
		return -1;
	if (*slot) {
		struct llc_rec *r = &s->recs[*slot - 1];

		r->samples += r->samples < UINT32_MAX;
		return 0;
	}
	if (grow((void **)&s->recs, &s->cap_recs, s->nr_recs + 1, sizeof(*s->recs)) < 0)
		return -1;
	s->recs[s->nr_recs] = (struct llc_rec){key, (uint32_t)a, 1};
	*slot = ++s->nr_recs;
	return s->nr_recs > s->max_recs ? shrink(s) : 0;
}

/* ---- evaluation ---- */

struct actor_place {
	long cell, sub;   /* config_match */
	long scope;       /* index into subs (or the cell's own scope) */
	int pllc, pnode;  /* predicted */
	double demand;    /* CPUs */
};

/* One scope per subcell (a cell without subcells is one scope of its own), and one per cell. */
static int make_scopes(const struct cell_config *cfg, struct llc_share_result *r)
{
	size_t i, j, n = config_match_nr_scopes(cfg);

	r->subs = calloc(n ? n : 1, sizeof(*r->subs));
	r->cells = calloc(cfg->nr_cells ? cfg->nr_cells : 1, sizeof(*r->cells));
	if (!r->subs || !r->cells)
		return scx_fail("out of memory");
	for (i = 0; i < cfg->nr_cells; i++) {
		const struct cell *c = &cfg->cells[i];

		r->cells[i] = (struct llc_share_scope){.cell = (long)i, .sub = -1, .llc = -1};
		if (!(r->cells[i].name = config_match_scope_name(cfg, (long)i, -1)))
			return scx_fail("out of memory");
		r->nr_cells++;
		for (j = 0; j < (c->nr_subcells ? c->nr_subcells : 1); j++) {
			struct llc_share_scope *s = &r->subs[r->nr_subs];

			*s = (struct llc_share_scope){.cell = (long)i, .sub = c->nr_subcells ? (long)j : -1, .llc = -1};
			s->merged = c->nr_subcells && strchr(c->subcells[j].name, '+') != NULL;
			if (!(s->name = config_match_scope_name(cfg, s->cell, s->sub)))
				return scx_fail("out of memory");
			r->nr_subs++;
		}
	}
	return 0;
}

static int cmp_actor_bin(const void *x, const void *y)
{
	const struct llc_bin *a = x, *b = y;

	return a->actor != b->actor ? CMP3(a->actor, b->actor) : CMP3(a->bin, b->bin);
}

/*
 * Without a scheduling trace: each actor's sample share x CPUs, at most the
 * share of the recording's 100 ms bins it was seen in (lib/sample_demand.h;
 * the bins are its timelines', s->bins, one per bin and CPU).
 */
static int actor_demand_by_samples(const struct llc_share *s, const struct llc_share_eval *e, struct actor_place *ap)
{
	struct llc_bin *b = s->nr_bins ? malloc(s->nr_bins * sizeof(*b)) : NULL;
	uint64_t lo = UINT64_MAX, hi = 0, *seen = calloc(s->nr_actors + 1, sizeof(*seen)), span;
	size_t i;

	if ((s->nr_bins && !b) || !seen) {
		free(b);
		free(seen);
		return scx_fail("out of memory");
	}
	if (s->nr_bins) {
		memcpy(b, s->bins, s->nr_bins * sizeof(*b));
		qsort(b, s->nr_bins, sizeof(*b), cmp_actor_bin);
	}
	for (i = 0; i < s->nr_bins; i++) {
		lo = b[i].bin < lo ? b[i].bin : lo;
		hi = b[i].bin > hi ? b[i].bin : hi;
		if (b[i].actor < s->nr_actors && (i == 0 || b[i].actor != b[i - 1].actor || b[i].bin != b[i - 1].bin))
			seen[b[i].actor]++;
	}
	span = s->nr_bins ? hi - lo + 1 : 0;
	for (i = 0; i < s->nr_actors; i++)
		ap[i].demand = sample_demand(s->actors[i].samples, s->seen.samples, e->online_cpus, seen[i], span);
	free(b);
	free(seen);
	return 0;
}

/*
 * Each actor's CPU demand: its thread's runtime share (thread_cpus, split
 * among the thread's actors by samples), else from its samples alone.
 */
static int actor_demand(const struct llc_share *s, const struct llc_share_eval *e, struct actor_place *ap)
{
	struct u64map tid_samples;
	size_t i;
	int rc = 0;

	if (!e->thread_cpus)
		return actor_demand_by_samples(s, e, ap);
	u64map_init(&tid_samples);
	for (i = 0; i < s->nr_actors && !rc; i++) {
		uint64_t *v = u64map_slot(&tid_samples, (uint64_t)s->actors[i].tid);

		if (!v)
			rc = -1;
		else
			*v += s->actors[i].samples;
	}
	for (i = 0; i < s->nr_actors && !rc; i++) {
		uint64_t n = *u64map_find(&tid_samples, (uint64_t)s->actors[i].tid);

		ap[i].demand = n ? e->thread_cpus(e->thread_ctx, s->actors[i].tid) * (double)s->actors[i].samples / (double)n
				 : 0;
	}
	u64map_free(&tid_samples);
	return rc;
}

/*
 * The placement model (placement_assign): sets each subcell's demand and
 * LLC, each actor's pllc/pnode; extra[0..nextra) are threads of no actor
 * (never sampled) placed with them.
 */
static int place(const struct llc_share *s, const struct llc_share_eval *e, struct llc_share_result *r,
		 struct actor_place *ap, const struct placement_item *extra, size_t nextra)
{
	const struct llc_map *m = e->map;
	struct placement_item *it = malloc((s->nr_actors + nextra + 1) * sizeof(*it));
	double *demand = calloc(r->nr_subs + 1, sizeof(double)), *load = calloc(m->nr_llcs + 1, sizeof(double));
	int *llc = malloc((r->nr_subs + 1) * sizeof(int)), *allc = malloc((s->nr_actors + nextra + 1) * sizeof(int));
	size_t i;
	int rc = -1;

	if (!it || !demand || !load || !llc || !allc) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < s->nr_actors; i++)
		it[i] = (struct placement_item){ap[i].scope, s->actors[i].tid, ap[i].demand};
	if (nextra)
		memcpy(it + s->nr_actors, extra, nextra * sizeof(*it));
	for (i = 0; i < r->nr_subs; i++)
		llc[i] = PLACEMENT_UNSET;
	if (placement_assign(it, s->nr_actors + nextra, r->nr_subs, m->llc_cpus, m->nr_llcs, load, llc, demand, allc) < 0)
		goto out;
	for (i = 0; i < r->nr_subs; i++) {
		r->subs[i].demand = demand[i];
		r->subs[i].llc = llc[i];
	}
	for (i = 0; i < s->nr_actors; i++) {
		ap[i].pllc = allc[i];
		ap[i].pnode = allc[i] >= 0 ? m->llc_node[allc[i]] : -1;
	}
	rc = 0;
out:
	free(it);
	free(demand);
	free(load);
	free(llc);
	free(allc);
	return rc;
}

/*
 * The scheduling trace's threads that were never sampled themselves
 * (llc_thread_demands' by_process), as placement items of the subcell
 * they land in: a subcell's demand is all of its threads'. -1 on OOM.
 */
static int unsampled_items(const struct llc_share *s, const struct llc_share_eval *e, const struct config_matcher *cm,
			   struct placement_item **out, size_t *n)
{
	struct llc_thread_demand *d = NULL;
	size_t nd = 0, i;

	*out = NULL;
	*n = 0;
	if (!e->threads)
		return 0;
	if (llc_thread_demands(s, e->threads, cm, &d, &nd) < 0)
		return -1;
	if (!(*out = malloc((nd + 1) * sizeof(**out)))) {
		free(d);
		return scx_fail("out of memory");
	}
	for (i = 0; i < nd; i++)
		if (d[i].by_process && d[i].cell >= 0 && d[i].cpus > 0)
			(*out)[(*n)++] = (struct placement_item){config_match_scope_index(e->cfg, d[i].cell, d[i].sub), d[i].tid, d[i].cpus};
	free(d);
	return 0;
}

/* Distinct tids of each scope (tids are below 2^22, scopes below 2^24). */
static int count_threads(const struct llc_share *s, struct llc_share_result *r, const struct actor_place *ap)
{
	struct u64map seen;
	size_t i;
	int rc = 0;

	u64map_init(&seen);
	for (i = 0; i < s->nr_actors && !rc; i++) {
		uint64_t key = (uint64_t)ap[i].scope << 40 | ((uint64_t)s->actors[i].tid & ((1ULL << 40) - 1)), *v;

		if (ap[i].scope < 0 || u64map_find(&seen, key))
			continue;
		if (!(v = u64map_slot(&seen, key)))
			rc = -1;
		else
			r->subs[ap[i].scope].threads++;
	}
	u64map_free(&seen);
	return rc;
}

/* The packing model's figures and the scx_mitosis model's change places when mitosis is the predicted one. */
static void swap_models(struct llc_share_fig *f)
{
	struct llc_est_fig t = f->llc_predicted;

	f->llc_predicted = f->llc_other;
	f->llc_other = t;
	t = f->node_predicted;
	f->node_predicted = f->node_other;
	f->node_other = t;
}

static void no_mitosis(struct llc_share_result *r)
{
	size_t i;

	r->total.llc_other = r->total.node_other = (struct llc_est_fig){.state = LLC_EST_NONE};
	for (i = 0; i < r->nr_cells; i++)
		r->cells[i].f.llc_other = r->cells[i].f.node_other = (struct llc_est_fig){.state = LLC_EST_NONE};
	for (i = 0; i < r->nr_subs; i++)
		r->subs[i].f.llc_other = r->subs[i].f.node_other = (struct llc_est_fig){.state = LLC_EST_NONE};
}

/* The scx_mitosis model (demand: each actor's CPUs): each actor's LLC and node shares into ma[].mllc, mnode. */
static int place_mitosis(const struct llc_share *s, const struct llc_share_eval *e, struct llc_share_result *r,
			 const double *demand, struct llc_measure_actor *ma)
{
	const float **pl = malloc((s->nr_actors + 1) * sizeof(*pl)), **pn = malloc((s->nr_actors + 1) * sizeof(*pn));
	int rc = -1;

	if (!pl || !pn) {
		scx_fail("out of memory");
		goto out;
	}
	if (llc_mitosis_place(s, e, demand, r, pl, pn) < 0)
		goto out;
	for (size_t i = 0; i < s->nr_actors; i++) {
		ma[i].mllc = pl[i];
		ma[i].mnode = pn[i];
	}
	rc = 0;
out:
	free(pl);
	free(pn);
	return rc;
}

int llc_share_evaluate(const struct llc_share *s, const struct llc_share_eval *e, struct llc_share_result *r)
{
	struct config_matcher cm;
	struct actor_place *ap;
	struct llc_measure_actor *ma = NULL;
	struct placement_item *extra = NULL;
	double *demand = NULL; /* ap[].demand, as the scx_mitosis model and the subcell order take it */
	size_t i, nextra = 0;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->map = e->map;
	r->seen = s->seen;
	r->level = s->level;
	r->online_cpus = e->online_cpus;
	r->model = e->model;
	if (make_scopes(e->cfg, r) < 0)
		return -1;
	if (config_match_init(&cm, e->cfg, e->workload, e->allotment_re) < 0)
		return -1;
	if (!(ap = calloc(s->nr_actors + 1, sizeof(*ap)))) {
		config_match_free(&cm);
		return scx_fail("out of memory");
	}
	for (i = 0; i < s->nr_actors; i++) {
		const struct llc_actor *a = &s->actors[i];
		const char *cg = s->cgroup_names[a->cgroup];

		if (config_match(&cm, cg, strlen(cg), a->comm, a->comm_len, a->hint, &ap[i].cell, &ap[i].sub) < 0)
			goto out;
		ap[i].scope = config_match_scope_index(e->cfg, ap[i].cell, ap[i].sub);
	}
	r->demand_by_runtime = e->thread_cpus != NULL;
	if (actor_demand(s, e, ap) < 0 || unsampled_items(s, e, &cm, &extra, &nextra) < 0 ||
	    place(s, e, r, ap, extra, nextra) < 0)
		goto out;
	if (!(ma = calloc(s->nr_actors + 1, sizeof(*ma))) || !(demand = malloc((s->nr_actors + 1) * sizeof(*demand)))) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < s->nr_actors; i++) {
		ma[i] = (struct llc_measure_actor){ap[i].scope, ap[i].scope >= 0 ? ap[i].cell : -1, ap[i].pllc, ap[i].pnode,
						   NULL, NULL};
		demand[i] = ap[i].demand;
	}
	/* llc_order_choose: the subcell orders for the scx_mitosis layout (llc_order.h) */
	if (place_mitosis(s, e, r, demand, ma) < 0 || llc_measure(s, e, ma, r) < 0 || count_threads(s, r, ap) < 0 ||
	    llc_order_choose(s, e, demand, r) < 0)
		goto out;
	if (!r->mitosis.ran) /* the reader would refuse the layout: no figure of it */
		no_mitosis(r);
	if (r->model == LLC_MODEL_MITOSIS) {
		swap_models(&r->total);
		for (i = 0; i < r->nr_cells; i++)
			swap_models(&r->cells[i].f);
		for (i = 0; i < r->nr_subs; i++)
			swap_models(&r->subs[i].f);
	}
	for (i = 0; i < r->nr_subs; i++)
		r->cells[r->subs[i].cell].threads += r->subs[i].threads;
	rc = 0;
out:
	free(ap);
	free(ma);
	free(demand);
	free(extra);
	config_match_free(&cm);
	return rc;
}

void llc_share_result_free(struct llc_share_result *r)
{
	size_t i;

	for (i = 0; i < r->nr_cells; i++)
		free(r->cells[i].name);
	for (i = 0; i < r->nr_subs; i++)
		free(r->subs[i].name);
	free(r->cells);
	free(r->subs);
	llc_mitosis_result_free(&r->mitosis);
	llc_order_free(r);
	free(r->pw);
	for (i = 0; i < r->allot.n; i++)
		free(r->allot.v[i].cgroup);
	free(r->allot.v);
	memset(r, 0, sizeof(*r));
}
