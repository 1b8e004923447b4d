/*
 * test_record_files.c - unit tests of what record writes besides samples:
 * topology.json from a fake sysfs tree, and the records synthesized from a
 * fake /proc tree (COMM, FORK, MMAP2 with data mappings, //anon names).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/perfdata.h"
#include "record/perfdata/perfdata.h"
#include "record/topology.h"

static void put_file(const char *root, const char *rel, const char *text)
{
	char path[1024], dir[1024], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

/* cpu N: core, package, L3 (with or without an id file), node */
static void fake_cpu(const char *root, int cpu, int core, const char *llc_cpus, const char *llc_id, int node)
{
	char rel[256], val[64];

	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/core_id", cpu);
	snprintf(val, sizeof(val), "%d\n", core);
	put_file(root, rel, val);
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
	put_file(root, rel, "0\n");
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
	snprintf(val, sizeof(val), "%d\n", cpu);
	put_file(root, rel, val);
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index0/type", cpu);
	put_file(root, rel, "Data\n");
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index0/level", cpu);
	put_file(root, rel, "1\n");
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index3/type", cpu);
	put_file(root, rel, "Unified\n");
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index3/level", cpu);
	put_file(root, rel, "3\n");
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index3/size", cpu);
	put_file(root, rel, "16384K\n");
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", cpu);
	snprintf(val, sizeof(val), "%s\n", llc_cpus);
	put_file(root, rel, val);
	if (llc_id) {
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index3/id", cpu);
		snprintf(val, sizeof(val), "%s\n", llc_id);
		put_file(root, rel, val);
	}
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/node%d/x", cpu, node);
	put_file(root, rel, "");
}

Test(topology, llc_ids_nodes_and_offline_cpus)
{
	char root[] = "/tmp/scxprof-sys.XXXXXX", *text = NULL;
	size_t len = 0;
	FILE *out;

	cr_assert(mkdtemp(root));
	put_file(root, "devices/system/cpu/online", "0-1,4\n");
	fake_cpu(root, 0, 0, "0-1", "7", 0);
	fake_cpu(root, 1, 1, "0-1", "7", 0);
	fake_cpu(root, 4, 0, "4-5", NULL, 1); /* no id file: lowest sharing cpu */
	out = open_memstream(&text, &len);
	cr_assert_eq(topology_write(out, root), 0, "%s", scx_errmsg());
	fclose(out);
	cr_assert(strstr(text, "{\"cpu\":0,\"core\":0,\"package\":0,\"llc\":7,\"llc_level\":3,\"llc_size\":16777216,"
			       "\"llc_cpus\":\"0-1\",\"node\":0,\"siblings\":\"0\"}"), "%s", text);
	cr_assert(strstr(text, "{\"cpu\":4,\"core\":0,\"package\":0,\"llc\":4,"), "%s", text);
	cr_assert(strstr(text, "\"node\":1"), "%s", text);
	cr_assert_null(strstr(text, "\"cpu\":2"), "offline cpus are left out");
	free(text);
	fs_remove_tree(root);
}

Test(synth, tasks_threads_and_maps_from_proc)
{
	char root[] = "/tmp/scxprof-proc.XXXXXX", path[1100];
	struct pd_writer w;
	struct pd_file f;
	struct pd_cursor c;
	const struct perf_event_header *h;
	struct synth_stats st = {0};
	struct perf_event_attr attr = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr), .sample_id_all = 1,
				       .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME};
	uint64_t id = 1;
	int comms = 0, forks = 0, mmaps = 0, anon = 0, data = 0;
	char names[256] = "";

	cr_assert(mkdtemp(root));
	put_file(root, "proc/42/task/42/status", "Name:\tleader proc\nTgid:\t42\n");
	put_file(root, "proc/42/task/43/status", "Name:\tworker\nTgid:\t42\n");
	put_file(root, "proc/42/maps",
		 "55d0a000-55d0b000 r-xp 00001000 08:01 1234 /usr/bin/app\n"
		 "55d0c000-55d0d000 rw-p 00003000 08:01 1234 /usr/bin/app\n"
		 "7f000000-7f100000 rw-p 00000000 00:00 0 \n");
	snprintf(path, sizeof(path), "%s/perf.data", root);
	cr_assert_eq(pd_writer_open(&w, path), 0);
	cr_assert_eq(pd_writer_add_attr(&w, &attr, &id, 1, "e"), 0);
	snprintf(path, sizeof(path), "%s/proc", root);
	cr_assert_eq(synth_tasks(&w, path, 16, &st), 0, "%s", scx_errmsg());
	cr_assert_eq(pd_writer_finish(&w), 0);
	cr_assert_eq(st.tasks, 1);
	cr_assert_eq(st.threads, 1);
	cr_assert_eq(st.mmaps, 3);
	snprintf(path, sizeof(path), "%s/perf.data", root);
	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	pd_cursor_init(&c, &f);
	while (pd_next(&c, &h) > 0) {
		struct pd_sample s;
		const char *body = (const char *)(h + 1);

		cr_assert_eq(pd_parse_sample_id(&f, h, &s), 0, "trailer of a synthesized record");
		cr_assert_eq(s.time, 0);
		if (h->type == PERF_RECORD_COMM) {
			comms++;
			strncat(names, body + 8, sizeof(names) - strlen(names) - 2);
			strcat(names, "|");
		} else if (h->type == PERF_RECORD_FORK) {
			forks++;
		} else if (h->type == PERF_RECORD_MMAP2) {
			mmaps++;
			anon += !strcmp(body + 64, "//anon");
			data += (h->misc & PERF_RECORD_MISC_MMAP_DATA) != 0;
		}
	}
	cr_assert_eq(comms, 2);
	cr_assert_eq(forks, 1, "the non-leader thread gets a FORK, as perf synthesizes");
	cr_assert_eq(mmaps, 3);
	cr_assert_eq(anon, 1, "an unnamed mapping is //anon");
	cr_assert_eq(data, 2, "non-executable mappings are data mappings");
	cr_assert_str_eq(names, "leader proc|worker|");
	pd_close(&f);
	fs_remove_tree(root);
}

/* A /proc/PID/maps line longer than SYNTH_MAPS_LINE_MAX fails naming the
 * file and line (getline read it whole, however long, and failed allocations
 * passed for the end of the file); a last line without a newline counts. */
Test(synth, maps_line_too_long)
{
	char root[] = "/tmp/scxprof-proc.XXXXXX", path[1100], want[1200];
	static char maps[SYNTH_MAPS_LINE_MAX + 200];
	struct pd_writer w;
	struct perf_event_attr attr = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr), .sample_id_all = 1,
				       .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME};
	uint64_t id = 1;
	struct synth_stats st = {0};
	int n;

	cr_assert(mkdtemp(root));
	put_file(root, "proc/42/task/42/status", "Name:\tleader\nTgid:\t42\n");
	n = snprintf(maps, sizeof(maps), "55d0a000-55d0b000 r-xp 00001000 08:01 1234 /usr/bin/app\n"
					 "55d0c000-55d0d000 rw-p 00003000 08:01 1234 /");
	memset(maps + n, 'a', sizeof(maps) - (size_t)n - 2);
	maps[sizeof(maps) - 2] = '\n';
	put_file(root, "proc/42/maps", maps);
	snprintf(path, sizeof(path), "%s/perf.data", root);
	cr_assert_eq(pd_writer_open(&w, path), 0);
	cr_assert_eq(pd_writer_add_attr(&w, &attr, &id, 1, "e"), 0);
	snprintf(path, sizeof(path), "%s/proc", root);
	cr_assert_eq(synth_tasks(&w, path, 16, &st), -1);
	snprintf(want, sizeof(want), "%s/42/maps:2: line longer than %d bytes", path, SYNTH_MAPS_LINE_MAX);
	cr_assert(strstr(scx_errmsg(), want), "%s", scx_errmsg());
	cr_assert_eq(st.mmaps, 1, "the line before it was read");
	pd_writer_finish(&w);

	put_file(root, "proc/42/maps", "55d0a000-55d0b000 r-xp 00001000 08:01 1234 /usr/bin/app\n"
					 "55d0c000-55d0d000 rw-p 00003000 08:01 1234 /usr/bin/app");
	snprintf(path, sizeof(path), "%s/perf2.data", root);
	cr_assert_eq(pd_writer_open(&w, path), 0);
	cr_assert_eq(pd_writer_add_attr(&w, &attr, &id, 1, "e"), 0);
	snprintf(path, sizeof(path), "%s/proc", root);
	memset(&st, 0, sizeof(st));
	cr_assert_eq(synth_tasks(&w, path, 16, &st), 0, "%s", scx_errmsg());
	cr_assert_eq(st.mmaps, 2);
	cr_assert_eq(pd_writer_finish(&w), 0);
	fs_remove_tree(root);
}
