/*
 * archive.c - profile archives (.tar.gz): hostile-input-safe reading and
 * extraction, and deterministic writing, with libarchive. See archive.h.
 * This file: the reader, entry names and the top-level check with its
 * limits; extraction is archive_extract.c, writing archive_create.c.
 * The extraction policy is at the top of archive_extract.c.
 */
#include "archive.h"
#include "archive_internal.h"
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

/* ---------------------------------------------------------------- reader */

/* Report the current libarchive error (or "not a .tar.gz" before the format
 * was recognised). */
int archive_reader_fail(struct reader *r)
{
	const char *msg = archive_error_string(r->a);

	if (!r->checked)
		return scx_fail(NOT_TGZ, r->path);
	return scx_fail("%s: %s", r->path, msg ? msg : "unknown read error");
}

void archive_reader_close(struct reader *r)
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
		archive_reader_close(r);
		return scx_fail("%s: out of memory", path);
	}
	archive_read_support_filter_gzip(r->a);
	archive_read_support_format_tar(r->a);
	if (archive_read_open_fd(r->a, r->fd, 64 * 1024) != ARCHIVE_OK) {
		archive_reader_fail(r);
		archive_reader_close(r);
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
int archive_reader_next(struct reader *r, struct archive_entry **e)
{
	int rc = archive_read_next_header(r->a, e);

	if (rc == ARCHIVE_EOF)
		return reader_check(r) < 0 ? -1 : 0;
	if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
		return archive_reader_fail(r);
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

int archive_name_fail(const char *archive, const char *name, const char *what)
{
	char buf[256];

	return scx_fail("%s: entry '%s': %s", archive, shown(name, buf, sizeof(buf)), what);
}

int archive_name_fail_errno(const char *archive, const char *name, const char *what)
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

int archive_scan_size_fail(struct scan *s)
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
		return archive_name_fail(s->r.path, s->name, "invalid size");
	if ((uint64_t)size > s->max_bytes - s->bytes)
		return archive_scan_size_fail(s);
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
int archive_scan_entry(struct scan *s, struct archive_entry *e)
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
		return archive_name_fail(s->r.path, s->name, why);
	if (!s->norm[0])
		return 0;
	n = strcspn(s->norm, "/");
	if (note_top(s, s->norm, n) < 0)
		return -1;
	s->rel = s->norm + n + (s->norm[n] == '/');
	if (*s->rel)
		return 1;
	if (archive_entry_filetype(e) != AE_IFDIR || archive_entry_hardlink(e))
		return archive_name_fail(s->r.path, s->name, "top-level entry is not a directory");
	return 0;
}

int archive_scan_init(struct scan *s, const char *path, const struct archive_limits *limits)
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
	if (archive_scan_init(s, archive_path, NULL) < 0) {
		free(s);
		return -1;
	}
	while ((rc = archive_reader_next(&s->r, &e)) == 1) {
		if (archive_scan_entry(s, e) < 0) {
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
	archive_reader_close(&s->r);
	free(s);
	return rc;
}
