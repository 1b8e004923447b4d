/*
 * cgroup.c - the cgroup2 mount, a cgroup's directory under it and the one
 * walk of a cgroup tree (see host.h), for record's CGROUP records and
 * cpusets and place's thread lists.
 */
#include "lib/host/host.h"

#include <dirent.h>
#include <limits.h>
#include <string.h>

#include "lib/error.h"

int host_cgroup2_mount(char *out, size_t size)
{
	char line[8192], dev[256], dir[4096], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");
	int rc = -1;

	if (size)
		out[0] = '\0';
	if (!f)
		return scx_fail_errno("/proc/self/mounts");
	while (rc && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %4095s %63s", dev, dir, type) == 3 && !strcmp(type, "cgroup2") &&
		    strlen(dir) < size) {
			memcpy(out, dir, strlen(dir) + 1);
			rc = 0;
		}
	fclose(f);
	return rc ? scx_fail("no cgroup2 mount in /proc/self/mounts") : 0;
}

int host_cgroup_dir(const char *path, char *out, size_t size)
{
	char mnt[4096];
	size_t m;

	if (host_cgroup2_mount(mnt, sizeof(mnt)) < 0)
		return -1;
	m = strlen(mnt);
	if (path[0] == '/' && !strncmp(path, mnt, m) && (path[m] == '/' || !path[m])) {
		if (snprintf(out, size, "%s", path) >= (int)size)
			return scx_fail("%s: path too long", path);
		return 0;
	}
	if (snprintf(out, size, "%s/%s", mnt, path[0] == '/' ? path + 1 : path) >= (int)size)
		return scx_fail("%s: path too long", path);
	return 0;
}

/* path (a directory of PATH_MAX bytes being built, its root the first root_len) and below it. */
static int walk(char *path, size_t root_len, int depth, host_cgroup_fn *each, void *ctx)
{
	size_t len = strlen(path);
	struct dirent *e;
	DIR *d;
	int rc;

	if ((rc = each(path, len == root_len ? "/" : path + root_len, ctx)) || depth > HOST_CGROUP_MAX_DEPTH ||
	    !(d = opendir(path)))
		return rc;
	while (rc == 0 && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.' || len + strlen(e->d_name) + 2 >= PATH_MAX)
			continue;
		snprintf(path + len, PATH_MAX - len, "/%s", e->d_name);
		rc = walk(path, root_len, depth + 1, each, ctx);
		path[len] = '\0';
	}
	closedir(d);
	return rc;
}

int host_cgroup_walk(const char *root, host_cgroup_fn *each, void *ctx)
{
	char path[PATH_MAX];
	size_t len = strlen(root);

	while (len > 1 && root[len - 1] == '/') /* "/sys/fs/cgroup/" is "/sys/fs/cgroup" */
		len--;
	if (len >= sizeof(path))
		return scx_fail("%s: path too long", root);
	memcpy(path, root, len);
	path[len] = '\0';
	return walk(path, len, 0, each, ctx);
}
