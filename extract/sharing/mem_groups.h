/*
 * mem_groups.h - upstream's comm-level view of a set of groups: comms
 * normalized by stripping trailing ASCII digits, with their concrete comms
 * and hint values (comm_summary), and the significant "units" upstream
 * turns into subcells (a normalized comm above 5% of the group's samples,
 * split into NAME@hint=H units with --use-hints), each with its match
 * clauses. The report (-v) and both clustering modes start from these.
 */
#ifndef SCX_EXTRACT_MEM_GROUPS_H
#define SCX_EXTRACT_MEM_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extract/sharing/cell_config.h"
#include "extract/mem/mem_agg.h"

/* Upstream's significance threshold: strictly above 5% of the samples. */
#define SIGNIFICANT_PCT 5.0

struct name_count {
	char *name;
	uint64_t count;
	bool folded; /* the concretes beyond MEM_AGG_CONCRETES_MAX of a name (name: the normalized comm) */
};

struct hint_count {
	uint64_t hint, count;
	bool other; /* hints folded by the name bound (mem_agg.h): never a unit */
};

struct comm_ref {
	size_t group, comm; /* indexes into mem_agg groups / their comms */
};

struct norm_comm {
	char *name; /* normalized comm */
	uint64_t count;
	struct name_count *concretes; /* one per distinct concrete comm */
	size_t nr_concretes;
	struct hint_count *hints;     /* one per distinct hint value */
	size_t nr_hints;
	struct comm_ref *srcs;        /* the comm_recs it was built from */
	size_t nr_srcs;
};

struct comm_summary {
	struct norm_comm *comms;
	size_t nr;
	uint64_t total; /* samples of all the groups summarized */
};

/* Summarize the groups whose indexes are listed. -1 on OOM. */
int mem_groups_summary_build(const struct mem_agg *a, const size_t *groups, size_t nr_groups,
		       struct comm_summary *out);
/* Report order: comms by count (desc) then name; concretes and hints likewise by count. */
void mem_groups_summary_sort_by_count(struct comm_summary *s);
/* Config order: comms, concretes and hints by name / value. */
void mem_groups_summary_sort_by_name(struct comm_summary *s);
void mem_groups_summary_free(struct comm_summary *s);

/* True when count is strictly above pct% of total, computed as upstream does (pct 5). */
bool mem_groups_is_significant(uint64_t count, uint64_t total, double pct);

struct unit {
	char *name;                 /* "web" or "alpha@hint=7" */
	struct cell_clause *clauses;
	size_t nr_clauses;
	uint64_t count;             /* samples of the unit */
	const struct norm_comm *comm;
	bool by_hint;               /* only the samples with this hint */
	uint64_t hint;
};

struct unit_list {
	struct unit *v;
	size_t n;
};

/*
 * Upstream's subcells of a summary (which must be sorted by name): each
 * normalized comm above min_share percent (upstream: SIGNIFICANT_PCT), or
 * with use_hints its hint values above min_share percent of the comm when
 * it has more than one. -1 on OOM.
 */
int mem_groups_upstream_units(const struct comm_summary *s, bool use_hints, double min_share, struct unit_list *out);
void mem_groups_unit_list_free(struct unit_list *u);



/*
 * Indexes of all groups in upstream's order: allotment matches by name,
 * then the workload group, then rest. Caller frees; NULL on OOM (or when
 * there are no groups, with *n == 0).
 */
size_t *mem_groups_in_order(const struct mem_agg *a, size_t *n);
/* Indexes of the groups of one kind, in the same order. */
size_t *mem_groups_of_kind(const struct mem_agg *a, enum group_kind kind, size_t *n);
#endif
