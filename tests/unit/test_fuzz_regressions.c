/*
 * test_fuzz_regressions.c - inputs the libFuzzer targets (fuzz/) found to
 * break a parser's invariants, each reduced to what broke it, with the fixed
 * behaviour asserted. The full crashing inputs are in fuzz/corpus/<target>/
 * (named regress-*), so the fuzzers start from them too.
 */
#include "lib/host/host.h"
#include "lib/error.h"
#include "lib/perfdata.h"
#include "process/hints.h"
#include "process/sched/sched_script.h"
#include "process/mem/script_text.h"
#include "process/sym/symbols.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

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

	cr_assert_eq(script_text_parse_mem_line(line, sizeof(line) - 1, &s), -1, "accepted, comm \"%s\"", s.comm);
	cr_assert_str_eq(scx_errmsg(), "NUL byte in the line");
}

/* fuzz_hints: a hints.jsonl without a line sorted a NULL array (qsort's
 * pointer must not be NULL, even for 0 elements: UBSan under make asan). */
Test(fuzz_regressions, hints_without_lines)
{
	char path[] = "/tmp/scxprof-fz.XXXXXX";
	static const char *const inputs[] = {"", "\n", "  \t\n\n"};
	struct hints_index *h;
	struct hints_stats st;
	size_t i;

	for (i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		int fd = mkstemp(path);

		cr_assert_geq(fd, 0);
		cr_assert_eq(write(fd, inputs[i], strlen(inputs[i])), (ssize_t)strlen(inputs[i]));
		close(fd);
		cr_assert_eq(hints_load(&h, path, NULL), 0, "%s", scx_errmsg());
		hints_get_stats(h, &st);
		cr_assert_eq(st.updates, 0);
		cr_assert_eq(hints_lookup(h, 1, 5), 0);
		hints_free(h);
		unlink(path);
		memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	}
}

/* fuzz_topology: strtoul took "-1", " 1" and numbers whose range wrapped the
 * count ("0-18446744073709551615" counted 0 CPUs); a trailing comma counted
 * an entry of no CPU. */
Test(fuzz_regressions, cpulist_numbers_are_bounded)
{
	cr_assert_eq(host_cpulist_count("0-18446744073709551615"), -1);
	cr_assert_eq(host_cpulist_count("0-9223372036854775807"), -1);
	cr_assert_eq(host_cpulist_count("-1"), -1);
	cr_assert_eq(host_cpulist_count(" 1"), -1);
	cr_assert_eq(host_cpulist_count("0,"), -1);
	cr_assert_eq(host_cpulist_count("0-65536"), -1);
	cr_assert_eq(host_cpulist_count("0-65535"), 65536);
	cr_assert_eq(host_cpulist_count("0-3,8,10-11\n"), 7);
	cr_assert_eq(host_cpulist_count(""), 0);
}

/* fuzz_perfdata: a feature section of size 0 with an offset far past the
 * file passed the checks (an empty section's offset is not checked), and
 * pd_feature() then computed map + offset, a pointer overflow (UBSan). */
Test(fuzz_regressions, perfdata_empty_feature_far_offset)
{
	char path[] = "/tmp/scxprof-fz.XXXXXX";
	struct perf_event_attr attr = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr), .sample_type = PERF_SAMPLE_IP};
	uint64_t id = 1, hdr[9], entry[2] = {0xfffffb0000000000ull, 0}, features[4];
	uint32_t nrcpus[2] = {2, 2};
	size_t index = 0;
	const void *data;
	uint64_t size = 1;
	struct pd_writer w;
	struct pd_file f;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	unlink(path);
	cr_assert_eq(pd_writer_open(&w, path), 0, "%s", scx_errmsg());
	cr_assert_eq(pd_writer_add_attr(&w, &attr, &id, 1, "e"), 0);
	cr_assert_eq(pd_writer_add_feature(&w, PD_FEAT_NRCPUS, nrcpus, sizeof(nrcpus)), 0);
	cr_assert_eq(pd_writer_finish(&w), 0, "%s", scx_errmsg());
	/* the header: ..., data section (offset, size) at 40, features bitmap at 72 */
	fd = open(path, O_RDWR);
	cr_assert_eq(pread(fd, hdr, sizeof(hdr), 0), (ssize_t)sizeof(hdr));
	cr_assert_eq(pread(fd, features, sizeof(features), 72), (ssize_t)sizeof(features));
	for (int bit = 0; bit < PD_FEAT_NRCPUS; bit++)
		index += (features[bit / 64] >> (bit % 64)) & 1;
	cr_assert_eq(pwrite(fd, entry, sizeof(entry), (off_t)(hdr[5] + hdr[6] + index * 16)), (ssize_t)sizeof(entry));
	close(fd);
	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	cr_assert_eq(pd_feature(&f, PD_FEAT_NRCPUS, &data, &size), 0);
	cr_assert_eq(size, 0);
	pd_close(&f);
	unlink(path);
}

/* fuzz_kallsyms: the last symbol's end (its page rounded up, plus a page, as
 * perf's symbols__fixup_end has it) wrapped past the top of the address
 * space for a symbol in the last page: end 0x1000, below its start, and the
 * lookup of its own address found nothing. Now it ends at UINT64_MAX; a
 * symbol at UINT64_MAX itself is zero-sized and found at its address. */
Test(fuzz_regressions, kallsyms_symbol_in_the_last_page)
{
	static const char text[] = "ffffffff81000000 T _text\n"
				   "ffffffffffffe000 T below_last_page\n"
				   "fffffffffffffff8 T in_last_page\n"
				   "ffffffffffffffff T at_the_top\n";
	char path[] = "/tmp/scxprof-fz.XXXXXX";
	const char *mod;
	struct sym_cache *c;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	c = sym_cache_new(&(struct sym_cache_opts){ .kallsyms_path = path });
	cr_assert_not_null(c);
	cr_assert_str_eq(sym_kernel_lookup(c, 0xffffffff81000000ull, &mod), "_text");
	cr_assert_str_eq(sym_kernel_lookup(c, 0xfffffffffffff000ull, &mod), "below_last_page");
	cr_assert_str_eq(sym_kernel_lookup(c, 0xfffffffffffffff8ull, &mod), "in_last_page");
	cr_assert_str_eq(sym_kernel_lookup(c, 0xfffffffffffffffeull, &mod), "in_last_page");
	cr_assert_str_eq(sym_kernel_lookup(c, UINT64_MAX, &mod), "at_the_top");
	cr_assert_null(mod);
	sym_cache_free(c);
	unlink(path);
}

/* The same with the last symbol alone in the last page (the regression
 * input's shape: it is the file's highest address). */
Test(fuzz_regressions, kallsyms_last_symbol_in_the_last_page)
{
	static const char text[] = "ffffffff81000000 T _text\n"
				   "fffffffffffffff8 T asm_exc\n";
	char path[] = "/tmp/scxprof-fz.XXXXXX";
	struct sym_cache *c;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	c = sym_cache_new(&(struct sym_cache_opts){ .kallsyms_path = path });
	cr_assert_not_null(c);
	cr_assert_str_eq(sym_kernel_lookup(c, 0xfffffffffffffff8ull, NULL), "asm_exc");
	cr_assert_str_eq(sym_kernel_lookup(c, 0xfffffffffffffffeull, NULL), "asm_exc");
	cr_assert_null(sym_kernel_lookup(c, UINT64_MAX, NULL)); /* the end is exclusive */
	sym_cache_free(c);
	unlink(path);
}
