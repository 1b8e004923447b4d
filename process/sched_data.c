/*
 * sched_data.c - our recorder's sched.data (schemas/sched-data.md,
 * lib/sched_data_format.h; version 2's chunks of packed records and version 1's fixed
 * 88-byte records) into sched.jsonl. Records are sorted by timestamp (the file
 * is ordered per CPU batch, not by time), then each becomes the line perf script would print
 * for the same tracepoint hit: event name, trace text in the tracefs print
 * format. The sample's task is what perf would report as current: prev for
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
#include "lib/sched_data_format.h"
#include "process/sched_trace.h"

#define MAX_CPUS 65536

struct cur_task {
	bool known;
	int64_t pid, tgid;
	char comm[SCHED_COMM_LEN + 1];
};

/* A record to emit: its timestamp and where it is. Version 2 packs the
 * record's offset in its chunk into the top bits (chunks are < 64 KiB). */
struct idx {
	uint64_t ts;
	uint64_t at; /* file offset | offset in the chunk << IDX_REL_SHIFT */
};

#define IDX_REL_SHIFT 48
#define IDX_OFF_MASK ((1ull << IDX_REL_SHIFT) - 1)
#define CHUNK_MAX 65535 /* comm refs are 16 bits */

static int idx_cmp(const void *a, const void *b)
{
	const struct idx *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->at & IDX_OFF_MASK) < (y->at & IDX_OFF_MASK) ? -1 : (x->at & IDX_OFF_MASK) > (y->at & IDX_OFF_MASK);
}

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
static size_t rec2_len(const uint8_t *chunk, size_t rel, size_t size, const char **why)
{
	struct sched_rec2 b;
	size_t len = SCHED_REC2_BASE;

	if (rel + SCHED_REC2_BASE > size) {
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

/* The v2 record at rel of chunk (checked by rec2_len) as a struct sched_record. */
static void rec2_decode(const uint8_t *chunk, size_t rel, struct sched_record *r)
{
	struct sched_rec2 b;
	const uint8_t *p = chunk + rel + SCHED_REC2_BASE;

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
	char trace[512], comm[SCHED_COMM_LEN + 1];
	size_t tlen;
	int64_t pid, tid;
	struct cur_task *c = r->cpu < ncur ? &cur[r->cpu] : NULL;

	values(r, k, &v);
	tlen = sched_trace_format(k, &v, trace, sizeof(trace));
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
	return sched_sink_emit(s, comm, pid, tid, r->cpu, r->timestamp, type_event[r->type], trace, tlen, &d);
}

/* Index version 1's fixed-size records. */
/*
 * Records are read in time order, which wanders over the file (each cpu's
 * chunks); the pages below every record still to be read are dropped from
 * memory as the read goes (they are the file's: nothing is lost), so the
 * resident part of a large sched.data stays small when the file is about
 * in time order, as the recorder writes it (all cpus drained together). low[k]: the lowest
 * offset of records k * RELEASE_STEP and after; NULL on OOM.
 */
#define RELEASE_STEP 65536
#define RELEASE_BYTES ((uint64_t)8 << 20) /* indexing drops what it walked past in steps of 8 MiB */

static uint64_t *release_marks(const struct idx *ix, uint64_t n)
{
	uint64_t *low = malloc((n / RELEASE_STEP + 1) * sizeof(*low)), m = UINT64_MAX;

	for (uint64_t i = n; low && i-- > 0;) {
		uint64_t off = ix[i].at & IDX_OFF_MASK;

		m = off < m ? off : m;
		if (i % RELEASE_STEP == 0)
			low[i / RELEASE_STEP] = m;
	}
	if (low && n == 0)
		low[0] = 0;
	return low;
}

/* Drop the mapped pages in [released, below) rounded down to pages; the new released. */
static uint64_t release_below(const uint8_t *map, uint64_t released, uint64_t below)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t end = page > 0 ? below & ~((uint64_t)page - 1) : 0;

	if (end <= released)
		return released;
	(void)madvise((void *)(map + released), end - released, MADV_DONTNEED);
	return end;
}

static uint64_t index_v1(struct sched_sink *s, const uint8_t *map, uint64_t size,
			 const struct sched_data_header *hdr, struct idx *ix)
{
	uint64_t nrec = (size - hdr->header_size) / hdr->record_size, n = 0, released = 0;

	s->res->truncated_bytes = (size - hdr->header_size) % hdr->record_size;
	for (uint64_t i = 0; i < nrec; i++) {
		uint64_t off = hdr->header_size + i * hdr->record_size;
		uint16_t type;

		if (off - released >= RELEASE_BYTES) /* indexed: not needed until read in time order */
			released = release_below(map, released, off);
		memcpy(&type, map + off + 12, 2);
		s->res->total++;
		if (type == 0 || type > SCHED_RECORD_TYPE_MAX) {
			s->res->unknown_types++;
			sched_sink_unparseable(s, "sched.data: record of unknown type");
			continue;
		}
		memcpy(&ix[n].ts, map + off, 8);
		ix[n++].at = off;
	}
	return n;
}

/* Index version 2's chunks. A chunk cut short by the end of the file gives
 * the records wholly in it; after a damaged chunk header nothing more can
 * be framed: the rest counts as truncated. A damaged record loses the rest
 * of its chunk (counted unparseable). */
static uint64_t index_v2(struct sched_sink *s, const uint8_t *map, uint64_t size,
			 const struct sched_data_header *hdr, struct idx *ix)
{
	uint64_t off = hdr->header_size, n = 0, released = 0;

	while (off < size) {
		struct sched_chunk_header ch;
		uint64_t avail = size - off, csize;
		size_t rel = SCHED_CHUNK_HEADER_SIZE;
		unsigned k;

		if (avail < SCHED_CHUNK_HEADER_SIZE)
			break;
		if (off - released >= RELEASE_BYTES) /* indexed: not needed until read in time order */
			released = release_below(map, released, off);
		memcpy(&ch, map + off, sizeof(ch));
		if (ch.size < SCHED_CHUNK_HEADER_SIZE || ch.size % 8 || ch.size > CHUNK_MAX)
			break;
		csize = ch.size <= avail ? ch.size : avail;
		for (k = 0; k < ch.nrec; k++) {
			const char *why = NULL;
			size_t len = rec2_len(map + off, rel, (size_t)csize, &why);
			uint8_t type;

			if (!len) {
				if (ch.size > avail) /* the file ends inside this record */
					break;
				for (; k < ch.nrec; k++) {
					s->res->total++;
					sched_sink_unparseable(s, why);
				}
				break;
			}
			s->res->total++;
			type = map[off + rel + 8];
			if (type == 0 || type > SCHED_RECORD_TYPE_MAX) {
				s->res->unknown_types++;
				sched_sink_unparseable(s, "sched.data: record of unknown type");
			} else {
				memcpy(&ix[n].ts, map + off + rel, 8);
				ix[n++].at = off | (uint64_t)rel << IDX_REL_SHIFT;
			}
			rel += len;
		}
		if (ch.size > avail) {
			off += rel;
			break;
		}
		off += ch.size;
	}
	s->res->truncated_bytes = size - off;
	return n;
}

int sched_data_read(struct sched_sink *s, const char *path)
{
	struct sched_data_header hdr;
	struct stat st;
	const uint8_t *map = NULL;
	struct idx *ix = NULL;
	struct cur_task *cur = NULL;
	uint64_t cap, size, i, n = 0, *low = NULL, released = 0;
	size_t ncur;
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
	/* at most one record per SCHED_REC2_BASE bytes (version 1: record_size) */
	cap = (size - hdr.header_size) / (hdr.version == 1 ? hdr.record_size : SCHED_REC2_BASE);
	ix = malloc((cap ? cap : 1) * sizeof(*ix));
	ncur = hdr.nr_cpus > 0 && hdr.nr_cpus <= MAX_CPUS ? hdr.nr_cpus : MAX_CPUS;
	cur = calloc(ncur, sizeof(*cur));
	if (!ix || !cur) {
		rc = scx_fail("out of memory");
		goto out;
	}
	n = hdr.version == 1 ? index_v1(s, map, size, &hdr, ix) : index_v2(s, map, size, &hdr, ix);
	if (n)
		qsort(ix, n, sizeof(*ix), idx_cmp);
	if (!(low = release_marks(ix, n))) {
		rc = scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct sched_record r;
		uint64_t off = ix[i].at & IDX_OFF_MASK;

		if ((i & 0xfff) == 0 && sched_sink_check_stop(s) < 0)
			goto out;
		if (i % RELEASE_STEP == 0)
			released = release_below(map, released, low[i / RELEASE_STEP]);
		if (hdr.version == 1)
			memcpy(&r, map + off, sizeof(r));
		else
			rec2_decode(map + off, (size_t)(ix[i].at >> IDX_REL_SHIFT), &r);
		if (emit_record(s, &r, cur, ncur) < 0)
			goto out;
	}
	rc = 0;
out:
	free(low);
	free(ix);
	free(cur);
	if (map)
		munmap((void *)map, (size_t)size);
	close(fd);
	return rc;
}
