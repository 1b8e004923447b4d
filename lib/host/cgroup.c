/*
 * cgroup.c - the cgroup2 mount and a cgroup's directory under it (see
 * host.h), for record's CGROUP records and place's thread lists.
 */
#include "lib/host/host.h"

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
