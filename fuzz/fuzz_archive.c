/*
 * fuzz_archive.c - libFuzzer target for lib/archive.c. Each input is written
 * to a fresh temporary directory as a .tar.gz and given to
 * archive_top_level() and archive_extract() (16 MiB / 1000 entry caps).
 * Besides sanitizer findings it aborts when an invariant breaks: something
 * other than the input and the destination appears in the directory, the
 * extracted tree holds anything but regular files and directories, a
 * successful extraction of an archive archive_top_level() rejected, or a
 * file descriptor leaks. Everything is removed after each input.
 *
 * The first input byte selects the mode: odd means "gzip the rest first" (so
 * mutations reach the tar parser instead of failing the gzip CRC), even means
 * "use the rest as is". Seeds: 0x01 + tar, or 0x00 + .tar.gz.
 */
#include "lib/archive.h"

#include <archive.h>
#include <archive_entry.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int remove_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static int check_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_NS || flag == FTW_DNR || !(S_ISREG(st->st_mode) || S_ISDIR(st->st_mode)))
		abort();
	return 0;
}

static void write_raw(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
}

/* Write data gzip-compressed, using libarchive's raw format writer. */
static void write_gzipped(const char *path, const uint8_t *data, size_t size)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();

	if (!a || !e || archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_format_raw(a) != ARCHIVE_OK || archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open_filename(a, path) != ARCHIVE_OK)
		abort();
	archive_entry_set_pathname(e, "x");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_size(e, (la_int64_t)size);
	if (archive_write_header(a, e) != ARCHIVE_OK || (size && archive_write_data(a, data, size) != (la_ssize_t)size) ||
	    archive_write_close(a) != ARCHIVE_OK)
		abort();
	archive_entry_free(e);
	archive_write_free(a);
}

static void write_input(const char *path, const uint8_t *data, size_t size)
{
	if (size > 0 && (data[0] & 1))
		write_gzipped(path, data + 1, size - 1);
	else
		write_raw(path, data + (size > 0), size - (size > 0));
}

/* dir holds only "in.tgz" and, if extracted, "out". */
static void check_dir(const char *dir, int extracted)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		abort();
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (strcmp(de->d_name, "in.tgz") && !(extracted && !strcmp(de->d_name, "out")))
			abort();
		n++;
	}
	closedir(d);
	if (n != 1 + extracted)
		abort();
}

static int lowest_free_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int first_fd = lowest_free_fd(); /* per input: libFuzzer keeps fds of its own */
	struct archive_limits lim = {.max_total_bytes = 16 << 20, .max_entries = 1000};
	char dir[] = "/tmp/fuzz-archive.XXXXXX", file[64], dest[64], top[256];
	int top_ok, ok;

	if (!mkdtemp(dir))
		abort();
	snprintf(file, sizeof(file), "%s/in.tgz", dir);
	snprintf(dest, sizeof(dest), "%s/out", dir);
	write_input(file, data, size);
	top_ok = archive_top_level(file, top, sizeof(top)) == 0;
	ok = archive_extract(file, dest, &lim) == 0;
	if (ok && !top_ok)
		abort();
	check_dir(dir, ok);
	if (ok && nftw(dest, check_cb, 16, FTW_PHYS) != 0)
		abort();
	nftw(dir, remove_cb, 16, FTW_DEPTH | FTW_PHYS);
	if (lowest_free_fd() != first_fd)
		abort();
	return 0;
}
