/*
 * topology_sysfs.c - the CPU topology of a sysfs tree (see host.h): each
 * online CPU's topology/ files, its nodeM link and its LLC, which is
 * cache/index3, else cache/index2, as scx_mitosis takes it. The LLC's id
 * is the cache's "id" file, or, on kernels without one, the lowest CPU
 * sharing it.
 */
#include "lib/host/host.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/* The first line of path without its newline; -1 when it cannot be read. */
static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* A decimal number file, dflt when absent or not a number. */
static long long read_num(const char *dir, const char *name, long long dflt)
{
	char path[PATH_MAX], buf[64], *end;
	long long v;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) || read_line(path, buf, sizeof(buf)) < 0)
		return dflt;
	v = strtoll(buf, &end, 10);
	return end == buf || *end ? dflt : v;
}

/* A string file, malloc'd ("" when absent). */
static char *read_str(const char *dir, const char *name)
{
	char path[PATH_MAX], buf[4096];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) || read_line(path, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	return strdup(buf);
}

/* "32768K" / "8M" -> bytes */
static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	else if (*end == 'G')
		v <<= 30;
	return v;
}

/* The CPU's LLC: index3, else index2 (a directory with a shared_cpu_list). */
static int read_llc(const char *cpu_dir, struct host_cpu *c)
{
	static const char *const idx[] = {"cache/index3", "cache/index2"};
	char dir[PATH_MAX], *size;
	size_t i;

	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
		if (snprintf(dir, sizeof(dir), "%s/%s", cpu_dir, idx[i]) >= (int)sizeof(dir))
			return scx_fail("%s: path too long", cpu_dir);
		if (!(c->llc_cpus = read_str(dir, "shared_cpu_list")))
			return scx_fail("out of memory");
		if (!c->llc_cpus[0]) {
			free(c->llc_cpus);
			c->llc_cpus = NULL;
			continue;
		}
		c->llc_level = (int)read_num(dir, "level", -1);
		if (!(size = read_str(dir, "size")))
			return scx_fail("out of memory");
		c->llc_size = parse_size(size);
		free(size);
		c->llc = read_num(dir, "id", host_cpulist_first(c->llc_cpus));
		return 0;
	}
	return (c->llc_cpus = strdup("")) ? 0 : scx_fail("out of memory");
}

static int node_of(const char *cpu_dir)
{
	DIR *d = opendir(cpu_dir);
	struct dirent *e;
	int node = -1;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9') {
			node = atoi(e->d_name + 4);
			break;
		}
	if (d)
		closedir(d);
	return node;
}

static int read_cpu(const char *sys_root, int cpu, struct host_cpu *c)
{
	char dir[PATH_MAX], topo[PATH_MAX];

	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->llc = -1;
	c->llc_level = -1;
	if (snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%d", sys_root, cpu) >= (int)sizeof(dir) ||
	    snprintf(topo, sizeof(topo), "%s/topology", dir) >= (int)sizeof(topo))
		return scx_fail("%s: path too long", sys_root);
	c->core = (int)read_num(topo, "core_id", -1);
	c->die = (int)read_num(topo, "die_id", -1);
	c->package = (int)read_num(topo, "physical_package_id", -1);
	c->node = node_of(dir);
	if (!(c->siblings = read_str(topo, "thread_siblings_list")))
		return scx_fail("out of memory");
	return read_llc(dir, c);
}

int host_topology_sysfs(const char *sys_root, struct host_topology *t)
{
	char path[PATH_MAX];
	int *cpus;
	size_t n, i;

	memset(t, 0, sizeof(*t));
	if (snprintf(path, sizeof(path), "%s/devices/system/cpu/online", sys_root) >= (int)sizeof(path))
		return scx_fail("%s: path too long", sys_root);
	if (host_cpulist_read(path, &cpus, &n) < 0)
		return -1;
	if (!n) {
		free(cpus);
		return scx_fail("%s: no online CPU", path);
	}
	if (!(t->cpus = calloc(n, sizeof(*t->cpus)))) {
		free(cpus);
		return scx_fail("out of memory (%zu CPUs)", n);
	}
	for (i = 0; i < n; i++) {
		t->n = i + 1;
		if (read_cpu(sys_root, cpus[i], &t->cpus[i]) < 0) {
			free(cpus);
			host_topology_free(t);
			return -1;
		}
	}
	free(cpus);
	snprintf(t->source, sizeof(t->source), "sysfs");
	return 0;
}
