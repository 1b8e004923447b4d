/*
 * test_record_self.c - reading the recorder's own pids from metadata.json
 * (hostile input: types, ranges and sizes checked) and deciding which
 * samples are the recorder's.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "process/summary/summary.h"

static char path[64];

static void write_json(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/scxprof-self-%d.json", (int)getpid());
	f = fopen(path, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

static void cleanup(void)
{
	unlink(path);
}

TestSuite(record_self, .fini = cleanup);

Test(record_self, reads_pids_comm_and_command)
{
	struct record_self s;

	write_json("{\"tool\":\"scxprof\",\"recorder\":{\"pids\":[4242],\"comm\":\"scxprof\",\"command_pid\":4243}}");
	cr_assert_eq(record_self_read(path, &s), 0, "%s", scx_errmsg());
	cr_assert_eq(s.nr_pids, 1);
	cr_assert_eq(s.pids[0], 4242);
	cr_assert_str_eq(s.comm, "scxprof");
	cr_assert_eq(s.command_pid, 4243);
	cr_assert(record_self_owns(&s, 4242, "anything"), "the recorder's pid, whatever its thread's name");
	cr_assert(record_self_owns(&s, 4243, "scxprof"), "its command before exec");
	cr_assert_not(record_self_owns(&s, 4243, "memcached"), "its command after exec is the workload");
	cr_assert_not(record_self_owns(&s, 4244, "scxprof"), "another process of the same name");
}

Test(record_self, older_profiles_have_none)
{
	struct record_self s;

	write_json("{\"tool\":\"scxprof\",\"sched\":null}");
	cr_assert_eq(record_self_read(path, &s), 0);
	cr_assert_eq(s.nr_pids, 0);
	cr_assert_not(record_self_owns(&s, 1, ""));
	write_json("{\"recorder\":{\"pids\":[],\"comm\":\"x\",\"command_pid\":null}}");
	cr_assert_eq(record_self_read(path, &s), 0);
	cr_assert_eq(s.command_pid, 0);
	cr_assert_not(record_self_owns(&s, 0, "x"), "no command: pid 0 is nobody's");
}

Test(record_self, hostile_values_are_refused)
{
	static const char *bad[] = {
		"[1,2]",
		"{\"recorder\":7}",
		"{\"recorder\":{\"pids\":3,\"comm\":\"x\",\"command_pid\":null}}",
		"{\"recorder\":{\"pids\":[-1],\"comm\":\"x\",\"command_pid\":null}}",
		"{\"recorder\":{\"pids\":[0],\"comm\":\"x\",\"command_pid\":null}}",
		"{\"recorder\":{\"pids\":[4294967297],\"comm\":\"x\",\"command_pid\":null}}",
		"{\"recorder\":{\"pids\":[\"12\"],\"comm\":\"x\",\"command_pid\":null}}",
		"{\"recorder\":{\"pids\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17],\"comm\":\"x\",\"command_pid\":null}}",
		"{\"recorder\":{\"pids\":[1],\"comm\":\"a name far longer than a comm\",\"command_pid\":null}}",
		"{\"recorder\":{\"pids\":[1],\"comm\":5,\"command_pid\":null}}",
		"{\"recorder\":{\"pids\":[1],\"comm\":\"x\"}}",
		"{\"recorder\":{\"pids\":[1],\"comm\":\"x\",\"command_pid\":1.5}}",
		"{\"recorder\":{\"pids\":[1],\"comm\":\"x\",\"command_pid\":null}",
	};
	struct record_self s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_json(bad[i]);
		cr_assert_eq(record_self_read(path, &s), -1, "accepted %s", bad[i]);
		cr_assert(strstr(scx_errmsg(), path), "error names the file: %s", scx_errmsg());
		cr_assert_eq(s.nr_pids, 0, "nothing half-read");
	}
}
