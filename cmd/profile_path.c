/*
 * profile_path.c - a profile directory from `-f PATH` (see profile_path.h).
 */
#include "cmd/profile_path.h"

#include <string.h>
#include <sys/stat.h>

#include "lib/archive.h"
#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/perfdata.h"

bool profile_path_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

int profile_path_resolve(const char *path, char *dir, size_t size, FILE *note)
{
	char top[1024];
	struct stat st;

	if (stat(path, &st) < 0)
		return scx_fail_errno("%s", path);
	if (S_ISDIR(st.st_mode)) {
		fs_strip_suffix(dir, size, path, "");
		return 0;
	}
	if (S_ISREG(st.st_mode) && pd_is_perf_data(path)) { /* a perf.data on its own: the profile is the file */
		if (snprintf(dir, size, "%s", path) >= (int)size)
			return scx_fail("%s: path too long", path);
		return 0;
	}
	if (!S_ISREG(st.st_mode) || !profile_path_ends_with(path, ".tar.gz"))
		return scx_fail("%s: not a profile directory, a .tar.gz archive of one or a perf.data file", path);
	fs_strip_suffix(dir, size, path, ".tar.gz");
	if (fs_is_dir(dir)) {
		if (note)
			fprintf(note, "Using already extracted %s\n", dir);
		return 0;
	}
	if (fs_exists(dir))
		return scx_fail("%s: exists and is not a directory; cannot extract %s there", dir, path);
	if (archive_top_level(path, top, sizeof(top)) < 0)
		return -1;
	if (archive_extract(path, dir, NULL) < 0)
		return -1;
	if (note)
		fprintf(note, "Extracted %s to %s\n", path, dir);
	return 0;
}
