/*
 * rec_topology.c - the recording's CPU topology for extract (see
 * rec_topology.h): which file holds it, and the counts the clustering
 * takes from it.
 */
#include "extract/rec_topology.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/perfdata.h"

void rec_topology_counts(const struct host_topology *t, const char *source, struct cpu_topology *c)
{
	memset(c, 0, sizeof(*c));
	c->online_cpus = (unsigned)t->n;
	c->largest_llc_cpus = host_topology_largest_llc(t); /* no LLC at all: one cache domain */
	snprintf(c->source, sizeof(c->source), "%s", source);
}

static int found(struct rec_topology *r, const char *source)
{
	r->found = true;
	snprintf(r->source, sizeof(r->source), "%s", source);
	return 0;
}

int rec_topology_load(const char *input_path, const char *topology, struct rec_topology *r)
{
	char path[PATH_MAX];
	const char *slash = input_path ? strrchr(input_path, '/') : NULL;
	int rc;

	memset(r, 0, sizeof(*r));
	if (topology && !strcmp(topology, REC_TOPOLOGY_HOST))
		return host_topology_live(&r->t, &r->warnings) < 0 ? -1 : found(r, "host");
	if (topology)
		return host_topology_read_json(topology, &r->t) < 0 ? -1 : found(r, topology);
	if (slash)
		snprintf(path, sizeof(path), "%.*s/topology.json", (int)(slash - input_path), input_path);
	else
		snprintf(path, sizeof(path), "topology.json");
	if (access(path, F_OK) == 0) { /* as extract's lines name it: the same text whichever directory holds it */
		if (host_topology_read_json(path, &r->t) < 0)
			return -1;
		/* process's, from a perf.data's headers: named as one pass on that perf.data names them */
		return found(r, !strcmp(r->t.source, "perf.data headers") ? r->t.source : "topology.json");
	}
	if (input_path && pd_is_perf_data(input_path)) {
		if ((rc = host_topology_perfdata_path(input_path, &r->t)) < 0)
			return -1;
		if (rc == 0)
			return found(r, "perf.data headers");
		/* no headers either: said as process + extract say it (one pass = two steps) */
	}
	snprintf(r->none, sizeof(r->none), "no %s", path); /* the path as the -v lines name topology.json */
	return 0;
}

void rec_topology_unload(struct rec_topology *r)
{
	host_topology_free(&r->t);
	r->found = false;
}
