/*
 * config_match.c - a thread's cell and subcell under a cell config (see
 * config_match.h).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "llc/config_match.h"

#include <pcre2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

static int several_regex_cells(struct config_matcher *m, const struct cell_config *cfg);

int config_match_init(struct config_matcher *m, const struct cell_config *cfg, const char *workload,
		      const char *allotment_re)
{
	int errcode;
	PCRE2_SIZE erroff;
	size_t i;

	memset(m, 0, sizeof(*m));
	m->cfg = cfg;
	m->workload = workload;
	m->workload_len = strlen(workload);
	m->cell_of_kind[0] = m->cell_of_kind[1] = m->cell_of_kind[2] = -1;
	for (i = 0; i < cfg->nr_cells; i++) {
		enum cell_top_match t = cfg->cells[i].top;
		int k = t == TOP_CGROUP_REGEX ? 0 : t == TOP_CGROUP_CONTAINS ? 1 : t == TOP_EMPTY ? 2 : -1;

		if (k >= 0 && m->cell_of_kind[k] < 0)
			m->cell_of_kind[k] = (long)i;
	}
	m->re = pcre2_compile((PCRE2_SPTR)allotment_re, PCRE2_ZERO_TERMINATED,
			      PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &errcode, &erroff, NULL);
	if (!m->re) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(errcode, msg, sizeof(msg));
		return scx_fail("--workload-allotment-cgroup-regex: %s at offset %zu", (char *)msg, (size_t)erroff);
	}
	if (!(m->match = pcre2_match_data_create_from_pattern(m->re, NULL))) {
		config_match_free(m);
		return scx_fail("out of memory (regex match data)");
	}
	return several_regex_cells(m, cfg);
}

/* With two or more CgroupRegex cells: each one's own regex (the match data is the allotment regex's, 0 groups used). */
static int several_regex_cells(struct config_matcher *m, const struct cell_config *cfg)
{
	size_t i, n = 0;

	for (i = 0; i < cfg->nr_cells; i++)
		n += cfg->cells[i].top == TOP_CGROUP_REGEX;
	if (n < 2)
		return 0;
	if (!(m->cell_re = calloc(cfg->nr_cells, sizeof(*m->cell_re)))) {
		config_match_free(m);
		return scx_fail("out of memory");
	}
	for (i = 0; i < cfg->nr_cells; i++) {
		const struct cell *c = &cfg->cells[i];
		int errcode;
		PCRE2_SIZE erroff;

		if (c->top != TOP_CGROUP_REGEX)
			continue;
		if (!(m->cell_re[i] = pcre2_compile((PCRE2_SPTR)(c->top_value ? c->top_value : ""), PCRE2_ZERO_TERMINATED,
						    PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &errcode, &erroff,
						    NULL))) {
			PCRE2_UCHAR msg[256];

			pcre2_get_error_message(errcode, msg, sizeof(msg));
			config_match_free(m);
			return scx_fail("cell %s: CgroupRegex: %s at offset %zu", c->name, (char *)msg, (size_t)erroff);
		}
	}
	return 0;
}

void config_match_free(struct config_matcher *m)
{
	if (m->cell_re) {
		for (size_t i = 0; i < m->cfg->nr_cells; i++)
			if (m->cell_re[i])
				pcre2_code_free(m->cell_re[i]);
		free(m->cell_re);
		m->cell_re = NULL;
	}
	if (m->match)
		pcre2_match_data_free(m->match);
	if (m->re)
		pcre2_code_free(m->re);
	m->re = m->match = NULL;
}

/* The kernel keeps 15 bytes of a comm, and the reader cuts a CommPrefix to 15. */
#define COMM_BYTES 15

static bool clause_holds(const struct cell_clause *c, const char *comm, size_t comm_len, uint64_t hint)
{
	size_t n;

	if (c->has_hint && c->hint != hint)
		return false;
	if (!c->comm_prefix)
		return true;
	n = strnlen(c->comm_prefix, COMM_BYTES);
	return n <= (comm_len < COMM_BYTES ? comm_len : COMM_BYTES) && !memcmp(comm, c->comm_prefix, n);
}

/* A catch-all subcell: one of its clauses is empty (holds for anything). */
static bool catch_all(const struct cell *sub)
{
	for (size_t j = 0; j < sub->nr_clauses; j++)
		if (!sub->clauses[j].comm_prefix && !sub->clauses[j].has_hint)
			return true;
	return false;
}

int config_match(const struct config_matcher *m, const char *cgroup, size_t cgroup_len, const char *comm,
		 size_t comm_len, uint64_t hint, long *cell, long *sub)
{
	const struct cell *c;
	int kind = 2;
	size_t i, j;

	*cell = *sub = -1;
	if (memmem(cgroup, cgroup_len, m->workload, m->workload_len)) {
		int rc = pcre2_match(m->re, (PCRE2_SPTR)cgroup, cgroup_len, 0, 0, m->match, NULL);

		if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
			return scx_fail("--workload-allotment-cgroup-regex: matching failed (%d)", rc);
		kind = rc >= 0 ? 0 : 1;
	}
	if (m->cell_re && kind != 2) { /* one spec per allotment: the first whose own regex matches */
		kind = 1;
		for (i = 0; i < m->cfg->nr_cells && kind == 1; i++) {
			int rc;

			if (!m->cell_re[i])
				continue;
			rc = pcre2_match(m->cell_re[i], (PCRE2_SPTR)cgroup, cgroup_len, 0, 0, m->match, NULL);
			if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
				return scx_fail("cell %s: CgroupRegex: matching failed (%d)", m->cfg->cells[i].name, rc);
			if (rc >= 0) {
				*cell = (long)i;
				kind = 0;
			}
		}
		if (kind == 1 && (*cell = m->cell_of_kind[1]) < 0)
			return 0;
	} else if ((*cell = m->cell_of_kind[kind]) < 0) {
		return 0;
	}
	c = &m->cfg->cells[*cell];
	for (i = 0; i < c->nr_subcells; i++) /* the first other subcell that holds, in file order */
		for (j = 0; j < c->subcells[i].nr_clauses && !catch_all(&c->subcells[i]); j++)
			if (clause_holds(&c->subcells[i].clauses[j], comm, comm_len, hint)) {
				*sub = (long)i;
				return 0;
			}
	for (i = 0; i < c->nr_subcells; i++) /* else the catch-all, wherever it is in the file */
		if (catch_all(&c->subcells[i])) {
			*sub = (long)i;
			return 0;
		}
	return 0;
}

size_t config_match_nr_scopes(const struct cell_config *cfg)
{
	size_t i, n = 0;

	for (i = 0; i < cfg->nr_cells; i++)
		n += cfg->cells[i].nr_subcells ? cfg->cells[i].nr_subcells : 1;
	return n;
}

long config_match_scope_index(const struct cell_config *cfg, long cell, long sub)
{
	long i, index = 0;

	if (cell < 0 || (size_t)cell >= cfg->nr_cells)
		return -1;
	if (cfg->cells[cell].nr_subcells ? sub < 0 || (size_t)sub >= cfg->cells[cell].nr_subcells : sub != -1)
		return -1;
	for (i = 0; i < cell; i++)
		index += cfg->cells[i].nr_subcells ? (long)cfg->cells[i].nr_subcells : 1;
	return index + (sub > 0 ? sub : 0);
}

char *config_match_scope_name(const struct cell_config *cfg, long cell, long sub)
{
	const struct cell *c = &cfg->cells[cell];
	char *s;

	if (sub < 0 || !c->nr_subcells)
		return strdup(c->name);
	if (asprintf(&s, "%s/%s", c->name, c->subcells[sub].name) < 0)
		return NULL;
	return s;
}
