/*
 * kernel_match.h - may this machine's /proc/kallsyms symbolize a recording's
 * kernel samples? Only when the recording was made on this very kernel, as
 * perf decides it: the kernel build-id in perf.data (BUILD_ID feature,
 * "[kernel.kallsyms]") equals the running kernel's (/sys/kernel/notes), and
 * the recording's kernel map starts at the running kernel's _text (same
 * relocation, so same boot under KASLR). A file's mtime proves nothing
 * (cp, scp and tar keep or reset it at will).
 */
#ifndef SCX_KERNEL_MATCH_H
#define SCX_KERNEL_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/perfdata.h"

/* Start of the recording's kernel map: the first MMAP/MMAP2 record of
 * "[kernel.kallsyms]" before the first sample (perf synthesizes it first).
 * true and *start when found. */
bool kernel_match_map_start(const struct pd_file *f, uint64_t *start);

/*
 * No kallsyms snapshot: true when kallsyms_path (normally /proc/kallsyms)
 * may serve f, whose running kernel's notes are at notes_path (normally
 * /sys/kernel/notes). Else false, and why holds one line naming f and the
 * reason ("recorded on another kernel (build-id X, running Y)", ...).
 */
bool kernel_match_running(const struct pd_file *f, const char *notes_path, const char *kallsyms_path,
			  char *why, size_t size);

/*
 * A kallsyms snapshot: false (and why) when it visibly belongs to another
 * boot or kernel than f: its _text is not where f's kernel map starts, or
 * snapshot_bid (the build-id record noted with it, size 0 if unknown)
 * differs from f's kernel build-id. The snapshot is still used.
 */
bool kernel_match_snapshot(const struct pd_file *f, const char *snapshot, const uint8_t *snapshot_bid,
			   size_t snapshot_bid_size, char *why, size_t size);

#endif
