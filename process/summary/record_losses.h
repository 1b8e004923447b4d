/*
 * record_losses.h - what the recording itself lost, from the profile's
 * metadata.json (written by record, schemas/metadata.schema.json): records a
 * full ring buffer dropped and tracepoint hits BPF's recursion guard skipped.
 * process warns about them, since the analysis host does not see record's
 * own warnings.
 */
#ifndef SCX_PROCESS_RECORD_LOSSES_H
#define SCX_PROCESS_RECORD_LOSSES_H

#include <stdint.h>

struct record_losses {
	uint64_t sched_drops;   /* sched.drops */
	uint64_t sched_skipped; /* sched.skipped_nested (0 in files older than it) */
};

/* Read path (metadata.json); -1 with scx_fail() set when it cannot be read
 * or has no sched counts (a file treated as hostile: size-capped, types
 * checked). */
int record_losses_read(const char *path, struct record_losses *out);

#endif
