/*
 * monotime.h - the current CLOCK_MONOTONIC time in nanoseconds: the clock of
 * every timestamp scxprof records (BPF's bpf_ktime_get_ns reads the same).
 */
#ifndef SCX_LIB_MONOTIME_H
#define SCX_LIB_MONOTIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t monotime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
