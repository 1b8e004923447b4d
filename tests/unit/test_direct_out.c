/*
 * test_direct_out.c - unit tests of record/direct_out: bytes written through
 * it (odd sizes crossing block and buffer boundaries) read back identical,
 * on a file system that takes O_DIRECT (/var/tmp, usually ext4, where the
 * direct path must have run) and on tmpfs (/dev/shm: O_DIRECT or the
 * fallback, depending on the kernel); write errors are kept.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "record/streams/direct_out.h"

/* Write 1 MB + 777 bytes in pieces of 1..4999 bytes with a 3-block buffer,
 * read the file back and compare. Returns whether O_DIRECT was in use. */
static bool roundtrip(const char *dir)
{
	char path[256];
	size_t total = (1 << 20) + 777, off = 0, piece = 1;
	unsigned char *src = malloc(total), *back = malloc(total + 1);
	struct direct_out d;
	bool direct;
	struct stat st;
	int fd;

	cr_assert(src && back);
	for (size_t i = 0; i < total; i++)
		src[i] = (unsigned char)(i * 131 + (i >> 9));
	snprintf(path, sizeof(path), "%s/scxprof-dout-XXXXXX", dir);
	fd = mkstemp(path);
	cr_assert(fd >= 0, "mkstemp in %s: %s", dir, strerror(errno));
	cr_assert_eq(direct_out_init(&d, fd, 3 * DIRECT_OUT_ALIGN), 0);
	while (off < total) {
		size_t n = piece < total - off ? piece : total - off;

		direct_out_put(&d, src + off, n);
		off += n;
		piece = piece * 7 % 4999 + 1;
		if (off % 5 == 0)
			direct_out_sync(&d);
	}
	direct = d.direct;
	cr_assert_eq(direct_out_finish(&d), 0, "finish: %s", strerror(d.err));
	direct_out_free(&d);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq((size_t)st.st_size, total, "file has %lld bytes, wrote %zu", (long long)st.st_size, total);
	cr_assert_eq(pread(fd, back, total + 1, 0), (ssize_t)total);
	cr_assert(memcmp(src, back, total) == 0, "bytes differ in %s", dir);
	close(fd);
	unlink(path);
	free(src);
	free(back);
	return direct;
}

Test(direct_out, roundtrip_with_o_direct)
{
	struct stat st;

	struct statfs fs;
	bool direct;

	if (stat("/var/tmp", &st) != 0 || statfs("/var/tmp", &fs) != 0)
		cr_skip_test("no /var/tmp");
	direct = roundtrip("/var/tmp");
	/* ext2/3/4 take O_DIRECT: there the direct path must have run */
	if (fs.f_type == 0xEF53)
		cr_assert(direct, "O_DIRECT not used on ext4");
}

Test(direct_out, roundtrip_on_tmpfs)
{
	struct stat st;

	if (stat("/dev/shm", &st) != 0)
		cr_skip_test("no /dev/shm");
	roundtrip("/dev/shm");
}

Test(direct_out, write_error_is_kept)
{
	struct direct_out d;
	unsigned char block[DIRECT_OUT_ALIGN] = {1};
	int fd = open("/dev/full", O_WRONLY);

	if (fd < 0)
		cr_skip_test("no /dev/full");
	cr_assert_eq(direct_out_init(&d, fd, DIRECT_OUT_ALIGN), 0);
	direct_out_put(&d, block, sizeof(block)); /* fills the buffer: written now */
	direct_out_put(&d, block, 10);
	cr_assert_eq(direct_out_finish(&d), -1);
	cr_assert_eq(d.err, ENOSPC, "err %d (%s)", d.err, strerror(d.err));
	direct_out_free(&d);
	close(fd);
}
