/*
 * place_mitosis.h - `scxprof place --model mitosis`: each thread of a
 * running workload on the CPUs scx_mitosis would give it, its subcell's
 * run (the reader's primary mask), by the model extract's prediction uses
 * (llc/sched_model_mitosis.h): the threads' cgroups as the reader's
 * cells, each thread's subcell by its comm, the layout with the measured
 * demands. No host access here: the caller reads the threads and pins.
 */
#ifndef SCX_PLACE_MITOSIS_H
#define SCX_PLACE_MITOSIS_H

#include <stdio.h>

#include "lib/mempool.h"
#include "llc/llc.h"
#include "place/place_plan.h"

struct place_mitosis {
	struct mitosis_cells cells;
	struct mitosis_layout layout;
	size_t *base;        /* cell i's subcells are places base[i] .. base[i + 1] */
	size_t *place;       /* per thread planned: its place */
	char **name;         /* per place: "cell/subcell" */
	size_t nr_places;
	struct mempool mem;  /* owns base, place, name */
};

/*
 * Plan t[0..n) under cfg on map's CPUs (o: the model's options); each
 * thread's place into pm->place and t[i].scope, t[i].llc the LLC when its
 * run is on one, else -1. -1 (scx_fail) when the reader would refuse the config or the
 * layout (saying why), on a bad regex or OOM.
 */
int place_mitosis_plan(struct place_mitosis *pm, const struct cell_config *cfg, const struct llc_map *map,
		       const struct mitosis_opts *o, struct place_thread *t, size_t n);
void place_mitosis_free(struct place_mitosis *pm);
/* Place p's CPUs (a subcell's run; a planned thread's place is its scope). */
const struct mitosis_run *place_mitosis_run(const struct place_mitosis *pm, size_t p);
/* The layout as comment lines ("# cell 1 /workload.slice/... CPUs 8-15: a+b 11-13 (LLC 0, 12) ..."). */
void place_mitosis_print(FILE *f, const struct place_mitosis *pm, const struct llc_map *map);

#endif
