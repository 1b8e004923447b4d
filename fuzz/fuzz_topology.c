/*
 * fuzz_topology.c - libFuzzer target for the topology.json reader
 * (lib/host/topology_json.c, through extract/rec_topology.c as extract
 * mem takes --topology FILE: rec_topology_load(), then
 * rec_topology_counts()) and the cpulist reader (lib/host/cpulist.c).
 * With the first byte odd, the rest is one cpulist string; else it is a
 * topology.json file.
 *
 * Invariants, besides no crash (UBSan: no overflow while counting):
 *  - host_cpulist_count(): -1, or at least one CPU per comma-separated
 *    entry, and host_cpulist_parse() gives as many CPUs, ascending, each
 *    one host_cpulist_has();
 *  - rec_topology_load(): success means a topology found, its source the
 *    file's path, and its counts online_cpus = entries of "cpus" (at least
 *    1), largest_llc_cpus >= 1 with that source; a failure names the file
 *    and finds nothing.
 * Seeds: fuzz/corpus/topology/.
 */
#include "extract/rec_topology.h"
#include "fuzz/fuzz_util.h"
#include "lib/error.h"

#include <json-c/json.h>

static struct fuzz_file in_file;

/* Entries of a cpulist as the parser sees it: up to the first '\n' or NUL. */
static long entries(const char *s)
{
	long n = 1;

	for (; *s && *s != '\n'; s++)
		n += *s == ',';
	return n;
}

static void check_cpulist(const char *s)
{
	long n = host_cpulist_count(s);
	int *cpus;
	size_t nc, i;

	FUZZ_CHECK(n >= -1, "count %ld", n);
	if (n >= 0 && *s && *s != '\n')
		FUZZ_CHECK(n >= entries(s), "\"%s\": %ld CPUs in %ld entries", s, n, entries(s));
	FUZZ_CHECK((host_cpulist_parse(s, &cpus, &nc) == 0) == (n >= 0), "\"%s\": parse and count disagree", s);
	if (n < 0)
		return;
	FUZZ_CHECK(nc == (size_t)n, "\"%s\": %zu CPUs parsed, %ld counted", s, nc, n);
	for (i = 0; i < nc; i++) {
		FUZZ_CHECK(!i || cpus[i] > cpus[i - 1], "\"%s\": not ascending", s);
		FUZZ_CHECK(host_cpulist_has(s, cpus[i]), "\"%s\": %d parsed, not had", s, cpus[i]);
	}
	FUZZ_CHECK(host_cpulist_first(s) == (nc ? cpus[0] : -1), "\"%s\": first", s);
	free(cpus);
}

static void check_json(const uint8_t *data, size_t size)
{
	struct rec_topology r;
	struct cpu_topology t;
	struct json_object *root, *cpus;

	fuzz_file_set(&in_file, data, size);
	scx_clear_error();
	if (rec_topology_load(NULL, in_file.path, &r) < 0) {
		FUZZ_CHECK(!strncmp(scx_errmsg(), in_file.path, strlen(in_file.path)), "message \"%s\"", scx_errmsg());
		FUZZ_CHECK(!r.found && !r.t.n && !r.t.cpus, "a failure kept a topology");
		return;
	}
	FUZZ_CHECK(r.found && !strcmp(r.source, in_file.path), "found %d, source \"%s\"", r.found, r.source);
	rec_topology_counts(&r.t, r.source, &t);
	rec_topology_unload(&r);
	root = json_tokener_parse((const char *)data); /* data ends with a NUL (below) */
	FUZZ_CHECK(root && json_object_object_get_ex(root, "cpus", &cpus) &&
			   json_object_is_type(cpus, json_type_array),
		   "accepted without a \"cpus\" array");
	FUZZ_CHECK(t.online_cpus >= 1 && t.online_cpus == json_object_array_length(cpus),
		   "online_cpus %u, %zu entries", t.online_cpus, json_object_array_length(cpus));
	FUZZ_CHECK(t.largest_llc_cpus >= 1, "largest_llc_cpus 0");
	FUZZ_CHECK(!strcmp(t.source, in_file.path), "source \"%s\"", t.source);
	json_object_put(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1)
		return 0;
	s = malloc(size); /* the rest, NUL-terminated */
	if (!s)
		abort();
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (data[0] & 1)
		check_cpulist(s);
	else
		check_json((const uint8_t *)s, strlen(s));
	free(s);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init(&in_file, "topology.json");
	return 0;
}
