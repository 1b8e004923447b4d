/*
 * mem_stream.c - per-CPU events and ring buffers of the memory stream (see
 * streams.h). Draining follows the kernel's ring buffer protocol: read
 * data_head with acquire semantics, copy [tail, head) (a record may wrap
 * around the end of the buffer), then publish data_tail with a release.
 */
#include "record/streams/streams.h"

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
#include "lib/host/host.h"
#include "record/backend/backend.h"
#include "record/streams/aux_area.h"
#include "record/streams/ksymbol_fix.h"
#include "record/decode/decode.h"

/* How often the recorder drains the rings. The page-fault backend drains
 * every 5 ms: the kernel gives its samples' physical addresses, but those it
 * left at 0 come from pagemap at drain time (pages may be freed right after
 * the fault). The decode backend samples
 * steady-state memory, and each drain costs a wakeup (on a busy host it
 * preempts the workload) and rereads the pagemap blocks of the pass: at
 * 20 ms a pass holds about 10 samples per busy CPU at 500 Hz; at 1000 Hz
 * pagemap preads fell from 0.7 to 0.3 per sample on warm-share and
 * wakeups from 200 to 50 a second (bench/bench_decode.sh). The cost: samples of a
 * process in the last 20 ms before it exits find no text or page tables
 * (counted as unreadable text or unresolved). The rings hold seconds. */
#define MEM_STREAM_DRAIN_MS 5
#define MEM_STREAM_DRAIN_MS_DECODE 20

struct cpu_ring {
	int cpu;
	int own_event;         /* -1: the side-band ring; else the one event (own_ring) whose buffer it is */
	int owner_fd;          /* the side-band event; every other event outputs into its buffer (-1 in an own ring) */
	int fds[MEM_BACKEND_MAX_EVENTS];
	size_t nr_fds;
	uint64_t sample_id;    /* id of the only sampling event on this cpu; 0 with several */
	bool sample_id_set;
	void *base;            /* control page + data */
	size_t map_size, data_size;
	struct aux_area aux;   /* Arm SPE: the AUX area behind its own ring (aux.base NULL without) */
};

/* ---- layout -------------------------------------------------------------- */

/* Byte offsets of the fields we touch, valid because our sample_type has no
 * variable-length field before PHYS_ADDR (no READ, CALLCHAIN, RAW, ...). */
static void compute_layout(struct mem_stream *ms)
{
	/* the fixed-size fields in the kernel's order, each with where its
	 * offset goes (NULL: a field we skip over) */
	const struct {
		uint64_t bit;
		int *off;
	} order[] = {
		{PERF_SAMPLE_IDENTIFIER, &ms->off_identifier}, {PERF_SAMPLE_IP, NULL},
		{PERF_SAMPLE_TID, &ms->off_tid}, {PERF_SAMPLE_TIME, &ms->off_time},
		{PERF_SAMPLE_ADDR, &ms->off_addr}, {PERF_SAMPLE_ID, &ms->off_id},
		{PERF_SAMPLE_STREAM_ID, NULL}, {PERF_SAMPLE_CPU, NULL}, {PERF_SAMPLE_PERIOD, NULL},
		{PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, NULL}, {PERF_SAMPLE_DATA_SRC, NULL},
		{PERF_SAMPLE_TRANSACTION, NULL}, {PERF_SAMPLE_PHYS_ADDR, &ms->off_phys},
		{PERF_SAMPLE_CGROUP, NULL}, {PERF_SAMPLE_DATA_PAGE_SIZE, &ms->off_page_size},
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
		if (!(st & order[i].bit))
			continue;
		if (order[i].off)
			*order[i].off = off;
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
	a->ksymbol = 1; /* BPF programs loaded or unloaded while recording */
	/* Arm SPE: PERF_RECORD_SWITCH_CPU_WIDE, which give samples their
	 * thread where context packets carry no PID (as perf records them) */
	a->context_switch = ms->be->context_switch;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->exclude_guest = 1;
}

/* True when the PMU's cpulist ("" = all) names cpu. */
static bool cpu_in_list(const char *list, int cpu)
{
	return !*list || host_cpulist_has(list, cpu);
}

static int open_ring(struct mem_stream *ms, struct cpu_ring *r, size_t pages)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	if (r->own_event >= 0) { /* the event itself owns the buffer */
		struct mem_event *ev = &ms->be->ev[r->own_event];

		if (!cpu_in_list(ev->cpus, r->cpu))
			return 0;
		if ((fd = mem_event_open(ev, r->cpu, -1)) < 0)
			return -1;
		r->fds[r->own_event] = fd;
		r->nr_fds = (size_t)r->own_event + 1;
		pages = pages >= 16 ? pages / 4 : pages; /* its events are the rare kind */
	} else {
		r->owner_fd = sys_perf_event_open(&ms->sideband, r->cpu, -1);
		if (r->owner_fd < 0 && errno == EINVAL && ms->sideband.ksymbol) {
			/* a kernel before 5.1 has no KSYMBOL records: without them
			 * samples in BPF code loaded while recording are [unknown] */
			ms->sideband.ksymbol = 0;
			r->owner_fd = sys_perf_event_open(&ms->sideband, r->cpu, -1);
		}
		if (r->owner_fd < 0)
			return scx_fail_errno("side-band event on cpu %d: perf_event_open", r->cpu);
		fd = r->owner_fd;
	}
	r->data_size = pages * (size_t)page;
	r->map_size = r->data_size + (size_t)page;
	r->base = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return scx_fail_errno("cpu %d: mmap of a %zu KiB ring buffer (try --mmap-pages smaller, "
				      "or raise perf_event_mlock_kb)", r->cpu, r->data_size >> 10);
	}
	if (r->own_event >= 0 && ms->be->ev[r->own_event].aux_area) {
		if (aux_area_map(&r->aux, fd, r->base, r->map_size,
				 aux_area_size(ms->opts.aux_pages, ms->be->phys_addr), r->cpu,
				 ms->be->ev[r->own_event].name) < 0)
			return -1;
		ms->st.aux_area_bytes = r->aux.size;
	}
	return 0;
}

static int open_events(struct mem_stream *ms, struct cpu_ring *r)
{
	struct mem_backend *be = ms->be;
	size_t i;

	if (r->own_event >= 0) /* open_ring opened its one event */
		return 0;
	for (i = 0; i < be->nr_events; i++) {
		struct mem_event *ev = &be->ev[i];
		int leader = ev->leader >= 0 ? r->fds[ev->leader] : -1;
		int fd;

		if (!cpu_in_list(ev->cpus, r->cpu) || ev->own_ring) {
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
	for (i = 1; i < ms->be->nr_events && rc == 0 && !ms->be->rewrites_samples; i++)
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
		/* decode: the file describes the rewritten samples, under the
		 * kernel event's ids (its own samples never reach the file) */
		if (rc == 0)
			rc = pd_writer_add_attr(ms->w, ms->be->rewrites_samples ? &ms->be->out_attr : &ms->be->ev[e].attr,
						ids, n, ms->be->ev[e].name);
	}
	for (c = 0, n = 0; c < ms->nr_rings && rc == 0; c++)
		if (ms->rings[c].owner_fd >= 0)
			rc = event_id(ms->rings[c].owner_fd, &ids[n++]);
	if (rc == 0)
		rc = pd_writer_add_attr(ms->w, &ms->sideband, ids, n, "dummy:u");
	free(ids);
	return rc;
}

/* Arm SPE: number the AUX areas, then TIME_CONV and AUXTRACE_INFO, before
 * any AUXTRACE record (perf reads TIME_CONV when it meets AUXTRACE_INFO). */
static int start_aux(struct mem_stream *ms)
{
	const void *pg = NULL;
	struct timespec ts;
	uint32_t idx = 0;
	size_t i;

	auxtrace_init(&ms->aux);
	for (i = 0; i < ms->nr_rings; i++) {
		if (!ms->rings[i].aux.base)
			continue;
		ms->rings[i].aux.idx = idx++;
		if (!pg)
			pg = ms->rings[i].base;
	}
	if (!pg)
		return 0;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	ms->aux_reference = (uint64_t)ts.tv_sec ^ (uint64_t)ts.tv_nsec; /* as perf's arm_spe_reference */
	return aux_area_start(ms->w, pg, ms->be->ev[0].attr.type, &ms->st.time_conv_adjust_ns,
			      &ms->st.time_conv_adjusted);
}

int mem_stream_open(struct mem_stream *ms, struct mem_backend *be, struct pd_writer *w,
		    const struct mem_stream_opts *o)
{
	int *cpus = NULL;
	size_t n = 0, i, own = 0, pages = o->mmap_pages ? o->mmap_pages : 1024;
	int rc;

	memset(ms, 0, sizeof(*ms));
	ms->be = be;
	ms->w = w;
	ms->opts = *o;
	if (pages & (pages - 1))
		return scx_fail("--mmap-pages %zu: must be a power of two", pages);
	if (o->aux_pages & (o->aux_pages - 1))
		return scx_fail("--aux-pages %zu: must be a power of two", o->aux_pages);
	if (!be->nr_events)
		return scx_fail("the %s backend has no events", mem_backend_name(be->kind));
	for (i = 0; i < be->nr_events; i++)
		own += be->ev[i].own_ring;
	if (host_cpulist_read("/sys/devices/system/cpu/online", &cpus, &n) < 0)
		return -1;
	/* per cpu: the side-band ring, then one ring per own_ring event */
	ms->rings = calloc(n * (1 + own), sizeof(*ms->rings));
	if (!ms->rings) {
		free(cpus);
		return scx_fail("out of memory");
	}
	for (i = 0; i < n * (1 + own); i++) {
		struct cpu_ring *r = &ms->rings[i];
		size_t k = i % (1 + own), e;

		r->cpu = cpus[i / (1 + own)];
		r->owner_fd = -1;
		r->own_event = -1;
		for (e = 0; k && e < be->nr_events; e++)
			if (be->ev[e].own_ring && --k == 0)
				r->own_event = (int)e;
		memset(r->fds, -1, sizeof(r->fds));
	}
	ms->nr_rings = n * (1 + own);
	free(cpus);
	/* opening settles precise_ip and WEIGHT_STRUCT/WEIGHT in the attrs:
	 * probe on the first cpu, so the side-band can share the sample_type */
	rc = probe_events(ms, ms->rings[0].cpu);
	ms->sample_type = be->rewrites_samples ? be->out_attr.sample_type : be->ev[0].attr.sample_type;
	sideband_attr(ms);
	for (i = 0; i < ms->nr_rings && rc == 0; i++) {
		rc = open_ring(ms, &ms->rings[i], pages);
		if (rc == 0)
			rc = open_events(ms, &ms->rings[i]);
	}
	if (rc == 0) {
		compute_layout(ms);
		rc = add_attrs(ms);
	}
	if (rc == 0)
		rc = start_aux(ms);
	if (rc == 0 && ms->opts.resolve_phys && !(ms->pagemaps = pagemap_new()))
		rc = -1;
	if (rc == 0 && be->rewrites_samples) {
		const struct insn_decoder *dec = insn_decoder_for_host();

		if (!dec || !(ms->decode = decode_stream_new(dec)))
			rc = dec ? -1 : scx_fail("no instruction decoder for this architecture");
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
	phys = pagemap_phys(ms->pagemaps, (int)pid, rd64(body + ms->off_addr), &size);
	if (!phys) {
		ms->st.phys_unresolved++;
		return;
	}
	memcpy(rec + sizeof(struct perf_event_header) + ms->off_phys, &phys, sizeof(phys));
	if (ms->off_page_size >= 0 && !rd64(body + ms->off_page_size))
		memcpy(rec + sizeof(struct perf_event_header) + ms->off_page_size, &size, sizeof(size));
	ms->st.phys_resolved++;
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
	case PERF_RECORD_COMM:
	case PERF_RECORD_EXIT:
		/* a pagemap opened before an exec reads the old address space */
		if (ms->pagemaps && h.size >= 8 + 8 &&
		    (h.type == PERF_RECORD_EXIT || (h.misc & PERF_RECORD_MISC_COMM_EXEC))) {
			uint32_t pid, tid;

			memcpy(&pid, body, sizeof(pid));
			memcpy(&tid, body + 4, sizeof(tid));
			if (h.type == PERF_RECORD_COMM || pid == tid)
				pagemap_forget(ms->pagemaps, (int)pid);
		}
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
 * That needs one sampling event per ring: a second software event
 * (own_ring: major-faults beside minor-faults) has a ring of its own.
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
		if (ms->decode && h.type == PERF_RECORD_SAMPLE) {
			rc = decode_stream_sample(ms->decode, rec, r->sample_id, ms->w, &ms->st);
			ms->st.records++;
		} else {
			if (h.type == PERF_RECORD_SAMPLE)
				restore_sample_id(ms, r, rec, h.size);
			if (ms->decode)
				decode_stream_sideband(ms->decode, rec);
			if (h.type == PERF_RECORD_AUX)
				auxtrace_note_aux(&ms->aux, rec, h.size);
			if (h.type == PERF_RECORD_KSYMBOL)
				ms->st.ksymbol_fixed += ksymbol_fix_trailer(rec, h.size, ms->trailer_size);
			count_record(ms, rec);
			rc = pd_writer_add_record(ms->w, rec, h.size);
		}
		tail += h.size;
	}
	__atomic_store_n(&ctl->data_tail, tail, __ATOMIC_RELEASE);
	if (rc == 0 && r->aux.base) {
		rc = aux_area_drain(&r->aux, r->base, &ms->aux, ms->w, ms->aux_reference);
		ms->st.aux = ms->aux.st;
	}
	return rc;
}

int mem_stream_drain(struct mem_stream *ms)
{
	static const struct perf_event_header round = {.type = PD_RECORD_FINISHED_ROUND, .size = 8};
	struct timespec t0 = {0}, t1 = {0};
	size_t c;

	if (ms->pagemaps)
		pagemap_next_pass(ms->pagemaps);
	if (ms->decode) {
		decode_stream_pass(ms->decode);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	}
	for (c = 0; c < ms->nr_rings; c++)
		if (ms->rings[c].base && drain_ring(ms, &ms->rings[c]) < 0)
			return -1;
	if (ms->decode) {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
		decode_stream_charge(ms->decode, (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL +
							    (t1.tv_nsec - t0.tv_nsec)));
	}
	ms->st.rounds++;
	if (ms->decode)
		decode_stream_stats(ms->decode, &ms->st.decode);
	if (ms->pagemaps)
		ms->st.phys_exited = pagemap_stats(ms->pagemaps)->exited;
	return pd_writer_add_record(ms->w, &round, sizeof(round));
}

int mem_stream_add_features(struct mem_stream *ms)
{
	if (!ms->aux.nr_index && !ms->be->needs_aux_decoder)
		return 0;
	return auxtrace_add_index_feature(&ms->aux, ms->w);
}

int mem_stream_drain_ms(const struct mem_stream *ms)
{
	return ms->decode ? MEM_STREAM_DRAIN_MS_DECODE : MEM_STREAM_DRAIN_MS;
}

void mem_stream_close(struct mem_stream *ms)
{
	size_t c, e;

	for (c = 0; ms->rings && c < ms->nr_rings; c++) {
		struct cpu_ring *r = &ms->rings[c];

		for (e = 0; e < MEM_BACKEND_MAX_EVENTS; e++)
			if (r->fds[e] >= 0)
				close(r->fds[e]);
		aux_area_unmap(&r->aux);
		if (r->base)
			munmap(r->base, r->map_size);
		if (r->owner_fd >= 0)
			close(r->owner_fd);
	}
	pagemap_free(ms->pagemaps);
	auxtrace_free(&ms->aux);
	if (ms->decode) {
		decode_stream_free(ms->decode);
		ms->decode = NULL;
	}
	free(ms->rings);
	ms->rings = NULL;
	ms->pagemaps = NULL;
}
