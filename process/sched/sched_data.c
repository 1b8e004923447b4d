/*
 * sched_data.c - our recorder's sched.data (schemas/sched-data.md,
 * lib/sched_data_format.h; version 2's chunks of packed records and version 1's fixed
 * 88-byte records) into sched.jsonl. Records are put in timestamp order (the file
 * is ordered per CPU batch, not by time), then each becomes the line perf script would print
 * for the same tracepoint hit: event name, trace text in the tracefs print
 * format (the order: see read_ordered below). The sample's task is what perf would report as current: prev for
 * sched_switch, the interrupted task for irq/softirq/nmi/timer events, the
 * task itself for exit/exec/fork, and for wakeup/waking/migrate the current
 * task the recorder stored (files from before it did: the task a previous
 * sched_switch put on that CPU; comm "[unknown]", pid/tid -1 before the first
 * switch seen there). Limits: exec's filename is the new comm
 * (sched.data has no path), nmi handlers print as addresses and without
 * "handled:".
 */
#include "sched_data.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/order_heap.h"
#include "lib/sched_data_format.h"
#include "process/sched/sched_decode.h"

#define MAX_CPUS 65536

struct cur_task {
	bool known;
	int64_t pid, tgid;
	char comm[SCHED_COMM_LEN + 1];
};

#define IDX_OFF_MASK ((1ull << 48) - 1) /* file offsets: 48 bits (KEY below) */
#define CHUNK_MAX 65535 /* comm refs are 16 bits */

static const char *const type_event[] = {
	[SCHED_SWITCH] = "sched:sched_switch",
	[SCHED_WAKEUP] = "sched:sched_wakeup",
	[SCHED_WAKEUP_NEW] = "sched:sched_wakeup_new",
	[SCHED_WAKING] = "sched:sched_waking",
	[SCHED_MIGRATE_TASK] = "sched:sched_migrate_task",
	[SCHED_PROCESS_EXIT] = "sched:sched_process_exit",
	[SCHED_PROCESS_EXEC] = "sched:sched_process_exec",
	[SCHED_PROCESS_FORK] = "sched:sched_process_fork",
	[IRQ_HANDLER_ENTRY] = "irq:irq_handler_entry",
	[IRQ_HANDLER_EXIT] = "irq:irq_handler_exit",
	[SOFTIRQ_ENTRY] = "irq:softirq_entry",
	[SOFTIRQ_EXIT] = "irq:softirq_exit",
	[NMI_HANDLER] = "nmi:nmi_handler",
	[LOCAL_TIMER_ENTRY] = "irq_vectors:local_timer_entry",
	[LOCAL_TIMER_EXIT] = "irq_vectors:local_timer_exit",
};

static const enum sched_kind type_kind[] = {
	[SCHED_SWITCH] = SK_SWITCH, [SCHED_WAKEUP] = SK_WAKEUP, [SCHED_WAKEUP_NEW] = SK_WAKEUP_NEW,
	[SCHED_WAKING] = SK_WAKING, [SCHED_MIGRATE_TASK] = SK_MIGRATE, [SCHED_PROCESS_EXIT] = SK_EXIT,
	[SCHED_PROCESS_EXEC] = SK_EXEC, [SCHED_PROCESS_FORK] = SK_FORK, [IRQ_HANDLER_ENTRY] = SK_IRQ_ENTRY,
	[IRQ_HANDLER_EXIT] = SK_IRQ_EXIT, [SOFTIRQ_ENTRY] = SK_SOFTIRQ_ENTRY, [SOFTIRQ_EXIT] = SK_SOFTIRQ_EXIT,
	[NMI_HANDLER] = SK_NMI, [LOCAL_TIMER_ENTRY] = SK_TIMER_ENTRY, [LOCAL_TIMER_EXIT] = SK_TIMER_EXIT,
};

static void comm_of(char *dst, const char *src)
{
	memcpy(dst, src, SCHED_COMM_LEN);
	dst[SCHED_COMM_LEN] = '\0';
	/* dst is always terminated; the writer guarantees it too, but do not rely on it */
}

static void values(const struct sched_record *r, enum sched_kind k, struct sched_vals *v)
{
	memset(v, 0, sizeof(*v));
	comm_of(v->comm, r->comm);
	comm_of(v->comm2, r->comm2);
	v->pid = (int32_t)r->pid;
	v->pid2 = (int32_t)r->pid2;
	v->prio = r->prio;
	v->prio2 = r->prio2;
	switch (k) {
	case SK_SWITCH:
		sched_trace_state_from_raw(r->arg0, r->arg1 != 0, v->state, sizeof(v->state));
		break;
	case SK_WAKEUP: case SK_WAKEUP_NEW: case SK_WAKING:
		v->a0 = (int64_t)r->arg0;
		break;
	case SK_MIGRATE:
		v->a0 = (int64_t)r->arg1; /* orig */
		v->a1 = (int64_t)r->arg0; /* dest */
		break;
	case SK_EXIT:
		v->a0 = r->arg0 != 0;
		v->has_a0 = true;
		break;
	case SK_EXEC:
		snprintf(v->str, sizeof(v->str), "%s", v->comm);
		break;
	case SK_IRQ_ENTRY:
		v->a0 = (int64_t)r->arg0;
		snprintf(v->str, sizeof(v->str), "%s", v->comm2);
		break;
	case SK_IRQ_EXIT:
		v->a0 = (int64_t)r->arg0;
		v->a1 = (int64_t)r->arg1;
		break;
	case SK_NMI:
		v->a0 = (int64_t)r->arg0;
		snprintf(v->str, sizeof(v->str), "0x%llx", (unsigned long long)r->arg1);
		break;
	default:
		v->a0 = (int64_t)r->arg0;
		break;
	}
}

/* ---- version 2: chunks of packed records ---- */

/* Length of the v2 record at rel in a chunk of size bytes, or 0 with *why
 * set when it is damaged: flags we do not know, not within the chunk, or a
 * comm reference that is not to earlier bytes of the chunk. */
static size_t packed_len(const uint8_t *chunk, size_t rel, size_t size, const char **why)
{
	struct sched_packed_rec b;
	size_t len = SCHED_PACKED_BASE;

	if (rel + SCHED_PACKED_BASE > size) {
		*why = "sched.data: record runs past the end of its chunk";
		return 0;
	}
	memcpy(&b, chunk + rel, sizeof(b));
	if (b.flags & ~SCHED_F_ALL) {
		*why = "sched.data: record with unknown flags";
		return 0;
	}
	len += (b.flags & SCHED_F_ARG0_64 ? 8 : 0) + (b.flags & SCHED_F_ARG1 ? 8 : 0) +
	       (b.flags & SCHED_F_COMM ? SCHED_COMM_LEN : 0) + (b.flags & SCHED_F_COMM2 ? SCHED_COMM_LEN : 0);
	if (rel + len > size) {
		*why = "sched.data: record runs past the end of its chunk";
		return 0;
	}
	if ((!(b.flags & SCHED_F_COMM) && b.comm_ref &&
	     (b.comm_ref < SCHED_CHUNK_HEADER_SIZE || (size_t)b.comm_ref + SCHED_COMM_LEN > rel)) ||
	    (!(b.flags & SCHED_F_COMM2) && b.comm2_ref &&
	     (b.comm2_ref < SCHED_CHUNK_HEADER_SIZE || (size_t)b.comm2_ref + SCHED_COMM_LEN > rel))) {
		*why = "sched.data: comm reference outside the earlier part of its chunk";
		return 0;
	}
	return len;
}

/* The v2 record at rel of chunk (checked by packed_len) as a struct sched_record. */
static void packed_decode(const uint8_t *chunk, size_t rel, struct sched_record *r)
{
	struct sched_packed_rec b;
	const uint8_t *p = chunk + rel + SCHED_PACKED_BASE;

	memcpy(&b, chunk + rel, sizeof(b));
	memset(r, 0, sizeof(*r));
	r->timestamp = b.timestamp;
	r->cpu = b.cpu;
	r->type = b.type;
	r->pid = b.pid;
	r->tgid = b.tgid;
	r->pid2 = b.pid2;
	r->tgid2 = b.tgid2;
	r->prio = b.prio;
	r->prio2 = b.prio2;
	r->arg0 = b.arg0;
	if (b.flags & SCHED_F_ARG0_64) {
		memcpy(&r->arg0, p, 8);
		p += 8;
	}
	if (b.flags & SCHED_F_ARG1) {
		memcpy(&r->arg1, p, 8);
		p += 8;
	} else if (b.flags & SCHED_F_PREEMPT) {
		r->arg1 = 1;
	}
	if (b.flags & SCHED_F_COMM) {
		memcpy(r->comm, p, SCHED_COMM_LEN);
		p += SCHED_COMM_LEN;
	} else if (b.comm_ref) {
		memcpy(r->comm, chunk + b.comm_ref, SCHED_COMM_LEN);
	}
	if (b.flags & SCHED_F_COMM2)
		memcpy(r->comm2, p, SCHED_COMM_LEN);
	else if (b.comm2_ref)
		memcpy(r->comm2, chunk + b.comm2_ref, SCHED_COMM_LEN);
}

static int emit_record(struct sched_sink *s, const struct sched_record *r, struct cur_task *cur, size_t ncur)
{
	enum sched_kind k = type_kind[r->type];
	struct sched_vals v;
	struct sched_decoded d;
	char comm[SCHED_COMM_LEN + 1];
	int64_t pid, tid;
	struct cur_task *c = r->cpu < ncur ? &cur[r->cpu] : NULL;

	values(r, k, &v);
	if (k == SK_WAKEUP || k == SK_WAKEUP_NEW || k == SK_WAKING || k == SK_MIGRATE) {
		if (r->comm2[0]) { /* the recorder's current task */
			tid = (int32_t)r->pid2;
			pid = (int32_t)r->tgid2;
			comm_of(comm, r->comm2);
		} else if (c && c->known) { /* older files: what the last switch put there */
			tid = c->pid;
			pid = c->tgid;
			memcpy(comm, c->comm, sizeof(comm));
		} else {
			tid = pid = -1;
			snprintf(comm, sizeof(comm), "[unknown]");
		}
	} else {
		tid = (int32_t)r->pid;
		pid = (int32_t)r->tgid;
		comm_of(comm, r->comm);
	}
	if (tid == 0)
		snprintf(comm, sizeof(comm), "swapper"); /* as perf names the idle task */
	if (k == SK_SWITCH && c) {
		c->known = true;
		c->pid = (int32_t)r->pid2;
		c->tgid = (int32_t)r->tgid2;
		comm_of(c->comm, r->comm2);
	}
	d.kind = k;
	d.v = &v;
	d.tgid = (int32_t)r->tgid;
	d.tgid2 = k == SK_EXEC ? -1 : (int32_t)r->tgid2; /* exec's pid2 is old_pid */
	return sched_sink_emit(s, comm, pid, tid, r->cpu, r->timestamp, type_event[r->type], NULL, 0, &d);
}

/*
 * Records are emitted in time order (ties: file order) through a reorder
 * window rather than a sort of the whole file: the recorder writes each
 * cpu's chunk when it fills, so the file is about in time order. A first
 * pass frames the file (counting and warning) and notes, per segment of
 * at least SEG_BYTES of it, the least timestamp in it; a second pass pushes
 * the records into a min-heap and, at the end of each segment, emits every
 * record no later record can precede (timestamp at most the least one of
 * the segments still to come). The heap holds the records a later one may
 * still go before: on a recorder's file a small part of it; on a file far
 * from time order (say, one cpu's records after another's) up to every
 * record, 16 bytes each, as a full sort's index would. Pages of the file
 * below every record still to be emitted are dropped as the read goes
 * (they are the file's: nothing is lost), so the resident part of the
 * mapping stays small too.
 */
#define SEG_BYTES ((uint64_t)1 << 20)
#define RELEASE_BYTES ((uint64_t)8 << 20) /* the first pass drops what it walked past in 8 MiB steps */
#define KEY(off, rel) ((uint64_t)(off) << 16 | (rel))

struct walk {
	struct sched_sink *s;
	const uint8_t *map;
	uint64_t size;
	const struct sched_data_header *hdr;
	bool second;         /* the second pass: push and emit, no counting */
	uint64_t *seg_off;   /* first byte of each segment */
	uint64_t *seg_min;   /* first pass: least timestamp in it; then the least of it and after */
	uint64_t *seg_left;  /* second pass: its records not yet emitted */
	size_t nseg, segcap, cur, low; /* low: the first segment with records not yet emitted */
	uint64_t released;   /* mapped bytes below this are dropped */
	struct order_heap heap;
	struct cur_task *tasks;
	size_t ntasks;
	uint64_t emitted;
};

/* Drop the mapped pages in [released, below) rounded down to pages. */
static void release_below(struct walk *w, uint64_t below)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t end = page > 0 ? below & ~((uint64_t)page - 1) : 0;

	if (end <= w->released)
		return;
	(void)madvise((void *)(w->map + w->released), end - w->released, MADV_DONTNEED);
	w->released = end;
}

/* Emit the least record in the window. */
static int emit_top(struct walk *w)
{
	struct order_heap_ent e;
	struct sched_record r;
	uint64_t off;
	size_t lo = 0, hi = w->nseg;

	order_heap_pop(&w->heap, &e);
	off = e.key >> 16;
	if ((w->emitted++ & 0xfff) == 0 && sched_sink_check_stop(w->s) < 0)
		return -1;
	if (w->hdr->version == 1)
		memcpy(&r, w->map + off, sizeof(r));
	else
		packed_decode(w->map + off, (size_t)(e.key & 0xffff), &r);
	if (emit_record(w->s, &r, w->tasks, w->ntasks) < 0)
		return -1;
	while (hi - lo > 1) { /* the record's segment: the last starting at or before off */
		size_t mid = lo + (hi - lo) / 2;

		if (w->seg_off[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	w->seg_left[lo]--;
	while (w->low < w->cur && !w->seg_left[w->low])
		w->low++;
	if (w->seg_off[w->low] - w->released >= SEG_BYTES)
		release_below(w, w->seg_off[w->low]);
	return 0;
}

/* A chunk (version 1: a record) starts at off: a new segment when the
 * current one has SEG_BYTES; in the second pass, the records no later
 * segment can precede are emitted first. */
static int at_chunk(struct walk *w, uint64_t off)
{
	if (w->nseg && off - w->seg_off[w->cur] < SEG_BYTES)
		return 0;
	if (!w->second) {
		if (w->nseg == w->segcap) {
			size_t cap = w->segcap * 2 + 64;
			uint64_t *o = realloc(w->seg_off, cap * sizeof(*o)), *m = o ? realloc(w->seg_min, cap * sizeof(*m)) : NULL;

			if (o)
				w->seg_off = o;
			if (!m)
				return scx_fail("out of memory");
			w->seg_min = m, w->segcap = cap;
		}
		if (off - w->released >= RELEASE_BYTES) /* framed: not needed until the second pass */
			release_below(w, off);
		w->cur = w->nseg;
		w->seg_off[w->nseg] = off;
		w->seg_min[w->nseg++] = UINT64_MAX;
		return 0;
	}
	if (w->seg_off[w->cur] == off) /* the first segment */
		return 0;
	w->cur++;
	while (w->heap.n && order_heap_top(&w->heap)->ts <= w->seg_min[w->cur])
		if (emit_top(w) < 0)
			return -1;
	return 0;
}

/* A record to emit, at off (version 2: rel into its chunk at off). */
static int on_record(struct walk *w, uint64_t ts, uint64_t off, size_t rel)
{
	if (!w->second) {
		if (ts < w->seg_min[w->cur])
			w->seg_min[w->cur] = ts;
		return 0;
	}
	w->seg_left[w->cur]++;
	return order_heap_push(&w->heap, ts, KEY(off, rel));
}

/* Frame version 1's fixed-size records. */
static int walk_v1(struct walk *w)
{
	const struct sched_data_header *hdr = w->hdr;
	struct sched_sink *s = w->s;
	uint64_t nrec = (w->size - hdr->header_size) / hdr->record_size;

	if (!w->second)
		s->res->truncated_bytes = (w->size - hdr->header_size) % hdr->record_size;
	for (uint64_t i = 0; i < nrec; i++) {
		uint64_t off = hdr->header_size + i * hdr->record_size, ts;
		uint16_t type;

		if (at_chunk(w, off) < 0)
			return -1;
		memcpy(&type, w->map + off + 12, 2);
		if (!w->second)
			s->res->total++;
		if (type == 0 || type > SCHED_RECORD_TYPE_MAX) {
			if (!w->second) {
				s->res->unknown_types++;
				sched_sink_unparseable(s, "sched.data: record of unknown type");
			}
			continue;
		}
		memcpy(&ts, w->map + off, 8);
		if (on_record(w, ts, off, 0) < 0)
			return -1;
	}
	return 0;
}

/* Frame version 2's chunks. A chunk cut short by the end of the file gives
 * the records wholly in it; after a damaged chunk header nothing more can
 * be framed: the rest counts as truncated. A damaged record loses the rest
 * of its chunk (counted unparseable). */
static int walk_v2(struct walk *w)
{
	const uint8_t *map = w->map;
	struct sched_sink *s = w->s;
	uint64_t off = w->hdr->header_size, size = w->size;
	bool count = !w->second;

	while (off < size) {
		struct sched_chunk_header ch;
		uint64_t avail = size - off, csize;
		size_t rel = SCHED_CHUNK_HEADER_SIZE;
		unsigned k;

		if (avail < SCHED_CHUNK_HEADER_SIZE)
			break;
		memcpy(&ch, map + off, sizeof(ch));
		if (ch.size < SCHED_CHUNK_HEADER_SIZE || ch.size % 8 || ch.size > CHUNK_MAX)
			break;
		if (at_chunk(w, off) < 0)
			return -1;
		csize = ch.size <= avail ? ch.size : avail;
		for (k = 0; k < ch.nrec; k++) {
			const char *why = NULL;
			size_t len = packed_len(map + off, rel, (size_t)csize, &why);
			uint8_t type;

			if (!len) {
				if (ch.size > avail) /* the file ends inside this record */
					break;
				for (; count && k < ch.nrec; k++) {
					s->res->total++;
					sched_sink_unparseable(s, why);
				}
				break;
			}
			s->res->total += count;
			type = map[off + rel + 8];
			if (type == 0 || type > SCHED_RECORD_TYPE_MAX) {
				if (count) {
					s->res->unknown_types++;
					sched_sink_unparseable(s, "sched.data: record of unknown type");
				}
			} else {
				uint64_t ts;

				memcpy(&ts, map + off + rel, 8);
				if (on_record(w, ts, off, rel) < 0)
					return -1;
			}
			rel += len;
		}
		if (ch.size > avail) {
			off += rel;
			break;
		}
		off += ch.size;
	}
	if (count)
		s->res->truncated_bytes = size - off;
	return 0;
}

/* Both passes over the mapped file: frame and count, then emit in time order. */
static int read_ordered(struct walk *w)
{
	int (*walk)(struct walk *) = w->hdr->version == 1 ? walk_v1 : walk_v2;

	if (walk(w) < 0)
		return -1;
	for (size_t j = w->nseg; j-- > 1;) /* the least timestamp of segment j and after */
		if (w->seg_min[j] < w->seg_min[j - 1])
			w->seg_min[j - 1] = w->seg_min[j];
	if (!w->nseg)
		return 0;
	if (!(w->seg_left = calloc(w->nseg, sizeof(*w->seg_left))))
		return scx_fail("out of memory");
	w->second = true;
	w->cur = w->low = 0;
	w->released = 0;
	if (walk(w) < 0)
		return -1;
	w->cur = w->nseg - 1;
	while (w->heap.n)
		if (emit_top(w) < 0)
			return -1;
	return 0;
}

int sched_data_read(struct sched_sink *s, const char *path)
{
	struct sched_data_header hdr;
	struct stat st;
	const uint8_t *map = NULL;
	struct walk w = {.s = s, .hdr = &hdr};
	uint64_t size;
	int fd, rc = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return scx_fail_errno("%s", path);
	if (fstat(fd, &st) < 0) {
		rc = scx_fail_errno("%s", path);
		goto out;
	}
	size = (uint64_t)st.st_size;
	if (size < SCHED_DATA_HEADER_SIZE) {
		rc = scx_fail("%s: too short for a sched.data header (%lld bytes)", path, (long long)st.st_size);
		goto out;
	}
	if (size > IDX_OFF_MASK) {
		rc = scx_fail("%s: too large (%llu bytes)", path, (unsigned long long)size);
		goto out;
	}
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		map = NULL;
		rc = scx_fail_errno("%s: mmap", path);
		goto out;
	}
	(void)madvise((void *)map, (size_t)size, MADV_SEQUENTIAL);
	memcpy(&hdr, map, sizeof(hdr));
	if (memcmp(hdr.magic, SCHED_DATA_MAGIC, 8)) {
		rc = scx_fail("%s: not a sched.data file (bad magic)", path);
		goto out;
	}
	if (hdr.version != 1 && hdr.version != 2) {
		rc = scx_fail("%s: sched.data version %u is not supported (only 1 and 2)", path, hdr.version);
		goto out;
	}
	if (hdr.header_size < SCHED_DATA_HEADER_SIZE || hdr.header_size > size ||
	    (hdr.version == 2 && hdr.header_size % 8)) {
		rc = scx_fail("%s: bad header_size %u", path, hdr.header_size);
		goto out;
	}
	if (hdr.version == 1 && (hdr.record_size < SCHED_RECORD_SIZE || hdr.record_size > (1u << 20))) {
		rc = scx_fail("%s: bad record_size %u (at least %d)", path, hdr.record_size, SCHED_RECORD_SIZE);
		goto out;
	}
	w.map = map;
	w.size = size;
	w.ntasks = hdr.nr_cpus > 0 && hdr.nr_cpus <= MAX_CPUS ? hdr.nr_cpus : MAX_CPUS;
	if (!(w.tasks = calloc(w.ntasks, sizeof(*w.tasks)))) {
		rc = scx_fail("out of memory");
		goto out;
	}
	rc = read_ordered(&w);
out:
	order_heap_free(&w.heap);
	free(w.seg_off);
	free(w.seg_min);
	free(w.seg_left);
	free(w.tasks);
	if (map)
		munmap((void *)map, (size_t)size);
	close(fd);
	return rc;
}
