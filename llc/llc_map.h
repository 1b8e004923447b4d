/*
 * llc_map.h - which last-level cache and NUMA node each CPU belongs to,
 * for the cross-LLC sharing measure and the placement model: from a
 * topology lib/host read (topology.json, schemas/topology.schema.json, or
 * this host's sysfs: each CPU's "llc", cache index3 else index2, and
 * "node"; -1, no answer, is one domain of its own), with the topology's
 * cgroup cpusets. LLCs and nodes are numbered 0.. in the order of their
 * lowest CPU.
 */
#ifndef SCX_LLC_MAP_H
#define SCX_LLC_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/host/host.h"
#include "lib/mempool.h"

struct llc_map {
	int *llc_of, *node_of;   /* CPU -> LLC / node index; -1 for a CPU not listed */
	size_t nr_cpus;          /* length of llc_of and node_of (highest CPU + 1) */
	unsigned online;         /* CPUs listed */
	size_t nr_llcs, nr_nodes;
	unsigned *llc_cpus;      /* CPUs of each LLC */
	int *llc_node;           /* node index of each LLC (of its lowest CPU) */
	int64_t *llc_id;         /* the LLC's id as the source names it */
	int64_t *node_id;        /* the node's id */
	char source[4096];       /* --topology's path, "topology.json" (next to the input), or "host" */
	bool llc_by_package;     /* the source names no cache: each package is taken as one LLC (llc_level -1) */
	char **cpuset_path;      /* the topology's cpusets: cgroup path ("/a/b") */
	int **cpuset;            /* and its CPUs */
	size_t *nr_cpuset, nr_cpusets;
	struct mempool mem;      /* owns every array above */
};

/* From a topology (source: what m->source says). -1 (scx_fail) on error. */
int llc_map_from_topology(const struct host_topology *t, const char *source, struct llc_map *m);
/*
 * From topology.json at path; path NULL: from this host as it is now
 * (source "host"), its sysfs and its cgroups' cpusets (host_topology_live;
 * a cpuset file that cannot be read is a line in w). -1 (scx_fail naming
 * path) on error.
 */
struct warnings;
int llc_map_read(const char *path, struct llc_map *m, struct warnings *w);
void llc_map_free(struct llc_map *m);

/*
 * The CPUs of cgroup's cpuset ("/a/b", below the cgroup2 mount), *n of
 * them; NULL (*n 0) when the topology lists none for it. The one lookup
 * the scx_mitosis model's callers (extract's, check's, place's) make: a
 * cell whose cgroup has a cpuset claims its CPUs, as the reader does.
 */
const int *llc_map_cpuset(const struct llc_map *m, const char *cgroup, size_t *n);

/* LLC / node index of cpu, -1 when the map does not list it. */
int llc_map_llc(const struct llc_map *m, int64_t cpu);
int llc_map_node(const struct llc_map *m, int64_t cpu);

#endif
