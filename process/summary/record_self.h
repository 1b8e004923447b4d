/*
 * record_self.h - the recorder's own processes, from the profile's
 * metadata.json ("recorder", schemas/metadata.schema.json), so that process
 * drops their samples as upstream drops those of comm "perf".
 */
#ifndef SCX_PROCESS_RECORD_SELF_H
#define SCX_PROCESS_RECORD_SELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RECORD_SELF_MAX_PIDS 16

struct record_self {
	int32_t pids[RECORD_SELF_MAX_PIDS]; /* the recorder's tgids */
	size_t nr_pids;
	char comm[16];                      /* the recorder's comm */
	int32_t command_pid;                /* its -- COMMAND, 0 if none: the recorder's until exec */
};

/*
 * Read path (metadata.json). 0 with nr_pids = 0 when the file has no
 * "recorder" (profiles older than it); -1 with scx_fail() set when it cannot
 * be read or "recorder" is malformed (the file is treated as hostile:
 * size-capped, types and ranges checked).
 */
int record_self_read(const char *path, struct record_self *out);

/* Whether a sample of pid, whose thread is named comm, is the recorder's. */
bool record_self_owns(const struct record_self *s, int64_t pid, const char *comm);

#endif
