/*
 * sched_data.c - our recorder's sched.data (schemas/sched-data.md,
 * bpf/sched.h) into sched.jsonl. Records are sorted by timestamp (the file
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
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/sched.h"
#include "lib/error.h"
#include "process/sched_sink.h"
#include "process/sched_trace.h"

_Static_assert(sizeof(struct sched_record) == SCHED_RECORD_SIZE, "sched_record layout");
_Static_assert(sizeof(struct sched_data_header) == SCHED_DATA_HEADER_SIZE, "sched.data header layout");

#define MAX_CPUS 65536

struct cur_task {
	bool known;
	int64_t pid, tgid;
	char comm[SCHED_COMM_LEN + 1];
};

struct idx {
	uint64_t ts;
	uint64_t i;
};

static int idx_cmp(const void *a, const void *b)
{
	const struct idx *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
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
		sched_state_from_raw(r->arg0, r->arg1 != 0, v->state, sizeof(v->state));
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

static int emit_record(struct sched_sink *s, const struct sched_record *r, struct cur_task *cur, size_t ncur)
{
	enum sched_kind k = type_kind[r->type];
	struct sched_vals v;
	char trace[512], comm[SCHED_COMM_LEN + 1];
	size_t tlen;
	int64_t pid, tid;
	struct cur_task *c = r->cpu < ncur ? &cur[r->cpu] : NULL;

	values(r, k, &v);
	tlen = sched_format_trace(k, &v, trace, sizeof(trace));
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
	return sched_sink_emit(s, comm, pid, tid, r->cpu, r->timestamp, type_event[r->type], trace, tlen);
}

int sched_read_data(struct sched_sink *s, const char *path)
{
	struct sched_data_header hdr;
	struct stat st;
	const uint8_t *map = NULL;
	struct idx *ix = NULL;
	struct cur_task *cur = NULL;
	uint64_t nrec, i, n = 0;
	size_t ncur;
	int fd, rc = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return scx_fail_errno("%s", path);
	if (fstat(fd, &st) < 0) {
		rc = scx_fail_errno("%s", path);
		goto out;
	}
	if ((uint64_t)st.st_size < SCHED_DATA_HEADER_SIZE) {
		rc = scx_fail("%s: too short for a sched.data header (%lld bytes)", path, (long long)st.st_size);
		goto out;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
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
	if (hdr.version != SCHED_DATA_VERSION) {
		rc = scx_fail("%s: sched.data version %u is not supported (only %d)", path, hdr.version,
			      SCHED_DATA_VERSION);
		goto out;
	}
	if (hdr.header_size < SCHED_DATA_HEADER_SIZE || hdr.header_size > (uint64_t)st.st_size) {
		rc = scx_fail("%s: bad header_size %u", path, hdr.header_size);
		goto out;
	}
	if (hdr.record_size < SCHED_RECORD_SIZE || hdr.record_size > (1u << 20)) {
		rc = scx_fail("%s: bad record_size %u (at least %d)", path, hdr.record_size, SCHED_RECORD_SIZE);
		goto out;
	}
	nrec = ((uint64_t)st.st_size - hdr.header_size) / hdr.record_size;
	s->res->truncated_bytes = ((uint64_t)st.st_size - hdr.header_size) % hdr.record_size;
	ix = malloc((nrec ? nrec : 1) * sizeof(*ix));
	ncur = hdr.nr_cpus > 0 && hdr.nr_cpus <= MAX_CPUS ? hdr.nr_cpus : MAX_CPUS;
	cur = calloc(ncur, sizeof(*cur));
	if (!ix || !cur) {
		rc = scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < nrec; i++) {
		const uint8_t *p = map + hdr.header_size + i * hdr.record_size;
		uint16_t type;

		memcpy(&type, p + 12, 2);
		s->res->total++;
		if (type == 0 || type > SCHED_RECORD_TYPE_MAX) {
			s->res->unknown_types++;
			sched_sink_unparseable(s, "sched.data: record of unknown type");
			continue;
		}
		memcpy(&ix[n].ts, p, 8);
		ix[n++].i = i;
	}
	if (n)
		qsort(ix, n, sizeof(*ix), idx_cmp);
	for (i = 0; i < n; i++) {
		struct sched_record r;

		if ((i & 0xfff) == 0 && sched_sink_check_stop(s) < 0)
			goto out;
		memcpy(&r, map + hdr.header_size + ix[i].i * hdr.record_size, sizeof(r));
		if (emit_record(s, &r, cur, ncur) < 0)
			goto out;
	}
	rc = 0;
out:
	free(ix);
	free(cur);
	if (map)
		munmap((void *)map, (size_t)st.st_size);
	close(fd);
	return rc;
}
