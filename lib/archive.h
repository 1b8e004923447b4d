/*
 * archive.h - profile archives (.tar.gz) read and written with libarchive.
 *
 * Archives are hostile input. Extraction refuses, with a one-line message
 * naming the archive and the entry: absolute paths, ".." components, links
 * (symlinks or hard links) whose target leaves the tree, device, fifo and
 * socket entries, more than one top-level entry, an empty archive, and a
 * total size (or entry count) beyond the caps below. Nothing is ever written
 * outside the destination: entries are extracted into a temporary directory
 * next to the destination which is renamed into place only when the whole
 * archive was read successfully (and removed otherwise).
 */
#ifndef SCX_ARCHIVE_H
#define SCX_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#define ARCHIVE_MAX_TOTAL_BYTES (64ULL << 30) /* 64 GiB uncompressed */
#define ARCHIVE_MAX_ENTRIES 100000

struct archive_limits {
	uint64_t max_total_bytes; /* 0 = ARCHIVE_MAX_TOTAL_BYTES */
	uint64_t max_entries;     /* 0 = ARCHIVE_MAX_ENTRIES */
};

/*
 * Check that archive_path has exactly one top-level entry (a directory) and
 * return its name in top (NUL-terminated). Errors, as upstream words them:
 *   "<archive> appears to be empty"
 *   "<archive> contains multiple top-level entries (<a>, <b>)"
 * and "<archive>: not a gzip-compressed tar archive" for anything else.
 */
int archive_top_level(const char *archive_path, char *top, size_t top_size);

/*
 * Extract archive_path so that its single top-level directory's content ends
 * up in dest_dir (which must not exist yet; its parent must). The top-level
 * directory's own name does not matter (upstream renames it on archiving).
 * limits may be NULL for the defaults.
 */
int archive_extract(const char *archive_path, const char *dest_dir, const struct archive_limits *limits);

/*
 * Write a gzip tar of src_dir to archive_path with top_name as the single
 * top-level directory. Files 0600, directories 0700, regular files and
 * directories only. Writes archive_path.tmp.XXXXXX and renames at the end; a
 * symlink planted at archive_path is never followed (the rename replaces
 * nothing: it fails if archive_path exists).
 */
int archive_create(const char *archive_path, const char *src_dir, const char *top_name);

#endif
