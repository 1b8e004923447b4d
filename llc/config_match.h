/*
 * config_match.h - where a thread lands under a cell config, as a
 * scheduler reading it would place it: the top-level cell by upstream's
 * cgroup rule (rest unless the cgroup contains the workload string; then
 * the allotment cell when the allotment regex matches, else the workload
 * cell), then, as scx_mitosis matches, the first subcell of that cell in
 * file order other than the catch-all with a clause whose conditions all
 * hold (CommPrefix: the comm starts with it, both cut at the 15 bytes the
 * kernel keeps of a comm; Hint: equal), else the catch-all subcell (one
 * with the empty clause, which holds for anything) wherever it is. The LLC measure uses it to put the
 * threads of a recording into the subcells extract chose. A config with
 * several CgroupRegex cells (one spec per allotment) puts an allotment
 * cgroup in the first of them, in file order, whose own regex matches it;
 * with one, the allotment regex decides.
 */
#ifndef SCX_CONFIG_MATCH_H
#define SCX_CONFIG_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "extract/sharing/sharing.h"

struct config_matcher {
	const struct cell_config *cfg;
	const char *workload;
	size_t workload_len;
	void *re, *match; /* pcre2_code_8 *, pcre2_match_data_8 * */
	long cell_of_kind[3]; /* allotment, workload, rest -> cell index, -1 when absent */
	void **cell_re;       /* with several CgroupRegex cells: per cell, its own compiled regex (else NULL) */
};

/* -1 (scx_fail) on a bad regex or OOM. cfg must outlive the matcher. */
int config_match_init(struct config_matcher *m, const struct cell_config *cfg, const char *workload,
		      const char *allotment_re);
void config_match_free(struct config_matcher *m);

/*
 * The cell and subcell indexes a thread (cgroup, comm, hint) lands in;
 * *sub is -1 when the cell has no subcells, *cell -1 when the config has
 * no cell for it. -1 (scx_fail) when the regex cannot be run.
 */
int config_match(const struct config_matcher *m, const char *cgroup, size_t cgroup_len, const char *comm,
		 size_t comm_len, uint64_t hint, long *cell, long *sub);

/*
 * The places config_match() puts threads in: a subcell, or a cell without
 * subcells, one each (config_match_nr_scopes()); named "cell/subcell", or
 * "cell" for a cell, as extract -v names them (config_match_scope_name():
 * malloc'd, NULL on OOM; sub -1 names the cell itself). They are in the
 * config's order, each cell's subcells in turn: config_match_scope_index()
 * is the scope of config_match()'s (cell, sub), -1 for no scope (cell -1,
 * or a sub the cell does not have).
 */
size_t config_match_nr_scopes(const struct cell_config *cfg);
long config_match_scope_index(const struct cell_config *cfg, long cell, long sub);
char *config_match_scope_name(const struct cell_config *cfg, long cell, long sub);

#endif
