/*
 * allotment_configs.c - extract --per-allotment-config DIR (see
 * sharing.h): one config file per recorded allotment, the written config
 * with its allotment spec replaced by that allotment's own, each checked
 * against the reader's rules; all written into a directory beside DIR, then
 * renamed to DIR, which must not exist.
 */
#include "extract/sharing/sharing.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/error.h"
#include "lib/fsutil.h"

/* The file name of a spec: its cgroup name, bytes outside [A-Za-z0-9._@+-] as '_', a leading '.' too, ".json". */
static void file_name(char *out, size_t size, const char *cgroup, size_t dup)
{
	size_t n = 0;

	for (const char *p = cgroup; *p && n + 24 < size; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  strchr("._@+-", c);

		if (!ok || (n == 0 && c == '.'))
			c = '_';
		out[n++] = c;
	}
	if (!n)
		out[n++] = '_';
	if (dup)
		n += (size_t)snprintf(out + n, size - n, "-%zu", dup);
	snprintf(out + n, size - n, ".json");
}

/* A name not yet used by specs 0..k-1 (two cgroups can map to one file name). */
static void unique_name(char *out, size_t size, const struct cell_config *specs, size_t k)
{
	for (size_t dup = 0;; dup++) {
		bool taken = false;

		file_name(out, size, specs->cells[k].name, dup);
		for (size_t j = 0; j < k && !taken; j++) {
			char other[512];

			for (size_t d = 0; d <= dup && !taken; d++) {
				file_name(other, sizeof(other), specs->cells[j].name, d);
				taken = !strcmp(other, out);
			}
		}
		if (!taken)
			return;
	}
}

/* dir/name: cfg with cell allot replaced by spec (shallow copies: nothing to free). */
static int write_one(const char *dir, const char *name, const struct cell_config *cfg, size_t allot,
		     const struct cell *spec, const struct reader_limits *l)
{
	struct cell_config one = {.cells = malloc((cfg->nr_cells + 1) * sizeof(struct cell))};
	char path[4096];
	FILE *f;
	int rc;

	if (!one.cells)
		return scx_fail("out of memory");
	for (size_t i = 0; i < cfg->nr_cells; i++)
		one.cells[one.nr_cells++] = i == allot ? *spec : cfg->cells[i];
	if (fs_join(path, sizeof(path), dir, name) < 0 || !(f = fs_create_in(dir, name, 0644))) {
		free(one.cells);
		return -1;
	}
	rc = cell_config_write_checked(&one, l, name, f);
	if (fclose(f) != 0 && !rc)
		rc = scx_fail_errno("%s", path);
	free(one.cells);
	return rc;
}

long allotment_configs_write(const char *dir, const struct cell_config *cfg, size_t allot,
			     const struct cell_config *specs, const struct reader_limits *l)
{
	char tmp[4096], name[512];
	mode_t um = umask(0);

	umask(um);
	if (allot >= cfg->nr_cells || !specs->nr_cells)
		return scx_fail("%s: no allotment cgroup was recorded (none matched the allotment regex): no config "
				"written", dir);
	if (fs_exists(dir))
		return scx_fail("%s: already exists, not overwritten", dir);
	if (fs_make_temp_dir_for(dir, tmp, sizeof(tmp)) < 0)
		return -1;
	for (size_t k = 0; k < specs->nr_cells; k++) {
		unique_name(name, sizeof(name), specs, k);
		if (write_one(tmp, name, cfg, allot, &specs->cells[k], l) < 0)
			goto fail;
	}
	if (chmod(tmp, 0777 & ~um) < 0) {
		scx_fail_errno("%s", tmp);
		goto fail;
	}
	if (fs_commit_dir(tmp, dir, false) < 0)
		goto fail;
	return (long)specs->nr_cells;
fail:
	fs_remove_tree(tmp);
	return -1;
}
