/*
 * topology.h - the machine's CPU topology from sysfs, written as
 * topology.json (schemas/topology.schema.json): every online CPU's core,
 * package, last-level cache (id, level, size, CPUs sharing it), NUMA node
 * and SMT siblings. extract uses it to size cells (CPUs per LLC).
 */
#ifndef SCX_TOPOLOGY_H
#define SCX_TOPOLOGY_H

#include <stdio.h>

/* sys_root: "/sys" normally (a fixture tree in tests). */
int topology_write(FILE *out, const char *sys_root);

#endif
