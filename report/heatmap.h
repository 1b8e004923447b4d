/*
 * heatmap.h - the sharing matrix of one cell as an inline SVG heatmap:
 * units x units ordered by subcell, merged subcells outlined, every unit
 * labelled, the affinity of each pair in a <title> (shown on hover); a
 * pair the line estimate cannot tell is hatched, "unknown", not 0. With
 * more than max_units units, whole subcells are kept by samples (largest
 * first) and the rest folded into one "others" row and column, whose
 * cells are the mean affinity of the folded pairs; a line above says so.
 */
#ifndef SCX_REPORT_HEATMAP_H
#define SCX_REPORT_HEATMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HEATMAP_MAX_UNITS 40

struct heatmap_in {
	size_t n;
	const char *const *names; /* unit names */
	const uint64_t *samples;  /* per unit */
	const size_t *group;      /* subcell of each unit */
	const size_t *merged;     /* per subcell: members (1 = not merged); indexed by group */
	const double *aff;        /* n x n, row-major */
	const unsigned char *unknown; /* n x n: 1 where the pair cannot tell (NULL: none) */
	size_t max_units;         /* 0: HEATMAP_MAX_UNITS */
};

/* Write the note (when folding) and the <svg>. -1 (scx_fail) on OOM. */
int heatmap_write(FILE *f, const struct heatmap_in *in);

#endif
