/*
 * pagemap.c - /proc/PID/pagemap lookups in blocks (see decode.h).
 */
#include "record/decode/decode.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/error.h"

#define PAGEMAP_SLOTS 64
#define PAGEMAP_BLOCK 64 /* entries read at once: 256 KiB of address space */
#define PAGEMAP_BLOCKS 256
#define KPF_SLOTS 1024   /* page flags remembered per pass (direct-mapped by PFN) */
#define KPF_HUGE_BITS ((1ULL << 17) | (1ULL << 22)) /* KPF_HUGE, KPF_THP */
#define USER_VA_TOP (1ULL << 47) /* x86-64 4-level paging, arm64 48-bit VA: user space is below */

struct pagemap_cache {
	struct { int pid, fd; uint64_t used; } slot[PAGEMAP_SLOTS];
	uint64_t clock;
	/* blocks read during the current drain pass (reset at each pass: the
	 * answer is "mapped at drain time" either way, just read in bulk) */
	struct {
		int pid;
		uint64_t block;
		uint64_t pass;
		uint64_t entry[PAGEMAP_BLOCK];
	} block[PAGEMAP_BLOCKS];
	/* whether a PFN is part of a huge page, learned during the current
	 * pass (hot pages are sampled many times a pass: one pread each) */
	struct {
		uint64_t pfn;
		uint64_t pass;
		bool huge;
	} kpf[KPF_SLOTS];
	uint64_t pass;
	uint64_t page_size;
	struct pagemap_stats st;
	uint64_t zero_pfn;
	int kpageflags_fd;
};

/* The PFN of the kernel's shared zero page: what a read of never-written
 * anonymous memory maps. 0 when it cannot be learned. */
static uint64_t zero_page_pfn(uint64_t page_size)
{
	volatile const char *p = mmap(NULL, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t entry = 0, pfn = 0;
	int fd;

	if (p == MAP_FAILED)
		return 0;
	(void)p[0];
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, &entry, sizeof(entry), (off_t)((uintptr_t)p / page_size) * 8) == sizeof(entry) &&
	    (entry >> 63 & 1))
		pfn = entry & ((1ULL << 55) - 1);
	if (fd >= 0)
		close(fd);
	munmap((void *)p, page_size);
	return pfn;
}

struct pagemap_cache *pagemap_new(void)
{
	struct pagemap_cache *pc = calloc(1, sizeof(*pc));

	if (!pc) {
		scx_fail("out of memory");
		return NULL;
	}
	pc->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	pc->kpageflags_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	pc->zero_pfn = zero_page_pfn(pc->page_size);
	pc->pass = 1;
	return pc;
}

void pagemap_next_pass(struct pagemap_cache *pc)
{
	pc->pass++;
}

static int pagemap_fd(struct pagemap_cache *pc, int pid)
{
	char path[64];
	size_t i, victim = 0;

	pc->clock++;
	for (i = 0; i < PAGEMAP_SLOTS; i++) {
		if (pc->slot[i].fd > 0 && pc->slot[i].pid == pid) {
			pc->slot[i].used = pc->clock;
			return pc->slot[i].fd;
		}
		if (pc->slot[i].used < pc->slot[victim].used)
			victim = i;
	}
	if (pc->slot[victim].fd > 0)
		close(pc->slot[victim].fd);
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	pc->slot[victim].fd = open(path, O_RDONLY | O_CLOEXEC);
	pc->slot[victim].pid = pid;
	pc->slot[victim].used = pc->clock;
	return pc->slot[victim].fd;
}

/* The pagemap entry of virtual page vpage of pid, from this pass's blocks:
 * 0, -1 when it cannot be read, -2 when that is because pid has exited (no
 * /proc/PID any more, or its pagemap reads nothing below the top of a user
 * address space: the mm is gone). */
static int pagemap_entry(struct pagemap_cache *pc, int pid, uint64_t vpage, uint64_t *entry)
{
	uint64_t blk = vpage / PAGEMAP_BLOCK;
	size_t slot = (size_t)((blk * 0x9e3779b97f4a7c15ULL ^ (uint64_t)pid) >> 56) % PAGEMAP_BLOCKS;
	ssize_t n;
	int fd;

	if (pc->block[slot].pass != pc->pass || pc->block[slot].pid != pid || pc->block[slot].block != blk) {
		fd = pagemap_fd(pc, pid);
		if (fd <= 0)
			return errno == ENOENT || errno == ESRCH ? -2 : -1;
		n = pread(fd, pc->block[slot].entry, sizeof(pc->block[slot].entry), (off_t)(blk * PAGEMAP_BLOCK * 8));
		pc->st.pagemap_reads++;
		if (n < 0)
			return errno == ESRCH ? -2 : -1;
		if (n == 0)
			return vpage * pc->page_size < USER_VA_TOP ? -2 : -1;
		if ((size_t)n < sizeof(pc->block[slot].entry)) /* end of the address space */
			memset((char *)pc->block[slot].entry + n, 0, sizeof(pc->block[slot].entry) - (size_t)n);
		pc->block[slot].pass = pc->pass;
		pc->block[slot].pid = pid;
		pc->block[slot].block = blk;
	}
	*entry = pc->block[slot].entry[vpage % PAGEMAP_BLOCK];
	return 0;
}

/* Whether pfn belongs to a huge page (hugetlbfs or THP), from
 * /proc/kpageflags, remembered for the pass. */
static bool is_huge(struct pagemap_cache *pc, uint64_t pfn)
{
	size_t slot = (size_t)(pfn % KPF_SLOTS);
	uint64_t flags;

	if (pc->kpageflags_fd < 0)
		return false;
	if (pc->kpf[slot].pass != pc->pass || pc->kpf[slot].pfn != pfn) {
		pc->st.kpageflags_reads++;
		pc->kpf[slot].pfn = pfn;
		pc->kpf[slot].pass = pc->pass;
		pc->kpf[slot].huge = pread(pc->kpageflags_fd, &flags, sizeof(flags), (off_t)pfn * 8) == sizeof(flags) &&
				     (flags & KPF_HUGE_BITS);
	}
	return pc->kpf[slot].huge;
}

uint64_t pagemap_phys(struct pagemap_cache *pc, int pid, uint64_t vaddr, uint64_t *page_size)
{
	uint64_t entry, pfn, sub;
	uint64_t page = pc->page_size;

	switch (pagemap_entry(pc, pid, vaddr / page, &entry)) {
	case -2:
		pc->st.exited++;
		return 0;
	case -1:
		return 0;
	}
	if (!(entry >> 63 & 1))
		return 0;
	pfn = entry & ((1ULL << 55) - 1);
	if (!pfn)
		return 0; /* without CAP_SYS_ADMIN the kernel hides PFNs */
	if (pfn == pc->zero_pfn)
		return 0; /* reads of untouched memory: nothing is shared through it */
	/* a page the MMU maps as 2 MiB (what perf's data_page_size says) has
	 * the same offset in its 2 MiB frame virtually and physically; only
	 * such a PFN can be one, so the others need no page flags */
	sub = (2ULL << 20) / page - 1;
	*page_size = ((pfn ^ vaddr / page) & sub) == 0 && is_huge(pc, pfn & ~sub) ? 2ULL << 20 : page;
	return pfn * page + (vaddr & (page - 1));
}

const struct pagemap_stats *pagemap_stats(const struct pagemap_cache *pc)
{
	return &pc->st;
}

void pagemap_forget(struct pagemap_cache *pc, int pid)
{
	for (size_t i = 0; i < PAGEMAP_SLOTS; i++)
		if (pc->slot[i].fd > 0 && pc->slot[i].pid == pid) {
			close(pc->slot[i].fd);
			pc->slot[i].fd = 0;
			pc->slot[i].used = 0;
		}
	for (size_t i = 0; i < PAGEMAP_BLOCKS; i++)
		if (pc->block[i].pid == pid)
			pc->block[i].pass = 0;
}

void pagemap_free(struct pagemap_cache *pc)
{
	if (!pc)
		return;
	for (size_t i = 0; i < PAGEMAP_SLOTS; i++)
		if (pc->slot[i].fd > 0)
			close(pc->slot[i].fd);
	if (pc->kpageflags_fd >= 0)
		close(pc->kpageflags_fd);
	free(pc);
}
