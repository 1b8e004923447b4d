/*
 * fsutil.h - small filesystem helpers shared by the stages: recursive
 * removal that never follows symlinks, existence checks, path joining,
 * temporary sibling directories, the "write to a temp name, rename at
 * the end" pattern for output directories, reading a small file whole and
 * writing a buffer whole.
 */
#ifndef SCX_FSUTIL_H
#define SCX_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Remove path (file, symlink or directory tree) without following symlinks.
 * A missing path is not an error. */
int fs_remove_tree(const char *path);

bool fs_exists(const char *path);   /* lstat succeeds (a dangling symlink exists) */
bool fs_is_dir(const char *path);   /* a directory, not a symlink to one */
bool fs_is_file(const char *path);  /* a regular file, not a symlink to one */

/* out = dir + "/" + name; -1 (scx_fail) when it does not fit. */
int fs_join(char *out, size_t size, const char *dir, const char *name);

/* Create a fresh directory "<final>.tmp.XXXXXX" next to final (mode 0700) and
 * put its path in out. */
int fs_make_temp_dir_for(const char *final, char *out, size_t size);

/*
 * Move the finished temp directory to final. If final exists: with replace,
 * the old one is moved aside, the new one renamed in, then the old removed;
 * without replace, it is an error ("<final> already exists").
 */
int fs_commit_dir(const char *tmp, const char *final, bool replace);

/* Create dir/name for writing: it must not exist, a symlink there is never
 * followed. NULL (scx_fail naming the path) on error. */
FILE *fs_create_in(const char *dir, const char *name, unsigned mode);

/* write(2) all of len bytes, again after EINTR and a partial write: 0, or
 * -1 with errno (ENOSPC when write() takes nothing, as a short write sets
 * none). */
int fs_write_all(int fd, const void *buf, size_t len);

/* Copy a regular file (refuses symlinks at src; dst must not exist). */
int fs_copy_file(const char *src, const char *dst);

/*
 * The whole of path, a regular file of at most max bytes, in *buf (malloc'd,
 * a NUL after its *n bytes). -1 (scx_fail naming path) when it cannot be
 * opened or read, or is no regular file of at most max bytes (a FIFO is
 * refused without blocking).
 */
int fs_read_file(const char *path, size_t max, char **buf, size_t *n);

/* Remove a trailing "/" and, if path ends with suffix, strip it into out. */
void fs_strip_suffix(char *out, size_t size, const char *path, const char *suffix);

#endif
