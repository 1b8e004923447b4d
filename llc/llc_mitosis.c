/*
 * llc_mitosis.c - the scx_mitosis model's layout of an evaluation's
 * threads (see llc_mitosis.h).
 */
#include "llc/llc_mitosis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/mempool.h"
#include "lib/u64map.h"

void llc_mitosis_result_free(struct llc_mitosis_result *m)
{
	mempool_free(&m->mem);
	mitosis_layout_free(&m->layout);
	mitosis_cells_free(&m->cells);
	memset(m, 0, sizeof(*m));
}

/*
 * Each cell's places (its subcells by the reader's ids) and their names;
 * 1 when the reader would refuse the config (more than 8 subcells).
 */
static int places(const struct llc_share_eval *e, struct llc_mitosis_result *m)
{
	const char **sub;
	size_t i, n;
	int rc = 0;

	if (mitosis_places(e->cfg, &m->cells, &m->mem, &m->base, &sub) < 0)
		return -1;
	for (i = 0; i < m->cells.nr; i++)
		if (m->base[i + 1] - m->base[i] > MITOSIS_MAX_SUBCELLS) {
			snprintf(m->why, sizeof(m->why), "cell config has too many subcells: %zu > %d (cell %s)",
				 m->base[i + 1] - m->base[i], MITOSIS_MAX_SUBCELLS,
				 mitosis_cell_spec(e->cfg, &m->cells, i)->name);
			free(sub);
			return 1;
		}
	n = m->base[m->cells.nr];
	if (!(m->sub_name = mempool_calloc(&m->mem, n + 1, sizeof(char *))) ||
	    !(m->sub_demand = mempool_calloc(&m->mem, n + 1, sizeof(double))) ||
	    !(m->sub_threads = mempool_calloc(&m->mem, n + 1, sizeof(size_t))))
		rc = scx_fail("out of memory");
	for (i = 0; !rc && i < n; i++)
		if (!(m->sub_name[i] = mempool_strdup(&m->mem, sub[i])))
			rc = scx_fail("out of memory");
	free(sub);
	return rc;
}

/* Each place's distinct threads (tids below 2^40, places below 2^24). */
static int count_threads(const struct llc_share *s, const size_t *place, struct llc_mitosis_result *m)
{
	struct u64map seen;
	int rc = 0;

	u64map_init(&seen);
	for (size_t i = 0; i < s->nr_actors && !rc; i++) {
		uint64_t key = (uint64_t)place[i] << 40 | ((uint64_t)s->actors[i].tid & ((1ULL << 40) - 1)), *v;

		if (u64map_find(&seen, key))
			continue;
		if (!(v = u64map_slot(&seen, key)))
			rc = -1;
		else
			m->sub_threads[place[i]]++;
	}
	u64map_free(&seen);
	return rc;
}

int llc_mitosis_place(const struct llc_share *s, const struct llc_share_eval *e, const double *demand,
		      struct llc_share_result *r, const float **mllc, const float **mnode)
{
	struct llc_mitosis_result *m = &r->mitosis;
	const struct llc_map *map = e->map;
	struct mitosis_topo t = {map->nr_cpus, map->llc_of, map->node_of, NULL, map->nr_llcs, map->nr_nodes};
	struct mitosis_cell_in *in = NULL;
	size_t *place = calloc(s->nr_actors + 1, sizeof(size_t)), i, np;
	int rc = -1;

	m->opts = e->mitosis;
	for (i = 0; i < s->nr_actors; i++)
		mllc[i] = mnode[i] = NULL;
	if (!place)
		return scx_fail("out of memory");
	if (mitosis_config_refusal(e->cfg, m->why, sizeof(m->why))) {
		rc = 0;
		goto out;
	}
	if (mitosis_resolve_cells(e->cfg, (const char *const *)s->cgroup_names, s->nr_cgroups, &m->cells) < 0 ||
	    (rc = places(e, m)) < 0)
		goto out;
	if (rc > 0) { /* refused: why is set */
		rc = 0;
		goto out;
	}
	rc = -1;
	np = m->base[m->cells.nr];
	for (i = 0; i < s->nr_actors; i++) {
		const struct llc_actor *a = &s->actors[i];
		size_t cell = (size_t)m->cells.cell_of[a->cgroup];
		const struct cell *sp = mitosis_cell_spec(e->cfg, &m->cells, cell);

		place[i] = m->base[cell] + (sp ? mitosis_match_subcell(sp, a->comm, a->comm_len) : 0);
		m->sub_demand[place[i]] += demand[i];
	}
	if (count_threads(s, place, m) < 0)
		goto out;
	if (!(in = calloc(m->cells.nr + 1, sizeof(*in))))
		goto oom;
	for (i = 0; i < m->cells.nr; i++) {
		in[i] = (struct mitosis_cell_in){NULL, 0, m->base[i + 1] - m->base[i], &m->sub_demand[m->base[i]]};
		if (i) /* the reader: a cell whose cgroup has a cpuset claims it (cell 0 never) */
			in[i].cpuset = llc_map_cpuset(map, m->cells.path[i], &in[i].nr_cpuset);
	}
	if (mitosis_layout(&t, &e->mitosis, in, m->cells.nr, &m->layout) < 0) {
		/* the reader would refuse it: say why, predict nothing */
		snprintf(m->why, sizeof(m->why), "%s", scx_errmsg());
		scx_clear_error();
		rc = 0;
		goto out;
	}
	m->ran = true;
	m->stride = map->nr_llcs + map->nr_nodes;
	if (!(m->dist = mempool_calloc(&m->mem, np * m->stride + 1, sizeof(float))))
		goto oom;
	for (i = 0; i < m->cells.nr; i++)
		for (size_t j = 0; j < m->layout.cells[i].nr_subs; j++) {
			float *d = &m->dist[(m->base[i] + j) * m->stride];

			mitosis_run_dist(&t, &m->layout.cells[i].subs[j], d, d + map->nr_llcs);
		}
	for (i = 0; i < s->nr_actors; i++) {
		mllc[i] = &m->dist[place[i] * m->stride];
		mnode[i] = mllc[i] + map->nr_llcs;
	}
	rc = 0;
	goto out;
oom:
	scx_fail("out of memory");
out:
	free(place);
	free(in);
	return rc;
}
