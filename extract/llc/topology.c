/*
 * topology.c - the recording's CPU topology for extract (see topology.h):
 * which file holds it, and the counts the clustering takes from it.
 */
#include "extract/llc/topology.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"

void topology_counts(const struct host_topology *t, const char *source, struct cpu_topology *c)
{
	memset(c, 0, sizeof(*c));
	c->online_cpus = (unsigned)t->n;
	c->largest_llc_cpus = host_topology_largest_llc(t); /* no LLC at all: one cache domain */
	snprintf(c->source, sizeof(c->source), "%s", source);
}

int topology_from_json(const char *path, struct cpu_topology *c)
{
	struct host_topology t;

	memset(c, 0, sizeof(*c));
	if (host_topology_read_json(path, &t) < 0)
		return -1;
	topology_counts(&t, "topology.json", c);
	host_topology_free(&t);
	return 0;
}

int topology_for_input(const char *input_path, struct cpu_topology *c)
{
	struct host_topology t;
	char path[PATH_MAX];
	const char *slash = strrchr(input_path, '/');

	if (slash)
		snprintf(path, sizeof(path), "%.*s/topology.json", (int)(slash - input_path), input_path);
	else
		snprintf(path, sizeof(path), "topology.json");
	if (access(path, F_OK) == 0)
		return topology_from_json(path, c);
	if (host_topology_sysfs("/sys", &t) < 0)
		return -1;
	topology_counts(&t, "host", c);
	host_topology_free(&t);
	return 0;
}
