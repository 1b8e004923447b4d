/*
 * write_file.c - a new file written whole or not at all (see host.h): a
 * temporary file beside it, created O_EXCL with mode 0666 so that open(2)
 * applies the umask, fsync'd, then moved to its name with
 * renameat2(RENAME_NOREPLACE) (link(2) and unlink where the file system
 * has no such rename), so an existing file is never replaced and a reader
 * never sees a part.
 */
#include "lib/host/host.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "lib/error.h"

/* "<path>.tmp.XXXXXX" created O_EXCL, mode less the umask. */
static int create_temp(const char *path, mode_t mode, char *tmp, size_t size)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	int tries, fd;

	for (tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		char suffix[7];
		size_t i;

		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return scx_fail_errno("%s: getrandom", path);
		for (i = 0; i < 6; i++)
			suffix[i] = chars[r[i] % (sizeof(chars) - 1)];
		suffix[6] = '\0';
		if (snprintf(tmp, size, "%s.tmp.%s", path, suffix) >= (int)size)
			return scx_fail("%s: path too long", path);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : scx_fail_errno("%s: cannot create a temporary file beside it", path);
	}
	return scx_fail("%s: no free temporary name beside it", path);
}

/* Move tmp to path, never over an existing file. */
static int publish(const char *tmp, const char *path)
{
	int rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE);

	if (rc < 0 && (errno == EINVAL || errno == ENOSYS)) {
		rc = link(tmp, path);
		if (rc == 0)
			unlink(tmp);
	}
	if (rc < 0 && errno == EEXIST)
		return scx_fail("%s: already exists, not overwritten", path);
	return rc < 0 ? scx_fail_errno("%s", path) : 0;
}

int host_write_file_fd(const char *path, mode_t mode, int (*write)(int fd, void *ctx), void *ctx)
{
	char tmp[PATH_MAX];
	int fd = create_temp(path, mode, tmp, sizeof(tmp)), rc;

	if (fd < 0)
		return -1;
	rc = write(fd, ctx);
	if (rc == 0 && fsync(fd) < 0)
		rc = scx_fail_errno("%s: fsync", tmp);
	if (close(fd) < 0 && rc == 0)
		rc = scx_fail_errno("%s: write failed", tmp);
	if (rc == 0)
		rc = publish(tmp, path);
	if (rc < 0)
		unlink(tmp);
	return rc;
}

struct stream {
	int (*write)(FILE *f, void *ctx);
	void *ctx;
	const char *path;
};

static int write_stream(int fd, void *ctx)
{
	struct stream *s = ctx;
	FILE *f = fdopen(dup(fd), "w");
	int rc;

	if (!f)
		return scx_fail_errno("%s", s->path);
	rc = s->write(f, s->ctx);
	if ((ferror(f) | (fflush(f) != 0)) && rc == 0)
		rc = scx_fail_errno("%s: write failed", s->path);
	if (fclose(f) != 0 && rc == 0)
		rc = scx_fail_errno("%s: write failed", s->path);
	return rc;
}

int host_write_file(const char *path, int (*write)(FILE *f, void *ctx), void *ctx)
{
	struct stream s = {write, ctx, path};

	return host_write_file_fd(path, 0666, write_stream, &s);
}
