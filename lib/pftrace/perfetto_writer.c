/*
 * perfetto_writer.c - the trace writer's core (see perfetto_writer.h):
 * packet framing and sequences, batched output, the compressed batches of
 * scheduling packets, the thread table and thread tracks. It calls none of
 * the encoders (perfetto_sched.c, perfetto_track.c) nor perfetto_trace.c.
 */
#include "lib/pftrace/perfetto_writer.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "lib/error.h"

/* Packets are gathered in t->pkt and written in batches of about this size. */
#define OUT_BATCH (1u << 20)

void pft_packet_begin(struct pftrace *t, unsigned seq, uint32_t extra_flags)
{
	uint32_t flags = extra_flags;

	t->pkt_at = pb_open(&t->pkt, 1); /* Trace.packet */
	if (!t->seq_started[seq]) {
		flags |= SEQ_INCREMENTAL_STATE_CLEARED;
		t->seq_started[seq] = true;
	}
	pb_varint(&t->pkt, TP_SEQUENCE_ID, seq);
	if (flags)
		pb_varint(&t->pkt, TP_SEQUENCE_FLAGS, flags);
}

int pft_flush_out(struct pftrace *t)
{
	if (t->pkt.len && fwrite(t->pkt.p, 1, t->pkt.len, t->out) != t->pkt.len)
		return scx_fail_errno("trace.pftrace: write failed");
	t->st.bytes += t->pkt.len;
	t->pkt.len = 0;
	return 0;
}

int pft_packet_written(struct pftrace *t)
{
	t->st.packets++;
	return t->pkt.len >= OUT_BATCH ? pft_flush_out(t) : 0;
}

int pft_packet_close(struct pftrace *t)
{
	if (!pb_close(&t->pkt, t->pkt_at) || t->pkt.oom)
		return scx_fail("trace.pftrace: out of memory");
	t->st.packets++;
	return 0;
}

int pft_packet_end(struct pftrace *t)
{
	if (pft_packet_close(t) < 0)
		return -1;
	return t->pkt.len >= OUT_BATCH ? pft_flush_out(t) : 0;
}

int pft_compress_out(struct pftrace *t)
{
	uLongf n = compressBound(t->zpkt.len);

	if (!t->zpkt.len)
		return 0;
	t->zout.len = 0;
	if (t->zpkt.oom || !pb_room(&t->zout, n))
		return scx_fail("trace.pftrace: out of memory");
	/* level 1: most of the gain (the arrays and events repeat tags, small
	 * values and comms) for a few milliseconds a megabyte */
	if (compress2(t->zout.p, &n, t->zpkt.p, t->zpkt.len, 1) != Z_OK)
		return scx_fail("trace.pftrace: compressing scheduling packets failed");
	t->zout.len = n;
	t->zpkt.len = 0;
	if (!pb_room(&t->pkt, n + 16))
		return scx_fail("trace.pftrace: out of memory");
	pb_raw_varint(&t->pkt, 1 << 3 | PB_LEN); /* Trace.packet */
	pb_raw_varint(&t->pkt, 2 + pb_varint_size(n) + n);
	pb_embed(&t->pkt, TP_COMPRESSED_PACKETS, &t->zout);
	t->st.packets++;
	return t->pkt.len >= OUT_BATCH ? pft_flush_out(t) : 0;
}

void pft_note_ts(struct pftrace *t, uint64_t ts)
{
	if (!t->have_ts || ts < t->first_ts) {
		t->first_ts = ts;
		t->have_ts = true;
	}
}

struct pft_thread *pft_thread(struct pftrace *t, uint32_t tid)
{
	struct pft_thread *th = u64map_get(&t->threads, tid);

	if (th)
		return th;
	th = calloc(1, sizeof(*th));
	if (!th) {
		scx_fail("out of memory (thread table)");
		return NULL;
	}
	th->tgid = -1;
	th->idx = (uint32_t)t->st.threads;
	if (u64map_put(&t->threads, tid, th) < 0) {
		free(th);
		return NULL;
	}
	t->st.threads++;
	return th;
}

int pft_note_thread(struct pftrace *t, int64_t tid, int64_t tgid, const char *comm)
{
	struct pft_thread *th;

	if (tid <= 0 || tid > INT32_MAX) /* idle (0) is trace_processor's own; -1: unknown */
		return 0;
	th = pft_thread(t, (uint32_t)tid);
	if (!th)
		return -1;
	if (tgid > 0 && tgid <= INT32_MAX)
		th->tgid = (int32_t)tgid;
	if (comm && comm[0] && strncmp(th->comm, comm, PFT_COMM_LEN - 1))
		snprintf(th->comm, sizeof(th->comm), "%s", comm);
	return 0;
}

int pft_thread_track(struct pftrace *t, uint32_t tid, struct pft_thread *th, uint64_t ts)
{
	size_t td, thd;

	if (th->thread_track)
		return 0;
	pft_packet_begin(t, PFT_SEQ_TRACK, 0);
	pb_varint(&t->pkt, TP_TIMESTAMP, ts);
	td = pb_open(&t->pkt, TP_TRACK_DESCRIPTOR);
	pb_varint(&t->pkt, 1, PFT_UUID(PFT_UUID_THREAD, th)); /* uuid */
	thd = pb_open(&t->pkt, 4);                             /* thread */
	pb_int(&t->pkt, 1, th->tgid > 0 ? th->tgid : (int32_t)tid); /* pid */
	pb_int(&t->pkt, 2, tid);                                    /* tid */
	pb_close(&t->pkt, thd);
	pb_close(&t->pkt, td);
	th->thread_track = true;
	return pft_packet_end(t);
}
