/*
 * rec_topology.h - the recording's CPU topology for extract (lib/host
 * reads it): extract mem's clustering needs how many CPUs are online and
 * how many share the largest last-level cache; extract sched stats --by
 * llc|node and the cross-LLC figures (llc/) need each CPU's LLC and node.
 *
 * Where it comes from (rec_topology_load): --topology FILE (a topology.json)
 * or --topology host (this machine's sysfs and cgroup cpusets, only when
 * asked); else
 * topology.json next to the input (record writes it into the profile,
 * process copies it into PROFILE.out/, or derives it from a perf.data's
 * headers); else, when the input is a perf.data (one-pass extract on a
 * profile or on a perf.data file), its CACHE, CPU_TOPOLOGY and
 * NUMA_TOPOLOGY headers. Else the recording has none, and extract says so
 * instead of taking this machine's.
 */
#ifndef SCX_EXTRACT_REC_TOPOLOGY_H
#define SCX_EXTRACT_REC_TOPOLOGY_H

#include <stdbool.h>

#include "lib/host/host.h"
#include "lib/warnings.h"

/* --topology's value that names this machine's sysfs. */
#define REC_TOPOLOGY_HOST "host"

struct rec_topology {
	struct host_topology t; /* empty when none */
	bool found;
	char source[4096];      /* "topology.json", "perf.data headers" (the input's, or those a
				 * topology.json next to it was derived from), "host" or --topology's path */
	char none[8448];        /* when not found: where it was looked for, one phrase */
	struct warnings warnings; /* --topology host: the cpuset files that could not be read */
};

/*
 * The topology for input_path: topology (--topology: NULL, REC_TOPOLOGY_HOST or
 * a topology.json) if given, else the recording's own. 0 (r->found tells
 * whether there is one); -1 (scx_fail naming the file) when the file
 * found is malformed.
 */
int rec_topology_load(const char *input_path, const char *topology, struct rec_topology *r);
void rec_topology_unload(struct rec_topology *r);

struct cpu_topology {
	unsigned online_cpus;
	unsigned largest_llc_cpus;
	char source[64]; /* "topology.json", "perf.data headers", "host" */
};

/* The CPU count and largest LLC of t, source named as given. */
void rec_topology_counts(const struct host_topology *t, const char *source, struct cpu_topology *c);

#endif
