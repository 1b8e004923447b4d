/*
 * sample_demand.h - a thread's CPU demand from its samples alone, for a
 * recording without a scheduling trace (a perf.data from `perf mem` or
 * `perf c2c`, a perf.jsonl given without sched.jsonl). One definition for
 * extract's clustering and fit (extract/extract_mem.c) and the cross-LLC
 * placement models (llc/llc_share.c).
 *
 * Two upper bounds, the smaller one wins:
 *   - its share of all samples x the recording's CPUs: right when the
 *     samples cover the whole machine busy, an overstatement otherwise (a
 *     recording that followed only the workload puts every sample in it, so
 *     its threads would demand every CPU of the host);
 *   - the share of the recording's time it was seen running: the 100 ms
 *     bins holding one of its samples over the bins the recording spans. A
 *     thread runs on at most one CPU at a time, so it never needs more.
 * A thread (or a recording) without sample times gets the first alone,
 * and never more than one CPU.
 */
#ifndef SCX_SAMPLE_DEMAND_H
#define SCX_SAMPLE_DEMAND_H

#include <stdint.h>

/* The bin of the second bound; also llc/'s timelines from the samples' CPUs. */
#define SAMPLE_DEMAND_BIN_NS 100000000ULL

/* The bins from first_ns to last_ns, both counted; 0 when there is no time. */
static inline uint64_t sample_demand_span_bins(uint64_t first_ns, uint64_t last_ns)
{
	if (!first_ns || last_ns < first_ns)
		return 0;
	return last_ns / SAMPLE_DEMAND_BIN_NS - first_ns / SAMPLE_DEMAND_BIN_NS + 1;
}

/*
 * CPUs of one thread with samples of total in a recording of cpus CPUs,
 * seen in bins_seen of its bins_span bins (either 0: the share alone), at
 * most 1.
 */
static inline double sample_demand(uint64_t samples, uint64_t total, double cpus, uint64_t bins_seen,
				   uint64_t bins_span)
{
	double share = total ? (double)samples / (double)total * cpus : 0, seen = 1.0;

	if (bins_seen && bins_span && bins_seen < bins_span)
		seen = (double)bins_seen / (double)bins_span;
	return seen < share ? seen : share;
}

#endif
