/*
 * place_plan.c - the thread -> LLC plan of `scxprof place` (see
 * place_plan.h): config_match and placement_assign, the two halves of
 * extract's placement model, over threads read from the host.
 */
#include "place/place_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/extract_mem.h"
#include "lib/error.h"
#include "lib/mempool.h"
#include "llc/llc.h"

/* The config's value of the first top-level cell of kind top, or NULL. */
static const char *config_value(const struct cell_config *cfg, enum cell_top_match top)
{
	size_t i;

	for (i = 0; i < cfg->nr_cells; i++)
		if (cfg->cells[i].top == top)
			return cfg->cells[i].top_value;
	return NULL;
}

int place_plan_init(struct place_plan *p, const struct cell_config *cfg, const struct llc_map *map,
		    const char *workload, const char *allotment_re)
{
	size_t i, j, n = config_match_nr_scopes(cfg);

	memset(p, 0, sizeof(*p));
	p->cfg = cfg;
	p->map = map;
	if (map->nr_llcs < 2)
		return scx_fail("nothing to place: one LLC (%s)", map->source);
	if (!workload && !(workload = config_value(cfg, TOP_CGROUP_CONTAINS)))
		workload = EXTRACT_DEFAULT_WORKLOAD;
	if (!allotment_re && !(allotment_re = config_value(cfg, TOP_CGROUP_REGEX)))
		allotment_re = EXTRACT_DEFAULT_ALLOTMENT_RE;
	p->scopes = mempool_calloc(&p->mem, n + 1, sizeof(*p->scopes));
	p->load = mempool_calloc(&p->mem, map->nr_llcs, sizeof(*p->load));
	if (!p->scopes || !p->load) {
		place_plan_free(p);
		return scx_fail("out of memory");
	}
	for (i = 0; i < cfg->nr_cells; i++) {
		const struct cell *c = &cfg->cells[i];

		for (j = 0; j < (c->nr_subcells ? c->nr_subcells : 1); j++) {
			struct place_scope *s = &p->scopes[p->nr_scopes++];

			s->cell = (long)i;
			s->sub = c->nr_subcells ? (long)j : -1;
			s->llc = PLACEMENT_UNSET;
			s->name = config_match_scope_name(cfg, s->cell, s->sub);
			if (!s->name || mempool_adopt(&p->mem, s->name) < 0) {
				place_plan_free(p);
				return scx_fail("out of memory");
			}
		}
	}
	if (config_match_init(&p->cm, cfg, workload, allotment_re) < 0) {
		place_plan_free(p);
		return -1;
	}
	return 0;
}

void place_plan_free(struct place_plan *p)
{
	mempool_free(&p->mem);
	config_match_free(&p->cm);
	memset(p, 0, sizeof(*p));
}

int place_plan_add(struct place_plan *p, struct place_thread *t, size_t n)
{
	struct placement_item *it = malloc((n + 1) * sizeof(*it));
	int *sub_llc = malloc((p->nr_scopes + 1) * sizeof(int)), *llc = malloc((n + 1) * sizeof(int));
	double *demand = calloc(p->nr_scopes + 1, sizeof(double));
	size_t i;
	int rc = -1;

	if (!it || !sub_llc || !llc || !demand) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		long cell, sub;

		if (config_match(&p->cm, t[i].cgroup, strlen(t[i].cgroup), t[i].comm, strlen(t[i].comm), t[i].hint, &cell,
				 &sub) < 0)
			goto out;
		t[i].scope = config_match_scope_index(p->cfg, cell, sub);
		it[i] = (struct placement_item){t[i].scope, t[i].tid, t[i].demand};
	}
	/* place now the subcells seen for the first time; leave alone those with no thread yet */
	for (i = 0; i < p->nr_scopes; i++)
		sub_llc[i] = p->scopes[i].llc == PLACEMENT_UNSET ? PLACEMENT_SKIP : p->scopes[i].llc;
	for (i = 0; i < n; i++)
		if (t[i].scope >= 0 && sub_llc[t[i].scope] == PLACEMENT_SKIP)
			sub_llc[t[i].scope] = PLACEMENT_UNSET;
		else if (t[i].scope >= 0 && sub_llc[t[i].scope] >= 0) /* joins a subcell placed before: its LLC carries it */
			p->load[sub_llc[t[i].scope]] += t[i].demand;
	if (placement_assign(it, n, p->nr_scopes, p->map->llc_cpus, p->map->nr_llcs, p->load, sub_llc, demand, llc) < 0)
		goto out;
	for (i = 0; i < p->nr_scopes; i++) {
		if (sub_llc[i] != PLACEMENT_SKIP)
			p->scopes[i].llc = sub_llc[i];
		p->scopes[i].demand += demand[i];
	}
	for (i = 0; i < n; i++)
		t[i].llc = llc[i];
	rc = 0;
out:
	free(it);
	free(sub_llc);
	free(llc);
	free(demand);
	return rc;
}

int place_plan_cpulist(const struct llc_map *m, int llc, char *buf, size_t len)
{
	size_t cpu, used = 0;

	buf[0] = '\0';
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		size_t end = cpu;
		int w;

		if (m->llc_of[cpu] != llc || (cpu && m->llc_of[cpu - 1] == llc))
			continue;
		while (end + 1 < m->nr_cpus && m->llc_of[end + 1] == llc)
			end++;
		w = end > cpu ? snprintf(buf + used, len - used, "%s%zu-%zu", used ? "," : "", cpu, end)
			      : snprintf(buf + used, len - used, "%s%zu", used ? "," : "", cpu);
		if (w < 0 || (size_t)w >= len - used)
			return -1;
		used += (size_t)w;
	}
	return 0;
}
