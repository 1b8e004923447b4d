/*
 * inode_gen.h - the inode generation of a file a process maps, for the
 * MMAP2 records synthesized from /proc/PID/maps (which has no generation):
 * without it the same file would get another identity (perf.jsonl data_id)
 * in a process that existed before recording than in one started during it,
 * whose MMAP2 the kernel fills with i_generation.
 *
 * Read through /proc/PID/map_files/START-END: FS_IOC_GETVERSION (ext2/3/4),
 * else a file handle that carries the generation (FILEID_INO32_GEN, the
 * generic layout {ino, gen} or tmpfs's {gen, ino_lo, ino_hi}, recognised by
 * the inode number it also holds). 0 when neither tells it (memfd, SysV shm
 * and shared anonymous memory live on the kernel's internal shmem mount,
 * which gives no handles) or without the privilege to open map_files.
 * Results are cached per (device, inode).
 */
#ifndef SCX_RECORD_INODE_GEN_H
#define SCX_RECORD_INODE_GEN_H

#include <stdbool.h>
#include <stdint.h>

#define INODE_GEN_CACHE 1024

struct inode_gen_cache {
	struct {
		uint32_t maj, min;
		uint64_t ino, gen;
		bool used;
	} e[INODE_GEN_CACHE];
};

uint64_t inode_gen_of_map(struct inode_gen_cache *c, const char *proc_root, int pid, uint64_t start,
			  uint64_t end, uint32_t maj, uint32_t min, uint64_t ino);

#endif
