/*
 * sched_batch.h - what the scheduling-stream BPF program (bpf/sched.bpf.c) and
 * its loader (record/streams/sched_stream.c) share beyond the sched.data format
 * (lib/sched_data_format.h): the per-CPU batch the kernel side fills.
 */
#ifndef SCX_BPF_SCHED_H
#define SCX_BPF_SCHED_H

#include "lib/sched_data_format.h"

/* Records per per-CPU batch (bpf/sched.bpf.c); not part of the file format. */
#define SCHED_BATCH 64

/* The kernel side's per-CPU batch (bpf/sched.bpf.c, value of the
 * sched_batches map): one chunk being filled; not part of the file format
 * except that buf[0..len) becomes a chunk once its header is filled in. */
#define SCHED_CHUNK_CAP (SCHED_CHUNK_HEADER_SIZE + SCHED_BATCH * SCHED_PACKED_MAX)
#define SCHED_COMM_SLOTS 8 /* power of 2 */

struct sched_batch {
	__u32 busy; /* a program on this CPU is filling a record */
	__u32 n;    /* records in buf */
	__u32 len;  /* bytes of buf in use, chunk header included (0: none yet) */
	__u32 pad;
	__u16 comm_at[SCHED_COMM_SLOTS]; /* by pid: where in buf a comm was last written */
	/* hits of each tracepoint on this CPU (by record type): every run of a
	 * program, counted before it tries to store its record; userspace checks
	 * hits = records written + drops (record/sched_stream.c) */
	__u64 hits[SCHED_RECORD_TYPE_MAX + 1];
	__u8 buf[SCHED_CHUNK_CAP];       /* the chunk; its header is filled in when handed over */
};

#endif
