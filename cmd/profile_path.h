/*
 * profile_path.h - `-f PATH` of process and one-pass extract: a profile
 * directory, a .tar.gz of one extracted next to it into its base name
 * (reused when that directory is already there), or a perf.data file on
 * its own (perf record's, any name: the profile is that one file).
 */
#ifndef SCX_CMD_PROFILE_PATH_H
#define SCX_CMD_PROFILE_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* True when path ends with suffix. */
bool profile_path_ends_with(const char *path, const char *suffix);

/* PATH -> the profile directory (or the perf.data file) in dir; what was done ("Extracted A to B",
 * "Using already extracted B") goes to note unless it is NULL. -1 with
 * scx_fail. */
int profile_path_resolve(const char *path, char *dir, size_t size, FILE *note);

#endif
