/*
 * summary.h - the contract of process/summary/, summaries: what record's
 * metadata.json says about the recording (schemas/metadata.schema.json),
 * read as hostile input through metadata_json.c: the host for the trace
 * (perfetto_host.c), the kernel of the kallsyms snapshot (record_kernel.c),
 * the recording's own losses (record_losses.c) and the recorder's pids
 * (record_self.c); and what the process stage read and decided, written as
 * process.json (process_summary.c). The rest of the library includes
 * nothing else from this room (metadata_json.h is its own).
 */
#ifndef SCX_PROCESS_SUMMARY_H
#define SCX_PROCESS_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/pftrace/perfetto_types.h"
#include "process/process_types.h"

/* ---- perfetto_host.c: the recording host for the trace's SystemInfo, from metadata.json
 * (perfetto_host.c).
 */
/* The recording host from metadata.json ("kernel", "arch",
 * "online_cpus"); fields it lacks stay empty. -1 (scx_fail) if unreadable. */
int pftrace_host_from_metadata(const char *path, struct pftrace_host *host);

/* ---- record_kernel.c: which kernel the profile's kallsyms snapshot comes from:
 * "kernel_build_id" of metadata.json (schemas/metadata.schema.json), the
 * build-id of the kernel record ran on when it copied /proc/kallsyms.
 * process warns when the recording's perf.data names another kernel (files
 * of two profiles mixed).
 */
/*
 * Read path (metadata.json): its size in bytes (1..20) and the id in bid;
 * 0 when the file names none (older profiles, or "" when record could not
 * read it); -1 with scx_fail() when the file cannot be read or the value is
 * not hex of 1 to 20 bytes (the file is treated as hostile: size-capped,
 * types checked).
 */
int record_kernel_build_id(const char *path, uint8_t bid[20]);

/* ---- record_losses.c: what the recording itself lost, from the profile's
 * metadata.json (written by record, schemas/metadata.schema.json): records a
 * full ring buffer dropped and tracepoint hits BPF's recursion guard skipped.
 * process warns about them, since the analysis host does not see record's
 * own warnings.
 */
struct record_losses {
	uint64_t sched_drops;   /* sched.drops */
	uint64_t sched_skipped; /* sched.skipped_nested (0 in files older than it) */
};

/* Read path (metadata.json); -1 with scx_fail() set when it cannot be read
 * or has no sched counts (a file treated as hostile: size-capped, types
 * checked). */
int record_losses_read(const char *path, struct record_losses *out);

/* ---- record_self.c: the recorder's own processes, from the profile's
 * metadata.json ("recorder", schemas/metadata.schema.json), so that process
 * drops their samples as upstream drops those of comm "perf".
 */
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

/* ---- process_summary.c: process.json, the record of what the process stage
 * read and decided (schemas/process-summary.schema.json).
 */
/* Write process.json (one JSON object and a newline). */
int process_summary_write(FILE *f, const struct process_inputs *in, const struct process_result *res);

#endif
