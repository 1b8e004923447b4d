/*
 * topology.h - extract's one reader of topology.json, and what its two
 * users take from it: extract mem's clustering needs how many CPUs are
 * online and how many share the largest last-level cache (from
 * topology.json next to the input when there is one, else from this
 * host's sysfs); extract sched stats --by llc|node needs each CPU's LLC
 * and node.
 *
 * topology.json is record's (schemas/topology.schema.json): "cpus" lists
 * every online CPU, each with "cpu", "llc", "node" and "llc_cpus" (the
 * cpulist sharing its LLC). Online CPUs = entries of "cpus"; largest LLC
 * = the largest llc_cpus.
 */
#ifndef SCX_EXTRACT_TOPOLOGY_H
#define SCX_EXTRACT_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One entry of "cpus", as read: each user checks the fields it needs. */
struct topology_cpu {
	bool has_cpu, has_llc, has_node;
	int64_t cpu, llc, node; /* json-c's int64 of the value when present */
	long llc_cpus;          /* CPUs in "llc_cpus"; -1 when absent, not a string or not a cpulist */
};

struct topology {
	struct topology_cpu *cpus;
	size_t n;
};

struct cpu_topology {
	unsigned online_cpus;
	unsigned largest_llc_cpus;
	char source[64]; /* "topology.json" or "host" */
};

/* Largest CPU number a cpulist may name (the kernel's NR_CPUS is at most 8192). */
#define CPULIST_MAX_CPU 65535ul

/* Number of CPUs in a cpulist ("0-3,8,10-11" -> 7); -1 when malformed or
 * naming a CPU above CPULIST_MAX_CPU. */
long topology_cpulist_count(const char *s);

/*
 * Read topology.json at path: a regular file of at most 16 MB, a JSON
 * object with a "cpus" array (possibly empty). -1 (scx_fail naming path)
 * on error.
 */
int topology_read(const char *path, struct topology *t);
void topology_free(struct topology *t);

/* Online CPUs and the largest LLC of topology.json at path. -1 (scx_fail naming path) on error. */
int topology_from_json(const char *path, struct cpu_topology *t);
/* This host: online CPUs and the largest index3 shared_cpu_list under sysfs_cpu (e.g. /sys/devices/system/cpu). */
int topology_from_host(const char *sysfs_cpu, struct cpu_topology *t);
/* topology.json in the directory of input_path if it exists, else the host. */
int topology_for_input(const char *input_path, struct cpu_topology *t);

#endif
