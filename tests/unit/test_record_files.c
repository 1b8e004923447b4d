/*
 * test_record_files.c - unit tests of what record writes besides samples:
 * the records synthesized from a fake /proc tree (COMM, FORK, MMAP2 with
 * data mappings, //anon names). topology.json: test_host.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/perfdata.h"
#include "record/perfdata/record_perfdata.h"

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
