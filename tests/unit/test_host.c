/*
 * test_host.c - unit tests of lib/host: the cpulist reader (malformed
 * inputs), the sysfs topology of every tests/fixtures/sysfs host (the LLC
 * is index3, else index2), a fake sysfs tree's ids, nodes and offline CPUs,
 * the perf.data header parser (the EPYC 9254 fixture of
 * tests/tools/gen_perf_topology.py, and sections cut or lying about their
 * counts), topology.json written and read back, and the atomic write (mode
 * under umask 022 and 077, no temporary left on failure, no overwrite).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/host/host.h"
#include "llc/llc_map.h"
#include "lib/perfdata.h"

static void fixture(char *out, size_t size, const char *rel)
{
	const char *top = getenv("TOP");

	snprintf(out, size, "%s%s%s", top ? top : "", top ? "/" : "", rel);
}

/* ---- cpulists ---- */

Test(host_cpulist, well_formed)
{
	int *cpus;
	size_t n;

	cr_assert_eq(host_cpulist_count("0-3,8,10-11\n"), 7);
	cr_assert_eq(host_cpulist_count(""), 0);
	cr_assert_eq(host_cpulist_count("\n"), 0);
	cr_assert_eq(host_cpulist_count("0-65535"), 65536);
	cr_assert_eq(host_cpulist_parse("0-1,4,6-7\n", &cpus, &n), 0);
	cr_assert_eq(n, 5);
	cr_assert(cpus[0] == 0 && cpus[1] == 1 && cpus[2] == 4 && cpus[3] == 6 && cpus[4] == 7);
	free(cpus);
	cr_assert_eq(host_cpulist_parse("", &cpus, &n), 0);
	cr_assert(n == 0 && !cpus);
	cr_assert(host_cpulist_has("0-5,24-29", 24) && host_cpulist_has("0-5,24-29", 5));
	cr_assert(!host_cpulist_has("0-5,24-29", 6) && !host_cpulist_has("0-5,24-29", 30));
	cr_assert_eq(host_cpulist_first("6-11,30-35"), 6);
	cr_assert_eq(host_cpulist_first(""), -1);
}

Test(host_cpulist, malformed)
{
	static const char *const bad[] = {"3-1", "x", "-1", " 1", "1 ", "0,", ",0", "0,,1", "0-", "-", "0--1",
					  "0-65536", "65536", "0-18446744073709551615", "99999999999999999999",
					  "+1", "0x1", "1-2-3", "0\n1", "0\n\n", "4,2", "0-3,2", "0-3,3", "1;2", "0:1"};
	int *cpus = (int *)1;
	size_t i, n = 9;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(host_cpulist_count(bad[i]), -1, "\"%s\" accepted", bad[i]);
		cr_assert_eq(host_cpulist_parse(bad[i], &cpus, &n), -1, "\"%s\" parsed", bad[i]);
		cr_assert(!cpus && n == 0);
		cr_assert(strstr(scx_errmsg(), "not a CPU list"), "%s", scx_errmsg());
		cr_assert(!host_cpulist_has(bad[i], 0) && host_cpulist_first(bad[i]) == -1);
	}
}

/* ---- sysfs ---- */

struct expect {
	const char *host;
	size_t ncpus;
	const char *llc_of;   /* LLC index by CPU (llc_map_from_topology's), one digit each, '-' not listed */
	int level;            /* of every CPU's LLC */
	unsigned largest;
	const char *cpu0_llc_cpus;
	int last_node, last_package;
};

/* Each host of tests/tools/gen_sysfs_cpu.py, worked out from its shape. */
static const struct expect hosts[] = {
	{"adl", 8, "00000000", 3, 8, "0-7", 0, 0},
	{"skl", 7, "0000000", 3, 8, "0-7", 0, 0}, /* cpu7 offline */
	{"spr", 8, "00110011", 3, 4, "0-1,4-5", 1, 1},
	{"zen4", 8, "00110011", 3, 4, "0-1,4-5", 0, 0},
	{"zen5", 8, "00001111", 3, 4, "0-3", 0, 0},
	{"neoverse-n1", 4, "0123", 2, 1, "0", 0, 0}, /* no index3: each core's L2 */
	{"neoverse-v1", 4, "0000", 3, 4, "0-3", 0, 0},
	{"neoverse-v2", 4, "0011", 3, 2, "0-1", 1, 1},
	{"vm", 2, "00", 3, 2, "0-1", 0, 0},
};

Test(host_sysfs, every_fixture_host)
{
	size_t h, i;

	for (h = 0; h < sizeof(hosts) / sizeof(hosts[0]); h++) {
		const struct expect *e = &hosts[h];
		struct host_topology t;
		char root[4096], rel[256], got[64] = "";
		struct llc_map m;

		snprintf(rel, sizeof(rel), "tests/fixtures/sysfs/%s", e->host);
		fixture(root, sizeof(root), rel);
		cr_assert_eq(host_topology_sysfs(root, &t), 0, "%s: %s", e->host, scx_errmsg());
		cr_assert_eq(t.n, e->ncpus, "%s: %zu CPUs", e->host, t.n);
		cr_assert_str_eq(t.source, "sysfs");
		cr_assert_eq(llc_map_from_topology(&t, t.source, &m), 0, "%s", scx_errmsg());
		for (i = 0; i < m.nr_cpus && i < sizeof(got) - 1; i++)
			got[i] = m.llc_of[i] < 0 ? '-' : (char)('0' + m.llc_of[i]);
		cr_assert_str_eq(got, e->llc_of, "%s: LLC by CPU %s", e->host, got);
		for (i = 0; i < t.n; i++)
			cr_assert_eq(t.cpus[i].llc_level, e->level, "%s: cpu%d's LLC level %d", e->host, t.cpus[i].cpu,
				     t.cpus[i].llc_level);
		cr_assert_eq(host_topology_largest_llc(&t), e->largest, "%s", e->host);
		cr_assert_str_eq(t.cpus[0].llc_cpus, e->cpu0_llc_cpus, "%s", e->host);
		cr_assert_eq(t.cpus[t.n - 1].node, e->last_node, "%s", e->host);
		cr_assert_eq(t.cpus[t.n - 1].package, e->last_package, "%s", e->host);
		llc_map_free(&m);
		host_topology_free(&t);
	}
}

Test(host_sysfs, ids_sizes_and_missing_tree)
{
	struct host_topology t;
	char root[4096];

	fixture(root, sizeof(root), "tests/fixtures/sysfs/zen4");
	cr_assert_eq(host_topology_sysfs(root, &t), 0);
	cr_assert_eq(t.cpus[6].llc, 1, "the cache's id file");
	cr_assert_eq(t.cpus[6].llc_size, 32768ull << 10);
	cr_assert_str_eq(t.cpus[6].siblings, "2,6");
	cr_assert_eq(t.cpus[6].core, 2);
	host_topology_free(&t);
	fixture(root, sizeof(root), "tests/fixtures/sysfs/vm");
	cr_assert_eq(host_topology_sysfs(root, &t), 0);
	cr_assert_eq(t.cpus[1].llc, 0, "no id file: the lowest CPU sharing the cache");
	host_topology_free(&t);
	fixture(root, sizeof(root), "tests/fixtures/sysfs/no-such-host");
	cr_assert_eq(host_topology_sysfs(root, &t), -1);
	cr_assert(strstr(scx_errmsg(), "no-such-host/devices/system/cpu/online"), "%s", scx_errmsg());
}

/* ---- perf.data headers ---- */

static void open_epyc(struct pd_file *f)
{
	char path[4096];

	fixture(path, sizeof(path), "tests/fixtures/topology/epyc9254-headers.data");
	cr_assert_eq(pd_open(f, path), 0, "%s", scx_errmsg());
}

static void sections_of(const struct pd_file *f, struct host_perf_sections *s)
{
	const void *d;
	uint64_t n;

	memset(s, 0, sizeof(*s));
	cr_assert_eq(pd_feature(f, PD_FEAT_NRCPUS, &d, &n), 0);
	s->nrcpus = d, s->nrcpus_size = n;
	cr_assert_eq(pd_feature(f, PD_FEAT_CPU_TOPOLOGY, &d, &n), 0);
	s->cpu_topology = d, s->cpu_topology_size = n;
	cr_assert_eq(pd_feature(f, PD_FEAT_NUMA_TOPOLOGY, &d, &n), 0);
	s->numa_topology = d, s->numa_topology_size = n;
	cr_assert_eq(pd_feature(f, PD_FEAT_CACHE, &d, &n), 0);
	s->cache = d, s->cache_size = n;
}

/* The EPYC 9254's numbering: LLC k holds CPUs 6k..6k+5 and 24+6k..24+6k+5. */
Test(host_perf, epyc9254_headers)
{
	struct pd_file f;
	struct host_topology t;
	struct llc_map m;
	size_t i;

	open_epyc(&f);
	cr_assert_eq(host_topology_perfdata(&f, &t), 0, "%s", scx_errmsg());
	cr_assert_str_eq(t.source, "perf.data headers");
	cr_assert_eq(t.n, 48);
	cr_assert_eq(llc_map_from_topology(&t, t.source, &m), 0, "%s", scx_errmsg());
	cr_assert_eq(m.nr_llcs, 4);
	cr_assert_eq(m.nr_cpus, 48);
	for (i = 0; i < 48; i++)
		cr_assert_eq(m.llc_of[i], (int)((i % 24) / 6), "cpu%zu in LLC %d", i, m.llc_of[i]);
	llc_map_free(&m);
	cr_assert_eq(host_topology_largest_llc(&t), 12);
	cr_assert_str_eq(t.cpus[30].llc_cpus, "6-11,30-35");
	cr_assert_eq(t.cpus[30].llc_level, 3);
	cr_assert_eq(t.cpus[30].llc_size, 32768ull << 10);
	cr_assert_str_eq(t.cpus[30].siblings, "6,30");
	cr_assert_eq(t.cpus[30].core, 16);
	cr_assert_eq(t.cpus[47].core, 13);
	cr_assert(t.cpus[47].package == 0 && t.cpus[47].die == 0 && t.cpus[47].node == 0);
	host_topology_free(&t);
	pd_close(&f);
}

/* Without CACHE: the CPUs and their ids, each package one LLC of unknown level; without CPU_TOPOLOGY too, no CPUs. */
Test(host_perf, missing_sections)
{
	struct pd_file f;
	struct host_perf_sections s, none = {0};
	struct host_topology t;

	open_epyc(&f);
	sections_of(&f, &s);
	s.cache = NULL;
	s.cache_size = 0;
	cr_assert_eq(host_topology_perf(&s, "x", &t), 0);
	cr_assert_eq(t.n, 48);
	cr_assert(t.cpus[5].llc == 0 && t.cpus[5].llc_level == -1, "llc %lld level %d",
		  (long long)t.cpus[5].llc, t.cpus[5].llc_level);
	cr_assert_str_eq(t.cpus[5].llc_cpus, "0-47", "the package's CPUs (core siblings)");
	cr_assert_eq(host_topology_largest_llc(&t), 48, "one package: one LLC of every CPU");
	host_topology_free(&t);
	s.cpu_topology = NULL;
	s.cpu_topology_size = 0;
	cr_assert_eq(host_topology_perf(&s, "x", &t), 1, "neither CPU_TOPOLOGY nor CACHE: no CPU list");
	cr_assert_eq(host_topology_perf(&none, "x", &t), 1, "no sections: no CPUs");
	cr_assert_eq(t.n, 0);
	pd_close(&f);
}

/* Copies of the sections, with one field overwritten, must fail naming the section. */
static void expect_bad(struct host_perf_sections *s, const char *section, const char *msg)
{
	struct host_topology t;

	cr_assert_eq(host_topology_perf(s, "F", &t), -1, "%s accepted", section);
	cr_assert(strstr(scx_errmsg(), section) && strstr(scx_errmsg(), msg), "%s", scx_errmsg());
	cr_assert_eq(t.n, 0);
}

Test(host_perf, hostile_sections)
{
	struct pd_file f;
	struct host_perf_sections s, b;
	uint8_t *cache, *topo, *numa;
	uint32_t v;
	uint64_t cut;

	open_epyc(&f);
	sections_of(&f, &s);
	cache = malloc(s.cache_size);
	topo = malloc(s.cpu_topology_size);
	numa = malloc(s.numa_topology_size);
	memcpy(cache, s.cache, s.cache_size);
	memcpy(topo, s.cpu_topology, s.cpu_topology_size);
	memcpy(numa, s.numa_topology, s.numa_topology_size);
	b = s;
	b.cache = cache;
	v = 2;
	memcpy(cache, &v, 4);
	expect_bad(&b, "F: CACHE", "version 2");
	v = 1;
	memcpy(cache, &v, 4);
	v = 100000;
	memcpy(cache + 4, &v, 4);
	expect_bad(&b, "F: CACHE", "100000 caches");
	memcpy(cache, s.cache, s.cache_size);
	v = 0x7fffffff; /* the first cache's type string: its length */
	memcpy(cache + 8 + 16, &v, 4);
	expect_bad(&b, "F: CACHE", "past the end");
	memcpy(cache, s.cache, s.cache_size);
	memset(cache + 8 + 16 + 4, 'x', 64); /* the type string without its NUL */
	expect_bad(&b, "F: CACHE", "without its NUL");
	memcpy(cache, s.cache, s.cache_size);
	for (cut = 0; cut < s.cache_size; cut += 7) { /* every truncation fails cleanly */
		b.cache_size = cut;
		if (cut)
			expect_bad(&b, "F: CACHE", "");
	}
	b = s;
	b.cpu_topology = topo;
	v = 0xffffffff;
	memcpy(topo, &v, 4);
	expect_bad(&b, "F: CPU_TOPOLOGY", "sibling lists");
	memcpy(topo, s.cpu_topology, s.cpu_topology_size);
	b.cpu_topology_size = s.cpu_topology_size - 48 * 4 - 8 - 200;
	expect_bad(&b, "F: CPU_TOPOLOGY", "");
	memcpy(topo + 8, "0-99999", 8); /* the first sibling list: not a CPU list */
	b.cpu_topology_size = s.cpu_topology_size;
	expect_bad(&b, "F: CPU_TOPOLOGY", "not a CPU list");
	b = s;
	b.numa_topology = numa;
	v = 5000;
	memcpy(numa, &v, 4);
	expect_bad(&b, "F: NUMA_TOPOLOGY", "5000 nodes");
	free(cache);
	free(topo);
	free(numa);
	pd_close(&f);
}

/* ---- topology.json ---- */

Test(host_json, written_and_read_back)
{
	char dir[] = "/tmp/scxprof-host.XXXXXX", path[4096], root[4096];
	struct host_topology t, back;
	FILE *out;
	size_t i;

	cr_assert(mkdtemp(dir));
	fixture(root, sizeof(root), "tests/fixtures/sysfs/spr");
	cr_assert_eq(host_topology_sysfs(root, &t), 0);
	snprintf(path, sizeof(path), "%s/topology.json", dir);
	out = fopen(path, "w");
	cr_assert_eq(host_topology_write_json(out, &t, "topology.json"), 0);
	fclose(out);
	cr_assert_eq(host_topology_read_json(path, &back), 0, "%s", scx_errmsg());
	cr_assert_eq(back.n, t.n);
	cr_assert_str_eq(back.source, "sysfs", "the file's \"source\"");
	for (i = 0; i < t.n; i++) {
		cr_assert(back.cpus[i].cpu == t.cpus[i].cpu && back.cpus[i].llc == t.cpus[i].llc &&
			  back.cpus[i].node == t.cpus[i].node && back.cpus[i].die == t.cpus[i].die &&
			  back.cpus[i].package == t.cpus[i].package && back.cpus[i].llc_size == t.cpus[i].llc_size);
		cr_assert_str_eq(back.cpus[i].llc_cpus, t.cpus[i].llc_cpus);
	}
	host_topology_free(&back);
	host_topology_free(&t);
	out = fopen(path, "w");
	fputs("{\"cpus\":[{\"cpu\":1},{\"cpu\":1}]}", out);
	fclose(out);
	cr_assert_eq(host_topology_read_json(path, &back), -1);
	cr_assert(strstr(scx_errmsg(), "CPU 1 is listed twice"), "%s", scx_errmsg());
	out = fopen(path, "w");
	fputs("{\"cpus\":[{\"cpu\":0,\"llc_cpus\":\"0-\"}]}", out);
	fclose(out);
	cr_assert_eq(host_topology_read_json(path, &back), -1);
	cr_assert(strstr(scx_errmsg(), "\"llc_cpus\" is not a cpulist"), "%s", scx_errmsg());
	out = fopen(path, "w");
	fputs("{\"cpus\":[{\"llc\":0}]}", out);
	fclose(out);
	cr_assert_eq(host_topology_read_json(path, &back), -1);
	cr_assert(strstr(scx_errmsg(), "\"cpu\" is not a CPU number"), "%s", scx_errmsg());
	fs_remove_tree(dir);
}

/* ---- atomic write ---- */

static int write_hello(FILE *f, void *ctx)
{
	(void)ctx;
	fputs("hello\n", f);
	return 0;
}

static int write_fails(FILE *f, void *ctx)
{
	(void)ctx;
	fputs("part", f);
	return scx_fail("planted failure");
}

/* Entries of dir other than . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

Test(host_write, mode_from_umask_no_temp_no_overwrite)
{
	char dir[] = "/tmp/scxprof-host.XXXXXX", path[4096], buf[16] = "";
	struct stat st;
	mode_t old;
	FILE *f;

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.json", dir);
	old = umask(022);
	cr_assert_eq(host_write_file(path, write_hello, NULL), 0, "%s", scx_errmsg());
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0644, "mode %o", st.st_mode & 0777);
	f = fopen(path, "r");
	cr_assert(fgets(buf, sizeof(buf), f));
	fclose(f);
	cr_assert_str_eq(buf, "hello\n");
	snprintf(path, sizeof(path), "%s/b.json", dir);
	umask(077);
	cr_assert_eq(host_write_file(path, write_hello, NULL), 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600, "mode %o", st.st_mode & 0777);
	umask(old);
	cr_assert_eq(host_write_file(path, write_hello, NULL), -1, "an existing file is not replaced");
	cr_assert(strstr(scx_errmsg(), "b.json: already exists, not overwritten"), "%s", scx_errmsg());
	snprintf(path, sizeof(path), "%s/c.json", dir);
	cr_assert_eq(host_write_file(path, write_fails, NULL), -1);
	cr_assert_str_eq(scx_errmsg(), "planted failure");
	cr_assert_eq(access(path, F_OK), -1, "nothing at the name after a failed write");
	cr_assert_eq(entries(dir), 2, "a.json and b.json only: no temporary left (%d entries)", entries(dir));
	snprintf(path, sizeof(path), "%s/no-such-dir/d.json", dir);
	cr_assert_eq(host_write_file(path, write_hello, NULL), -1);
	cr_assert(strstr(scx_errmsg(), "no-such-dir/d.json"), "%s", scx_errmsg());
	fs_remove_tree(dir);
}
