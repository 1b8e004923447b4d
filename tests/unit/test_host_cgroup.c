/*
 * test_host_cgroup.c - unit tests of lib/host's cgroup walk and cpusets on
 * a fake cgroup2 tree under a temporary directory: the walk's order, paths
 * and early stop; which cgroups have a cpuset (cpuset.cpus set once
 * trimmed: missing, empty and whitespace-only are none; the root left out;
 * the CPUs are cpuset.cpus.effective's), sorted by path; a file that
 * exists but cannot be read or parsed is a warning naming it, not a
 * failure; and the cpusets written into topology.json and read back.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/host/host.h"
#include "lib/warnings.h"

/* dir/rel made (with its parents) */
static void make_dir(const char *dir, const char *rel)
{
	char path[4096], *p;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (p = path + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	cr_assert(mkdir(path, 0755) == 0 || access(path, F_OK) == 0, "%s", path);
}

/* dir/rel holding text */
static void put(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	cr_assert((f = fopen(path, "w")), "%s", path);
	fputs(text, f);
	fclose(f);
}

/* A cgroup rel with cpuset.cpus cpus (NULL: no file) and cpuset.cpus.effective eff (NULL: none). */
static void cgroup(const char *dir, const char *rel, const char *cpus, const char *eff)
{
	char file[4096];

	make_dir(dir, rel);
	if (cpus) {
		snprintf(file, sizeof(file), "%s/cpuset.cpus", rel);
		put(dir, file, cpus);
	}
	if (eff) {
		snprintf(file, sizeof(file), "%s/cpuset.cpus.effective", rel);
		put(dir, file, eff);
	}
}

struct seen {
	char rel[16][64];
	size_t n, stop_at;
};

static int note(const char *dir, const char *rel, void *ctx)
{
	struct seen *s = ctx;

	cr_assert(strstr(dir, rel[1] ? rel : "") != NULL, "%s is not the directory of %s", dir, rel);
	cr_assert(s->n < 16);
	snprintf(s->rel[s->n++], sizeof(s->rel[0]), "%s", rel);
	return s->n == s->stop_at ? 7 : 0;
}

static bool saw(const struct seen *s, const char *rel, size_t *at)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->rel[i], rel)) {
			*at = i;
			return true;
		}
	return false;
}

Test(host_cgroup, walk_visits_root_then_every_cgroup_parents_first)
{
	char dir[] = "/tmp/scxprof-cg.XXXXXX", root[4096];
	struct seen s = {0};
	size_t a, ab, b, r;

	cr_assert(mkdtemp(dir));
	make_dir(dir, "a/b");
	make_dir(dir, "c");
	make_dir(dir, ".hidden");
	put(dir, "a/cpuset.cpus", "0\n"); /* a file is not a cgroup */
	snprintf(root, sizeof(root), "%s/", dir); /* a trailing slash is the same root */
	cr_assert_eq(host_cgroup_walk(root, note, &s), 0);
	cr_assert_eq(s.n, 4, "%zu visited", s.n);
	cr_assert(saw(&s, "/", &r) && r == 0, "the root first, as \"/\"");
	cr_assert(saw(&s, "/a", &a) && saw(&s, "/a/b", &ab) && saw(&s, "/c", &b) && a < ab);
	s = (struct seen){.stop_at = 2};
	cr_assert_eq(host_cgroup_walk(dir, note, &s), 7, "the callback's non-zero return stops the walk");
	cr_assert_eq(s.n, 2);
	fs_remove_tree(dir);
}

Test(host_cgroup, cpusets_set_ones_sorted_root_left_out)
{
	char dir[] = "/tmp/scxprof-cg.XXXXXX";
	struct host_topology t = {0};
	struct warnings w = {0};

	cr_assert(mkdtemp(dir));
	put(dir, "cpuset.cpus", "0-3\n"); /* the root: never a cell's cpuset */
	put(dir, "cpuset.cpus.effective", "0-3\n");
	cgroup(dir, "workload.slice", NULL, "0-3\n");               /* no cpuset.cpus: none */
	cgroup(dir, "workload.slice/b.allotment", "2-3\n", "2-3\n");
	cgroup(dir, "workload.slice/a.allotment", "1\n", "1\n");
	cgroup(dir, "workload.slice/a.allotment/x", "", "1\n");     /* empty: none */
	cgroup(dir, "workload.slice/a.allotment/y", " \t\n", "1\n"); /* whitespace only: none */
	cgroup(dir, "workload.slice/a.allotment/z", " 0-1 \n", "0\n"); /* the effective CPUs, not cpuset.cpus */
	cgroup(dir, "system.slice", "\n", "0-3\n");
	cr_assert_eq(host_cgroup_cpusets(dir, &t, &w), 0, "%s", scx_errmsg());
	cr_assert_eq(w.nr, 0, "%s", w.line[0]);
	cr_assert_eq(t.nr_cpusets, 3, "%zu cpusets", t.nr_cpusets);
	cr_assert_str_eq(t.cpuset_path[0], "/workload.slice/a.allotment");
	cr_assert_str_eq(t.cpuset_cpus[0], "1");
	cr_assert_str_eq(t.cpuset_path[1], "/workload.slice/a.allotment/z");
	cr_assert_str_eq(t.cpuset_cpus[1], "0");
	cr_assert_str_eq(t.cpuset_path[2], "/workload.slice/b.allotment");
	cr_assert_str_eq(t.cpuset_cpus[2], "2-3");
	/* called again: the same, not twice as many */
	cr_assert_eq(host_cgroup_cpusets(dir, &t, &w), 0);
	cr_assert_eq(t.nr_cpusets, 3);
	host_topology_free(&t);
	fs_remove_tree(dir);
}

Test(host_cgroup, unreadable_or_malformed_files_are_warnings)
{
	char dir[] = "/tmp/scxprof-cg.XXXXXX";
	struct host_topology t = {0};
	struct warnings w = {0};
	char all[WARNINGS_MAX * WARNING_LEN] = "";

	cr_assert(mkdtemp(dir));
	cgroup(dir, "good", "1", "1\n");
	cgroup(dir, "bad-eff", "1\n", "1-x\n");
	cgroup(dir, "no-eff", "1\n", NULL);
	cgroup(dir, "empty-eff", "1\n", "\n");
	cgroup(dir, "nul", "1\n", NULL);
	{ /* a NUL byte */
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/nul/cpuset.cpus.effective", dir);
		f = fopen(path, "w");
		fwrite("1\0\n", 1, 3, f);
		fclose(f);
	}
	make_dir(dir, "unreadable");
	make_dir(dir, "unreadable/cpuset.cpus"); /* read(2) fails (EISDIR), for root too */
	cr_assert_eq(host_cgroup_cpusets(dir, &t, &w), 0, "%s", scx_errmsg());
	cr_assert_eq(t.nr_cpusets, 1);
	cr_assert_str_eq(t.cpuset_path[0], "/good");
	cr_assert_str_eq(t.cpuset_cpus[0], "1");
	for (size_t i = 0; i < w.nr; i++)
		strcat(strcat(all, w.line[i]), "\n");
	cr_assert_eq(w.nr, 5, "%s", all);
	cr_assert(strstr(all, "/bad-eff/cpuset.cpus.effective: not a CPU list: its cgroup's cpuset is left out"), "%s", all);
	cr_assert(strstr(all, "/no-eff/cpuset.cpus.effective: no such file"), "%s", all);
	cr_assert(strstr(all, "/empty-eff/cpuset.cpus.effective: empty"), "%s", all);
	cr_assert(strstr(all, "/nul/cpuset.cpus.effective: not a CPU list (a NUL byte)"), "%s", all);
	cr_assert(strstr(all, "/unreadable/cpuset.cpus: Is a directory"), "%s", all);
	cr_assert(strstr(all, dir), "each names the file: %s", all);
	host_topology_free(&t);
	/* no warnings list: the same cpusets, nothing else */
	cr_assert_eq(host_cgroup_cpusets(dir, &t, NULL), 0);
	cr_assert_eq(t.nr_cpusets, 1);
	host_topology_free(&t);
	fs_remove_tree(dir);
}

Test(host_cgroup, cpusets_through_topology_json)
{
	char dir[] = "/tmp/scxprof-cg.XXXXXX", path[4096], sys[4096], tree[4096];
	const char *top = getenv("TOP");
	struct host_topology t, back;
	char *text;
	size_t len;
	FILE *out;

	cr_assert(mkdtemp(dir));
	snprintf(sys, sizeof(sys), "%s%stests/fixtures/sysfs/spr", top ? top : "", top ? "/" : "");
	snprintf(tree, sizeof(tree), "%s/cg", dir);
	cgroup(tree, "w.slice/b", "8-15\n", "8-15\n");
	cgroup(tree, "w.slice/a", "0-3,5\n", "0-3,5\n");
	cr_assert_eq(host_topology_sysfs(sys, &t), 0, "%s", scx_errmsg());
	snprintf(path, sizeof(path), "%s/none.json", dir);
	out = fopen(path, "w");
	cr_assert_eq(host_topology_write_json(out, &t, "topology.json"), 0);
	fclose(out);
	cr_assert_eq(fs_read_file(path, 1 << 20, &text, &len), 0);
	cr_assert(!strstr(text, "cpusets"), "no cpuset: no \"cpusets\" key");
	free(text);
	cr_assert_eq(host_cgroup_cpusets(tree, &t, NULL), 0);
	snprintf(path, sizeof(path), "%s/topology.json", dir);
	out = fopen(path, "w");
	cr_assert_eq(host_topology_write_json(out, &t, "topology.json"), 0);
	fclose(out);
	cr_assert_eq(host_topology_read_json(path, &back), 0, "%s", scx_errmsg());
	cr_assert_eq(back.n, t.n);
	cr_assert_eq(back.nr_cpusets, 2);
	cr_assert_str_eq(back.cpuset_path[0], "/w.slice/a");
	cr_assert_str_eq(back.cpuset_cpus[0], "0-3,5");
	cr_assert_str_eq(back.cpuset_path[1], "/w.slice/b");
	cr_assert_str_eq(back.cpuset_cpus[1], "8-15");
	host_topology_free(&back);
	host_topology_free(&t);
	fs_remove_tree(dir);
}
