/*
 * archive_internal.h - what the files of the archive module share (see
 * archive.h): archive.c (the reader, entry names, the top-level check and
 * its limits), archive_extract.c (extraction) and archive_create.c
 * (deterministic writing). Not for other modules.
 */
#ifndef SCX_ARCHIVE_INTERNAL_H
#define SCX_ARCHIVE_INTERNAL_H

#include <archive.h>
#include <archive_entry.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/archive.h"

#define ARCHIVE_MAX_NAME 4095
#define ARCHIVE_MAX_DEPTH 64
#define COPY_BUF_SIZE (64 * 1024)
#define NOT_TGZ "%s: not a gzip-compressed tar archive"

struct reader {
	const char *path;
	struct archive *a;
	int fd;
	int checked; /* the filter chain was verified to be gzip -> tar */
};

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

/* Report the current libarchive error (or "not a .tar.gz" before the format
 * was recognised). */
int archive_reader_fail(struct reader *r);
void archive_reader_close(struct reader *r);
/* 1: *e is the next entry, 0: end of archive, -1: error. */
int archive_reader_next(struct reader *r, struct archive_entry **e);
int archive_name_fail(const char *archive, const char *name, const char *what);
int archive_name_fail_errno(const char *archive, const char *name, const char *what);
int archive_scan_size_fail(struct scan *s);
/*
 * Common checks of one entry: name, caps, single top-level directory.
 * 1: s->rel is set (content below the top directory), 0: nothing to do
 * (the top directory itself or a bare "."), -1: error.
 */
int archive_scan_entry(struct scan *s, struct archive_entry *e);
int archive_scan_init(struct scan *s, const char *path, const struct archive_limits *limits);

#endif
