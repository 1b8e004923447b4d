/*
 * sharing_log.c - the -v lines about pairs of units (see sharing.h): the
 * top shared pairs, the line estimate behind each, and every pair the
 * samples cannot decide with how many more samples would.
 */
#include "extract/sharing/sharing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

void sharing_log_line_detail(FILE *log, const char *indent, const struct pair_evidence *pe,
			     const struct sharing_params *p, double duration_s)
{
	const struct line_estimate *l = &pe->line;
	unsigned window = p->window ? p->window : SHARE_WINDOW_EPOCHS;

	if (!l->na_r && !l->nb_r)
		return;
	fprintf(log, "%slines: shared fraction %.3f [%.3f, %.3f] (%.3f, %.3f); %llu + %llu samples on %llu common lines "
		     "within %u s, recaptured %llu of %llu + %llu of %llu in common blocks: %s",
		indent, l->f, l->low, l->high, l->f_a, l->f_b, (unsigned long long)l->ha, (unsigned long long)l->hb,
		(unsigned long long)l->lines, window, (unsigned long long)l->ra, (unsigned long long)l->ja,
		(unsigned long long)l->rb, (unsigned long long)l->jb, sharing_verdict_name(l->verdict));
	if (l->unsampled && l->first_touch) {
		fprintf(log, ": first touches only (%s): %.3f of their samples are on lines both touched, the overlap of "
			     "what they map, not the share of their accesses; more of them would not decide, a sampling "
			     "backend (decode, a memory PMU) would",
			!l->ra || !l->rb ? "a side has no line sampled twice" : "the recaptures contradict the block bound",
			l->f_touch);
	} else if (l->unsampled) {
		fprintf(log, ": the samples are no random subset of the accesses (recaptures against the block bound): "
			     "%.3f of their samples are on lines both touched, not the share of their accesses",
			l->f_touch);
	} else if (l->verdict == SHARING_CANNOT_TELL) {
		if (l->more > 0) {
			double rate = sqrt(l->more);
			/* coincidences grow with the square of the samples within a window, linearly with more windows */
			double more_s = duration_s <= (double)window ? duration_s * (rate - 1) : duration_s * (l->more - 1);

			/* a short recording needs a fraction of a second more: not "0 s" */
			fprintf(log, ": about %.1fx the samples per second, or %.*f s more recording at this rate, would decide",
				rate, more_s < 9.95 ? 1 : 0, more_s);
		} else {
			fprintf(log, ": more than 1000x the samples would be needed");
		}
	}
	fputc('\n', log);
}

struct ranked {
	size_t a, b;
	double shown;
	uint64_t hits;
};

static int ranked_cmp(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	if (a->shown != b->shown)
		return a->shown < b->shown ? 1 : -1;
	if (a->hits != b->hits)
		return a->hits < b->hits ? 1 : -1;
	return a->a != b->a ? (a->a > b->a) - (a->a < b->a) : (a->b > b->b) - (a->b < b->b);
}

int sharing_log_pairs(FILE *log, const struct unit_list *u, const struct pair_evidence *pe, size_t n,
		      const struct sharing_params *p, double duration_s)
{
	struct ranked *r = calloc(n * n / 2 + 1, sizeof(*r));
	size_t nr = 0, i, j, undecided = 0;

	if (!r)
		return scx_fail("out of memory");
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			const struct pair_evidence *e = &pe[i * n + j];
			double shown = e->affinity > e->line.f ? e->affinity : e->line.f;

			if (shown > 0 || e->page_affinity > 0 || e->line.na_r || e->line.nb_r)
				r[nr++] = (struct ranked){i, j, shown, e->line.ha + e->line.hb};
			undecided += e->line.verdict == SHARING_CANNOT_TELL;
		}
	qsort(r, nr, sizeof(*r), ranked_cmp);
	if (sharing_params_first_touch(p))
		fprintf(log, "  evidence: first touches (%llu of %llu samples are page faults, taken when a process maps a "
			     "page, not when it uses it): a pair is decided only on lines sampled again (pages mapped "
			     "again), else it cannot tell\n",
			(unsigned long long)p->fault_samples, (unsigned long long)p->total_samples);
	fprintf(log, "  top shared pairs:\n");
	for (i = 0; i < nr && i < 10; i++) {
		fprintf(log, "    %s ~ %s: %.3f\n", u->v[r[i].a].name, u->v[r[i].b].name, r[i].shown);
		sharing_log_line_detail(log, "      ", &pe[r[i].a * n + r[i].b], p, duration_s);
	}
	if (!nr)
		fprintf(log, "    (none: no unit shares memory with another)\n");
	if (undecided) {
		fprintf(log, "  cannot tell: %zu pair%s the samples cannot decide (not merged):\n", undecided,
			undecided == 1 ? "" : "s");
		for (i = 0, j = 0; i < nr && j < 20; i++)
			if (pe[r[i].a * n + r[i].b].line.verdict == SHARING_CANNOT_TELL) {
				fprintf(log, "    %s ~ %s\n", u->v[r[i].a].name, u->v[r[i].b].name);
				sharing_log_line_detail(log, "      ", &pe[r[i].a * n + r[i].b], p, duration_s);
				j++;
			}
		if (undecided > j)
			fprintf(log, "    ... %zu more\n", undecided - j);
	}
	free(r);
	return 0;
}
