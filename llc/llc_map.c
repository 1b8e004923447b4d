/*
 * llc_map.c - CPU -> LLC and node, and the cgroups' cpusets (see
 * llc_map.h): built from (cpu, llc id, node id) triples of a topology
 * lib/host read.
 */
#include "llc/llc_map.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extract/rec_topology.h"
#include "lib/error.h"
#include "lib/mempool.h"

struct triple {
	int64_t cpu, llc, node;
};

static int by_cpu(const void *a, const void *b)
{
	const struct triple *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* Index of id in ids[0..*n), appended when new. */
static int index_of(int64_t *ids, size_t *n, int64_t id)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (ids[i] == id)
			return (int)i;
	ids[*n] = id;
	return (int)(*n)++;
}

static int build(struct llc_map *m, struct triple *t, size_t n, const char *what)
{
	size_t i;

	qsort(t, n, sizeof(*t), by_cpu);
	for (i = 1; i < n; i++)
		if (t[i].cpu == t[i - 1].cpu)
			return scx_fail("%s: CPU %lld is listed twice", what, (long long)t[i].cpu);
	m->nr_cpus = n ? (size_t)t[n - 1].cpu + 1 : 0;
	m->llc_of = mempool_calloc(&m->mem, m->nr_cpus, sizeof(int));
	m->node_of = mempool_calloc(&m->mem, m->nr_cpus, sizeof(int));
	m->llc_cpus = mempool_calloc(&m->mem, n, sizeof(unsigned));
	m->llc_node = mempool_calloc(&m->mem, n, sizeof(int));
	m->llc_id = mempool_calloc(&m->mem, n, sizeof(int64_t));
	m->node_id = mempool_calloc(&m->mem, n, sizeof(int64_t));
	if (!m->llc_of || !m->node_of || !m->llc_cpus || !m->llc_node || !m->llc_id || !m->node_id)
		return scx_fail("out of memory (%zu CPUs)", n);
	for (i = 0; i < m->nr_cpus; i++)
		m->llc_of[i] = m->node_of[i] = -1;
	for (i = 0; i < n; i++) {
		int l = index_of(m->llc_id, &m->nr_llcs, t[i].llc), d = index_of(m->node_id, &m->nr_nodes, t[i].node);

		m->llc_of[t[i].cpu] = l;
		m->node_of[t[i].cpu] = d;
		if (!m->llc_cpus[l]++)
			m->llc_node[l] = d;
	}
	m->online = (unsigned)n;
	return 0;
}

int llc_map_from_topology(const struct host_topology *topo, const char *source, struct llc_map *m)
{
	struct triple *t;
	size_t i;
	int rc;

	memset(m, 0, sizeof(*m));
	if (!topo->n)
		return scx_fail("%s: no CPUs", source);
	if (!(t = calloc(topo->n, sizeof(*t))))
		return scx_fail("out of memory");
	for (i = 0; i < topo->n; i++) {
		t[i].cpu = topo->cpus[i].cpu;
		t[i].llc = topo->cpus[i].llc;
		t[i].node = topo->cpus[i].node;
	}
	rc = build(m, t, topo->n, source);
	free(t);
	if (rc == 0 && topo->nr_cpusets) {
		m->cpuset_path = mempool_calloc(&m->mem, topo->nr_cpusets, sizeof(char *));
		m->cpuset = mempool_calloc(&m->mem, topo->nr_cpusets, sizeof(int *));
		m->nr_cpuset = mempool_calloc(&m->mem, topo->nr_cpusets, sizeof(size_t));
		if (!m->cpuset_path || !m->cpuset || !m->nr_cpuset)
			rc = scx_fail("out of memory");
		else
			m->nr_cpusets = topo->nr_cpusets;
		for (i = 0; rc == 0 && i < topo->nr_cpusets; i++)
			if (!(m->cpuset_path[i] = mempool_strdup(&m->mem, topo->cpuset_path[i])) ||
			    host_cpulist_parse(topo->cpuset_cpus[i], &m->cpuset[i], &m->nr_cpuset[i]) < 0 ||
			    mempool_adopt(&m->mem, m->cpuset[i]) < 0)
				rc = scx_fail("out of memory");
	}
	snprintf(m->source, sizeof(m->source), "%s", source);
	m->llc_by_package = topo->n > 0;
	for (i = 0; i < topo->n; i++)
		if (topo->cpus[i].llc < 0 || topo->cpus[i].llc_level >= 0)
			m->llc_by_package = false;
	if (rc < 0)
		llc_map_free(m);
	return rc;
}

int llc_map_read(const char *path, struct llc_map *m, struct warnings *w)
{
	struct host_topology t;
	int rc;

	memset(m, 0, sizeof(*m));
	if ((path ? host_topology_read_json(path, &t) : host_topology_live(&t, w)) < 0)
		return -1;
	rc = llc_map_from_topology(&t, path ? path : "host", m);
	host_topology_free(&t);
	return rc;
}

void llc_map_free(struct llc_map *m)
{
	mempool_free(&m->mem);
	memset(m, 0, sizeof(*m));
}

const int *llc_map_cpuset(const struct llc_map *m, const char *cgroup, size_t *n)
{
	for (size_t i = 0; i < m->nr_cpusets; i++)
		if (!strcmp(m->cpuset_path[i], cgroup)) {
			*n = m->nr_cpuset[i];
			return m->cpuset[i];
		}
	*n = 0;
	return NULL;
}

int llc_map_llc(const struct llc_map *m, int64_t cpu)
{
	return cpu >= 0 && (uint64_t)cpu < m->nr_cpus ? m->llc_of[cpu] : -1;
}

int llc_map_node(const struct llc_map *m, int64_t cpu)
{
	return cpu >= 0 && (uint64_t)cpu < m->nr_cpus ? m->node_of[cpu] : -1;
}
