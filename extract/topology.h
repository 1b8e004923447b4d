/*
 * topology.h - the CPU numbers extract mem's clustering needs: how many
 * CPUs are online and how many share the largest last-level cache. They
 * come from topology.json next to the input when there is one (written by
 * record), else from this host's sysfs.
 *
 * topology.json is record's (schemas/topology.schema.json): "cpus" lists
 * every online CPU, each with "llc_cpus", the cpulist sharing its LLC.
 * Online CPUs = entries of "cpus"; largest LLC = the largest llc_cpus.
 */
#ifndef SCX_EXTRACT_TOPOLOGY_H
#define SCX_EXTRACT_TOPOLOGY_H

#include <stddef.h>

struct cpu_topology {
	unsigned online_cpus;
	unsigned largest_llc_cpus;
	char source[64]; /* "topology.json" or "host" */
};

/* Largest CPU number a cpulist may name (the kernel's NR_CPUS is at most 8192). */
#define CPULIST_MAX_CPU 65535ul

/* Number of CPUs in a cpulist ("0-3,8,10-11" -> 7); -1 when malformed or
 * naming a CPU above CPULIST_MAX_CPU. */
long cpulist_count(const char *s);

/* Read topology.json at path. -1 (scx_fail naming path) on error. */
int topology_from_json(const char *path, struct cpu_topology *t);
/* This host: online CPUs and the largest index3 shared_cpu_list under sysfs_cpu (e.g. /sys/devices/system/cpu). */
int topology_from_host(const char *sysfs_cpu, struct cpu_topology *t);
/* topology.json in the directory of input_path if it exists, else the host. */
int topology_for_input(const char *input_path, struct cpu_topology *t);

#endif
