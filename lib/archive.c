/*
 * archive.c - profile archives (.tar.gz): hostile-input-safe reading and
 * extraction, and deterministic writing, with libarchive. See archive.h.
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
#include "error.h"

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

#define ARCHIVE_MAX_NAME 4095
#define ARCHIVE_MAX_DEPTH 64
#define COPY_BUF_SIZE (64 * 1024)
#define NOT_TGZ "%s: not a gzip-compressed tar archive"

/* ---------------------------------------------------------------- reader */

struct reader {
	const char *path;
	struct archive *a;
	int fd;
	int checked; /* the filter chain was verified to be gzip -> tar */
};

/* Report the current libarchive error (or "not a .tar.gz" before the format
 * was recognised). */
static int reader_fail(struct reader *r)
{
	const char *msg = archive_error_string(r->a);

	if (!r->checked)
		return scx_fail(NOT_TGZ, r->path);
	return scx_fail("%s: %s", r->path, msg ? msg : "unknown read error");
}

static void reader_close(struct reader *r)
{
	if (r->a)
		archive_read_free(r->a);
	if (r->fd >= 0)
		close(r->fd);
	r->a = NULL;
	r->fd = -1;
}

static int reader_open(struct reader *r, const char *path)
{
	r->path = path;
	r->checked = 0;
	r->a = NULL;
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (r->fd < 0)
		return scx_fail_errno("%s", path);
	r->a = archive_read_new();
	if (!r->a) {
		reader_close(r);
		return scx_fail("%s: out of memory", path);
	}
	archive_read_support_filter_gzip(r->a);
	archive_read_support_format_tar(r->a);
	if (archive_read_open_fd(r->a, r->fd, 64 * 1024) != ARCHIVE_OK) {
		reader_fail(r);
		reader_close(r);
		return -1;
	}
	return 0;
}

/* Exactly one gzip layer, then tar. */
static int reader_check(struct reader *r)
{
	if (r->checked)
		return 0;
	if (archive_filter_count(r->a) != 2 || archive_filter_code(r->a, 0) != ARCHIVE_FILTER_GZIP)
		return scx_fail(NOT_TGZ, r->path);
	r->checked = 1;
	return 0;
}

/* 1: *e is the next entry, 0: end of archive, -1: error. */
static int reader_next(struct reader *r, struct archive_entry **e)
{
	int rc = archive_read_next_header(r->a, e);

	if (rc == ARCHIVE_EOF)
		return reader_check(r) < 0 ? -1 : 0;
	if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
		return reader_fail(r);
	return reader_check(r) < 0 ? -1 : 1;
}

/* ---------------------------------------------------------------- names */

/* Copy s into buf for an error message: one line, bounded length. */
static const char *shown(const char *s, char *buf, size_t size)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[i] = '\0';
	return buf;
}

static int entry_fail(const char *archive, const char *name, const char *what)
{
	char buf[256];

	return scx_fail("%s: entry '%s': %s", archive, shown(name, buf, sizeof(buf)), what);
}

static int entry_fail_errno(const char *archive, const char *name, const char *what)
{
	char buf[256];

	return scx_fail_errno("%s: entry '%s': %s", archive, shown(name, buf, sizeof(buf)), what);
}

/* Append component [c, c+n) to out (length *len). NULL or a reason. */
static const char *push_component(const char *c, size_t n, char *out, size_t *len, int *depth)
{
	if (n == 0 || (n == 1 && c[0] == '.'))
		return NULL;
	if (n == 2 && c[0] == '.' && c[1] == '.')
		return "'..' path component refused";
	if (++*depth > ARCHIVE_MAX_DEPTH + 1)
		return "path nested too deeply";
	if (*len)
		out[(*len)++] = '/';
	memcpy(out + *len, c, n);
	*len += n;
	out[*len] = '\0';
	return NULL;
}

/*
 * Normalize an entry name into out (size > ARCHIVE_MAX_NAME): components
 * joined by '/', without empty or "." components. NULL on success, else the
 * reason the name is refused.
 */
static const char *normalize(const char *name, char *out)
{
	size_t len = 0;
	int depth = 0;
	const char *p = name;

	out[0] = '\0';
	if (name[0] == '/')
		return "absolute path refused";
	if (strlen(name) > ARCHIVE_MAX_NAME)
		return "name too long";
	while (*p) {
		size_t n = strcspn(p, "/");
		const char *why = push_component(p, n, out, &len, &depth);

		if (why)
			return why;
		p += n + (p[n] == '/');
	}
	return NULL;
}

/* ------------------------------------------------------- top-level check */

struct scan {
	struct reader r;
	char top[ARCHIVE_MAX_NAME + 1];
	int have_top;
	uint64_t entries, bytes, max_entries, max_bytes;
	int reads_data; /* regular file data is counted as it is read */
	char norm[ARCHIVE_MAX_NAME + 1];
	const char *name; /* raw name of the current entry */
	const char *rel;  /* its path below the top-level directory */
};

static int size_fail(struct scan *s)
{
	return scx_fail("%s: uncompressed size exceeds %llu bytes", s->r.path,
			(unsigned long long)s->max_bytes);
}

/*
 * Count the entry and its declared size against the caps. Data that is not
 * read by us (skipped by libarchive) is charged at its declared size.
 */
static int charge_entry(struct scan *s, struct archive_entry *e)
{
	la_int64_t size = archive_entry_size(e);
	int read_later = s->reads_data && archive_entry_filetype(e) == AE_IFREG && !archive_entry_hardlink(e);

	if (++s->entries > s->max_entries)
		return scx_fail("%s: more than %llu entries", s->r.path,
				(unsigned long long)s->max_entries);
	if (size < 0)
		return entry_fail(s->r.path, s->name, "invalid size");
	if ((uint64_t)size > s->max_bytes - s->bytes)
		return size_fail(s);
	if (!read_later)
		s->bytes += (uint64_t)size;
	return 0;
}

static int note_top(struct scan *s, const char *top, size_t n)
{
	char a[256], b[256], raw[256];

	if (!s->have_top) {
		memcpy(s->top, top, n);
		s->top[n] = '\0';
		s->have_top = 1;
		return 0;
	}
	if (strlen(s->top) == n && memcmp(s->top, top, n) == 0)
		return 0;
	snprintf(raw, sizeof(raw), "%.*s", (int)n, top);
	return scx_fail("%s contains multiple top-level entries (%s, %s)", s->r.path,
			shown(s->top, a, sizeof(a)), shown(raw, b, sizeof(b)));
}

/*
 * Common checks of one entry: name, caps, single top-level directory.
 * 1: s->rel is set (content below the top directory), 0: nothing to do
 * (the top directory itself or a bare "."), -1: error.
 */
static int scan_entry(struct scan *s, struct archive_entry *e)
{
	const char *why;
	size_t n;

	s->name = archive_entry_pathname(e);
	if (!s->name)
		return scx_fail("%s: entry with an unreadable name", s->r.path);
	if (charge_entry(s, e) < 0)
		return -1;
	why = normalize(s->name, s->norm);
	if (why)
		return entry_fail(s->r.path, s->name, why);
	if (!s->norm[0])
		return 0;
	n = strcspn(s->norm, "/");
	if (note_top(s, s->norm, n) < 0)
		return -1;
	s->rel = s->norm + n + (s->norm[n] == '/');
	if (*s->rel)
		return 1;
	if (archive_entry_filetype(e) != AE_IFDIR || archive_entry_hardlink(e))
		return entry_fail(s->r.path, s->name, "top-level entry is not a directory");
	return 0;
}

static int scan_init(struct scan *s, const char *path, const struct archive_limits *limits)
{
	memset(s, 0, sizeof(*s));
	s->max_bytes = limits && limits->max_total_bytes ? limits->max_total_bytes : ARCHIVE_MAX_TOTAL_BYTES;
	s->max_entries = limits && limits->max_entries ? limits->max_entries : ARCHIVE_MAX_ENTRIES;
	s->r.fd = -1;
	return reader_open(&s->r, path);
}

int archive_top_level(const char *archive_path, char *top, size_t top_size)
{
	struct scan *s = malloc(sizeof(*s));
	struct archive_entry *e;
	int rc;

	if (!s)
		return scx_fail("%s: out of memory", archive_path);
	if (scan_init(s, archive_path, NULL) < 0) {
		free(s);
		return -1;
	}
	while ((rc = reader_next(&s->r, &e)) == 1) {
		if (scan_entry(s, e) < 0) {
			rc = -1;
			break;
		}
	}
	if (rc == 0 && !s->have_top)
		rc = scx_fail("%s appears to be empty", archive_path);
	if (rc == 0 && strlen(s->top) >= top_size)
		rc = scx_fail("%s: top-level name too long", archive_path);
	if (rc == 0)
		strcpy(top, s->top);
	reader_close(&s->r);
	free(s);
	return rc;
}

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
		return entry_fail_errno(x->s.r.path, x->s.name, "mkdir");
	sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0 && (errno == ENOTDIR || errno == ELOOP))
		return entry_fail(x->s.r.path, x->s.name, "a parent path component is not a directory");
	if (sub < 0)
		return entry_fail_errno(x->s.r.path, x->s.name, "open directory");
	if (created && fchmod(sub, 0700) < 0) {
		close(sub);
		return entry_fail_errno(x->s.r.path, x->s.name, "chmod");
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

static int write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = ENOSPC;
			return -1;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy the current entry's data to fd, counting the bytes actually read. */
static int copy_data(struct extract *x, int fd)
{
	for (;;) {
		la_ssize_t n = archive_read_data(x->s.r.a, x->buf, sizeof(x->buf));

		if (n == 0)
			return 0;
		if (n < 0)
			return reader_fail(&x->s.r);
		if ((uint64_t)n > x->s.max_bytes - x->s.bytes)
			return size_fail(&x->s);
		x->s.bytes += (uint64_t)n;
		if (write_all(fd, x->buf, (size_t)n) < 0)
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
		return entry_fail(x->s.r.path, x->s.name, "duplicate entry (the path already exists)");
	if (fd < 0)
		return entry_fail_errno(x->s.r.path, x->s.name, "create");
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
	int rc = scan_entry(&x->s, e);

	if (rc <= 0)
		return rc;
	if (archive_entry_hardlink(e))
		return entry_fail(x->s.r.path, x->s.name, "hard link refused");
	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
		return extract_file(x);
	case AE_IFDIR:
		return extract_dir(x);
	case AE_IFLNK:
		why = symlink_escapes(x->s.rel, archive_entry_symlink(e));
		return why ? entry_fail(x->s.r.path, x->s.name, why) : 0;
	case AE_IFCHR:
		return entry_fail(x->s.r.path, x->s.name, "character device refused");
	case AE_IFBLK:
		return entry_fail(x->s.r.path, x->s.name, "block device refused");
	case AE_IFIFO:
		return entry_fail(x->s.r.path, x->s.name, "fifo refused");
	case AE_IFSOCK:
		return entry_fail(x->s.r.path, x->s.name, "socket refused");
	default:
		return entry_fail(x->s.r.path, x->s.name, "unsupported entry type");
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

	while ((rc = reader_next(&x->s.r, &e)) == 1)
		if (extract_entry(x, e) < 0)
			return -1;
	if (rc == 0 && !x->s.have_top)
		return scx_fail("%s appears to be empty", x->s.r.path);
	return rc;
}

static int extract_into(struct extract *x, const char *tmp, const struct archive_limits *limits)
{
	int rc;

	if (scan_init(&x->s, x->s.r.path, limits) < 0)
		return -1;
	x->s.reads_data = 1;
	x->rootfd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	rc = x->rootfd < 0 ? scx_fail_errno("%s", tmp) : extract_all(x);
	reader_close(&x->s.r);
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

/* -------------------------------------------------------------- creation */

struct writer {
	struct archive *a;
	const char *archive_path;
	const char *src;
	size_t top_len; /* strlen(top_name) */
	char buf[COPY_BUF_SIZE];
};

/* libarchive's message, and the system's reason when it has one ("Write
 * error" alone does not say that the disk is full). */
static int writer_fail(struct writer *w)
{
	const char *msg = archive_error_string(w->a);
	int err = archive_errno(w->a);

	if (!msg)
		msg = "write error";
	if (err > 0 && !strstr(msg, strerror(err)))
		return scx_fail("%s: %s: %s", w->archive_path, msg, strerror(err));
	return scx_fail("%s: %s", w->archive_path, msg);
}

static int write_header(struct writer *w, const char *path, const struct stat *st)
{
	struct archive_entry *e = archive_entry_new();
	int dir = S_ISDIR(st->st_mode);
	int rc;

	if (!e)
		return scx_fail("%s: out of memory", w->archive_path);
	archive_entry_set_pathname(e, path);
	archive_entry_set_filetype(e, dir ? AE_IFDIR : AE_IFREG);
	archive_entry_set_perm(e, dir ? 0700 : 0600);
	archive_entry_set_size(e, dir ? 0 : st->st_size);
	archive_entry_set_mtime(e, st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	rc = archive_write_header(w->a, e);
	archive_entry_free(e);
	return rc == ARCHIVE_OK || rc == ARCHIVE_WARN ? 0 : writer_fail(w);
}

/* Source path of an archive path, for messages. */
static const char *src_rel(struct writer *w, const char *path)
{
	return path[w->top_len] ? path + w->top_len + 1 : ".";
}

/* Stream exactly st_size bytes of fd (the file must not change). */
static int write_data(struct writer *w, int fd, const char *path, off_t size)
{
	off_t done = 0;

	for (;;) {
		ssize_t n = read(fd, w->buf, sizeof(w->buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return scx_fail_errno("%s/%s: read", w->src, src_rel(w, path));
		if (n == 0)
			break;
		if (n > size - done)
			break;
		if (archive_write_data(w->a, w->buf, (size_t)n) != n)
			return writer_fail(w);
		done += n;
	}
	if (done != size)
		return scx_fail("%s/%s: file changed while archiving", w->src, src_rel(w, path));
	return 0;
}

static int add_file(struct writer *w, int dfd, const char *name, const char *path)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int rc;

	if (fd < 0)
		return scx_fail_errno("%s/%s", w->src, src_rel(w, path));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return scx_fail("%s/%s: not a regular file", w->src, src_rel(w, path));
	}
	rc = write_header(w, path, &st);
	if (rc == 0)
		rc = write_data(w, fd, path, st.st_size);
	close(fd);
	return rc;
}

static int add_tree(struct writer *w, int dfd, const char *prefix, int depth);

static int add_child(struct writer *w, int dfd, const char *prefix, const char *name, int depth)
{
	struct stat st;
	char *path;
	int rc, sub;

	if (asprintf(&path, "%s/%s", prefix, name) < 0)
		return scx_fail("%s: out of memory", w->archive_path);
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = scx_fail_errno("%s/%s", w->src, src_rel(w, path));
	else if (S_ISREG(st.st_mode))
		rc = add_file(w, dfd, name, path);
	else if (!S_ISDIR(st.st_mode))
		rc = scx_fail("%s/%s: %s, only regular files and directories can be archived", w->src,
			      src_rel(w, path), S_ISLNK(st.st_mode) ? "symbolic link" : "special file");
	else if ((rc = write_header(w, path, &st)) == 0) {
		sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		rc = sub < 0 ? scx_fail_errno("%s/%s", w->src, src_rel(w, path)) : add_tree(w, sub, path, depth + 1);
		if (sub >= 0)
			close(sub);
	}
	free(path);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
	while (n > 0)
		free(names[--n]);
	free(names);
}

/* Sorted entry names of directory dfd (without "." and ".."). */
static int list_dir(struct writer *w, int dfd, const char *prefix, char ***out, size_t *count)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char **names = NULL, **grown;
	struct dirent *de;
	size_t n = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return scx_fail_errno("%s/%s", w->src, src_rel(w, prefix));
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		grown = realloc(names, (n + 1) * sizeof(*names));
		if (!grown || !(grown[n] = strdup(de->d_name))) {
			free_names(grown ? grown : names, n);
			closedir(d);
			return scx_fail("%s: out of memory", w->archive_path);
		}
		names = grown;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	*out = names;
	*count = n;
	return 0;
}

static int add_tree(struct writer *w, int dfd, const char *prefix, int depth)
{
	char **names = NULL;
	size_t n = 0, i;
	int rc = 0;

	if (depth > ARCHIVE_MAX_DEPTH)
		return scx_fail("%s/%s: nested too deeply", w->src, src_rel(w, prefix));
	if (list_dir(w, dfd, prefix, &names, &n) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++)
		rc = add_child(w, dfd, prefix, names[i], depth);
	free_names(names, n);
	return rc;
}

static int writer_open(struct writer *w, int fd)
{
	w->a = archive_write_new();
	if (!w->a)
		return scx_fail("%s: out of memory", w->archive_path);
	if (archive_write_add_filter_gzip(w->a) != ARCHIVE_OK ||
	    archive_write_set_filter_option(w->a, "gzip", "timestamp", NULL) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(w->a) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(w->a, 1) != ARCHIVE_OK ||
	    archive_write_open_fd(w->a, fd) != ARCHIVE_OK)
		return writer_fail(w);
	return 0;
}

static int write_tar(struct writer *w, int fd, int srcfd, const char *top_name)
{
	struct stat st;
	int rc = writer_open(w, fd);

	if (rc == 0 && fstat(srcfd, &st) < 0)
		rc = scx_fail_errno("%s", w->src);
	if (rc == 0)
		rc = write_header(w, top_name, &st);
	if (rc == 0)
		rc = add_tree(w, srcfd, top_name, 0);
	if (rc == 0 && archive_write_close(w->a) != ARCHIVE_OK)
		rc = writer_fail(w);
	if (w->a)
		archive_write_free(w->a);
	return rc;
}

/* Move tmp to path, failing (never replacing or following) if path exists. */
static int publish(const char *tmp, const char *path)
{
	int rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE);

	if (rc < 0 && (errno == EINVAL || errno == ENOSYS)) {
		rc = link(tmp, path);
		if (rc == 0)
			unlink(tmp);
	}
	if (rc < 0 && errno == EEXIST)
		return scx_fail("%s already exists", path);
	return rc < 0 ? scx_fail_errno("%s", path) : 0;
}

static int bad_top_name(const char *top)
{
	return !top[0] || strchr(top, '/') || !strcmp(top, ".") || !strcmp(top, "..") ||
	       strlen(top) > NAME_MAX;
}

static int create_tmp(const char *archive_path, int srcfd, const char *src_dir, const char *top_name, char *tmp)
{
	struct writer *w = malloc(sizeof(*w));
	int fd = w ? mkostemp(tmp, O_CLOEXEC) : -1;
	int rc;

	if (!w)
		return scx_fail("%s: out of memory", archive_path);
	if (fd < 0) {
		free(w);
		return scx_fail_errno("%s: cannot create temporary file", archive_path);
	}
	w->archive_path = archive_path;
	w->src = src_dir;
	w->top_len = strlen(top_name);
	rc = write_tar(w, fd, srcfd, top_name);
	if (rc == 0 && fsync(fd) < 0)
		rc = scx_fail_errno("%s: fsync", archive_path);
	if (close(fd) < 0 && rc == 0)
		rc = scx_fail_errno("%s: close", archive_path);
	if (rc == 0)
		rc = publish(tmp, archive_path);
	if (rc < 0)
		unlink(tmp);
	free(w);
	return rc;
}

int archive_create(const char *archive_path, const char *src_dir, const char *top_name)
{
	char tmp[PATH_MAX + 16];
	struct stat st;
	int srcfd, rc;

	if (bad_top_name(top_name))
		return scx_fail("%s: invalid top-level name '%s'", archive_path, top_name);
	if (lstat(archive_path, &st) == 0)
		return scx_fail("%s already exists", archive_path);
	if (errno != ENOENT)
		return scx_fail_errno("%s", archive_path);
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", archive_path) >= sizeof(tmp))
		return scx_fail("%s: name too long", archive_path);
	srcfd = open(src_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (srcfd < 0)
		return scx_fail_errno("%s", src_dir);
	rc = create_tmp(archive_path, srcfd, src_dir, top_name, tmp);
	close(srcfd);
	return rc;
}
