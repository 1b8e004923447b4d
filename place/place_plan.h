/*
 * place_plan.h - `scxprof place`'s plan: which LLC each thread of a
 * running workload goes to under a cell config, by the very model extract's
 * cross-LLC prediction uses (docs/llc-sharing.md, "The placement model"):
 * the thread's subcell by config_match (cgroup rule, CommPrefix, Hint),
 * subcells in the flat order extract evaluates them (each cell's subcells,
 * a cell without subcells as one), placed by placement_assign on the LLCs
 * of an llc_map. The plan carries its state across calls, so threads that
 * appear later (`place --follow`) join their subcell's LLC, and a subcell
 * first seen later is placed on what is left. No host access here: the
 * caller reads the threads (place/place_host.h) and pins them.
 */
#ifndef SCX_PLACE_PLAN_H
#define SCX_PLACE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "extract/sharing/sharing.h"
#include "lib/mempool.h"
#include "llc/llc.h"

struct place_thread {
	int64_t tid, pid;
	char comm[64];
	char cgroup[512]; /* the thread's cgroup v2 path ("/workload.slice/...") */
	uint64_t hint;    /* 0 when it has none, as extract */
	double demand;    /* CPUs */
	/* set by place_plan_add */
	long scope;       /* index into the plan's scopes, -1: no subcell (placed one by one) */
	int llc;          /* LLC index in the map */
};

struct place_scope {
	char *name;       /* "allotment/alpha-+beta-", as extract -v names it */
	long cell, sub;   /* config indexes; sub -1 for a cell without subcells */
	double demand;    /* CPUs of its threads placed so far */
	int llc;          /* PLACEMENT_UNSET until placed; -1 when it fits no LLC (threads one by one) */
};

struct place_plan {
	const struct cell_config *cfg;
	const struct llc_map *map;
	struct config_matcher cm;
	struct place_scope *scopes;
	size_t nr_scopes;
	double *load;     /* CPUs placed on each LLC */
	struct mempool mem; /* owns scopes (and their names) and load */
};

/*
 * workload / allotment_re NULL: the config's own CgroupContains /
 * CgroupRegex value, else extract's defaults. -1 (scx_fail) on a bad
 * regex, OOM, or a map with fewer than two LLCs ("nothing to place: one
 * LLC"). cfg and map must outlive the plan.
 */
int place_plan_init(struct place_plan *p, const struct cell_config *cfg, const struct llc_map *map,
		    const char *workload, const char *allotment_re);
void place_plan_free(struct place_plan *p);

/* Match and place t[0..n) (threads not placed before); sets each scope and llc. -1 on OOM or a regex failure. */
int place_plan_add(struct place_plan *p, struct place_thread *t, size_t n);

/* The CPUs of LLC llc as a cpulist ("0-3,8"); -1 when it does not fit len. */
int place_plan_cpulist(const struct llc_map *m, int llc, char *buf, size_t len);

#endif
