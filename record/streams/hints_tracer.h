/*
 * hints_tracer.h - records every change of the per-thread hints a sched_ext
 * scheduler keeps in a pinned BPF task-storage map, as hints.jsonl lines
 * {"pid":TID,"tgid":TGID,"hints":VALUE,"timestamp":NS} (CLOCK_MONOTONIC ns;
 * schemas/hints.schema.json).
 *
 * Two modes (kernel side: bpf/hints.bpf.c):
 * - "fentry": a program on the kernel's map-update function sees every
 *   update made with bpf(2), exactly, through a ring buffer of ring_mb MB.
 *   pid/tgid name the task whose hint changed (the pidfd key is resolved),
 *   not the task that made the update. One snapshot (below) taken just
 *   before fentry is attached records the values threads already had.
 * - "iter-snapshot", used when the kernel refuses fentry (or force_snapshot):
 *   every poll_ms an iter/task program reads every task's value; a line is
 *   written when a thread is first seen with a value or its value changed,
 *   stamped with the time the value was read. Changes that are undone within
 *   one period are not seen. why_not_fentry says why this mode ran.
 *
 * Usage: start, then loop { poll(hints_tracer_fd(), hints_tracer_timeout_ms());
 * hints_tracer_poll(); }, then stop. Functions return -1 with scx_fail() set
 * on error and never print.
 */
#ifndef SCX_RECORD_HINTS_TRACER_H
#define SCX_RECORD_HINTS_TRACER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HINTS_DEFAULT_RING_MB 8
#define HINTS_DEFAULT_POLL_MS 10

/* Upstream's end-of-recording warning; the argument is stats.drops. */
#define HINTS_DROP_WARNING_FMT \
	"warning: %llu hints events were dropped due to full ring buffer, " \
	"consider increasing --hints-map-ring-sz\n"

struct hints_tracer;

struct hints_tracer_opts {
	const char *map_path; /* pinned task-storage map */
	unsigned ring_mb;     /* ring buffer size in MB, a power of two (0: 8) */
	unsigned poll_ms;     /* snapshot period in fallback mode (0: 10) */
	FILE *out;            /* hints.jsonl, written line by line */
	bool force_snapshot;  /* testing: skip fentry */
};

struct hints_tracer_stats {
	uint64_t updates_written; /* hints.jsonl lines */
	uint64_t drops;           /* fentry: events lost to a full ring buffer */
	uint64_t snapshots;       /* snapshots taken (fentry mode: the initial one) */
	uint64_t unresolved;      /* fentry: updates of the map whose key named no task */
	char mode[32];            /* "fentry" or "iter-snapshot" */
	char why_not_fentry[256]; /* "" in fentry mode */
};

/* Open the map (clear errors: missing path, not a BPF object, not a
 * task-storage map: says its type), load and attach. */
int hints_tracer_start(struct hints_tracer **out, const struct hints_tracer_opts *o);

/* The fd to poll for readiness (ring buffer epoll fd), or -1 in snapshot mode. */
int hints_tracer_fd(const struct hints_tracer *t);

/* Do pending work: consume the ring buffer, or take a snapshot when poll_ms
 * has passed. Non-blocking. */
int hints_tracer_poll(struct hints_tracer *t);

/* Milliseconds until the tracer wants hints_tracer_poll() again (snapshot
 * mode; 0 when a snapshot is due), or -1 (fentry mode: poll the fd). */
int hints_tracer_timeout_ms(const struct hints_tracer *t);

/* Snapshots completed so far (fentry mode: the initial one). A change made
 * before a snapshot started is in the tracer's view once this has risen by
 * two since the change. */
uint64_t hints_tracer_snapshots(const struct hints_tracer *t);

/* The mode that runs ("fentry" or "iter-snapshot"). */
const char *hints_tracer_mode(const struct hints_tracer *t);

/* Detach, final drain/snapshot, fill stats (may be NULL), free. Frees even
 * when it fails (the last lines could not be written). */
int hints_tracer_stop(struct hints_tracer *t, struct hints_tracer_stats *st);

#endif
