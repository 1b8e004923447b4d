/*
 * heavy_hitters.h - Misra-Gries counters with batched decrements, over
 * entries the caller owns (extract mem's per-group name table).
 *
 * The caller keeps its records in an array parallel to the counters. A
 * new name is admitted at the end (mg_admit); every sample of an entry
 * adds its weight (mg_count). When 2k entries are live, a round
 * (mg_round) must run before the next admission: it takes delta = the
 * (k+1)-th largest counter, subtracts it from every counter and evicts the
 * entries that reach 0 (at least k of them), keeping the others in order;
 * the caller moves its records with the remap the round fills in.
 *
 * Guarantee (Misra-Gries): each round removes at least (k+1) * delta from
 * the counters (the k+1 largest each lose delta), and the counters only
 * ever received the stream's weight N, so the decrements D (the sum of
 * the deltas) satisfy D <= N / (k+1). A name loses weight only by
 * decrements, so:
 *  - a name whose weight is more than D is live at the end: any name with
 *    more than N / (k+1) of the weight is never lost;
 *  - a live entry has seen all of its name's weight except at most the
 *    decrements before its admission (since[i]); since[i] == 0 means it
 *    was admitted before the first round and has seen all of it.
 */
#ifndef SCX_EXTRACT_HEAVY_HITTERS_H
#define SCX_EXTRACT_HEAVY_HITTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mg_counters {
	uint64_t *c;         /* counter per live entry */
	uint64_t *since;     /* D when the entry was admitted */
	uint64_t *scratch;   /* for the selection */
	size_t n, cap;       /* live entries (at most 2k), allocated */
	size_t k;            /* >= 1 */
	uint64_t decrements; /* D */
	uint64_t evicted;    /* entries evicted so far */
	uint64_t rounds;
};

void mg_init(struct mg_counters *m, size_t k);
void mg_free(struct mg_counters *m);

/* True when an admission needs a round first. */
static inline bool mg_full(const struct mg_counters *m)
{
	return m->n >= 2 * m->k;
}

/* Admit a new entry (the table must not be full); its index, -1 on OOM. */
long mg_admit(struct mg_counters *m);

static inline void mg_count(struct mg_counters *m, size_t i, uint64_t w)
{
	m->c[i] += w;
}

/* The r-th largest (0-based) of v[0..n), n > r; reorders v. */
uint64_t mg_select_desc(uint64_t *v, size_t n, size_t r);

/*
 * One round (see above). remap (n entries) gets each old index's new
 * index, or SIZE_MAX when evicted. Returns the number evicted.
 */
size_t mg_round(struct mg_counters *m, size_t *remap);

#endif
