/*
 * inode_gen.c - inode generations of mapped files (see inode_gen.h).
 */
#include "record/perfdata/inode_gen.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define FILEID_INO32_GEN 1

static uint64_t read_gen(int fd, uint64_t ino)
{
	uint32_t v[2] = {0, 0};
	union {
		struct file_handle fh;
		uint8_t buf[sizeof(struct file_handle) + 64];
	} h;
	uint32_t f[3];
	int mount_id;

	if (ioctl(fd, FS_IOC_GETVERSION, v) == 0)
		return v[0];
	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = 64;
	if (name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) < 0 || h.fh.handle_type != FILEID_INO32_GEN)
		return 0;
	memcpy(f, h.fh.f_handle, h.fh.handle_bytes < sizeof(f) ? h.fh.handle_bytes : sizeof(f));
	if (h.fh.handle_bytes == 12 && (f[1] | (uint64_t)f[2] << 32) == ino)
		return f[0]; /* tmpfs: gen, ino low, ino high */
	if (h.fh.handle_bytes == 8 && f[0] == (uint32_t)ino)
		return f[1]; /* generic: ino, gen */
	return 0;
}

uint64_t inode_gen_of_map(struct inode_gen_cache *c, const char *proc_root, int pid, uint64_t start,
			  uint64_t end, uint32_t maj, uint32_t min, uint64_t ino)
{
	size_t slot = (size_t)((ino * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)maj << 20 | min)) % INODE_GEN_CACHE);
	char path[512];
	uint64_t gen = 0;
	int fd;

	if (c && c->e[slot].used && c->e[slot].ino == ino && c->e[slot].maj == maj && c->e[slot].min == min)
		return c->e[slot].gen;
	snprintf(path, sizeof(path), "%s/%d/map_files/%llx-%llx", proc_root, pid, (unsigned long long)start,
		 (unsigned long long)end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	gen = read_gen(fd, ino);
	close(fd);
	if (c) {
		c->e[slot].maj = maj;
		c->e[slot].min = min;
		c->e[slot].ino = ino;
		c->e[slot].gen = gen;
		c->e[slot].used = true;
	}
	return gen;
}
