/*
 * vdso.c - finds and saves this process's vDSO image (see vdso.h).
 */
#include "vdso.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/fsutil.h"

int vdso_image(const void **start, size_t *len)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR), lo, hi = 0;
	char line[512];
	FILE *maps;

	if (!base)
		return scx_fail("this process has no vDSO");
	if (!(maps = fopen("/proc/self/maps", "re")))
		return scx_fail_errno("/proc/self/maps");
	while (fgets(line, sizeof(line), maps)) {
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base)
			break;
		hi = 0;
	}
	fclose(maps);
	if (!hi || hi - base > (64UL << 20))
		return scx_fail("/proc/self/maps: no [vdso] mapping at %#lx", base);
	*start = (const void *)base;
	*len = hi - base;
	return 0;
}

int vdso_save(const char *path)
{
	const void *start;
	size_t len;
	int fd;

	if (vdso_image(&start, &len) < 0)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return scx_fail_errno("%s: cannot create", path);
	if (fs_write_all(fd, start, len) < 0) {
		scx_fail_errno("%s: write failed", path);
		close(fd);
		unlink(path);
		return -1;
	}
	if (close(fd) < 0)
		return scx_fail_errno("%s: write failed", path);
	return 0;
}
