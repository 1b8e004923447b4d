/*
 * data_id.h - the stable identity of a sampled data page (perf.jsonl
 * data_id, c2c-style), and how a mapping decides which kind its pages get:
 *
 *   A:<pid>:<vpage>                         anonymous private memory and private
 *                                           writable file mappings (COW)
 *   F:<maj>:<min>:<ino>:<gen>:<filepage>    MAP_SHARED files, SysV/POSIX shm, memfd,
 *                                           MAP_SHARED|MAP_ANONYMOUS (a shmem inode)
 *   R:<maj>:<min>:<ino>:<gen>:<filepage>    private read-only file mappings (text, rodata)
 *   K:<physpage>                            addresses in the kernel half
 *
 * Pages are 4 KiB; numbers are lower-case hex without 0x (pid decimal). When a
 * mapping has no inode (MMAP2 carrying a build-id, or an MMAP v1 record) a
 * file is identified by its path: maj = min = gen = 0, ino = FNV-1a 64 of the
 * path; names that do not identify one object ("/dev/zero (deleted)",
 * "/memfd:x (deleted)", any "(deleted)") then give no identity.
 */
#ifndef SCX_DATA_ID_H
#define SCX_DATA_ID_H

#include <stdbool.h>
#include <stdint.h>

enum data_id_kind { DATA_ID_NONE = 0, DATA_ID_ANON, DATA_ID_FILE, DATA_ID_RO, DATA_ID_KERNEL };

struct data_id {
	enum data_id_kind kind;
	int32_t pid;          /* ANON */
	uint32_t maj, min;    /* FILE, RO */
	uint64_t ino, ino_gen;
	uint64_t page;        /* ANON: vpage; FILE/RO: page in the file; KERNEL: physical page */
};

/* What a mapping's record says about it. */
struct data_id_map {
	const char *name;
	bool has_prot;        /* MMAP2: prot and flags are known */
	uint32_t prot, flags; /* PROT_*, MAP_* */
	bool has_ino;         /* MMAP2 without a build-id: maj/min/ino/gen are known */
	uint32_t maj, min;
	uint64_t ino, ino_gen;
};

/*
 * The kind of identity a mapping gives its pages, and the file identity
 * (maj/min/ino/gen, from the inode or the path hash) for FILE and RO.
 */
enum data_id_kind data_id_map_kind(const struct data_id_map *m, uint32_t *maj, uint32_t *min,
				   uint64_t *ino, uint64_t *ino_gen);

/* Names of memory that belongs to no file: //anon, [heap], [stack], ... */
bool data_id_name_is_anon(const char *name);

/* Most bytes data_id_put() writes. */
#define DATA_ID_JSON_MAX 128

/* Write the JSON value: the quoted identity, or null for DATA_ID_NONE.
 * It may store scratch bytes past the end, never past DATA_ID_JSON_MAX. */
char *data_id_put(char *p, const struct data_id *d);

/* What data_id_put() writes before the page: the opening quote, the kind
 * and the fields the page's number follows ("F:1a:3:9c1:0:"); nothing for
 * DATA_ID_NONE. The same for every page of one mapping, so a writer may keep
 * it. Stores at most DATA_ID_HEAD_MAX bytes. */
#define DATA_ID_HEAD_MAX 64
char *data_id_put_head(char *p, const struct data_id *d);

#endif
