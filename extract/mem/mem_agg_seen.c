/*
 * mem_agg_seen.c - when each thread was seen running, from its samples, and
 * the CPU demand of extract's units that follows from it when there is no
 * scheduling trace (mem_agg.h's track_seen; the rule is lib/sample_demand.h).
 *
 * A record per (tid, group): its samples, the 100 ms bins holding them
 * (counted as they change: perf.jsonl is in time order; an input out of
 * order counts a bin again, which only raises the bound, and the bound
 * never exceeds the recording's span), its latest comm and first hint.
 */
#include "extract/mem/mem_agg.h"

#include <stdlib.h>
#include <string.h>

#include "extract/sharing/sharing.h"
#include "lib/error.h"
#include "lib/grow.h"
#include "lib/sample_demand.h"

static void seen_comm(struct mem_agg_seen *r, const struct mem_sample *s)
{
	size_t n = s->comm_len < sizeof(r->comm) ? s->comm_len : sizeof(r->comm);

	if (r->comm_len != n || memcmp(r->comm, s->comm, n)) {
		memcpy(r->comm, s->comm, n);
		r->comm_len = (uint8_t)n;
	}
}

int mem_agg_seen_add(struct mem_agg *a, const struct mem_sample *s, size_t gi)
{
	uint64_t key = MEM_AGG_TG_KEY(s->tid, gi), bin = s->time_ns / SAMPLE_DEMAND_BIN_NS, *slot;
	struct mem_agg_seen *r;

	slot = u64map_find(&a->seen_index, key);
	if (!slot) {
		if (a->nr_seen >= MEM_AGG_MAX_SEEN) {
			a->seen_dropped++;
			return 0;
		}
		if (!grow_to((void **)&a->seen, &a->cap_seen, a->nr_seen + 1, sizeof(*a->seen), 64) ||
		    !(slot = u64map_slot(&a->seen_index, key)))
			return scx_fail("out of memory (threads seen)");
		*slot = ++a->nr_seen;
		a->seen[*slot - 1] = (struct mem_agg_seen){.key = key, .hint = s->hint, .last_bin = bin, .bins = 1};
	} else if (a->seen[*slot - 1].last_bin != bin) {
		a->seen[*slot - 1].last_bin = bin;
		a->seen[*slot - 1].bins++;
	}
	r = &a->seen[*slot - 1];
	r->samples++;
	seen_comm(r, s);
	return 0;
}

int mem_agg_seen_remap(struct mem_agg *a, const size_t *gmap)
{
	struct u64map n;
	size_t i, kept = 0;
	uint64_t *slot;

	u64map_init_cap(&n, U64MAP_SMALL);
	for (i = 0; i < a->nr_seen; i++) {
		struct mem_agg_seen r = a->seen[i];

		r.key = MEM_AGG_TG_KEY(MEM_AGG_TG_ID(r.key), gmap[MEM_AGG_TG_GROUP(r.key)]);
		if (!(slot = u64map_slot(&n, r.key))) {
			u64map_free(&n);
			return scx_fail("out of memory (threads seen)");
		}
		if (*slot) { /* one thread in two groups folded into one: the bins may overlap, the bound rises */
			struct mem_agg_seen *to = &a->seen[*slot - 1];

			to->samples += r.samples;
			to->bins += r.bins;
			continue;
		}
		a->seen[kept] = r;
		*slot = ++kept;
	}
	u64map_free(&a->seen_index);
	a->seen_index = n;
	a->nr_seen = kept;
	return 0;
}

void mem_agg_seen_free(struct mem_agg *a)
{
	u64map_free(&a->seen_index);
	free(a->seen);
	a->seen = NULL;
	a->nr_seen = a->cap_seen = 0;
}

/* The unit of record r in u, as sched_cells.c's thread_unit matches a traced thread; -1: none. */
static long seen_unit(const struct mem_agg_seen *r, const struct unit_list *u)
{
	size_t len = comm_name_normalize(r->comm, r->comm_len), j;

	for (j = 0; j < u->n; j++) {
		const struct unit *x = &u->v[j];

		if (strlen(x->comm->name) == len && !memcmp(x->comm->name, r->comm, len) &&
		    (!x->by_hint || r->hint == x->hint))
			return (long)j;
	}
	return -1;
}

void mem_agg_seen_demand(const struct mem_agg *a, enum group_kind kind, const struct unit_list *u, double cpus,
			 double *demand)
{
	uint64_t span = sample_demand_span_bins(a->first_ns, a->last_ns), *left = calloc(u->n + 1, sizeof(*left));
	size_t i;

	for (i = 0; i < u->n; i++) {
		demand[i] = 0;
		if (left)
			left[i] = u->v[i].count;
	}
	for (i = 0; left && span && i < a->nr_seen; i++) {
		const struct mem_agg_seen *r = &a->seen[i];
		size_t g = MEM_AGG_TG_GROUP(r->key);
		long j;

		if (g >= a->nr_groups || a->groups[g].kind != kind || (j = seen_unit(r, u)) < 0)
			continue;
		demand[j] += sample_demand(r->samples, a->total, cpus, r->bins, span);
		left[j] -= r->samples < left[j] ? r->samples : left[j];
	}
	for (i = 0; i < u->n && a->total; i++) /* samples of no record (of many threads, maybe): their share */
		demand[i] += (double)(left ? left[i] : u->v[i].count) / (double)a->total * cpus;
	free(left);
}
