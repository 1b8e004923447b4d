/*
 * sharing.h - sharing-aware clustering of extract mem's units.
 *
 * Evidence: the physical pages (or lines) each unit touched, weighted by
 * load latency (else 1 per sample), from mem_agg's bounded evidence maps.
 * Each unit becomes a TF-IDF vector: tf = the key's share of the unit's
 * weight, idf = ln((N + 1) / df) where df is how many of the N units
 * touched the key, so memory touched by nearly every unit (kernel data,
 * shared libraries) weighs little. Keys only one unit touched (private
 * data and sampling noise) say nothing about sharing and are left out.
 * Affinity of two units = dot(a, b) / (|a| |b|) with the norms taken at
 * idf_max = ln((N + 1) / 2): in [0, 1], independent of how many samples a
 * unit has, and low for units whose common memory is only background.
 * Clusters are merged bottom-up with average linkage (UPGMA) while the
 * best affinity is above the threshold; a merge whose CPU demand (share of
 * all samples x online CPUs) would exceed the cap is refused and the next
 * best pair is tried. docs/clustering.md has the evidence for defaults.
 */
#ifndef SCX_EXTRACT_SHARING_H
#define SCX_EXTRACT_SHARING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "extract/mem_agg.h"
#include "extract/mem_groups.h"

/* Default --share-threshold; docs/clustering.md says how it was chosen. */
#define SHARE_THRESHOLD_DEFAULT 0.08

struct sharing_params {
	double threshold;       /* merge while average affinity > threshold */
	double cap_cpus;        /* max CPU demand of a merged cluster */
	double online_cpus;     /* demand = samples / total_samples * online_cpus */
	uint64_t total_samples; /* all samples of the input */
	const double *demand;   /* per unit of the call (CPUs), NULL: the sample share above */
};

struct unit_cluster {
	size_t *members; /* unit indexes, sorted by unit name */
	size_t n;
	double demand;
};

struct clustering {
	struct unit_cluster *v; /* ordered by their first unit (upstream order) */
	size_t n;
};

/* A merged subcell's name: its members' names joined with "+" (malloc'ed;
 * NULL when memory is short). */
char *unit_cluster_name(const struct unit_list *u, const struct unit_cluster *c);

/* One unit's evidence as a sparse vector sorted by key. */
struct evidence {
	uint64_t *keys;
	double *w;
	size_t n;
	double total;
};

int evidence_of_unit(const struct mem_agg *a, const struct unit *u, struct evidence *e);
void evidence_free(struct evidence *e);

/*
 * Affinity matrix (n x n, row-major, diagonal 1) of n units' evidence, as
 * described above. Caller frees. NULL on OOM.
 */
double *affinity_matrix(const struct evidence *ev, size_t n);

/*
 * Cluster the units of one cell. When log is not NULL, explain the top
 * shared pairs, each merge and each refused merge into it. -1 on OOM.
 */
int sharing_cluster(const struct mem_agg *a, const struct unit_list *units, const struct sharing_params *p,
		    const char *cell_name, FILE *log, struct clustering *out);
void clustering_free(struct clustering *c);

#endif
