/*
 * archive_extract.c - extracting a profile archive (.tar.gz), hostile-input
 * safe, with libarchive (see archive.h; shared pieces: archive_internal.h).
 *
 * Extraction policy (beyond archive.h):
 *  - only regular files and directories are ever created, by this code (not
 *    archive_write_disk): directories with mkdirat(0700) and walked with
 *    openat(O_DIRECTORY|O_NOFOLLOW), files with O_CREAT|O_EXCL|O_NOFOLLOW,
 *    always relative to directory fds inside a fresh mkdtemp() directory;
 *  - every hard link entry is refused (a profile never contains one);
 *  - symlinks whose target is absolute or leaves the tree (computed
 *    lexically from the link's directory) are refused, the others are
 *    skipped (not created);
 *  - a file entry that appears twice is an error ("duplicate entry");
 *  - names longer than ARCHIVE_MAX_NAME bytes or nested deeper than
 *    ARCHIVE_MAX_DEPTH directories are refused (bounds the work and the fds
 *    needed to remove a half-extracted tree);
 *  - permissions from the archive are ignored: files 0600, directories 0700.
 */
#include "archive.h"
#include "archive_internal.h"
#include "error.h"
#include "fsutil.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ extraction */

struct extract {
	struct scan s;
	const char *dest;
	int rootfd;
	char buf[COPY_BUF_SIZE];
};

/* Create (if missing) and open directory comp below fd, never following. */
static int step_dir(struct extract *x, int fd, const char *comp)
{
	int created = mkdirat(fd, comp, 0700) == 0;
	int sub;

	if (!created && errno != EEXIST)
		return archive_name_fail_errno(x->s.r.path, x->s.name, "mkdir");
	sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0 && (errno == ENOTDIR || errno == ELOOP))
		return archive_name_fail(x->s.r.path, x->s.name, "a parent path component is not a directory");
	if (sub < 0)
		return archive_name_fail_errno(x->s.r.path, x->s.name, "open directory");
	if (created && fchmod(sub, 0700) < 0) {
		close(sub);
		return archive_name_fail_errno(x->s.r.path, x->s.name, "chmod");
	}
	return sub;
}

/* Open the directory for the first len bytes of rel, creating it. */
static int open_dirs(struct extract *x, const char *rel, size_t len)
{
	char path[ARCHIVE_MAX_NAME + 1];
	char *p = path, *end = path + len;
	int fd = openat(x->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return scx_fail_errno("%s", x->dest);
	memcpy(path, rel, len);
	path[len] = '\0';
	while (p < end) {
		char *slash = strchr(p, '/');
		int next;

		if (slash)
			*slash = '\0';
		next = step_dir(x, fd, p);
		close(fd);
		if (next < 0)
			return -1;
		fd = next;
		p += strlen(p) + 1;
	}
	return fd;
}

/* Copy the current entry's data to fd, counting the bytes actually read. */
static int copy_data(struct extract *x, int fd)
{
	for (;;) {
		la_ssize_t n = archive_read_data(x->s.r.a, x->buf, sizeof(x->buf));

		if (n == 0)
			return 0;
		if (n < 0)
			return archive_reader_fail(&x->s.r);
		if ((uint64_t)n > x->s.max_bytes - x->s.bytes)
			return archive_scan_size_fail(&x->s);
		x->s.bytes += (uint64_t)n;
		if (fs_write_all(fd, x->buf, (size_t)n) < 0)
			return scx_fail_errno("%s/%s: write", x->dest, x->s.rel);
	}
}

static int extract_file(struct extract *x)
{
	const char *slash = strrchr(x->s.rel, '/');
	const char *base = slash ? slash + 1 : x->s.rel;
	int dfd = open_dirs(x, x->s.rel, slash ? (size_t)(slash - x->s.rel) : 0);
	int fd, rc;

	if (dfd < 0)
		return -1;
	fd = openat(dfd, base, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dfd);
	if (fd < 0 && errno == EEXIST)
		return archive_name_fail(x->s.r.path, x->s.name, "duplicate entry (the path already exists)");
	if (fd < 0)
		return archive_name_fail_errno(x->s.r.path, x->s.name, "create");
	rc = fchmod(fd, 0600) < 0 ? scx_fail_errno("%s/%s: chmod", x->dest, x->s.rel) : 0;
	if (rc == 0)
		rc = copy_data(x, fd);
	if (close(fd) < 0 && rc == 0)
		rc = scx_fail_errno("%s/%s: close", x->dest, x->s.rel);
	return rc;
}

/* Does a symlink at rel pointing to target stay inside the tree? */
static const char *symlink_escapes(const char *rel, const char *target)
{
	long depth = 0;
	const char *p;

	if (!target || !target[0])
		return "symlink with an empty target refused";
	if (target[0] == '/')
		return "symlink to an absolute path refused";
	for (p = rel; *p; p++)
		depth += *p == '/';
	for (p = target; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				return "symlink target leaves the tree";
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		p += n + (p[n] == '/');
	}
	return NULL;
}

static int extract_dir(struct extract *x)
{
	int fd = open_dirs(x, x->s.rel, strlen(x->s.rel));

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int extract_entry(struct extract *x, struct archive_entry *e)
{
	const char *why;
	int rc = archive_scan_entry(&x->s, e);

	if (rc <= 0)
		return rc;
	if (archive_entry_hardlink(e))
		return archive_name_fail(x->s.r.path, x->s.name, "hard link refused");
	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
		return extract_file(x);
	case AE_IFDIR:
		return extract_dir(x);
	case AE_IFLNK:
		why = symlink_escapes(x->s.rel, archive_entry_symlink(e));
		return why ? archive_name_fail(x->s.r.path, x->s.name, why) : 0;
	case AE_IFCHR:
		return archive_name_fail(x->s.r.path, x->s.name, "character device refused");
	case AE_IFBLK:
		return archive_name_fail(x->s.r.path, x->s.name, "block device refused");
	case AE_IFIFO:
		return archive_name_fail(x->s.r.path, x->s.name, "fifo refused");
	case AE_IFSOCK:
		return archive_name_fail(x->s.r.path, x->s.name, "socket refused");
	default:
		return archive_name_fail(x->s.r.path, x->s.name, "unsupported entry type");
	}
}

/* Remove name below dfd and everything in it, never following symlinks. */
static void remove_tree_at(int dfd, const char *name)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode)) {
		unlinkat(dfd, name, 0);
		return;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0)
		close(fd);
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			remove_tree_at(dirfd(d), de->d_name);
	if (d)
		closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static void remove_tree(const char *path)
{
	int saved = errno;

	remove_tree_at(AT_FDCWD, path);
	errno = saved;
}

/* dest (without trailing slashes) must not exist; create tmp next to it. */
static int make_tmp(const char *dest, char *tmp, size_t size)
{
	struct stat st;

	if (!dest[0])
		return scx_fail("empty destination directory name");
	if (lstat(dest, &st) == 0)
		return scx_fail("%s already exists", dest);
	if (errno != ENOENT)
		return scx_fail_errno("%s", dest);
	if ((size_t)snprintf(tmp, size, "%s.tmp.XXXXXX", dest) >= size)
		return scx_fail("%s: name too long", dest);
	if (!mkdtemp(tmp))
		return scx_fail_errno("%s: cannot create temporary directory", dest);
	return 0;
}

static int rename_noreplace(const char *from, const char *to)
{
	int rc = renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);

	if (rc < 0 && (errno == EINVAL || errno == ENOSYS))
		rc = rename(from, to);
	return rc;
}

static int extract_all(struct extract *x)
{
	struct archive_entry *e;
	int rc;

	while ((rc = archive_reader_next(&x->s.r, &e)) == 1)
		if (extract_entry(x, e) < 0)
			return -1;
	if (rc == 0 && !x->s.have_top)
		return scx_fail("%s appears to be empty", x->s.r.path);
	return rc;
}

static int extract_into(struct extract *x, const char *tmp, const struct archive_limits *limits)
{
	int rc;

	if (archive_scan_init(&x->s, x->s.r.path, limits) < 0)
		return -1;
	x->s.reads_data = 1;
	x->rootfd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	rc = x->rootfd < 0 ? scx_fail_errno("%s", tmp) : extract_all(x);
	archive_reader_close(&x->s.r);
	if (x->rootfd >= 0)
		close(x->rootfd);
	if (rc == 0 && rename_noreplace(tmp, x->dest) < 0)
		rc = errno == EEXIST || errno == ENOTEMPTY ? scx_fail("%s already exists", x->dest)
							    : scx_fail_errno("%s: rename", x->dest);
	return rc;
}

int archive_extract(const char *archive_path, const char *dest_dir, const struct archive_limits *limits)
{
	char dest[PATH_MAX], tmp[PATH_MAX + 16];
	size_t len = strlen(dest_dir);
	struct extract *x;
	int rc;

	while (len > 1 && dest_dir[len - 1] == '/')
		len--;
	if (len >= sizeof(dest))
		return scx_fail("%s: name too long", dest_dir);
	memcpy(dest, dest_dir, len);
	dest[len] = '\0';
	if (make_tmp(dest, tmp, sizeof(tmp)) < 0)
		return -1;
	x = malloc(sizeof(*x));
	if (!x) {
		remove_tree(tmp);
		return scx_fail("%s: out of memory", archive_path);
	}
	x->dest = dest;
	x->s.r.path = archive_path;
	rc = extract_into(x, tmp, limits);
	if (rc < 0)
		remove_tree(tmp);
	free(x);
	return rc;
}
