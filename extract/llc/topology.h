/*
 * topology.h - the recording's CPU topology for extract (lib/host reads
 * it): extract mem's clustering needs how many CPUs are online and how
 * many share the largest last-level cache; the cross-LLC figures and
 * extract sched stats --by llc|node need each CPU's LLC and node.
 *
 * Where it comes from: --topology FILE (a topology.json), else
 * topology.json next to the input, else this host's sysfs.
 * topology.json is schemas/topology.schema.json: "cpus" lists every
 * online CPU, each with "cpu", "llc", "node" and "llc_cpus" (the cpulist
 * sharing its LLC). Online CPUs = entries of "cpus"; largest LLC = the
 * largest llc_cpus.
 */
#ifndef SCX_EXTRACT_TOPOLOGY_H
#define SCX_EXTRACT_TOPOLOGY_H

#include "lib/host/host.h"

struct cpu_topology {
	unsigned online_cpus;
	unsigned largest_llc_cpus;
	char source[64]; /* "topology.json" or "host" */
};

/* The CPU count and largest LLC of t, source named as given. */
void topology_counts(const struct host_topology *t, const char *source, struct cpu_topology *c);
/* Online CPUs and the largest LLC of topology.json at path. -1 (scx_fail naming path) on error. */
int topology_from_json(const char *path, struct cpu_topology *t);
/* topology.json in the directory of input_path if it exists, else the host. */
int topology_for_input(const char *input_path, struct cpu_topology *t);

#endif
