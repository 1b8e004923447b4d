/*
 * streams.h - the contract of record/streams/, the streams `record` drains
 * while recording: the memory stream (mem_stream.c, its counters here too),
 * the scheduling stream (sched_stream.c; its header, sched_stream.h, is
 * part of this contract and included below) and the hints tracer
 * (hints_tracer.c). The rest of record/ includes nothing else from this
 * room (direct_out.h and libbpf_quiet.h are its own).
 */
#ifndef SCX_RECORD_STREAMS_H
#define SCX_RECORD_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/perfdata.h"
#include "record/backend/backend.h"
#include "record/decode/decode.h"
#include "record/perfdata/record_perfdata.h"
#include "record/streams/sched_stream.h"

/* ---- the counters of the memory stream of `record`, filled by
 * mem_stream.c while draining and by decode_stream.c (record/decode/) for
 * the samples it rewrites.
 */

struct mem_stream_stats {
	uint64_t samples, records;
	uint64_t lost_records, lost_events, lost_samples, throttle, unthrottle;
	uint64_t phys_resolved, phys_unresolved, phys_kernel; /* kernel: the kernel gave it */
	uint64_t phys_exited;   /* of phys_unresolved: the process had exited before the drain */
	uint64_t first_time, last_time;
	uint64_t rounds;
	uint64_t foreign_ids;   /* samples that carried another program's event id, restored */
	uint64_t ksymbol_fixed; /* KSYMBOL records whose trailer the kernel wrote short of their
	                         * end (another recording listened too), put back: ksymbol_fix.c */
	struct decode_stats decode; /* the decode backend's counters */
	struct auxtrace_stats aux;  /* Arm SPE: AUX data copied, PERF_RECORD_AUX flags */
	uint64_t aux_area_bytes;    /* Arm SPE: size of each cpu's AUX area */
	int64_t time_conv_adjust_ns; /* Arm SPE: CLOCK_MONOTONIC - perf clock, added to
	                              * TIME_CONV's time_zero (0: not measured, see mem_stream.c) */
	bool time_conv_adjusted;
};

/* ---- mem_stream.c: the memory-sampling stream of `record`: one event set per
 * CPU (the backend's memory events plus a side-band event for COMM, FORK,
 * EXIT, MMAP2 and CGROUP records), all writing into one ring buffer per CPU,
 * drained into a perf.data writer in FINISHED_ROUND passes.
 *
 * All events share one sample_type, so every record's sample_id trailer
 * has the same layout (perf and our reader need that). With the software
 * backend, samples whose phys_addr is 0 (the fault was not served yet when
 * sampled) get it from /proc/PID/pagemap while draining; the shared zero
 * page (reads of untouched memory) is not an address anything shares.
 * With the decode backend the side-band event takes the sample_type of the
 * rewritten samples (same trailer as the cpu-clock samples), and every
 * cpu-clock sample goes through decode_stream.c instead of to the file.
 * With Arm SPE each cpu's SPE event has a ring of its own (PERF_RECORD_AUX
 * records) and an AUX area, copied out as AUXTRACE records at every drain
 * (record/perfdata/auxtrace.c); the side-band event also records context
 * switches; TIME_CONV and AUXTRACE_INFO are written when the rings open.
 */

struct mem_stream_opts {
	size_t mmap_pages;      /* data pages per CPU ring (power of two); 0 = 1024 (4 MiB) */
	size_t aux_pages;       /* Arm SPE: AUX area pages per CPU (power of two); 0 = perf's
	                         * default: 4 MiB privileged, else 128 KiB */
	bool resolve_phys;      /* fill phys_addr 0 from pagemap (software backend) */
};

struct cpu_ring;

struct mem_stream {
	struct mem_backend *be;
	struct pd_writer *w;
	struct mem_stream_opts opts;
	struct cpu_ring *rings;
	size_t nr_rings;
	struct perf_event_attr sideband;
	uint64_t sample_type;
	size_t trailer_size;          /* of the shared sample_id trailer */
	/* fixed offsets in a sample body (bytes after the header), or -1 */
	int off_tid, off_time, off_addr, off_phys, off_page_size;
	int off_id, off_identifier; /* PERF_SAMPLE_ID / IDENTIFIER in a sample body, or -1 */
	struct mem_stream_stats st;
	struct pagemap_cache *pagemaps; /* when resolve_phys */
	struct decode_stream *decode;   /* the decode backend: rewrites cpu-clock samples */
	struct auxtrace aux;            /* Arm SPE: the AUXTRACE index and counters */
	uint64_t aux_reference;         /* Arm SPE: the session's AUXTRACE reference */
};

/*
 * record -v: libbpf's messages (all but its debug ones) go to stderr too,
 * so a program the kernel refuses comes with the verifier's log; off, the
 * BPF streams keep only the first for their one-line errors
 * (record/streams/libbpf_quiet.c).
 */
void streams_verbose(bool on);

/* Open every event on every online CPU and map the rings; the attrs and
 * their ids are added to w. Events start disabled. */
int mem_stream_open(struct mem_stream *ms, struct mem_backend *be, struct pd_writer *w,
		    const struct mem_stream_opts *o);
int mem_stream_enable(struct mem_stream *ms);
int mem_stream_disable(struct mem_stream *ms);
/* Copy everything in the rings to w, then a FINISHED_ROUND. */
int mem_stream_drain(struct mem_stream *ms);
/* Arm SPE: add the HEADER_AUXTRACE index to w (nothing for other
 * backends). Call once, after the last drain. */
int mem_stream_add_features(struct mem_stream *ms);
/* How often to drain, in ms (see mem_stream.c). */
int mem_stream_drain_ms(const struct mem_stream *ms);
void mem_stream_close(struct mem_stream *ms);

/* ---- hints_tracer.c: records every change of the per-thread hints a sched_ext
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
	uint64_t max_snapshot_gap_ns; /* snapshot mode: the longest time between two snapshots'
	                               * starts; a value held for less may be missing */
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

/* The stats so far, while it runs (record's status line shows
 * updates_written). A change made before a snapshot started is in the
 * tracer's view once snapshots has risen by two since the change. */
void hints_tracer_counts(const struct hints_tracer *t, struct hints_tracer_stats *st);

/* The mode that runs ("fentry" or "iter-snapshot"). */
const char *hints_tracer_mode(const struct hints_tracer *t);

/* Detach, final drain/snapshot, fill stats (may be NULL), free. Frees even
 * when it fails (the last lines could not be written). */
int hints_tracer_stop(struct hints_tracer *t, struct hints_tracer_stats *st);

#endif
