/*
 * perfetto_writer.h - the trace writer's core (perfetto_writer.c): the
 * state of one trace, packet framing and sequences, the thread table and
 * thread tracks. The encoders call it: perfetto_sched.c (ftrace bundles per
 * CPU) and perfetto_track.c (hint counters and memory samples as
 * TrackEvents, interning); perfetto_trace.c (the file: SystemInfo,
 * ProcessTree, start and finish) sits on top of them. The core calls none of
 * them. Message and field numbers are Perfetto's (protos/perfetto/trace/...);
 * the ones used are listed in schemas/trace-pftrace.md.
 */
#ifndef SCX_PERFETTO_WRITER_H
#define SCX_PERFETTO_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/u64map.h"
#include "lib/pftrace/perfetto_pb.h"
#include "lib/pftrace/perfetto_types.h"

/* TracePacket fields */
enum {
	TP_FTRACE_EVENTS = 1, TP_PROCESS_TREE = 2, TP_CLOCK_SNAPSHOT = 6, TP_TIMESTAMP = 8, TP_TRACK_EVENT = 11,
	TP_INTERNED_DATA = 12, TP_SEQUENCE_ID = 10, TP_SEQUENCE_FLAGS = 13, TP_SYSTEM_INFO = 45,
	TP_COMPRESSED_PACKETS = 50, TP_TIMESTAMP_CLOCK_ID = 58, TP_DEFAULTS = 59, TP_TRACK_DESCRIPTOR = 60,
};
/* Clocks: the trace's own (BOOTTIME to trace_processor; our timestamps are
 * CLOCK_MONOTONIC, written as they are) and the memory samples' sequence-
 * scoped incremental clock (each packet's timestamp a delta). */
enum { PFT_CLOCK_TRACE = 6, PFT_CLOCK_INCREMENTAL = 64 };
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };

/* Trusted sequence ids: descriptors and hint counters, ftrace bundles,
 * memory samples. */
enum { PFT_SEQ_TRACK = 1, PFT_SEQ_FTRACE = 2, PFT_SEQ_MEM = 3, PFT_NR_SEQ };

/* Track uuids: (the thread's index + 1) << 2 | kind, small so that the
 * varint every sample carries is short (1 byte for the first 31 threads). */
enum { PFT_UUID_THREAD = 1, PFT_UUID_HINT = 2, PFT_UUID_MEM = 3 };
#define PFT_UUID(kind, th) (((uint64_t)(th)->idx + 1) << 2 | (kind))

#define PFT_MAX_CPUS 1024 /* FtraceEventBundle.cpu limit */
#define PFT_COMM_LEN 16

struct pft_thread {
	uint32_t idx;          /* order of creation: the tracks' uuids */
	int32_t tgid;          /* -1 unknown */
	char comm[PFT_COMM_LEN];
	bool thread_track, hint_track, mem_track;
};

struct pft_cpu;            /* perfetto_sched.c */
struct pft_strings;        /* perfetto_track.c */

struct pftrace {
	FILE *out;
	struct pb_buf pkt;     /* packets not yet written, the last one being built */
	struct pb_buf zpkt;    /* ftrace bundle packets not yet compressed */
	struct pb_buf zout;    /* scratch for their compressed form */
	size_t pkt_at;         /* where the packet being built starts */
	bool seq_started[PFT_NR_SEQ];   /* a packet of the sequence was written (flag 1 given) */
	struct u64map threads; /* tid -> struct pft_thread */
	uint64_t first_ts;     /* earliest timestamp written, for the ProcessTree */
	bool have_ts;
	struct pft_cpu *cpus[PFT_MAX_CPUS];
	struct pft_strings *strings;
	struct pftrace_stats st;
};

/* Start a packet (Trace.packet) of sequence seq at the end of t->pkt, with
 * its sequence id and flags (extra_flags, and on the sequence's first packet
 * SEQ_INCREMENTAL_STATE_CLEARED); its fields are appended to t->pkt. */
void pft_packet_begin(struct pftrace *t, unsigned seq, uint32_t extra_flags);
/* Close the packet; writes the gathered packets when there are enough. */
int pft_packet_end(struct pftrace *t);
/* The same for a packet appended to t->pkt whole (not begun with
 * pft_packet_begin), on a sequence already started. */
int pft_packet_written(struct pftrace *t);
/* Close the packet without writing anything (for one built in another
 * buffer swapped into t->pkt). */
int pft_packet_close(struct pftrace *t);
/* Write t->zpkt as one compressed_packets packet. */
int pft_compress_out(struct pftrace *t);
/* Write the packets gathered so far in t->pkt. */
int pft_flush_out(struct pftrace *t);
void pft_note_ts(struct pftrace *t, uint64_t ts);
/* The thread table entry of tid (created unknown); NULL on out of memory. */
struct pft_thread *pft_thread(struct pftrace *t, uint32_t tid);
/* Record what is known of a thread (tgid < 0 or comm NULL: unknown). */
int pft_note_thread(struct pftrace *t, int64_t tid, int64_t tgid, const char *comm);
/* Declare tid's thread track once (TrackDescriptor with ThreadDescriptor). */
int pft_thread_track(struct pftrace *t, uint32_t tid, struct pft_thread *th, uint64_t ts);

#endif
