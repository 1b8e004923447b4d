/*
 * perfetto_sched.c - the scheduling stream as ftrace events: one
 * FtraceEventBundle per CPU and batch, on its own trusted sequence.
 *
 * sched_switch and sched_waking go into compact_sched (packed arrays, a
 * per-bundle comm table): a compact switch stores only the next task, and
 * trace_processor takes its prev task from the previous switch on that CPU;
 * a compact waking's waker is the task that switch put there. So a switch is
 * compact only when its prev task (tid, prio, comm) is what the previous
 * switch on the CPU put there (else, the CPU's first switch, after a lost
 * record, or a task reniced or exec'd while it ran, it is a full
 * sched_switch event carrying prev), and a waking only when the current task
 * it was recorded with is that task (else a full sched_waking naming its
 * waker). sched_wakeup_new becomes a sched_waking too (the kernel emits no
 * waking for a new task; trace_processor then shows its first Runnable span).
 * Events of one CPU with equal timestamps: trace_processor sorts by
 * timestamp, then by the order it tokenized them, and it tokenizes a bundle's
 * compact switches first, then its compact wakings, then its full events
 * (ftrace_tokenizer.cc, TraceSorter's (ts, alloc id) order). So a compact
 * switch at the time of a compact waking or full event already in the
 * bundle, or a compact waking at the time of a full event, starts a new
 * bundle: else trace_processor would take it before them, and a compact
 * switch's prev (or a compact waking's waker) from the wrong switch. (perf
 * record writes such ties: perf 6.1's perf_mmap__push can write the records
 * that arrive while it reads a ring twice, byte for byte.)
 * Forks with both processes known are task_newtask; irq, softirq and
 * local-timer entry/exit are full events. Other kinds are not in the trace.
 * The bundle packets are written zlib-compressed in batches
 * (TracePacket.compressed_packets): the arrays and events repeat tags,
 * small values and comms, and shrink about 4x.
 */
#include "lib/pftrace/perfetto_writer.h"
#include "lib/pftrace/perfetto_sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/* Bundle limits: events, bytes, distinct comms. */
#define BUNDLE_EVENTS 2048
#define BUNDLE_BYTES (48u << 10)
#define BUNDLE_COMMS 256
#define COMM_SLOTS 512 /* hash slots for the comm table, > BUNDLE_COMMS */

#define CLONE_THREAD 0x00010000

enum {
	SW_TS, SW_STATE, SW_PID, SW_PRIO, SW_COMM, WK_TS, WK_PID, WK_CPU, WK_PRIO, WK_COMM, NR_ARRAYS
};
/* CompactSched field of each array */
static const uint32_t array_field[NR_ARRAYS] = {1, 2, 3, 4, 6, 7, 8, 9, 10, 11};

struct pft_cpu {
	bool have_cur;          /* a switch was seen: cur_tid is on the CPU */
	int64_t cur_tid, cur_prio;   /* as that switch put it there */
	char cur_comm[PFT_COMM_LEN];
	/* the bundle being built */
	uint32_t nsw, nwk, nfull;
	uint64_t last_sw_ts, last_wk_ts, last_full_ts;
	struct pb_buf arr[NR_ARRAYS];
	struct pb_buf full;     /* FtraceEvent messages, each as field 2 of the bundle */
	uint32_t ncomm;
	char comms[BUNDLE_COMMS][PFT_COMM_LEN];
	uint16_t slot[COMM_SLOTS]; /* comm index + 1, 0: empty */
};

static struct pft_cpu *cpu_of(struct pftrace *t, uint32_t cpu)
{
	struct pft_cpu *c = t->cpus[cpu];

	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c) {
			scx_fail("out of memory (trace cpu %u)", cpu);
			return NULL;
		}
		t->cpus[cpu] = c;
	}
	return c;
}

static size_t bundle_bytes(const struct pft_cpu *c)
{
	size_t n = c->full.len + c->ncomm * PFT_COMM_LEN;

	for (int i = 0; i < NR_ARRAYS; i++)
		n += c->arr[i].len;
	return n;
}

static int bundle_packet(struct pftrace *t, uint32_t cpu, struct pft_cpu *c)
{
	size_t bundle, cs;
	int i;

	pft_packet_begin(t, PFT_SEQ_FTRACE, 0);
	bundle = pb_open(&t->pkt, TP_FTRACE_EVENTS);
	pb_varint(&t->pkt, 1, cpu); /* cpu */
	if (c->full.len && pb_room(&t->pkt, c->full.len)) {
		memcpy(t->pkt.p + t->pkt.len, c->full.p, c->full.len);
		t->pkt.len += c->full.len;
	}
	if (c->nsw || c->nwk) {
		cs = pb_open(&t->pkt, 4); /* compact_sched */
		for (uint32_t k = 0; k < c->ncomm; k++)
			pb_bytes(&t->pkt, 5, c->comms[k], strnlen(c->comms[k], PFT_COMM_LEN)); /* intern_table */
		for (i = 0; i < NR_ARRAYS; i++)
			if (c->arr[i].len)
				pb_embed(&t->pkt, array_field[i], &c->arr[i]);
		pb_close(&t->pkt, cs);
	}
	pb_close(&t->pkt, bundle);
	for (i = 0; i < NR_ARRAYS; i++) {
		if (c->arr[i].oom)
			t->pkt.oom = true;
		c->arr[i].len = 0;
	}
	if (c->full.oom)
		t->pkt.oom = true;
	c->full.len = 0;
	c->nsw = c->nwk = c->nfull = c->ncomm = 0;
	memset(c->slot, 0, sizeof(c->slot));
	return pft_packet_close(t);
}

/* Bundle packets are gathered in t->zpkt and written compressed
 * (TracePacket.compressed_packets, which trace_processor inflates) in
 * batches of about this many bytes: the packet must stay under 512 KiB. */
#define ZBATCH (384u << 10)

/* The CPU's bundle as a packet into t->zpkt (t->pkt swapped for it while
 * it is built), then the batch compressed when it is big enough. */
static int flush_cpu(struct pftrace *t, uint32_t cpu, struct pft_cpu *c)
{
	struct pb_buf out = t->pkt;
	int rc;

	if (!c->nsw && !c->nwk && !c->nfull)
		return 0;
	t->pkt = t->zpkt;
	rc = bundle_packet(t, cpu, c);
	t->zpkt = t->pkt;
	t->pkt = out;
	if (rc == 0 && t->zpkt.len >= ZBATCH)
		rc = pft_compress_out(t);
	return rc;
}

int pft_sched_flush_all(struct pftrace *t)
{
	for (uint32_t cpu = 0; cpu < PFT_MAX_CPUS; cpu++)
		if (t->cpus[cpu] && flush_cpu(t, cpu, t->cpus[cpu]) < 0)
			return -1;
	return 0;
}

void pft_sched_free(struct pftrace *t)
{
	for (uint32_t cpu = 0; cpu < PFT_MAX_CPUS; cpu++) {
		struct pft_cpu *c = t->cpus[cpu];

		if (!c)
			continue;
		for (int i = 0; i < NR_ARRAYS; i++)
			pb_free(&c->arr[i]);
		pb_free(&c->full);
		free(c);
		t->cpus[cpu] = NULL;
	}
}

/* Index of comm in the bundle's table; -1 when the table is full. */
static int comm_index(struct pft_cpu *c, const char *comm)
{
	char key[PFT_COMM_LEN] = {0};
	uint32_t h = 2166136261u;
	size_t n = strnlen(comm, PFT_COMM_LEN - 1), i;

	memcpy(key, comm, n);
	for (i = 0; i < n; i++)
		h = (h ^ (uint8_t)key[i]) * 16777619u;
	for (i = h % COMM_SLOTS;; i = (i + 1) % COMM_SLOTS) {
		uint16_t s = c->slot[i];

		if (!s)
			break;
		if (!memcmp(c->comms[s - 1], key, PFT_COMM_LEN))
			return s - 1;
	}
	if (c->ncomm == BUNDLE_COMMS)
		return -1;
	memcpy(c->comms[c->ncomm], key, PFT_COMM_LEN);
	c->slot[i] = (uint16_t)++c->ncomm;
	return (int)c->ncomm - 1;
}

/* Room in the current bundle for an event at ts (the compact timestamp
 * chain `last` must not go back): flushes first when not. */
static int make_room(struct pftrace *t, uint32_t cpu, struct pft_cpu *c, uint64_t ts, const uint64_t *last,
		     uint32_t count)
{
	if (c->nsw + c->nwk + c->nfull >= BUNDLE_EVENTS || bundle_bytes(c) >= BUNDLE_BYTES ||
	    c->ncomm == BUNDLE_COMMS || (last && count && ts < *last))
		return flush_cpu(t, cpu, c);
	return 0;
}

/* The bundle holds an event that trace_processor takes after a compact
 * switch (kind SK_SWITCH) or waking (SK_WAKING) at ts, though it came
 * first: a full event at ts, or for a switch a compact waking at ts. */
static bool tie_before(const struct pft_cpu *c, enum sched_kind kind, uint64_t ts)
{
	if (c->nfull && c->last_full_ts == ts)
		return true;
	return kind == SK_SWITCH && c->nwk && c->last_wk_ts == ts;
}

/* prev_state in the kernel's >= 4.14 report form from the letters
 * sched_state_from_*() give ("R", "R+", "S", "D|K"...). */
static int64_t report_state(const char *s)
{
	static const char letters[] = "SDTtXZPI";
	int64_t bits = 0;

	for (; *s; s++) {
		const char *l = strchr(letters, *s);

		if (*s == '+')
			bits |= 0x100;
		else if (*s != 'R' && *s != '|' && l)
			bits |= 1LL << (l - letters);
	}
	return bits;
}

/* Append one delta-encoded compact timestamp. */
static void compact_ts(struct pb_buf *b, uint64_t ts, uint64_t *last, uint32_t count)
{
	pb_raw_varint(b, count ? ts - *last : ts);
	*last = ts;
}

/* Room in the bundle for a compact event of kind at ts, flushing as
 * needed, and its timestamp appended to ts_arr (last and count: the chain's
 * last timestamp and length, which a flush resets); the index of its comm
 * in *idx. */
static int compact_begin(struct pftrace *t, uint32_t cpu, struct pft_cpu *c, enum sched_kind kind, uint64_t ts,
			 struct pb_buf *ts_arr, uint64_t *last, const uint32_t *count, const char *comm, int *idx)
{
	if (tie_before(c, kind, ts) && flush_cpu(t, cpu, c) < 0)
		return -1;
	if (make_room(t, cpu, c, ts, last, *count) < 0)
		return -1;
	*idx = comm_index(c, comm);
	if (*idx < 0) { /* cannot happen after make_room; keep the invariant anyway */
		if (flush_cpu(t, cpu, c) < 0)
			return -1;
		*idx = comm_index(c, comm);
	}
	compact_ts(ts_arr, ts, last, *count);
	return 0;
}

static int compact_switch(struct pftrace *t, uint32_t cpu, struct pft_cpu *c, const struct pftrace_sched_rec *r)
{
	const struct sched_vals *v = r->v;
	int idx;

	if (compact_begin(t, cpu, c, SK_SWITCH, r->time_ns, &c->arr[SW_TS], &c->last_sw_ts, &c->nsw, v->comm2, &idx) < 0)
		return -1;
	pb_raw_varint(&c->arr[SW_STATE], (uint64_t)report_state(v->state));
	pb_raw_varint(&c->arr[SW_PID], (uint64_t)(int64_t)(int32_t)v->pid2);
	pb_raw_varint(&c->arr[SW_PRIO], (uint64_t)(int64_t)(int32_t)v->prio2);
	pb_raw_varint(&c->arr[SW_COMM], (uint64_t)idx);
	c->nsw++;
	return 0;
}

static int compact_waking(struct pftrace *t, uint32_t cpu, struct pft_cpu *c, const struct pftrace_sched_rec *r)
{
	const struct sched_vals *v = r->v;
	int idx;

	if (compact_begin(t, cpu, c, SK_WAKING, r->time_ns, &c->arr[WK_TS], &c->last_wk_ts, &c->nwk, v->comm, &idx) < 0)
		return -1;
	pb_raw_varint(&c->arr[WK_PID], (uint64_t)(int64_t)(int32_t)v->pid);
	pb_raw_varint(&c->arr[WK_CPU], (uint64_t)(int64_t)(int32_t)v->a0);
	pb_raw_varint(&c->arr[WK_PRIO], (uint64_t)(int64_t)(int32_t)v->prio);
	pb_raw_varint(&c->arr[WK_COMM], (uint64_t)idx);
	c->nwk++;
	return 0;
}

/* Open a full FtraceEvent of the record's task; returns the event's and
 * the payload's length positions through *ev and *pl. */
static int full_begin(struct pftrace *t, uint32_t cpu, struct pft_cpu *c, const struct pftrace_sched_rec *r,
		      int64_t pid, uint32_t payload, size_t *ev, size_t *pl)
{
	if (make_room(t, cpu, c, r->time_ns, NULL, 0) < 0)
		return -1;
	c->last_full_ts = r->time_ns;
	*ev = pb_open(&c->full, 2);                     /* FtraceEventBundle.event */
	pb_varint(&c->full, 1, r->time_ns);             /* timestamp */
	if (pid > 0 && pid <= INT32_MAX)
		pb_varint(&c->full, 2, (uint64_t)pid);  /* pid: the task on the CPU */
	*pl = pb_open(&c->full, payload);
	return 0;
}

static void full_end(struct pft_cpu *c, size_t ev, size_t pl)
{
	pb_close(&c->full, pl);
	pb_close(&c->full, ev);
	c->nfull++;
}

static int full_switch(struct pftrace *t, uint32_t cpu, struct pft_cpu *c, const struct pftrace_sched_rec *r)
{
	const struct sched_vals *v = r->v;
	size_t ev, pl;

	if (full_begin(t, cpu, c, r, v->pid, 4, &ev, &pl) < 0)
		return -1;
	pb_bytes(&c->full, 1, v->comm, strnlen(v->comm, PFT_COMM_LEN - 1));   /* prev_comm */
	pb_int(&c->full, 2, (int32_t)v->pid);                                 /* prev_pid */
	pb_int(&c->full, 3, (int32_t)v->prio);                                /* prev_prio */
	pb_int(&c->full, 4, report_state(v->state));                          /* prev_state */
	pb_bytes(&c->full, 5, v->comm2, strnlen(v->comm2, PFT_COMM_LEN - 1)); /* next_comm */
	pb_int(&c->full, 6, (int32_t)v->pid2);                                /* next_pid */
	pb_int(&c->full, 7, (int32_t)v->prio2);                               /* next_prio */
	full_end(c, ev, pl);
	return 0;
}

static int full_waking(struct pftrace *t, uint32_t cpu, struct pft_cpu *c, const struct pftrace_sched_rec *r)
{
	const struct sched_vals *v = r->v;
	size_t ev, pl;

	if (full_begin(t, cpu, c, r, r->tid, 20, &ev, &pl) < 0)
		return -1;
	pb_bytes(&c->full, 1, v->comm, strnlen(v->comm, PFT_COMM_LEN - 1)); /* comm */
	pb_int(&c->full, 2, (int32_t)v->pid);                               /* pid */
	pb_int(&c->full, 3, (int32_t)v->prio);                              /* prio */
	pb_int(&c->full, 4, 1);                                             /* success */
	pb_int(&c->full, 5, (int32_t)v->a0);                                /* target_cpu */
	full_end(c, ev, pl);
	return 0;
}

static int on_switch(struct pftrace *t, uint32_t cpu, struct pft_cpu *c, const struct pftrace_sched_rec *r)
{
	const struct sched_vals *v = r->v;
	int rc;

	/* compact only when trace_processor's inferred prev (tid, prio and comm
	 * of the last switch's next) is the switch's own: a task reniced or
	 * exec'd while it ran leaves with another prio or comm */
	if (c->have_cur && c->cur_tid == v->pid && c->cur_prio == v->prio &&
	    !strncmp(c->cur_comm, v->comm, PFT_COMM_LEN - 1)) {
		rc = compact_switch(t, cpu, c, r);
	} else {
		rc = full_switch(t, cpu, c, r);
		t->st.switches_full++;
		if (rc == 0)
			rc = pft_note_thread(t, v->pid, r->tgid, v->comm);
	}
	c->have_cur = true;
	c->cur_tid = v->pid2;
	c->cur_prio = v->prio2;
	snprintf(c->cur_comm, sizeof(c->cur_comm), "%.*s", PFT_COMM_LEN - 1, v->comm2);
	t->st.switches++;
	if (rc == 0)
		rc = pft_note_thread(t, v->pid2, r->tgid2, v->comm2);
	return rc;
}

static int on_waking(struct pftrace *t, uint32_t cpu, struct pft_cpu *c, const struct pftrace_sched_rec *r)
{
	int rc;

	/* a waker of -1 is unknown: the current task is the best guess */
	if (c->have_cur && (c->cur_tid == r->tid || r->tid < 0)) {
		rc = compact_waking(t, cpu, c, r);
	} else {
		rc = full_waking(t, cpu, c, r);
		t->st.wakings_full++;
	}
	t->st.wakings++;
	if (rc == 0)
		rc = pft_note_thread(t, r->v->pid, r->tgid, r->v->comm);
	return rc;
}

static int on_fork(struct pftrace *t, uint32_t cpu, struct pft_cpu *c, const struct pftrace_sched_rec *r)
{
	const struct sched_vals *v = r->v;
	size_t ev, pl;

	if (r->tgid <= 0 || r->tgid2 <= 0 || v->pid2 <= 0) { /* without processes it would mislead */
		t->st.skipped_sched++;
		return 0;
	}
	if (full_begin(t, cpu, c, r, v->pid, 235, &ev, &pl) < 0)
		return -1;
	pb_int(&c->full, 1, (int32_t)v->pid2);                                /* pid (child) */
	pb_bytes(&c->full, 2, v->comm2, strnlen(v->comm2, PFT_COMM_LEN - 1)); /* comm */
	pb_varint(&c->full, 3, r->tgid == r->tgid2 ? CLONE_THREAD : 0);       /* clone_flags */
	full_end(c, ev, pl);
	t->st.forks++;
	if (pft_note_thread(t, v->pid, r->tgid, v->comm) < 0)
		return -1;
	return pft_note_thread(t, v->pid2, r->tgid2, v->comm2);
}

/* irq / softirq / local timer: payload field and its first value */
static int on_irq(struct pftrace *t, uint32_t cpu, struct pft_cpu *c, const struct pftrace_sched_rec *r,
		  uint32_t payload)
{
	const struct sched_vals *v = r->v;
	size_t ev, pl;

	if (full_begin(t, cpu, c, r, r->tid, payload, &ev, &pl) < 0)
		return -1;
	pb_int(&c->full, 1, (int32_t)v->a0); /* irq, vec or vector */
	if (r->kind == SK_IRQ_ENTRY && v->str[0])
		pb_string(&c->full, 2, v->str);  /* name */
	else if (r->kind == SK_IRQ_EXIT)
		pb_int(&c->full, 2, (int32_t)v->a1); /* ret */
	full_end(c, ev, pl);
	t->st.irq_events++;
	return 0;
}

int pftrace_sched(struct pftrace *t, const struct pftrace_sched_rec *r)
{
	struct pft_cpu *c;
	uint32_t cpu;

	if (!r->v || r->cpu < 0 || r->cpu >= PFT_MAX_CPUS) {
		t->st.skipped_sched++;
		return 0;
	}
	cpu = (uint32_t)r->cpu;
	if (!(c = cpu_of(t, cpu)))
		return -1;
	pft_note_ts(t, r->time_ns);
	if (pft_note_thread(t, r->tid, r->pid, r->comm) < 0)
		return -1;
	switch (r->kind) {
	case SK_SWITCH: return on_switch(t, cpu, c, r);
	case SK_WAKING: case SK_WAKEUP_NEW: return on_waking(t, cpu, c, r);
	case SK_FORK: return on_fork(t, cpu, c, r);
	case SK_IRQ_ENTRY: return on_irq(t, cpu, c, r, 36);
	case SK_IRQ_EXIT: return on_irq(t, cpu, c, r, 37);
	case SK_SOFTIRQ_ENTRY: return on_irq(t, cpu, c, r, 24);
	case SK_SOFTIRQ_EXIT: return on_irq(t, cpu, c, r, 25);
	case SK_TIMER_ENTRY: return on_irq(t, cpu, c, r, 559);
	case SK_TIMER_EXIT: return on_irq(t, cpu, c, r, 560);
	default:
		t->st.skipped_sched++;
		return 0;
	}
}
