/*
 * mem_agg.c - the streaming side of extract mem (see mem_agg.h): cgroup
 * classification with a per-path cache, the per-sample entry point, and
 * each sampled thread's cell kind from the counts it kept. The per-group
 * name, hint and group bounds are in mem_agg_fold.c, the evidence keys and
 * their budget in mem_agg_key.c.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "extract/mem/mem_agg.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/mem/mem_agg_internal.h"
#include "lib/error.h"
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
	u64map_init_cap(&a->seen_index, U64MAP_SMALL);
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

void mem_agg_free(struct mem_agg *a)
{
	size_t g, c;

	mem_agg_shards_stop(a);
	for (g = 0; g < a->nr_groups; g++) {
		for (c = 0; c < a->groups[g].nr_comms; c++)
			mem_agg_comm_rec_free(&a->groups[g].comms[c]);
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
	mem_agg_seen_free(a);
	u64map_free(&a->ident_object);
	strmap_free(&a->objects);
	free(a->object_names);
	free(a->free_ev_ids);
	if (a->match)
		pcre2_match_data_free((pcre2_match_data *)a->match);
	if (a->re)
		pcre2_code_free((pcre2_code *)a->re);
	memset(a, 0, sizeof(*a));
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

/* Index of the group with this key, created on first use; -1 on OOM. */
static long group_by_key(struct mem_agg *a, const char *key, size_t len)
{
	struct strmap_slot *s = strmap_find(&a->group_index, key, len);
	enum group_kind kind;

	if (s)
		return (long)s->index;
	kind = kind_of(a, key, len);
	if (kind == GROUP_ALLOTMENT && mg_full(&a->group_mg) && mem_agg_fold_groups(a) < 0)
		return -1;
	return mem_agg_new_group(a, key, len, kind, true);
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

int mem_agg_add(struct mem_agg *a, const struct mem_sample *s)
{
	long gi = group_of(a, s->cgroup, s->cgroup_len);
	struct comm_rec *c;
	struct hint_rec *h;

	if (gi < 0)
		return -1;
	if (!(c = mem_agg_comm_of(a, &a->groups[gi], s->comm, s->comm_len)) || !(h = mem_agg_hint_of(a, c, s->hint)))
		return -1;
	a->groups[gi].count++;
	if (a->groups[gi].kind == GROUP_ALLOTMENT && !a->groups[gi].folded_groups)
		mg_count(&a->group_mg, a->groups[gi].mg_entry, 1);
	c->count++;
	h->count++;
	a->total++;
	a->fault_samples += s->fault;
	if (s->time_ns) {
		if (!a->first_ns || s->time_ns < a->first_ns)
			a->first_ns = s->time_ns;
		if (s->time_ns > a->last_ns)
			a->last_ns = s->time_ns;
	}
	if (a->o.track_seen && s->time_ns && mem_agg_seen_add(a, s, (size_t)gi) < 0)
		return -1;
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
	if (a->o.evidence && mem_agg_add_evidence(a, h, s) < 0)
		return -1;
	return a->o.on_sample ? a->o.on_sample(a->o.on_sample_ctx, s) : 0;
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

int mem_agg_tid_kinds(const struct mem_agg *a, struct u64map *out)
{
	struct u64map per; /* tid << 2 | kind -> samples */
	size_t pos = 0;
	uint64_t key, cnt, *slot;

	u64map_init_cap(&per, U64MAP_SMALL);
	u64map_init_cap(out, U64MAP_SMALL);
	while (u64map_next_u64(&a->tid_groups, &pos, &key, &cnt)) {
		if (!(slot = u64map_slot(&per, MEM_AGG_TG_ID(key) << 2 | (uint64_t)a->groups[MEM_AGG_TG_GROUP(key)].kind)))
			goto oom;
		*slot += cnt;
	}
	pos = 0;
	while (u64map_next_u64(&per, &pos, &key, &cnt)) {
		uint64_t tid = key >> 2, kind = key & 3, best = 0;

		for (uint64_t k = 0; k < 3; k++) {
			const uint64_t *c = u64map_find(&per, tid << 2 | k);

			if (c && (!best || *c > *u64map_find(&per, tid << 2 | (best - 1))))
				best = k + 1;
		}
		if (best == kind + 1) {
			if (!(slot = u64map_slot(out, tid)))
				goto oom;
			*slot = best;
		}
	}
	u64map_free(&per);
	return 0;
oom:
	u64map_free(&per);
	u64map_free(out);
	return scx_fail("out of memory");
}
