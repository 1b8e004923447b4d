/*
 * test_insn_cache.c - unit tests for the file cache of the decode backend's
 * instruction-byte reader (record/decode/insn_text.c): a workload whose
 * code is read on every sample keeps its file mapped while many other
 * files pass through the cache (a busy host's short-lived programs), and a
 * file that did leave the cache is mapped again on the process's next read
 * instead of its code being read from process memory, where the
 * instruction before an IP cannot be found. Both decide the decode
 * backend's yield: "the instruction before" gives most of its addresses.
 * A process that maps more files than the cache holds must not make the
 * others parse their maps again on every sample. The other processes live
 * in a fake /proc (maps and map_files of small files of their own); this
 * process is linked into it from the real one. The instruction before is
 * found with the host's decoder (x86-64 bytes): elsewhere the cases skip.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "record/decode/decode.h"
#include "record/decode/insn_text.h"

#define OTHERS 300 /* more files than the reader keeps mapped */

/* A function with known instructions in this binary's .symtab:
 *   0: 48 8b 07       mov rax,[rdi]
 *   3: 48 33 04 cf    xor rax,[rdi+rcx*8]
 *   7: c3             ret */
__asm__(".text\n.globl scx_insn_cache_fn\n.type scx_insn_cache_fn,@function\nscx_insn_cache_fn:\n"
	".byte 0x48,0x8b,0x07, 0x48,0x33,0x04,0xcf, 0xc3\n"
	".size scx_insn_cache_fn, .-scx_insn_cache_fn\n");
extern const uint8_t scx_insn_cache_fn[];

static char root[64];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	cr_assert_geq(fputs(text, f), 0);
	cr_assert_eq(fclose(f), 0);
}

/* The pid of the k-th other process: never in this process's cache slot
 * (direct-mapped by pid), so only the file cache can lose its maps. */
static int other_pid(int k)
{
	int pid = 4000000 + 2 * k;

	return pid % 256 == getpid() % 256 ? pid + 1 : pid;
}

/* root/PID/maps: one executable mapping of a file of its own (its
 * map_files entry a link to it). */
static void make_other(int k)
{
	char dir[128], path[192], file[192], line[400];
	struct stat sb;
	int pid = other_pid(k), fd;

	snprintf(dir, sizeof(dir), "%s/%d", root, pid);
	cr_assert_eq(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/text%d", dir, k);
	fd = open(file, O_WRONLY | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 4096), 0);
	cr_assert_eq(fstat(fd, &sb), 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/map_files", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/map_files/1000-2000", dir);
	cr_assert_eq(symlink(file, path), 0);
	snprintf(line, sizeof(line), "1000-2000 r-xp 00000000 %x:%x %llu %s\n", major(sb.st_dev), minor(sb.st_dev),
		 (unsigned long long)sb.st_ino, file);
	snprintf(path, sizeof(path), "%s/maps", dir);
	put(path, line);
}

#define BIG_PID 4100001 /* maps all OTHERS files */

static void make_big(void)
{
	char dir[128], path[192], file[192], line[400];
	FILE *maps;

	snprintf(dir, sizeof(dir), "%s/%d", root, BIG_PID);
	cr_assert_eq(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/map_files", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/maps", dir);
	maps = fopen(path, "w");
	cr_assert_not_null(maps);
	for (int k = 0; k < OTHERS; k++) {
		unsigned long long start = 0x100000ULL + 0x1000ULL * (unsigned)k;
		struct stat sb;

		snprintf(file, sizeof(file), "%s/%d/text%d", root, other_pid(k), k);
		cr_assert_eq(stat(file, &sb), 0);
		snprintf(path, sizeof(path), "%s/map_files/%llx-%llx", dir, start, start + 0x1000);
		cr_assert_eq(symlink(file, path), 0);
		snprintf(line, sizeof(line), "%llx-%llx r-xp 00000000 %x:%x %llu %s\n", start, start + 0x1000,
			 major(sb.st_dev), minor(sb.st_dev), (unsigned long long)sb.st_ino, file);
		cr_assert_geq(fputs(line, maps), 0);
	}
	cr_assert_eq(fclose(maps), 0);
}

static void setup_root(void)
{
	char self[64], link[128];

	snprintf(root, sizeof(root), "/tmp/scxprof-insn-cache-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	snprintf(self, sizeof(self), "/proc/%d", (int)getpid());
	snprintf(link, sizeof(link), "%s/%d", root, (int)getpid());
	cr_assert_eq(symlink(self, link), 0);
	for (int k = 0; k < OTHERS; k++)
		make_other(k);
	make_big();
}

static void teardown_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (root[0] && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
}

/* One sample of another process: its code read once (its file mapped). */
static void read_other(struct insn_text *t, int k)
{
	uint8_t buf[INSN_MAX_BYTES];

	cr_assert_eq(insn_text_read(t, other_pid(k), 0x1000, buf, sizeof(buf)), sizeof(buf), "process %d", k);
}

/* One sample of this process at the xor: its bytes, and the instruction before. */
static bool sample_self(struct insn_text *t)
{
	const struct insn_decoder *dec = insn_decoder_for_host(); /* the decode backend's (x86-64 bytes) */
	uint64_t ip = (uint64_t)(uintptr_t)scx_insn_cache_fn + 3, prev = 0;
	uint8_t buf[INSN_MAX_BYTES];

	cr_assert_eq(insn_text_read(t, getpid(), ip, buf, sizeof(buf)), sizeof(buf));
	cr_assert_eq(memcmp(buf, scx_insn_cache_fn + 3, 5), 0);
	if (!dec)
		cr_skip_test("SKIP: no instruction decoder for this host: the decode backend is x86-64's");
	if (!insn_text_prev(t, getpid(), ip, dec, &prev))
		return false;
	cr_assert_eq(prev, ip - 3);
	return true;
}

TestSuite(insn_cache, .init = setup_root, .fini = teardown_root);

Test(insn_cache, a_file_read_on_every_sample_stays_mapped)
{
	struct insn_text *t = insn_text_new(root);
	uint64_t from_memory;

	cr_assert_not_null(t);
	cr_assert(sample_self(t));
	from_memory = insn_text_stats(t)->from_memory;
	for (int k = 0; k < OTHERS; k++) {
		read_other(t, k);
		cr_assert(sample_self(t), "after %d other files: the instruction before is lost", k + 1);
	}
	cr_assert_eq(insn_text_stats(t)->from_memory, from_memory, "this process's code read from its memory");
	cr_assert_eq(insn_text_stats(t)->prev_walks, 1, "the function decoded %llu times: its file left the cache",
		     (unsigned long long)insn_text_stats(t)->prev_walks);
	cr_assert_geq(insn_text_stats(t)->dsos_evicted, OTHERS - 128);
	insn_text_free(t);
}

Test(insn_cache, a_file_that_left_the_cache_is_mapped_again)
{
	struct insn_text *t = insn_text_new(root);
	uint64_t from_memory;

	cr_assert_not_null(t);
	cr_assert(sample_self(t));
	from_memory = insn_text_stats(t)->from_memory;
	for (int k = 0; k < OTHERS; k++) /* every file of this process leaves the cache */
		read_other(t, k);
	cr_assert(sample_self(t), "the file left the cache: its code now comes from process memory");
	cr_assert(sample_self(t));
	cr_assert_eq(insn_text_stats(t)->from_memory, from_memory);
	insn_text_free(t);
}

Test(insn_cache, a_process_of_more_files_than_the_cache_holds_costs_others_nothing)
{
	struct insn_text *t = insn_text_new(root);
	uint8_t buf[INSN_MAX_BYTES];
	uint64_t maps_reads;

	cr_assert_not_null(t);
	cr_assert(sample_self(t));
	cr_assert_eq(insn_text_read(t, BIG_PID, 0x100000, buf, sizeof(buf)), sizeof(buf));
	maps_reads = insn_text_stats(t)->maps_reads;
	for (int i = 0; i < 20; i++) { /* both sampled in turn */
		cr_assert(sample_self(t));
		cr_assert_eq(insn_text_read(t, BIG_PID, 0x100000 + 0x1000 * (uint64_t)(i % 3), buf, sizeof(buf)),
			     sizeof(buf));
	}
	cr_assert_eq(insn_text_stats(t)->maps_reads, maps_reads, "%llu maps parsed again for 40 samples",
		     (unsigned long long)(insn_text_stats(t)->maps_reads - maps_reads));
	cr_assert_eq(insn_text_stats(t)->from_memory, 0);
	insn_text_free(t);
}
