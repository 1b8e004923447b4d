/*
 * sharing_report.c - the -v/-vv text (see sharing.h). Every percentage has
 * two decimals; a line is shown when its share is strictly above 1% (or
 * always with -vv), the others are counted in a "... K more" line.
 */
#include "extract/sharing/sharing.h"

#include <stdlib.h>


static double pct(uint64_t part, uint64_t whole)
{
	return ((double)part / (double)whole) * 100.0;
}

static void write_hints(FILE *f, const struct norm_comm *c, int verbosity)
{
	size_t h, skipped = 0;

	for (h = 0; h < c->nr_hints; h++) {
		double p = pct(c->hints[h].count, c->count);

		if (c->hints[h].other)
			fprintf(f, "    folded hints: %llu (%.2f%%)\n", (unsigned long long)c->hints[h].count, p);
		else if (verbosity >= 2 || p > 1.0)
			fprintf(f, "    hint=%llu: %llu (%.2f%%)\n", (unsigned long long)c->hints[h].hint,
				(unsigned long long)c->hints[h].count, p);
		else
			skipped++;
	}
	if (skipped)
		fprintf(f, "    ... %zu more hints below 1%%\n", skipped);
}

static void write_comm(FILE *f, const struct norm_comm *c, uint64_t total, int verbosity, bool use_hints)
{
	size_t i;

	fprintf(f, "  %s%s: %llu (%.2f%%)\n", c->name, c->nr_concretes > 1 ? "*" : "",
		(unsigned long long)c->count, pct(c->count, total));
	if (use_hints && c->nr_hints > 1)
		write_hints(f, c, verbosity);
	if (verbosity >= 2 && c->nr_concretes > 1)
		for (i = 0; i < c->nr_concretes; i++)
			fprintf(f, "    %s%s: %llu (%.2f%%)\n", c->concretes[i].name,
				c->concretes[i].folded ? " (comms after the first " MEM_AGG_CONCRETES_MAX_STR ", together)" : "",
				(unsigned long long)c->concretes[i].count, pct(c->concretes[i].count, c->count));
}

/*
 * Names the group's Misra-Gries table evicted (extract/mem/mem_agg.h): how many, with
 * how many samples, and the bound that makes it safe.
 */
static uint64_t allotment_samples(const struct mem_agg *a)
{
	uint64_t n = 0;

	for (size_t g = 0; g < a->nr_groups; g++)
		if (a->groups[g].kind == GROUP_ALLOTMENT)
			n += a->groups[g].count;
	return n;
}

static void write_folded(FILE *f, const struct group_rec *g)
{
	if (!g->mg.evicted)
		return;
	fprintf(f, "  folded %llu names with %llu samples (%.2f%%) into rest: names above %llu samples (at most 1/%zu of the group) are never folded; a count above may be short by at most that\n",
		(unsigned long long)g->mg.evicted, (unsigned long long)g->folded_samples, pct(g->folded_samples, g->count),
		(unsigned long long)g->mg.decrements, g->mg.k + 1);
}

/* The folded-groups record: what was folded into it and the bound that makes it safe. */
static void write_folded_groups(FILE *f, const struct mem_agg *a, uint64_t allotment)
{
	fprintf(f, "  folded %llu allotment groups with %llu samples (%.2f%% of the allotment samples) into this record: groups above %llu samples (at most 1/%zu of the allotment samples) are never folded; their comms still count in the allotment cell\n",
		(unsigned long long)a->group_fold.groups, (unsigned long long)a->group_fold.samples,
		pct(a->group_fold.samples, allotment), (unsigned long long)a->group_mg.decrements, a->group_mg.k + 1);
	if (a->group_fold.names)
		fprintf(f, "  (those groups had folded %llu names with %llu samples into rest)\n",
			(unsigned long long)a->group_fold.names, (unsigned long long)a->group_fold.name_samples);
}

static int write_group(FILE *f, const struct mem_agg *a, size_t g, int verbosity, bool use_hints)
{
	struct comm_summary s;
	size_t i, skipped = 0;
	bool merged = false;

	if (sharing_summary_build(a, &g, 1, &s) < 0)
		return -1;
	sharing_summary_sort_by_count(&s);
	fprintf(f, "\n%s: %llu samples (%.2f%%)\n", a->groups[g].key, (unsigned long long)s.total,
		pct(s.total, a->total));
	for (i = 0; i < s.nr; i++) {
		if (verbosity >= 2 || pct(s.comms[i].count, s.total) > 1.0) {
			write_comm(f, &s.comms[i], s.total, verbosity, use_hints);
			merged |= s.comms[i].nr_concretes > 1;
		} else {
			skipped++;
		}
	}
	if (skipped)
		fprintf(f, "  ... %zu more below 1%%\n", skipped);
	if (merged)
		fprintf(f, "  * trailing numeric suffixes merged\n");
	write_folded(f, &a->groups[g]);
	if (a->groups[g].folded_groups)
		write_folded_groups(f, a, allotment_samples(a));
	sharing_summary_free(&s);
	return 0;
}

int sharing_report_write(FILE *f, const struct mem_agg *a, int verbosity, bool use_hints)
{
	size_t n, i, *order = sharing_groups_in_order(a, &n);

	if (!order)
		return -1;
	fprintf(f, "Total samples: %llu\n", (unsigned long long)a->total);
	for (i = 0; i < n; i++) {
		if (write_group(f, a, order[i], verbosity, use_hints) < 0) {
			free(order);
			return -1;
		}
	}
	free(order);
	return 0;
}
