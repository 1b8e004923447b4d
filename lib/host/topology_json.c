/*
 * topology_json.c - topology.json written and read (see host.h and
 * schemas/topology.schema.json): record writes this machine's (with its
 * cgroups' cpusets, when any has one), process
 * one derived from a perf.data's headers, extract, report and place read
 * it. The reader takes what it needs ("cpu"), -1 or "" for the rest.
 */
#include "lib/host/host.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/error.h"
#include "lib/jsonw.h"

#define TOPOLOGY_MAX_BYTES (16u << 20)

int host_topology_write_json(FILE *out, const struct host_topology *t, const char *what)
{
	struct jsonw w;
	size_t i;
	int rc;

	jsonw_init(&w);
	jsonw_obj_open(&w);
	jsonw_kv_u64(&w, "version", 1);
	jsonw_kv_str(&w, "source", t->source);
	jsonw_key(&w, "cpus");
	jsonw_arr_open(&w);
	for (i = 0; i < t->n; i++) {
		const struct host_cpu *c = &t->cpus[i];

		jsonw_obj_open(&w);
		jsonw_kv_i64(&w, "cpu", c->cpu);
		jsonw_kv_i64(&w, "core", c->core);
		jsonw_kv_i64(&w, "die", c->die);
		jsonw_kv_i64(&w, "package", c->package);
		jsonw_kv_i64(&w, "llc", c->llc);
		jsonw_kv_i64(&w, "llc_level", c->llc_level);
		jsonw_kv_u64(&w, "llc_size", c->llc_size);
		jsonw_kv_str(&w, "llc_cpus", c->llc_cpus ? c->llc_cpus : "");
		jsonw_kv_i64(&w, "node", c->node);
		jsonw_kv_str(&w, "siblings", c->siblings ? c->siblings : "");
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	if (t->nr_cpusets) { /* none (no cgroup has a cpuset, or no cgroup2): no key */
		jsonw_key(&w, "cpusets");
		jsonw_obj_open(&w);
		for (i = 0; i < t->nr_cpusets; i++)
			jsonw_kv_str(&w, t->cpuset_path[i], t->cpuset_cpus[i]);
		jsonw_obj_close(&w);
	}
	jsonw_obj_close(&w);
	jsonw_newline(&w);
	rc = jsonw_flush_to(&w, out, what);
	jsonw_free(&w);
	return rc;
}

/* An integer member in [lo, hi], else dflt; -2 when present but not such an integer. */
static int64_t int_member(struct json_object *e, const char *name, int64_t lo, int64_t hi, int64_t dflt)
{
	struct json_object *x;
	int64_t v;

	if (!json_object_object_get_ex(e, name, &x))
		return dflt;
	if (!json_object_is_type(x, json_type_int))
		return -2;
	v = json_object_get_int64(x);
	return v < lo || v > hi ? -2 : v;
}

static char *str_member(struct json_object *e, const char *name)
{
	struct json_object *x;

	if (!json_object_object_get_ex(e, name, &x) || !json_object_is_type(x, json_type_string))
		return strdup("");
	return strdup(json_object_get_string(x));
}

static int read_cpu(struct json_object *e, struct host_cpu *c, const char *path, size_t i)
{
	static const char *const ints[] = {"cpu", "core", "die", "package", "node", "llc_level"};
	int *dst[] = {&c->cpu, &c->core, &c->die, &c->package, &c->node, &c->llc_level};
	int64_t v;
	size_t k;

	memset(c, 0, sizeof(*c));
	if (!json_object_is_type(e, json_type_object))
		return scx_fail("%s: cpus[%zu]: not an object", path, i);
	for (k = 0; k < sizeof(ints) / sizeof(ints[0]); k++) {
		v = int_member(e, ints[k], k ? -1 : 0, k ? INT32_MAX : HOST_MAX_CPU, k ? -1 : -2);
		if (v == -2)
			return scx_fail("%s: cpus[%zu]: \"%s\" is not %s", path, i, ints[k],
					k ? "an integer from -1" : "a CPU number from 0 to " "65535");
		*dst[k] = (int)v;
	}
	if ((c->llc = int_member(e, "llc", -1, INT64_MAX, -1)) == -2)
		return scx_fail("%s: cpus[%zu]: \"llc\" is not an integer from -1", path, i);
	if ((v = int_member(e, "llc_size", 0, INT64_MAX, 0)) == -2)
		return scx_fail("%s: cpus[%zu]: \"llc_size\" is not a byte count", path, i);
	c->llc_size = (uint64_t)v;
	if (!(c->llc_cpus = str_member(e, "llc_cpus")) || !(c->siblings = str_member(e, "siblings")))
		return scx_fail("out of memory");
	if (c->llc_cpus[0] && host_cpulist_count(c->llc_cpus) < 0)
		return scx_fail("%s: cpus[%zu]: \"llc_cpus\" is not a cpulist", path, i);
	return 0;
}

static int by_cpu(const void *a, const void *b)
{
	const struct host_cpu *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int read_cpus(struct json_object *cpus, const char *path, struct host_topology *t)
{
	size_t n = json_object_array_length(cpus), i;

	if (!n)
		return scx_fail("%s: no CPUs in \"cpus\"", path);
	if (!(t->cpus = calloc(n, sizeof(*t->cpus))))
		return scx_fail("%s: out of memory (%zu CPUs)", path, n);
	for (i = 0; i < n; i++) {
		t->n = i + 1;
		if (read_cpu(json_object_array_get_idx(cpus, i), &t->cpus[i], path, i) < 0)
			return -1;
	}
	qsort(t->cpus, n, sizeof(*t->cpus), by_cpu);
	for (i = 1; i < n; i++)
		if (t->cpus[i].cpu == t->cpus[i - 1].cpu)
			return scx_fail("%s: CPU %d is listed twice", path, t->cpus[i].cpu);
	return 0;
}

/* The optional "cpusets" object: {"/cgroup/path": "cpulist", ...}. */
static int read_cpusets(struct json_object *root, const char *path, struct host_topology *t)
{
	struct json_object *o;
	size_t n;

	if (!json_object_object_get_ex(root, "cpusets", &o))
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return scx_fail("%s: \"cpusets\" is not an object", path);
	n = (size_t)json_object_object_length(o);
	if (!(t->cpuset_path = calloc(n + 1, sizeof(char *))) || !(t->cpuset_cpus = calloc(n + 1, sizeof(char *))))
		return scx_fail("out of memory");
	json_object_object_foreach(o, key, val)
	{
		if (key[0] != '/' || !json_object_is_type(val, json_type_string) ||
		    host_cpulist_count(json_object_get_string(val)) <= 0)
			return scx_fail("%s: cpusets \"%s\": not a cgroup path and a cpulist", path, key);
		if (!(t->cpuset_path[t->nr_cpusets] = strdup(key)) ||
		    !(t->cpuset_cpus[t->nr_cpusets] = strdup(json_object_get_string(val))))
			return scx_fail("out of memory");
		t->nr_cpusets++;
	}
	return 0;
}

int host_topology_read_json(const char *path, struct host_topology *t)
{
	struct json_object *root, *cpus, *src;
	struct stat st;
	int rc;

	memset(t, 0, sizeof(*t));
	if (stat(path, &st) < 0)
		return scx_fail_errno("%s", path);
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > TOPOLOGY_MAX_BYTES) /* not /dev/zero, a FIFO... */
		return scx_fail("%s: not a regular file of at most %u MB", path, TOPOLOGY_MAX_BYTES >> 20);
	if (!(root = json_object_from_file(path)))
		return scx_fail("%s: cannot read or parse: %s", path, json_util_get_last_err());
	if (!json_object_object_get_ex(root, "cpus", &cpus) || !json_object_is_type(cpus, json_type_array))
		rc = scx_fail("%s: no \"cpus\" array", path);
	else
		rc = read_cpus(cpus, path, t);
	if (rc == 0)
		rc = read_cpusets(root, path, t);
	if (rc == 0) /* what the file says it was read from ("sysfs", "perf.data headers"), else its name */
		snprintf(t->source, sizeof(t->source), "%s",
			 json_object_object_get_ex(root, "source", &src) && json_object_is_type(src, json_type_string) &&
					 (!strcmp(json_object_get_string(src), "sysfs") ||
					  !strcmp(json_object_get_string(src), "perf.data headers"))
				 ? json_object_get_string(src)
				 : "topology.json");
	json_object_put(root);
	if (rc < 0)
		host_topology_free(t);
	return rc;
}
