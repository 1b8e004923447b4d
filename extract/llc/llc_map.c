/*
 * llc_map.c - CPU -> LLC and node (see llc_map.h): built from (cpu, llc
 * id, node id) triples read from topology.json or sysfs.
 */
#include "extract/llc/llc_map.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extract/llc/topology.h"
#include "lib/error.h"

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
	m->llc_of = malloc((m->nr_cpus ? m->nr_cpus : 1) * sizeof(int));
	m->node_of = malloc((m->nr_cpus ? m->nr_cpus : 1) * sizeof(int));
	m->llc_cpus = calloc(n ? n : 1, sizeof(unsigned));
	m->llc_node = calloc(n ? n : 1, sizeof(int));
	m->llc_id = calloc(n ? n : 1, sizeof(int64_t));
	m->node_id = calloc(n ? n : 1, sizeof(int64_t));
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

int llc_map_from_json(const char *path, struct llc_map *m)
{
	struct topology topo;
	struct triple *t;
	size_t i;
	int rc = -1;

	memset(m, 0, sizeof(*m));
	if (topology_read(path, &topo) < 0)
		return -1;
	if (!topo.n) {
		scx_fail("%s: no CPUs in \"cpus\"", path);
		goto out_topo;
	}
	if (!(t = calloc(topo.n, sizeof(*t)))) {
		scx_fail("out of memory");
		goto out_topo;
	}
	for (i = 0; i < topo.n; i++) {
		const struct topology_cpu *c = &topo.cpus[i];

		if (!c->has_cpu || c->cpu < 0 || c->cpu > (int64_t)CPULIST_MAX_CPU) {
			scx_fail("%s: cpus[%zu]: \"cpu\" is not a CPU number from 0 to %lu", path, i, CPULIST_MAX_CPU);
			goto out;
		}
		t[i].cpu = c->cpu;
		t[i].llc = c->has_llc ? c->llc : -1;
		t[i].node = c->has_node ? c->node : -1;
	}
	rc = build(m, t, topo.n, path);
	snprintf(m->source, sizeof(m->source), "%s", path);
out:
	free(t);
out_topo:
	topology_free(&topo);
	if (rc < 0)
		llc_map_free(m);
	return rc;
}

/* The lowest CPU of a cpulist file; -1 when missing or malformed. */
static int64_t first_cpu_of(const char *path)
{
	char buf[64];
	FILE *f = fopen(path, "r");
	int64_t v = -1;

	if (f && fgets(buf, sizeof(buf), f) && buf[0] >= '0' && buf[0] <= '9')
		v = strtoll(buf, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static int64_t node_of_host_cpu(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int64_t node = -1;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9') {
			node = strtoll(e->d_name + 4, NULL, 10);
			break;
		}
	if (d)
		closedir(d);
	return node;
}

int llc_map_from_host(const char *sysfs_cpu, struct llc_map *m)
{
	DIR *d = opendir(sysfs_cpu);
	struct dirent *e;
	struct triple *t = NULL;
	size_t n = 0, cap = 0;
	int rc;

	memset(m, 0, sizeof(*m));
	while (d && (e = readdir(d))) {
		char path[PATH_MAX];
		int64_t online;

		if (strncmp(e->d_name, "cpu", 3) || e->d_name[3] < '0' || e->d_name[3] > '9' ||
		    strtoll(e->d_name + 3, NULL, 10) > (long long)CPULIST_MAX_CPU)
			continue;
		snprintf(path, sizeof(path), "%s/%s/online", sysfs_cpu, e->d_name);
		online = first_cpu_of(path); /* "1" or "0"; absent (cpu0) means online */
		if (online == 0)
			continue;
		if (n == cap) {
			struct triple *nt = realloc(t, (cap = cap ? 2 * cap : 64) * sizeof(*t));

			if (!nt) {
				free(t);
				closedir(d);
				return scx_fail("out of memory");
			}
			t = nt;
		}
		t[n].cpu = strtoll(e->d_name + 3, NULL, 10);
		snprintf(path, sizeof(path), "%s/%s/cache/index3/shared_cpu_list", sysfs_cpu, e->d_name);
		t[n].llc = first_cpu_of(path); /* no L3: -1 for every CPU, one cache domain */
		snprintf(path, sizeof(path), "%s/%s", sysfs_cpu, e->d_name);
		t[n].node = node_of_host_cpu(path);
		n++;
	}
	if (d)
		closedir(d);
	rc = build(m, t, n, sysfs_cpu);
	free(t);
	snprintf(m->source, sizeof(m->source), "host");
	if (rc < 0)
		llc_map_free(m);
	return rc;
}

int llc_map_for_input(const char *input_path, const char *topology, struct llc_map *m)
{
	char path[PATH_MAX];
	const char *slash = input_path ? strrchr(input_path, '/') : NULL;

	if (topology)
		return llc_map_from_json(topology, m);
	if (slash)
		snprintf(path, sizeof(path), "%.*s/topology.json", (int)(slash - input_path), input_path);
	else
		snprintf(path, sizeof(path), "topology.json");
	if (access(path, F_OK) == 0) {
		int rc = llc_map_from_json(path, m);

		if (rc == 0) /* as extract's CPU demand line names it: the same text whichever directory holds the input */
			snprintf(m->source, sizeof(m->source), "topology.json");
		return rc;
	}
	return llc_map_from_host("/sys/devices/system/cpu", m);
}

void llc_map_free(struct llc_map *m)
{
	free(m->llc_of);
	free(m->node_of);
	free(m->llc_cpus);
	free(m->llc_node);
	free(m->llc_id);
	free(m->node_id);
	memset(m, 0, sizeof(*m));
}

int llc_map_llc(const struct llc_map *m, int64_t cpu)
{
	return cpu >= 0 && (uint64_t)cpu < m->nr_cpus ? m->llc_of[cpu] : -1;
}

int llc_map_node(const struct llc_map *m, int64_t cpu)
{
	return cpu >= 0 && (uint64_t)cpu < m->nr_cpus ? m->node_of[cpu] : -1;
}
