/*
 * sched_stream.h - the scheduling stream of record: tp_btf programs on the
 * scheduler, irq, softirq, NMI and local-timer tracepoints (bpf/sched.bpf.c)
 * emit chunks of packed records (bpf/sched_batch.h) through one BPF ring buffer; this
 * side writes them to sched.data (format: schemas/sched-data.md), header
 * first.
 *
 * Tracepoints the running kernel lacks (no btf_trace_NAME in its BTF, e.g.
 * nmi_handler and local_timer_* outside x86) are not loaded and are listed in
 * the stats; sched_switch missing is an error.
 *
 * Usage: start, then loop { poll(sched_stream_fd(), ...); sched_stream_poll(); },
 * then stop (detaches first, then drains the ring, then reports). The output
 * FILE stays the caller's to close. Functions return -1 with scx_fail() set
 * on error and never print.
 */
#ifndef SCX_RECORD_SCHED_STREAM_H
#define SCX_RECORD_SCHED_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SCHED_DEFAULT_RING_MB 32
#define SCHED_MAX_RING_MB 4096u
#define SCHED_MAX_TRACEPOINTS 16

struct sched_stream;

struct sched_stream_opts {
	unsigned ring_mb; /* ring buffer size in MB, a power of two (0: 32) */
	FILE *out;        /* sched.data, positioned at its start */
};

struct sched_stream_stats {
	uint64_t records;     /* records written to sched.data */
	uint64_t drops;       /* records lost: to a full ring buffer, plus lost */
	/* records the programs made that reached neither sched.data nor the
	 * ring's drop count: hits - records - ring drops (0 unless a bug) */
	uint64_t lost;
	/* runs of our program per attached tracepoint (parallel to attached[]),
	 * counted by the program before it stores its record: the witness that
	 * hits = records + drops */
	uint64_t hits[SCHED_MAX_TRACEPOINTS];
	uint64_t drops_nmi;   /* of drops, NMI records (ring lock held by the interrupted cpu) */
	/* hits the kernel did not run our program for, per attached tracepoint
	 * (parallel to attached[]): the same program was already running on that
	 * cpu (an irq interrupting it hit the same tracepoint) and BPF's
	 * recursion guard skips nested runs. bpf_prog_info.recursion_misses. */
	uint64_t skipped_nested[SCHED_MAX_TRACEPOINTS];
	uint64_t start_ns;    /* CLOCK_MONOTONIC just before attaching (the header's start_ns) */
	unsigned ring_mb;
	/* tracepoint names (static strings), e.g. "sched_switch" */
	const char *attached[SCHED_MAX_TRACEPOINTS];
	size_t nr_attached;
	const char *missing[SCHED_MAX_TRACEPOINTS];
	size_t nr_missing;
};

/* Sum of st->skipped_nested. */
uint64_t sched_stream_skipped_total(const struct sched_stream_stats *st);

/* Check the options, load and attach every tracepoint the kernel has, write
 * the sched.data header. */
int sched_stream_start(struct sched_stream **out, const struct sched_stream_opts *o);

/* The ring buffer's epoll fd: poll it for POLLIN, with a short timeout too:
 * it only becomes readable once the ring is a quarter full. */
int sched_stream_fd(const struct sched_stream *s);

/* Where the BPF side leaves the bytes waiting in the ring (updated at each
 * batch, readable from any thread), and the level at which it wakes the
 * reader (a quarter of the ring). */
const volatile uint64_t *sched_stream_ring_avail(const struct sched_stream *s);
uint64_t sched_stream_wakeup_bytes(const struct sched_stream *s);

/* Consume what the ring buffer holds and write it. Non-blocking. */
int sched_stream_poll(struct sched_stream *s);

/* Records written so far (for progress lines). */
uint64_t sched_stream_records(const struct sched_stream *s);

/* Detach every program, drain the ring, flush the output, fill stats (may be
 * NULL), free. Frees even when it fails. */
int sched_stream_stop(struct sched_stream *s, struct sched_stream_stats *st);

#endif
