/*
 * sharing.h - sharing-aware clustering of extract mem's units.
 *
 * Evidence (mem_agg.h): per unit, the keys (data identity, time epoch) it
 * touched with their summed weight and sample count. Two units share an
 * identity when both touched it in the same or adjacent epochs. Each
 * shared key counts with idf(k) / idf_max, idf = ln((N + 1) / df) where df
 * is how many of the N units touched the identity, so memory nearly every
 * unit touches (allocator, kernel) weighs little. share(a, b) = a's
 * weight on keys shared with b (idf-weighed) / a's total weight, and the
 * affinity is sqrt(share(a, b) x share(b, a)): it grows with the part of
 * each unit's memory that is shared, so one common sample out of 10,000
 * scores 1e-4, not 1. A pair with fewer than min_keys shared identities
 * or min_samples samples on them (either side) scores 0.
 * Clusters are merged bottom-up with average linkage (UPGMA) while the
 * best affinity is above the threshold; a merge whose CPU demand (share of
 * all samples x online CPUs) would exceed the cap is refused and the next
 * best pair is tried. docs/clustering.md has the evidence for defaults.
 */
#ifndef SCX_EXTRACT_SHARING_H
#define SCX_EXTRACT_SHARING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "extract/mem_agg.h"
#include "extract/mem_groups.h"

/* Defaults; docs/clustering.md says how they were chosen. */
#define SHARE_THRESHOLD_DEFAULT 0.065
#define SHARE_MIN_KEYS_DEFAULT 4
#define SHARE_MIN_SAMPLES_DEFAULT 8

struct sharing_params {
	double threshold;       /* merge while average affinity > threshold */
	double cap_cpus;        /* max CPU demand of a merged cluster */
	double online_cpus;     /* demand = samples / total_samples * online_cpus */
	uint64_t total_samples; /* all samples of the input */
	const double *demand;   /* per unit of the call (CPUs), NULL: the sample share above */
	size_t min_keys;        /* least shared identities for a non-zero affinity (sharing_enough_evidence) */
	uint64_t min_samples;   /* least samples on them, on each side */
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
char *sharing_cluster_name(const struct unit_list *u, const struct unit_cluster *c);

/* One unit's evidence as a sparse vector sorted by key (identity, then epoch). */
struct evidence {
	uint64_t *keys;
	double *w;          /* scaled weight per key */
	uint64_t *samples;  /* samples per key */
	size_t n;
	double total;       /* all the unit's weight */
};

int sharing_evidence_of_unit(const struct mem_agg *a, const struct unit *u, struct evidence *e);
void sharing_evidence_free(struct evidence *e);

/* What two units share (see above). */
struct pair_evidence {
	size_t keys;                  /* shared identities */
	uint64_t samples_a, samples_b; /* samples of a / b on them */
	double share_a, share_b;      /* part of a's / b's weight on them (no idf) */
	double affinity;
};

/* df of every identity over n units: ident -> number of units. -1 on OOM. */
int sharing_evidence_df(const struct evidence *ev, size_t n, struct u64map *df);
void sharing_pair_evidence(const struct evidence *a, const struct evidence *b, const struct u64map *df, size_t n,
		   size_t min_keys, uint64_t min_samples, struct pair_evidence *out);
/*
 * The minimum evidence for a non-zero affinity: at least min_samples
 * samples a side on the shared data, and either min_keys shared identities
 * or, on fewer, at least min_keys x min_samples samples a side (one hot
 * structure two threads hammer all the time is no coincidence).
 */
bool sharing_enough_evidence(const struct pair_evidence *pe, size_t min_keys, uint64_t min_samples);

/*
 * Affinity matrix (n x n, row-major, diagonal 1) of n units' evidence, as
 * described above. Caller frees. NULL on OOM.
 */
double *sharing_affinity_matrix(const struct evidence *ev, size_t n, size_t min_keys, uint64_t min_samples);

/*
 * Cluster the units of one cell. When log is not NULL, explain the top
 * shared pairs, each merge and each refused merge into it. -1 on OOM.
 */
int sharing_cluster(const struct mem_agg *a, const struct unit_list *units, const struct sharing_params *p,
		    const char *cell_name, FILE *log, struct clustering *out);
void sharing_clustering_free(struct clustering *c);

#endif
