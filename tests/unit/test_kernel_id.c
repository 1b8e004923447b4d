/*
 * test_kernel_id.c - lib/kernel_id.c: build-ids from note buffers, ELF
 * files (against readelf -n) and the running kernel, perf's comparison
 * rule, and _text/_etext from a kallsyms file.
 */
#include "lib/kernel_id.h"

#include <criterion/criterion.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One note: namesz, descsz, type, name and desc padded to 4. */
static size_t put_note(uint8_t *p, const char *name, uint32_t type, const uint8_t *desc, uint32_t dsz)
{
	uint32_t h[3] = {(uint32_t)strlen(name) + 1, dsz, type};
	size_t off = 12, nsz = (h[0] + 3) & ~3u;

	memcpy(p, h, 12);
	memset(p + off, 0, nsz);
	memcpy(p + off, name, h[0]);
	off += nsz;
	memset(p + off, 0, (dsz + 3) & ~3u);
	memcpy(p + off, desc, dsz);
	return off + ((dsz + 3) & ~3u);
}

Test(kernel_id, notes_skip_other_notes_and_find_gnu)
{
	uint8_t buf[256], bid[20], want[20], four[4] = {1, 2, 3, 4};
	size_t len = 0;

	for (int i = 0; i < 20; i++)
		want[i] = (uint8_t)(0xa0 + i);
	len += put_note(buf + len, "Linux", 257, four, 4);
	len += put_note(buf + len, "Xen", NT_GNU_BUILD_ID, four, 4); /* right type, wrong owner */
	len += put_note(buf + len, "GNU", NT_GNU_BUILD_ID, want, 20);
	cr_assert_eq(kid_notes_build_id(buf, len, bid), 20);
	cr_assert_arr_eq(bid, want, 20);
	/* cut inside the GNU note: nothing, no overread */
	cr_assert_eq(kid_notes_build_id(buf, len - 1, bid), 0);
	cr_assert_eq(kid_notes_build_id(buf, 11, bid), 0);
	/* an absurd size in the first note */
	memset(buf + 4, 0xff, 4);
	cr_assert_eq(kid_notes_build_id(buf, len, bid), 0);
}

Test(kernel_id, running_kernel_matches_sysfs_notes)
{
	uint8_t bid[20];
	char hex[KID_HEX_SIZE], want[64] = "";
	int n = kid_running_build_id("/sys/kernel/notes", bid);
	FILE *p;

	if (n < 0)
		cr_skip_test("SKIP: /sys/kernel/notes unreadable here");
	kid_build_id_hex(bid, (size_t)n, hex);
	/* perf is the oracle: its buildid-list -k prints the running kernel's */
	p = popen("perf buildid-list -k 2>/dev/null", "r");
	if (!p || !fgets(want, sizeof(want), p)) {
		if (p)
			pclose(p);
		cr_skip_test("SKIP: perf buildid-list -k gave nothing");
	}
	pclose(p);
	want[strcspn(want, "\n")] = '\0';
	cr_assert_str_eq(hex, want);
	cr_assert_lt(kid_running_build_id("/nonexistent/notes", bid), 0);
}

Test(kernel_id, elf_file_build_id_as_readelf)
{
	uint8_t bid[20];
	char hex[KID_HEX_SIZE], cmd[256], out[256] = "";
	FILE *p;
	int n = kid_file_build_id("/proc/self/exe", bid);

	cr_assert_gt(n, 0);
	kid_build_id_hex(bid, (size_t)n, hex);
	snprintf(cmd, sizeof(cmd), "readelf -n /proc/%d/exe | sed -n 's/.*Build ID: //p'", (int)getpid());
	p = popen(cmd, "r");
	cr_assert(p && fgets(out, sizeof(out), p));
	pclose(p);
	out[strcspn(out, "\n")] = '\0';
	cr_assert_str_eq(hex, out);
	/* not regular ELF files: nothing, and a device is never opened */
	cr_assert_eq(kid_file_build_id("/dev/zero", bid), 0);
	cr_assert_eq(kid_file_build_id("/tmp", bid), 0);
	cr_assert_eq(kid_file_build_id("/etc/hostname", bid), 0);
	cr_assert_eq(kid_file_build_id("/nonexistent", bid), 0);
}

Test(kernel_id, build_id_equal_as_perf)
{
	uint8_t a[20] = {1, 2, 3, 4, 5, 6, 7, 8}, b[20] = {1, 2, 3, 4, 5, 6, 7, 8};

	cr_assert(kid_build_id_equal(a, 20, b, 20));
	cr_assert(kid_build_id_equal(a, 20, b, 8));  /* zero padding of a short id */
	cr_assert(kid_build_id_equal(a, 8, b, 20));
	cr_assert(!kid_build_id_equal(a, 16, b, 8)); /* only a 20-byte id is padded */
	b[3] = 9;
	cr_assert(!kid_build_id_equal(a, 20, b, 20));
	cr_assert(!kid_build_id_equal(a, 0, b, 0));
}

Test(kernel_id, kallsyms_text_and_etext)
{
	char path[] = "/tmp/kid-kallsyms-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	uint64_t text, etext;

	cr_assert(f);
	fprintf(f, "0000000000000000 A fixed_percpu_data\n"
		   "ffffffff81000000 T _stext\n"
		   "ffffffff81000000 T _text\n"
		   "ffffffff81001000 t something\t[mod]\n"
		   "ffffffff82000000 T _etext\n");
	fclose(f);
	cr_assert_eq(kid_kallsyms_text(path, &text, &etext), 0);
	cr_assert_eq(text, 0xffffffff81000000ULL);
	cr_assert_eq(etext, 0xffffffff82000000ULL);
	unlink(path);
	cr_assert_lt(kid_kallsyms_text(path, &text, &etext), 0);
}
