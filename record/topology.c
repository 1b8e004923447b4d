/*
 * topology.c - reads /sys/devices/system/cpu and writes topology.json
 * (see topology.h). The LLC of a CPU is its highest-level data or unified
 * cache; its id is the cache's "id" file, or, on kernels without one, the
 * lowest CPU number sharing it.
 */
#include "topology.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/jsonw.h"

struct llc {
	int level;
	long id;
	unsigned long long size_bytes;
	char shared[256];
};

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

static long read_long(const char *path, long dflt)
{
	char buf[64];

	return read_line(path, buf, sizeof(buf)) == 0 ? strtol(buf, NULL, 10) : dflt;
}

/* "32768K" / "8M" -> bytes */
static unsigned long long parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	else if (*end == 'G')
		v <<= 30;
	return v;
}

/* Lowest cpu number of a cpulist ("0-3,8") */
static long first_cpu(const char *list)
{
	return strtol(list, NULL, 10);
}

static void find_llc(const char *cpu_dir, struct llc *out)
{
	char path[1024], type[32], buf[256];
	int i;

	memset(out, 0, sizeof(*out));
	out->level = -1;
	out->id = -1;
	for (i = 0; i < 16; i++) {
		int level;

		snprintf(path, sizeof(path), "%s/cache/index%d/type", cpu_dir, i);
		if (read_line(path, type, sizeof(type)) < 0)
			continue;
		if (!strcmp(type, "Instruction"))
			continue;
		snprintf(path, sizeof(path), "%s/cache/index%d/level", cpu_dir, i);
		level = (int)read_long(path, -1);
		if (level <= out->level)
			continue;
		out->level = level;
		snprintf(path, sizeof(path), "%s/cache/index%d/size", cpu_dir, i);
		out->size_bytes = read_line(path, buf, sizeof(buf)) == 0 ? parse_size(buf) : 0;
		snprintf(path, sizeof(path), "%s/cache/index%d/shared_cpu_list", cpu_dir, i);
		if (read_line(path, out->shared, sizeof(out->shared)) < 0)
			out->shared[0] = '\0';
		snprintf(path, sizeof(path), "%s/cache/index%d/id", cpu_dir, i);
		out->id = read_long(path, out->shared[0] ? first_cpu(out->shared) : -1);
	}
}

static long numa_node(const char *cpu_dir)
{
	struct dirent *e;
	DIR *d = opendir(cpu_dir);
	long node = -1;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9')
			node = strtol(e->d_name + 4, NULL, 10);
	closedir(d);
	return node;
}

/* Online cpus as a list of numbers from cpu/online ("0-3,6"). */
static int online_cpus(const char *sys_root, int **cpus, size_t *n)
{
	char path[512], buf[4096], *p;
	size_t cap = 64;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", sys_root);
	if (read_line(path, buf, sizeof(buf)) < 0)
		return scx_fail_errno("%s", path);
	*n = 0;
	*cpus = malloc(cap * sizeof(**cpus));
	for (p = buf; *cpus && *p;) {
		long a = strtol(p, &p, 10), b = a;

		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (; a <= b && a < 65536; a++) {
			if (*n == cap) {
				int *nc = realloc(*cpus, (cap *= 2) * sizeof(**cpus));

				if (!nc)
					break;
				*cpus = nc;
			}
			(*cpus)[(*n)++] = (int)a;
		}
		if (*p == ',')
			p++;
		else if (*p)
			break;
	}
	return *cpus ? 0 : scx_fail("out of memory");
}

static void cpu_json(struct jsonw *w, const char *sys_root, int cpu)
{
	char dir[512], path[1024], buf[256];
	struct llc llc;

	snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%d", sys_root, cpu);
	find_llc(dir, &llc);
	jsonw_obj_open(w);
	jsonw_kv_i64(w, "cpu", cpu);
	snprintf(path, sizeof(path), "%s/topology/core_id", dir);
	jsonw_kv_i64(w, "core", read_long(path, -1));
	snprintf(path, sizeof(path), "%s/topology/physical_package_id", dir);
	jsonw_kv_i64(w, "package", read_long(path, -1));
	jsonw_kv_i64(w, "llc", llc.id);
	jsonw_kv_i64(w, "llc_level", llc.level);
	jsonw_kv_u64(w, "llc_size", llc.size_bytes);
	jsonw_kv_str(w, "llc_cpus", llc.shared);
	jsonw_kv_i64(w, "node", numa_node(dir));
	snprintf(path, sizeof(path), "%s/topology/thread_siblings_list", dir);
	jsonw_kv_str(w, "siblings", read_line(path, buf, sizeof(buf)) == 0 ? buf : "");
	jsonw_obj_close(w);
}

int topology_write(FILE *out, const char *sys_root)
{
	struct jsonw w;
	int *cpus = NULL, rc;
	size_t n = 0, i;

	if (online_cpus(sys_root, &cpus, &n) < 0)
		return -1;
	jsonw_init(&w);
	jsonw_obj_open(&w);
	jsonw_kv_u64(&w, "version", 1);
	jsonw_key(&w, "cpus");
	jsonw_arr_open(&w);
	for (i = 0; i < n; i++)
		cpu_json(&w, sys_root, cpus[i]);
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_newline(&w);
	rc = jsonw_flush_to(&w, out, "topology.json");
	jsonw_free(&w);
	free(cpus);
	return rc;
}
