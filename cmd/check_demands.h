/*
 * check_demands.h - `scxprof check --demands DIR`: a recording's threads
 * with their CPU demand, cgroup and comm, for the scx_mitosis layout at the
 * recording's weights (the --enable-rebalancing fixed point).
 */
#ifndef SCX_CMD_CHECK_DEMANDS_H
#define SCX_CMD_CHECK_DEMANDS_H

#include <stddef.h>
#include <stdint.h>

#include "place/place.h"

struct check_demands_info {
	uint64_t duration_ns;     /* the trace's */
	double cpus;              /* the threads' summed demand */
	size_t unattributed;      /* threads that ran but neither they nor their process were sampled */
	double unattributed_cpus; /* their demand (left out: no cgroup) */
};

/*
 * The threads of DIR/sched.jsonl that ran, each with runtime / trace
 * duration as demand (at most one CPU), the comm the trace showed last and
 * the cgroup of its first sample in DIR/perf.jsonl, else its process's;
 * *out malloc'd. -1 (scx_fail naming the file) on error.
 */
int check_demands_read(const char *dir, struct place_thread **out, size_t *n, struct check_demands_info *info);

#endif
