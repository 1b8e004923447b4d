/*
 * fsutil.c - filesystem helpers declared in fsutil.h.
 */
#include "fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

/* Remove name (relative to dirfd) and, if a directory, all it holds. shown
 * is the path that messages give for it. */
static int remove_at(int dirfd, const char *name, const char *shown);

static int remove_dir_contents(int fd, const char *shown)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		close(fd);
		return scx_fail_errno("%s: cannot read directory", shown);
	}
	while ((e = readdir(d))) {
		char *child;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (asprintf(&child, "%s/%s", shown, e->d_name) < 0) {
			rc = scx_fail("%s: out of memory", shown);
			break;
		}
		if (remove_at(dirfd(d), e->d_name, child) < 0)
			rc = -1;
		free(child);
	}
	closedir(d);
	return rc;
}

static int remove_at(int dirfd, const char *name, const char *shown)
{
	struct stat st;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : scx_fail_errno("%s: cannot stat", shown);
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			return scx_fail_errno("%s: cannot remove", shown);
		return 0;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return scx_fail_errno("%s: cannot open", shown);
	if (remove_dir_contents(fd, shown) < 0)
		return -1;
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return scx_fail_errno("%s: cannot remove", shown);
	return 0;
}

/* Every message names the path it is about (path/...), so no prefix. */
int fs_remove_tree(const char *path)
{
	return remove_at(AT_FDCWD, path, path);
}

bool fs_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

bool fs_is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool fs_is_file(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int fs_join(char *out, size_t size, const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	int n;

	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	n = snprintf(out, size, "%.*s/%s", (int)dl, dir, name);
	if (n < 0 || (size_t)n >= size)
		return scx_fail("%s/%s: path too long", dir, name);
	return 0;
}

int fs_make_temp_dir_for(const char *final, char *out, size_t size)
{
	int n = snprintf(out, size, "%s.tmp.XXXXXX", final);

	if (n < 0 || (size_t)n >= size)
		return scx_fail("%s: path too long", final);
	if (!mkdtemp(out))
		return scx_fail_errno("%s: cannot create temporary directory", out);
	return 0;
}

int fs_commit_dir(const char *tmp, const char *final, bool replace)
{
	char aside[4096];

	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EEXIST)
		return scx_fail_errno("%s: cannot rename to %s", tmp, final);
	if (!replace)
		return scx_fail("%s already exists", final);
	if (fs_make_temp_dir_for(final, aside, sizeof(aside)) < 0)
		return -1;
	if (renameat2(AT_FDCWD, final, AT_FDCWD, aside, RENAME_EXCHANGE) < 0) {
		rmdir(aside);
		return scx_fail_errno("%s: cannot move aside", final);
	}
	/* aside now holds the old output, final the empty dir: swap in the new */
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_EXCHANGE) < 0) {
		renameat2(AT_FDCWD, aside, AT_FDCWD, final, RENAME_EXCHANGE);
		rmdir(aside);
		return scx_fail_errno("%s: cannot replace", final);
	}
	/* tmp is now the empty directory */
	rmdir(tmp);
	return fs_remove_tree(aside);
}

FILE *fs_create_in(const char *dir, const char *name, unsigned mode)
{
	char path[4096];
	FILE *f;
	int fd;

	if (fs_join(path, sizeof(path), dir, name) < 0)
		return NULL;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		scx_fail_errno("%s: cannot create", path);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	return f;
}

int fs_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fs_copy_file(const char *src, const char *dst)
{
	char buf[1 << 16];
	int in, out, rc = 0;
	ssize_t n;

	in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return scx_fail_errno("%s: cannot open", src);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		close(in);
		return scx_fail_errno("%s: cannot create", dst);
	}
	while (!rc && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = scx_fail_errno("%s: read failed", src);
			break;
		}
		if (fs_write_all(out, buf, (size_t)n) < 0)
			rc = scx_fail_errno("%s: write failed", dst);
	}
	if (close(out) < 0 && !rc)
		rc = scx_fail_errno("%s: write failed", dst);
	close(in);
	if (rc)
		unlink(dst);
	return rc;
}

void fs_strip_suffix(char *out, size_t size, const char *path, const char *suffix)
{
	size_t len = strlen(path), sl = strlen(suffix);

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len > sl && !memcmp(path + len - sl, suffix, sl))
		len -= sl;
	snprintf(out, size, "%.*s", (int)len, path);
}

int fs_read_file(const char *path, size_t max, char **buf, size_t *n)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* O_NONBLOCK: a FIFO is refused below, not waited on */
	struct stat st;
	size_t got = 0;
	char *b;

	*buf = NULL;
	*n = 0;
	if (fd < 0)
		return scx_fail_errno("%s", path);
	if (fstat(fd, &st) < 0) {
		scx_fail_errno("%s", path);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		close(fd);
		return scx_fail("%s: not a regular file of at most %zu MB", path, max >> 20);
	}
	if (!(b = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return scx_fail("%s: out of memory", path);
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, b + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			scx_fail_errno("%s: read", path);
			free(b);
			close(fd);
			return -1;
		}
		if (r == 0) /* it shrank meanwhile */
			break;
		got += (size_t)r;
	}
	close(fd);
	b[got] = '\0';
	*buf = b;
	*n = got;
	return 0;
}
