/*
 * mem_stream.c - per-CPU events and ring buffers of the memory stream (see
 * mem_stream.h). Draining follows the kernel's ring buffer protocol: read
 * data_head with acquire semantics, copy [tail, head) (a record may wrap
 * around the end of the buffer), then publish data_tail with a release.
 */
#include "mem_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"

struct cpu_ring {
	int cpu;
	int owner_fd;          /* the side-band event; every other event outputs into its buffer */
	int fds[MEM_BACKEND_MAX_EVENTS];
	size_t nr_fds;
	uint64_t sample_id;    /* id of the only sampling event on this cpu; 0 with several */
	bool sample_id_set;
	void *base;            /* control page + data */
	size_t map_size, data_size;
};

#define PAGEMAP_SLOTS 64
#define PAGEMAP_BLOCK 64 /* entries read at once: 256 KiB of address space */
#define PAGEMAP_BLOCKS 256
struct pagemap_cache {
	struct { int pid, fd; uint64_t used; } slot[PAGEMAP_SLOTS];
	uint64_t clock;
	/* blocks read during the current drain pass (reset at each pass: the
	 * answer is "mapped at drain time" either way, just read in bulk) */
	struct {
		int pid;
		uint64_t block;
		uint64_t pass;
		uint64_t entry[PAGEMAP_BLOCK];
	} block[PAGEMAP_BLOCKS];
	uint64_t pass;
};

/* ---- layout -------------------------------------------------------------- */

/* Byte offsets of the fields we touch, valid because our sample_type has no
 * variable-length field before PHYS_ADDR (no READ, CALLCHAIN, RAW, ...). */
static void compute_layout(struct mem_stream *ms)
{
	static const uint64_t order[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR,
		PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD,
		PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, PERF_SAMPLE_DATA_SRC,
		PERF_SAMPLE_TRANSACTION, PERF_SAMPLE_PHYS_ADDR, PERF_SAMPLE_CGROUP, PERF_SAMPLE_DATA_PAGE_SIZE,
	};
	const uint64_t variable = PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
				  PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
				  PERF_SAMPLE_REGS_INTR;
	uint64_t st = ms->sample_type;
	int off = 0;
	size_t i;

	ms->off_tid = ms->off_time = ms->off_addr = ms->off_phys = ms->off_page_size = -1;
	ms->off_id = ms->off_identifier = -1;
	ms->trailer_size = 8 * (size_t)__builtin_popcountll(st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
						   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
						   PERF_SAMPLE_IDENTIFIER));
	if (st & variable)
		return;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(st & order[i]))
			continue;
		if (order[i] == PERF_SAMPLE_TID)
			ms->off_tid = off;
		else if (order[i] == PERF_SAMPLE_TIME)
			ms->off_time = off;
		else if (order[i] == PERF_SAMPLE_ADDR)
			ms->off_addr = off;
		else if (order[i] == PERF_SAMPLE_PHYS_ADDR)
			ms->off_phys = off;
		else if (order[i] == PERF_SAMPLE_DATA_PAGE_SIZE)
			ms->off_page_size = off;
		else if (order[i] == PERF_SAMPLE_ID)
			ms->off_id = off;
		else if (order[i] == PERF_SAMPLE_IDENTIFIER)
			ms->off_identifier = off;
		off += 8;
	}
}

/* ---- opening ----------------------------------------------------------------- */

static int sys_perf_event_open(struct perf_event_attr *a, int cpu, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, a, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static void sideband_attr(struct mem_stream *ms)
{
	struct perf_event_attr *a = &ms->sideband;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_period = 1;
	a->sample_type = ms->sample_type;
	a->disabled = 1;
	a->mmap = a->mmap2 = a->mmap_data = 1;
	a->comm = a->comm_exec = a->task = 1;
	a->cgroup = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->exclude_guest = 1;
}

static int online_cpu_list(int **cpus, size_t *n)
{
	char buf[4096], *p;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	size_t cap = 64;

	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return scx_fail_errno("/sys/devices/system/cpu/online");
	}
	fclose(f);
	*n = 0;
	if (!(*cpus = malloc(cap * sizeof(int))))
		return scx_fail("out of memory");
	for (p = buf; *p && *p != '\n';) {
		long a = strtol(p, &p, 10), b = a;

		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (; a <= b; a++) {
			if (*n == cap) {
				int *nc = realloc(*cpus, (cap *= 2) * sizeof(int));

				if (!nc)
					return scx_fail("out of memory");
				*cpus = nc;
			}
			(*cpus)[(*n)++] = (int)a;
		}
		if (*p == ',')
			p++;
	}
	return 0;
}

/* True when the cpulist ("" = all) names cpu. */
static bool cpu_in_list(const char *list, int cpu)
{
	const char *p = list;

	if (!*p)
		return true;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			return false;
		p = end;
		if (*p == '-')
			b = strtol(p + 1, (char **)&p, 10);
		if (cpu >= a && cpu <= b)
			return true;
		if (*p == ',')
			p++;
		else
			break;
	}
	return false;
}

static int open_ring(struct mem_stream *ms, struct cpu_ring *r, size_t pages)
{
	long page = sysconf(_SC_PAGESIZE);

	r->owner_fd = sys_perf_event_open(&ms->sideband, r->cpu, -1);
	if (r->owner_fd < 0)
		return scx_fail_errno("side-band event on cpu %d: perf_event_open", r->cpu);
	r->data_size = pages * (size_t)page;
	r->map_size = r->data_size + (size_t)page;
	r->base = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, r->owner_fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return scx_fail_errno("cpu %d: mmap of a %zu KiB ring buffer (try --mmap-pages smaller, "
				      "or raise perf_event_mlock_kb)", r->cpu, r->data_size >> 10);
	}
	return 0;
}

static int open_events(struct mem_stream *ms, struct cpu_ring *r)
{
	struct mem_backend *be = ms->be;
	size_t i;

	for (i = 0; i < be->nr_events; i++) {
		struct mem_event *ev = &be->ev[i];
		int leader = ev->leader >= 0 ? r->fds[ev->leader] : -1;
		int fd;

		if (!cpu_in_list(ev->cpus, r->cpu)) {
			r->fds[i] = -1;
			continue;
		}
		fd = mem_event_open(ev, r->cpu, leader);
		if (fd < 0)
			return -1;
		r->fds[i] = fd;
		r->nr_fds = i + 1;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->owner_fd) < 0)
			return scx_fail_errno("%s on cpu %d: redirect into the cpu's ring buffer", ev->name, r->cpu);
	}
	r->nr_fds = be->nr_events;
	return 0;
}

/* Open (and close) the whole event set once, so the attrs hold what the
 * kernel accepts; every event must end up with the same sample_type. */
static int probe_events(struct mem_stream *ms, int cpu)
{
	int fds[MEM_BACKEND_MAX_EVENTS];
	size_t i, opened = 0;
	int rc = 0;

	for (i = 0; i < ms->be->nr_events && rc == 0; i++) {
		struct mem_event *ev = &ms->be->ev[i];

		fds[i] = -1;
		if (!cpu_in_list(ev->cpus, cpu))
			continue;
		fds[i] = mem_event_open(ev, cpu, ev->leader >= 0 ? fds[ev->leader] : -1);
		if (fds[i] < 0)
			rc = -1;
		opened = i + 1;
	}
	for (i = 0; i < opened; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (i = 1; i < ms->be->nr_events && rc == 0; i++)
		if (ms->be->ev[i].attr.sample_type != ms->be->ev[0].attr.sample_type)
			rc = scx_fail("%s and %s ended up with different sample types", ms->be->ev[0].name,
				      ms->be->ev[i].name);
	return rc;
}

/* Ids of fd (PERF_EVENT_IOC_ID) appended to ids. */
static int event_id(int fd, uint64_t *id)
{
	return ioctl(fd, PERF_EVENT_IOC_ID, id) < 0 ? scx_fail_errno("PERF_EVENT_IOC_ID") : 0;
}

static int add_attrs(struct mem_stream *ms)
{
	uint64_t *ids = calloc(ms->nr_rings, sizeof(*ids));
	size_t e, c, n;
	int rc = 0;

	if (!ids)
		return scx_fail("out of memory");
	for (e = 0; e < ms->be->nr_events && rc == 0; e++) {
		for (c = 0, n = 0; c < ms->nr_rings && rc == 0; c++) {
			struct cpu_ring *r = &ms->rings[c];

			if (r->fds[e] < 0 || (rc = event_id(r->fds[e], &ids[n++])) < 0)
				continue;
			/* several sampling events on a cpu: no single id to restore */
			r->sample_id = e == 0 || !r->sample_id_set ? ids[n - 1] : 0;
			r->sample_id_set = true;
		}
		if (rc == 0)
			rc = pd_writer_add_attr(ms->w, &ms->be->ev[e].attr, ids, n, ms->be->ev[e].name);
	}
	for (c = 0, n = 0; c < ms->nr_rings && rc == 0; c++)
		rc = event_id(ms->rings[c].owner_fd, &ids[n++]);
	if (rc == 0)
		rc = pd_writer_add_attr(ms->w, &ms->sideband, ids, n, "dummy:u");
	free(ids);
	return rc;
}

static uint64_t zero_page_pfn(struct mem_stream *ms);

int mem_stream_open(struct mem_stream *ms, struct mem_backend *be, struct pd_writer *w,
		    const struct mem_stream_opts *o)
{
	int *cpus = NULL;
	size_t n = 0, i, pages = o->mmap_pages ? o->mmap_pages : 1024;
	int rc;

	memset(ms, 0, sizeof(*ms));
	ms->be = be;
	ms->w = w;
	ms->opts = *o;
	ms->kpageflags_fd = -1;
	ms->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	if (pages & (pages - 1))
		return scx_fail("--mmap-pages %zu: must be a power of two", pages);
	if (!be->nr_events)
		return scx_fail("the %s backend has no events", mem_backend_name(be->kind));
	if (online_cpu_list(&cpus, &n) < 0)
		return -1;
	ms->rings = calloc(n, sizeof(*ms->rings));
	ms->pagemaps = calloc(1, sizeof(*ms->pagemaps));
	if (!ms->rings || !ms->pagemaps) {
		free(cpus);
		return scx_fail("out of memory");
	}
	for (i = 0; i < n; i++) {
		ms->rings[i].cpu = cpus[i];
		ms->rings[i].owner_fd = -1;
		memset(ms->rings[i].fds, -1, sizeof(ms->rings[i].fds));
	}
	ms->nr_rings = n;
	free(cpus);
	/* opening settles precise_ip and WEIGHT_STRUCT/WEIGHT in the attrs:
	 * probe on the first cpu, so the side-band can share the sample_type */
	rc = probe_events(ms, ms->rings[0].cpu);
	ms->sample_type = be->ev[0].attr.sample_type;
	sideband_attr(ms);
	for (i = 0; i < n && rc == 0; i++) {
		rc = open_ring(ms, &ms->rings[i], pages);
		if (rc == 0)
			rc = open_events(ms, &ms->rings[i]);
	}
	if (rc == 0) {
		compute_layout(ms);
		rc = add_attrs(ms);
	}
	if (rc == 0 && ms->opts.resolve_phys) {
		ms->kpageflags_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
		ms->zero_pfn = zero_page_pfn(ms);
	}
	return rc;
}

static int ioctl_all(struct mem_stream *ms, unsigned long req, const char *what)
{
	size_t c, e;

	for (c = 0; c < ms->nr_rings; c++) {
		struct cpu_ring *r = &ms->rings[c];

		if (r->owner_fd >= 0 && ioctl(r->owner_fd, req, 0) < 0)
			return scx_fail_errno("%s side-band event on cpu %d", what, r->cpu);
		for (e = 0; e < r->nr_fds; e++)
			if (r->fds[e] >= 0 && ioctl(r->fds[e], req, 0) < 0)
				return scx_fail_errno("%s %s on cpu %d", what, ms->be->ev[e].name, r->cpu);
	}
	return 0;
}

int mem_stream_enable(struct mem_stream *ms)
{
	return ioctl_all(ms, PERF_EVENT_IOC_ENABLE, "enable");
}

int mem_stream_disable(struct mem_stream *ms)
{
	return ioctl_all(ms, PERF_EVENT_IOC_DISABLE, "disable");
}

/* ---- physical addresses from pagemap ---------------------------------------- */

static int pagemap_fd(struct pagemap_cache *pc, int pid)
{
	char path[64];
	size_t i, victim = 0;

	pc->clock++;
	for (i = 0; i < PAGEMAP_SLOTS; i++) {
		if (pc->slot[i].fd > 0 && pc->slot[i].pid == pid) {
			pc->slot[i].used = pc->clock;
			return pc->slot[i].fd;
		}
		if (pc->slot[i].used < pc->slot[victim].used)
			victim = i;
	}
	if (pc->slot[victim].fd > 0)
		close(pc->slot[victim].fd);
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	pc->slot[victim].fd = open(path, O_RDONLY | O_CLOEXEC);
	pc->slot[victim].pid = pid;
	pc->slot[victim].used = pc->clock;
	return pc->slot[victim].fd;
}

/* The pagemap entry of virtual page vpage of pid, from this pass's blocks. */
static int pagemap_entry(struct pagemap_cache *pc, int pid, uint64_t vpage, uint64_t *entry)
{
	uint64_t blk = vpage / PAGEMAP_BLOCK;
	size_t slot = (size_t)((blk * 0x9e3779b97f4a7c15ULL ^ (uint64_t)pid) >> 56) % PAGEMAP_BLOCKS;
	ssize_t n;
	int fd;

	if (pc->block[slot].pass != pc->pass || pc->block[slot].pid != pid || pc->block[slot].block != blk) {
		fd = pagemap_fd(pc, pid);
		if (fd <= 0)
			return -1;
		n = pread(fd, pc->block[slot].entry, sizeof(pc->block[slot].entry), (off_t)(blk * PAGEMAP_BLOCK * 8));
		if (n <= 0)
			return -1;
		if ((size_t)n < sizeof(pc->block[slot].entry)) /* end of the address space */
			memset((char *)pc->block[slot].entry + n, 0, sizeof(pc->block[slot].entry) - (size_t)n);
		pc->block[slot].pass = pc->pass;
		pc->block[slot].pid = pid;
		pc->block[slot].block = blk;
	}
	*entry = pc->block[slot].entry[vpage % PAGEMAP_BLOCK];
	return 0;
}

/* Physical address of vaddr in pid, 0 when the page is not present. */
static uint64_t pagemap_phys(struct mem_stream *ms, int pid, uint64_t vaddr, uint64_t *page_size)
{
	uint64_t entry, pfn, flags;
	uint64_t page = ms->page_size;

	if (pagemap_entry(ms->pagemaps, pid, vaddr / page, &entry) < 0)
		return 0;
	if (!(entry >> 63 & 1))
		return 0;
	pfn = entry & ((1ULL << 55) - 1);
	if (!pfn)
		return 0; /* without CAP_SYS_ADMIN the kernel hides PFNs */
	if (pfn == ms->zero_pfn)
		return 0; /* reads of untouched memory: nothing is shared through it */
	*page_size = page;
	if (ms->kpageflags_fd >= 0 &&
	    pread(ms->kpageflags_fd, &flags, sizeof(flags), (off_t)pfn * 8) == sizeof(flags) &&
	    (flags & ((1ULL << 17) | (1ULL << 22)))) /* KPF_HUGE, KPF_THP */
		*page_size = 2ULL << 20;
	return pfn * page + (vaddr & (page - 1));
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Fill in a 0 phys_addr of a sample (record copy in rec). */
static void resolve_phys(struct mem_stream *ms, uint8_t *rec)
{
	const uint8_t *body = rec + sizeof(struct perf_event_header);
	uint64_t phys, size = 0;
	uint32_t pid;

	if (rd64(body + ms->off_phys)) {
		ms->st.phys_kernel++;
		return;
	}
	memcpy(&pid, body + ms->off_tid, sizeof(pid));
	phys = pagemap_phys(ms, (int)pid, rd64(body + ms->off_addr), &size);
	if (!phys) {
		ms->st.phys_unresolved++;
		return;
	}
	memcpy(rec + sizeof(struct perf_event_header) + ms->off_phys, &phys, sizeof(phys));
	if (ms->off_page_size >= 0 && !rd64(body + ms->off_page_size))
		memcpy(rec + sizeof(struct perf_event_header) + ms->off_page_size, &size, sizeof(size));
	ms->st.phys_resolved++;
}

/* The PFN of the kernel's shared zero page: what a read of never-written
 * anonymous memory maps. 0 when it cannot be learned. */
static uint64_t zero_page_pfn(struct mem_stream *ms)
{
	volatile const char *p = mmap(NULL, ms->page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t entry = 0, pfn = 0;
	int fd;

	if (p == MAP_FAILED)
		return 0;
	(void)p[0];
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, &entry, sizeof(entry), (off_t)((uintptr_t)p / ms->page_size) * 8) == sizeof(entry) &&
	    (entry >> 63 & 1))
		pfn = entry & ((1ULL << 55) - 1);
	if (fd >= 0)
		close(fd);
	munmap((void *)p, ms->page_size);
	return pfn;
}

/* ---- draining ---------------------------------------------------------------- */

static void count_record(struct mem_stream *ms, uint8_t *rec)
{
	struct perf_event_header h;
	const uint8_t *body = rec + sizeof(h);

	memcpy(&h, rec, sizeof(h));
	ms->st.records++;
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		ms->st.samples++;
		if (ms->off_time >= 0 && h.size >= 8 + ms->off_time + 8) {
			uint64_t t = rd64(body + ms->off_time);

			if (!ms->st.first_time || t < ms->st.first_time)
				ms->st.first_time = t;
			if (t > ms->st.last_time)
				ms->st.last_time = t;
		}
		if (ms->opts.resolve_phys && ms->off_phys >= 0 && ms->off_addr >= 0 && ms->off_tid >= 0 &&
		    h.size >= 8 + ms->off_phys + 8)
			resolve_phys(ms, rec);
		break;
	case PERF_RECORD_LOST:
		ms->st.lost_records++;
		if (h.size >= 8 + 16)
			ms->st.lost_events += rd64(body + 8);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h.size >= 8 + 8)
			ms->st.lost_samples += rd64(body);
		break;
	case PERF_RECORD_THROTTLE:
		ms->st.throttle++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		ms->st.unthrottle++;
		break;
	}
}

/*
 * The kernel fills one perf_sample_data per software event occurrence and
 * hands it to every software event of that kind on the cpu; fields the
 * first event computed (ID, TIME) are not computed again. So while another
 * program samples page faults on a cpu, our samples there may carry that
 * program's event id (perf script then fails on them: "Bad address").
 * Everything in this ring is ours: give the sample back our event's id.
 */
static void restore_sample_id(struct mem_stream *ms, const struct cpu_ring *r, uint8_t *rec, size_t size)
{
	uint8_t *body = rec + sizeof(struct perf_event_header);
	bool fixed = false;
	const int offs[2] = {ms->off_id, ms->off_identifier};

	if (!r->sample_id)
		return;
	for (size_t i = 0; i < 2; i++) {
		if (offs[i] < 0 || size < sizeof(struct perf_event_header) + (size_t)offs[i] + 8 ||
		    rd64(body + offs[i]) == r->sample_id)
			continue;
		memcpy(body + offs[i], &r->sample_id, sizeof(r->sample_id));
		fixed = true;
	}
	ms->st.foreign_ids += fixed;
}

static int drain_ring(struct mem_stream *ms, struct cpu_ring *r)
{
	struct perf_event_mmap_page *ctl = r->base;
	const uint8_t *data = (const uint8_t *)r->base + ctl->data_offset;
	uint64_t size = ctl->data_size ? ctl->data_size : r->data_size;
	uint64_t head = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = ctl->data_tail;
	uint8_t rec[65536];
	int rc = 0;

	while (tail < head && rc == 0) {
		struct perf_event_header h;
		uint64_t off = tail % size, first;

		memcpy(&h, data + off, sizeof(h)); /* headers never straddle the end */
		if (h.size < sizeof(h) || h.size > head - tail) {
			rc = scx_fail("cpu %d: corrupt ring buffer record (size %u)", r->cpu, h.size);
			break;
		}
		first = size - off < h.size ? size - off : h.size;
		memcpy(rec, data + off, first);
		memcpy(rec + first, data, h.size - first);
		if (h.type == PERF_RECORD_SAMPLE)
			restore_sample_id(ms, r, rec, h.size);
		count_record(ms, rec);
		rc = pd_writer_add_record(ms->w, rec, h.size);
		tail += h.size;
	}
	__atomic_store_n(&ctl->data_tail, tail, __ATOMIC_RELEASE);
	return rc;
}

int mem_stream_drain(struct mem_stream *ms)
{
	static const struct perf_event_header round = {.type = PD_RECORD_FINISHED_ROUND, .size = 8};
	size_t c;

	if (ms->pagemaps)
		ms->pagemaps->pass++;
	for (c = 0; c < ms->nr_rings; c++)
		if (ms->rings[c].base && drain_ring(ms, &ms->rings[c]) < 0)
			return -1;
	ms->st.rounds++;
	return pd_writer_add_record(ms->w, &round, sizeof(round));
}

void mem_stream_close(struct mem_stream *ms)
{
	size_t c, e;

	for (c = 0; ms->rings && c < ms->nr_rings; c++) {
		struct cpu_ring *r = &ms->rings[c];

		for (e = 0; e < MEM_BACKEND_MAX_EVENTS; e++)
			if (r->fds[e] >= 0)
				close(r->fds[e]);
		if (r->base)
			munmap(r->base, r->map_size);
		if (r->owner_fd >= 0)
			close(r->owner_fd);
	}
	if (ms->pagemaps)
		for (c = 0; c < PAGEMAP_SLOTS; c++)
			if (ms->pagemaps->slot[c].fd > 0)
				close(ms->pagemaps->slot[c].fd);
	if (ms->kpageflags_fd >= 0)
		close(ms->kpageflags_fd);
	free(ms->rings);
	free(ms->pagemaps);
	ms->rings = NULL;
	ms->pagemaps = NULL;
}
