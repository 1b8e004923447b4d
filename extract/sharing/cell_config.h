/*
 * cell_config.h - the cell config extract mem prints: a list of top-level
 * cells (one per group kind present: allotment, workload, rest), each with
 * optional subcells. Subcell `matches` is a list of clauses (OR), each a
 * list of conditions (AND): CommPrefix and optionally Hint.
 *
 * cell_config_write() prints it exactly as upstream's
 * serde_json::to_string_pretty followed by a newline (2-space indent,
 * "key": value, [] and {} for empty containers), so configs compare
 * byte for byte.
 */
#ifndef SCX_EXTRACT_CELL_CONFIG_H
#define SCX_EXTRACT_CELL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cell_clause {
	char *comm_prefix; /* NULL: the empty clause (matches anything) */
	bool has_hint;
	uint64_t hint;
};

enum cell_top_match { TOP_NONE, TOP_CGROUP_REGEX, TOP_CGROUP_CONTAINS, TOP_EMPTY };

struct cell {
	char *name;
	enum cell_top_match top;  /* top-level cells: their simple matcher */
	char *top_value;          /* CgroupRegex / CgroupContains value */
	struct cell_clause *clauses; /* subcells: matches */
	size_t nr_clauses;
	struct cell *subcells;
	size_t nr_subcells;
};

struct cell_config {
	struct cell *cells;
	size_t nr_cells;
};

/* Append helpers (copy strings); return NULL / -1 on OOM (scx_fail). */
struct cell *cell_config_add_subcell(struct cell *parent, const char *name);
struct cell *cell_config_add(struct cell_config *c, const char *name, enum cell_top_match top,
			     const char *value);
int cell_config_add_clause(struct cell *c, const char *comm_prefix, bool has_hint, uint64_t hint);
void cell_config_free(struct cell_config *c);

/* Print the config (pretty JSON + "\n"). -1 (scx_fail) on write error. */
int cell_config_write(const struct cell_config *c, FILE *f);

#endif
