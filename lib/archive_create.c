/*
 * archive_create.c - writing a profile archive (.tar.gz) deterministically
 * with libarchive (see archive.h; shared pieces: archive_internal.h): the
 * tree's entries in name order, files 0600 and directories 0700, written
 * as a file of mode 0600 by lib/host's write_file.c (a temporary beside it,
 * fsync, a rename that never replaces).
 */
#include "archive.h"
#include "archive_internal.h"
#include "error.h"
#include "lib/host/host.h"

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

static int bad_top_name(const char *top)
{
	return !top[0] || strchr(top, '/') || !strcmp(top, ".") || !strcmp(top, "..") ||
	       strlen(top) > NAME_MAX;
}

/* The job host_write_file_fd runs on the temporary file. */
struct tar_job {
	struct writer *w;
	int srcfd;
	const char *top_name;
};

static int write_tar_fd(int fd, void *ctx)
{
	struct tar_job *j = ctx;

	return write_tar(j->w, fd, j->srcfd, j->top_name);
}

int archive_create(const char *archive_path, const char *src_dir, const char *top_name)
{
	struct tar_job j = {.top_name = top_name};
	struct stat st;
	int rc;

	if (bad_top_name(top_name))
		return scx_fail("%s: invalid top-level name '%s'", archive_path, top_name);
	if (lstat(archive_path, &st) == 0)
		return scx_fail("%s already exists", archive_path);
	if (errno != ENOENT)
		return scx_fail_errno("%s", archive_path);
	j.srcfd = open(src_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j.srcfd < 0)
		return scx_fail_errno("%s", src_dir);
	j.w = malloc(sizeof(*j.w));
	if (!j.w) {
		close(j.srcfd);
		return scx_fail("%s: out of memory", archive_path);
	}
	j.w->archive_path = archive_path;
	j.w->src = src_dir;
	j.w->top_len = strlen(top_name);
	rc = host_write_file_fd(archive_path, 0600, write_tar_fd, &j);
	free(j.w);
	close(j.srcfd);
	return rc;
}
