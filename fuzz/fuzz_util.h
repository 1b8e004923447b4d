/*
 * fuzz_util.h - helpers shared by the libFuzzer targets (header only: each
 * target is one program): the input as a file (a memfd opened through
 * /proc/self/fd/N, so readers that take a path read it), the count of lines
 * a reader must see, and the checks' failure report.
 */
#ifndef SCX_FUZZ_UTIL_H
#define SCX_FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct fuzz_file {
	int fd;
	char path[64];
};

static inline void fuzz_file_init(struct fuzz_file *f, const char *name)
{
	f->fd = memfd_create(name, MFD_CLOEXEC);
	if (f->fd < 0)
		abort();
	snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
}

/* Make the file hold exactly data[0..size). */
static inline void fuzz_file_set(struct fuzz_file *f, const uint8_t *data, size_t size)
{
	if (ftruncate(f->fd, 0) < 0)
		abort();
	if (size && pwrite(f->fd, data, size, 0) != (ssize_t)size)
		abort();
}

/* An invariant broke: say which, then abort (libFuzzer saves the input). */
#define FUZZ_CHECK(cond, ...)                                                     \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "invariant broken: %s: ", #cond);        \
			fprintf(stderr, __VA_ARGS__);                             \
			fputc('\n', stderr);                                      \
			abort();                                                  \
		}                                                                 \
	} while (0)

/*
 * Input the line reader decompresses (lib/linereader.c: it starts with
 * zstd's magic). Its lines are those of the decompressed text, not of data,
 * and corrupt or cut zstd data fails the run with one error naming the file
 * ("zstd" in it): text targets check only that (fuzz_zstd_lines fuzzes the
 * decompression itself). Returns true when it was such an input.
 */
static inline bool fuzz_is_zstd(const uint8_t *data, size_t size)
{
	return size >= 4 && memcmp(data, "\x28\xb5\x2f\xfd", 4) == 0;
}

static inline bool fuzz_zstd_input_checked(const uint8_t *data, size_t size, int rc, const char *err)
{
	if (!fuzz_is_zstd(data, size))
		return false;
	FUZZ_CHECK(rc == 0 || (strstr(err, "zstd") && strstr(err, "/proc/self/fd/")),
		   "zstd input failed without naming the file and zstd: %s", err);
	return true;
}

/* Lines of data as a line reader hands them out ('\n'-separated, a last
 * line without newline counted), and of those the ones not made only of
 * bytes in `blank` (the reader's own notion of a blank line). */
static inline void fuzz_count_lines(const uint8_t *data, size_t size, const char *blank, size_t *lines,
				    size_t *nonblank)
{
	size_t i = 0;

	*lines = *nonblank = 0;
	while (i < size) {
		bool only_blank = true;

		for (; i < size && data[i] != '\n'; i++)
			if (!data[i] || !strchr(blank, data[i]))
				only_blank = false;
		(*lines)++;
		*nonblank += !only_blank;
		i++; /* past the '\n' (or the end) */
	}
}

#endif
