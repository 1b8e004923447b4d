/*
 * topology.c - topology.json and CPU counts (see topology.h): a cpulist
 * parser, the json-c reader of topology.json and a sysfs walk.
 */
#include "extract/llc/topology.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"

/* A CPU number: digits only (strtoul would take a sign, spaces and
 * numbers that wrap the count), at most CPULIST_MAX_CPU. */
static const char *cpu_number(const char *s, unsigned long *v)
{
	unsigned long x = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		x = x * 10 + (unsigned long)(*p - '0');
		if (x > CPULIST_MAX_CPU)
			return NULL;
	}
	*v = x;
	return p == s ? NULL : p;
}

long topology_cpulist_count(const char *s)
{
	long n = 0;

	while (*s && *s != '\n') {
		unsigned long a, b;

		if (!(s = cpu_number(s, &a)))
			return -1;
		b = a;
		if (*s == '-') {
			if (!(s = cpu_number(s + 1, &b)) || b < a)
				return -1;
		}
		n += (long)(b - a + 1);
		if (*s == ',' && s[1] && s[1] != '\n')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return n;
}

#define TOPOLOGY_MAX_BYTES (16u << 20)

/* An integer member of an entry: json-c's int64 of its value. */
static bool int_member(struct json_object *e, const char *name, int64_t *v)
{
	struct json_object *x;

	if (!json_object_object_get_ex(e, name, &x))
		return false;
	*v = json_object_get_int64(x);
	return true;
}

static void read_cpu(struct json_object *e, struct topology_cpu *c)
{
	struct json_object *v;

	c->has_cpu = int_member(e, "cpu", &c->cpu);
	c->has_llc = int_member(e, "llc", &c->llc);
	c->has_node = int_member(e, "node", &c->node);
	c->llc_cpus = -1;
	if (json_object_object_get_ex(e, "llc_cpus", &v) && json_object_is_type(v, json_type_string))
		c->llc_cpus = topology_cpulist_count(json_object_get_string(v));
}

int topology_read(const char *path, struct topology *t)
{
	struct json_object *root, *cpus;
	struct stat st;
	size_t i;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	if (stat(path, &st) < 0)
		return scx_fail_errno("%s", path);
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > TOPOLOGY_MAX_BYTES) /* not /dev/zero, a FIFO... */
		return scx_fail("%s: not a regular file of at most %u MB", path, TOPOLOGY_MAX_BYTES >> 20);
	root = json_object_from_file(path);
	if (!root)
		return scx_fail("%s: cannot read or parse: %s", path, json_util_get_last_err());
	if (!json_object_object_get_ex(root, "cpus", &cpus) || !json_object_is_type(cpus, json_type_array)) {
		rc = scx_fail("%s: no \"cpus\" array", path);
		goto out;
	}
	t->n = json_object_array_length(cpus);
	if (t->n && !(t->cpus = calloc(t->n, sizeof(*t->cpus)))) {
		rc = scx_fail("%s: out of memory (%zu CPUs)", path, t->n);
		t->n = 0;
		goto out;
	}
	for (i = 0; i < t->n; i++)
		read_cpu(json_object_array_get_idx(cpus, i), &t->cpus[i]);
out:
	json_object_put(root);
	return rc;
}

void topology_free(struct topology *t)
{
	free(t->cpus);
	memset(t, 0, sizeof(*t));
}

int topology_from_json(const char *path, struct cpu_topology *t)
{
	struct topology topo;
	size_t i;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	if (topology_read(path, &topo) < 0)
		return -1;
	if (!topo.n) {
		rc = scx_fail("%s: no \"cpus\" array", path);
		goto out;
	}
	for (i = 0; i < topo.n; i++) {
		long c = topo.cpus[i].llc_cpus;

		if (c < 0) {
			rc = scx_fail("%s: cpus[%zu]: \"llc_cpus\" is not a cpulist", path, i);
			goto out;
		}
		if ((unsigned long)c > t->largest_llc_cpus)
			t->largest_llc_cpus = (unsigned)c;
	}
	t->online_cpus = (unsigned)topo.n;
	if (!t->largest_llc_cpus) /* sysfs had no LLC: one cache domain */
		t->largest_llc_cpus = t->online_cpus;
	snprintf(t->source, sizeof(t->source), "topology.json");
out:
	topology_free(&topo);
	return rc;
}

static long read_cpulist_file(const char *path)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	long n = -1;

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		n = topology_cpulist_count(buf);
	fclose(f);
	return n;
}

int topology_from_host(const char *sysfs_cpu, struct cpu_topology *t)
{
	DIR *d = opendir(sysfs_cpu);
	struct dirent *e;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	memset(t, 0, sizeof(*t));
	t->online_cpus = online > 0 ? (unsigned)online : 1;
	while (d && (e = readdir(d))) {
		char path[PATH_MAX];
		long n;

		if (strncmp(e->d_name, "cpu", 3) || e->d_name[3] < '0' || e->d_name[3] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/cache/index3/shared_cpu_list", sysfs_cpu, e->d_name);
		n = read_cpulist_file(path);
		if (n > 0 && (unsigned long)n > t->largest_llc_cpus)
			t->largest_llc_cpus = (unsigned)n;
	}
	if (d)
		closedir(d);
	if (!t->largest_llc_cpus)
		t->largest_llc_cpus = t->online_cpus; /* no L3 reported: one cache domain */
	snprintf(t->source, sizeof(t->source), "host");
	return 0;
}

int topology_for_input(const char *input_path, struct cpu_topology *t)
{
	char path[PATH_MAX];
	const char *slash = strrchr(input_path, '/');

	if (slash)
		snprintf(path, sizeof(path), "%.*s/topology.json", (int)(slash - input_path), input_path);
	else
		snprintf(path, sizeof(path), "topology.json");
	if (access(path, F_OK) == 0)
		return topology_from_json(path, t);
	return topology_from_host("/sys/devices/system/cpu", t);
}
