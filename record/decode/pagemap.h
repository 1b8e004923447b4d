/*
 * pagemap.h - physical addresses of user virtual addresses from
 * /proc/PID/pagemap, read in blocks of 64 entries per drain pass (one pread
 * serves nearby samples), with the page size from /proc/kpageflags (one
 * pread per page and pass, only for pages whose virtual and physical
 * offsets in a 2 MiB frame agree: no other can be mapped huge) and the
 * kernel's shared zero page reported as "no physical address" (reads of
 * untouched memory share nothing). Used by the page-fault and decode
 * backends while draining, when the pages are still mapped.
 */
#ifndef SCX_RECORD_PAGEMAP_H
#define SCX_RECORD_PAGEMAP_H

#include <stdint.h>

struct pagemap_cache;

struct pagemap_stats {
	uint64_t pagemap_reads;    /* preads of a block of pagemap entries */
	uint64_t kpageflags_reads; /* preads of one PFN's page flags */
};

/* NULL when out of memory (scx_fail set). */
struct pagemap_cache *pagemap_new(void);
/* A new drain pass: blocks read earlier are read again when needed. */
void pagemap_next_pass(struct pagemap_cache *pc);
/* Physical address of vaddr in pid, 0 when the page is not present, the
 * PFN is hidden (no CAP_SYS_ADMIN) or it is the zero page; *page_size gets
 * the page's size when nonzero is returned. */
uint64_t pagemap_phys(struct pagemap_cache *pc, int pid, uint64_t vaddr, uint64_t *page_size);
/* pid exec'd or exited: an open pagemap file keeps reading the old
 * address space (the mm is bound at open), so close it. */
void pagemap_forget(struct pagemap_cache *pc, int pid);
const struct pagemap_stats *pagemap_stats(const struct pagemap_cache *pc);
void pagemap_free(struct pagemap_cache *pc);

#endif
