/*
 * test_fuzz_regressions.c - inputs the libFuzzer targets (fuzz/) found to
 * break a parser's invariants, each reduced to what broke it, with the fixed
 * behaviour asserted. The full crashing inputs are in fuzz/corpus/<target>/
 * (named regress-*), so the fuzzers start from them too.
 */
#include "lib/error.h"
#include "process/sched_script.h"
#include "process/script_text.h"

#include <criterion/criterion.h>
#include <string.h>

/* fuzz_sched_script: a NUL inside the event name passed the "SYSTEM:" check
 * (memchr over the bytes) but the name stored was cut at the NUL ("sch"). */
Test(fuzz_regressions, sched_script_nul_in_event)
{
	static const char line[] = "app 77/78 [001] 100.0004: sch\0ed:sched_migrate_task: comm=app pid=39";
	struct sched_script_line l;

	cr_assert_eq(sched_script_parse_line(line, sizeof(line) - 1, &l), -1, "accepted, event \"%s\"", l.event);
	cr_assert_str_eq(scx_errmsg(), "NUL byte in the line");
}

/* The same for memory samples: a NUL in the comm would cut it short. */
Test(fuzz_regressions, mem_script_nul_in_comm)
{
	static const char line[] = "ap\0p 10/11 1.000000001: 7f00 5600 main (/bin/app) 1000 4K";
	struct script_mem_sample s;

	cr_assert_eq(script_parse_mem_line(line, sizeof(line) - 1, &s), -1, "accepted, comm \"%s\"", s.comm);
	cr_assert_str_eq(scx_errmsg(), "NUL byte in the line");
}
