/*
 * features.h - the perf.data feature sections `record` writes, so that
 * perf 6.1 reads perf.mem.data without warnings and its options work
 * (perf script --header, -F tod, --time, -C): HOSTNAME, OSRELEASE,
 * VERSION, ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM, CMDLINE, SAMPLE_TIME,
 * CLOCKID, CLOCK_DATA (EVENT_DESC comes from the writer's attr names).
 */
#ifndef SCX_FEATURES_H
#define SCX_FEATURES_H

#include <stdint.h>

#include "lib/perfdata.h"

struct feature_info {
	int argc;
	char **argv;              /* the command line (CMDLINE) */
	uint64_t first_sample_ns; /* SAMPLE_TIME */
	uint64_t last_sample_ns;
	uint64_t clock_ns;        /* CLOCK_DATA: CLOCK_MONOTONIC and wall time read together */
	uint64_t wall_ns;
};

int features_add(struct pd_writer *w, const struct feature_info *fi);

/* CLOCK_MONOTONIC and CLOCK_REALTIME read back to back, in ns. */
void features_clock_pair(uint64_t *mono_ns, uint64_t *wall_ns);

#endif
