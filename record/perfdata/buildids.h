/*
 * buildids.h - the BUILD_ID feature of perf.mem.data: the running kernel
 * ("[kernel.kallsyms]", from /sys/kernel/notes), the [vdso] and every file
 * the recording saw mapped (MMAP and MMAP2 records, synthesized or from the
 * kernel), each with the build-id of its ELF notes, as perf record writes
 * them. perf report / perf script on another host use them to find the
 * right binaries (build-id cache, debuginfod); process checks them too.
 *
 *   struct buildids b; buildids_init(&b);
 *   w.observe = buildids_observe; w.observe_ctx = &b;   // every record written
 *   ... buildids_add_feature(&b, &w, "/sys/kernel/notes"); buildids_free(&b);
 */
#ifndef SCX_BUILDIDS_H
#define SCX_BUILDIDS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/perfdata.h"

struct buildids {
	char **slots;   /* open addressing set of file names */
	size_t cap, n;
	bool saw_vdso;
	bool oom;       /* a name could not be kept */
	size_t written; /* entries in the feature (after buildids_add_feature) */
};

void buildids_init(struct buildids *b);
/* pd_writer observer: notes the file name of MMAP/MMAP2 records. */
void buildids_observe(void *ctx, const void *rec, size_t size);
/* Read the build-ids and add the BUILD_ID feature to w. Files that are
 * gone, not ELF or without a build-id are left out (as perf does). */
int buildids_add_feature(struct buildids *b, struct pd_writer *w, const char *kernel_notes);
void buildids_free(struct buildids *b);

#endif
