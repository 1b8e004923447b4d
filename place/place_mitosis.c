/*
 * place_mitosis.c - place's scx_mitosis plan (see place_mitosis.h).
 */
#include "place/place_mitosis.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/mempool.h"

void place_mitosis_free(struct place_mitosis *pm)
{
	mempool_free(&pm->mem);
	mitosis_layout_free(&pm->layout);
	mitosis_cells_free(&pm->cells);
	memset(pm, 0, sizeof(*pm));
}

/* Each cell's places and their names "CELL/SUBCELL" (the spec's names). */
static int places(struct place_mitosis *pm, const struct cell_config *cfg)
{
	const char **sub;
	size_t i, p;
	int rc = 0;

	if (mitosis_places(cfg, &pm->cells, &pm->mem, &pm->base, &sub) < 0)
		return -1;
	pm->nr_places = pm->base[pm->cells.nr];
	if (!(pm->name = mempool_calloc(&pm->mem, pm->nr_places + 1, sizeof(char *))))
		rc = scx_fail("out of memory");
	for (i = 0; !rc && i < pm->cells.nr; i++) {
		const struct cell *sp = mitosis_cell_spec(cfg, &pm->cells, i);

		for (p = pm->base[i]; !rc && p < pm->base[i + 1]; p++)
			if (asprintf(&pm->name[p], "%s/%s", sp ? sp->name : "rest", sub[p]) < 0 ||
			    mempool_adopt(&pm->mem, pm->name[p]) < 0) {
				pm->name[p] = NULL;
				rc = scx_fail("out of memory");
			}
	}
	free(sub);
	return rc;
}

int place_mitosis_plan(struct place_mitosis *pm, const struct cell_config *cfg, const struct llc_map *map,
		       const struct mitosis_opts *o, struct place_thread *t, size_t n)
{
	struct mitosis_topo topo = {map->nr_cpus, map->llc_of, map->node_of, NULL, map->nr_llcs, map->nr_nodes};
	const char **cg = calloc(n + 1, sizeof(char *));
	double *demand = NULL;
	struct mitosis_cell_in *in = NULL;
	char why[256];
	size_t i;
	int rc = -1;

	memset(pm, 0, sizeof(*pm));
	if (!cg)
		return scx_fail("out of memory");
	if (mitosis_config_refusal(cfg, why, sizeof(why))) {
		scx_fail("scx_mitosis would refuse the config: %s", why);
		goto out;
	}
	for (i = 0; i < n; i++)
		cg[i] = t[i].cgroup;
	if (mitosis_resolve_cells(cfg, cg, n, &pm->cells) < 0 || places(pm, cfg) < 0)
		goto out;
	if (!(pm->place = mempool_calloc(&pm->mem, n + 1, sizeof(size_t))) || !(demand = calloc(pm->nr_places + 1, sizeof(double))) ||
	    !(in = calloc(pm->cells.nr + 1, sizeof(*in)))) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t cell = (size_t)pm->cells.cell_of[i];
		const struct cell *sp = mitosis_cell_spec(cfg, &pm->cells, cell);

		pm->place[i] = pm->base[cell] + (sp ? mitosis_match_subcell(sp, t[i].comm, strlen(t[i].comm)) : 0);
		demand[pm->place[i]] += t[i].demand;
	}
	for (i = 0; i < pm->cells.nr; i++) {
		in[i] = (struct mitosis_cell_in){NULL, 0, pm->base[i + 1] - pm->base[i], &demand[pm->base[i]]};
		if (i) /* the reader: a cell whose cgroup has a cpuset claims it (cell 0 never), as extract's model */
			in[i].cpuset = llc_map_cpuset(map, pm->cells.path[i], &in[i].nr_cpuset);
	}
	if (mitosis_layout(&topo, o, in, pm->cells.nr, &pm->layout) < 0) {
		scx_fail_prefix("scx_mitosis would refuse the layout");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct mitosis_run *run = place_mitosis_run(pm, pm->place[i]);
		int llc = run->n ? map->llc_of[run->cpus[0]] : -1;

		for (size_t k = 1; k < run->n; k++)
			if (map->llc_of[run->cpus[k]] != llc)
				llc = -1;
		t[i].llc = llc;
		t[i].scope = (long)pm->place[i];
	}
	rc = 0;
out:
	free(cg);
	free(demand);
	free(in);
	if (rc)
		place_mitosis_free(pm);
	return rc;
}

const struct mitosis_run *place_mitosis_run(const struct place_mitosis *pm, size_t p)
{
	size_t cell = 0;

	while (cell + 1 < pm->cells.nr && pm->base[cell + 1] <= p)
		cell++;
	return &pm->layout.cells[cell].subs[p - pm->base[cell]];
}

void place_mitosis_print(FILE *f, const struct place_mitosis *pm, const struct llc_map *map)
{
	char buf[1024];

	for (size_t i = 0; i < pm->cells.nr; i++) {
		const struct mitosis_cell_out *c = &pm->layout.cells[i];

		fprintf(f, "# scx_mitosis cell %zu %s CPUs %s:", i, pm->cells.path[i],
			mitosis_cpulist(buf, sizeof(buf), c->cpus.cpus, c->cpus.n));
		for (size_t j = 0; j < c->nr_subs; j++) {
			fprintf(f, "%s %s %s (LLC", j ? "," : "", pm->name[pm->base[i] + j],
				mitosis_cpulist(buf, sizeof(buf), c->subs[j].cpus, c->subs[j].n));
			for (size_t l = 0, first = 1; l < map->nr_llcs; l++)
				for (size_t k = 0; k < c->subs[j].n; k++)
					if (map->llc_of[c->subs[j].cpus[k]] == (int)l) {
						fprintf(f, "%s %lld", first ? "" : ",", (long long)map->llc_id[l]);
						first = 0;
						break;
					}
			fprintf(f, ")");
		}
		fprintf(f, "\n");
	}
}
