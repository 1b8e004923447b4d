/*
 * sched_stream.c - userspace side of the scheduling stream (contract:
 * sched_stream.h; kernel side: bpf/sched.bpf.c; format: schemas/sched-data.md).
 *
 * Start: look every tracepoint up in kernel BTF (btf_trace_NAME typedef),
 * disable autoload of the missing ones, size the ring buffer, load, attach
 * each program (a tracepoint that is present but refuses to attach is listed
 * as missing too, unless it is a required one), then write the header. The
 * BPF side wakes the reader only when the ring is a quarter full (a wakeup per
 * record would feed back: each wakeup is two more context switches), so the
 * caller must also poll on a timeout (record.c: 5 ms with the memory stream,
 * 250 ms without). Poll consumes the ring buffer (entries are chunks: whole
 * per-CPU batches or single nested records) and writes them as they are, with
 * O_DIRECT where the file system allows (direct_out.h: through the page
 * cache, writing cost as much as tracing in bench/bench_sched). Stop
 * destroys the links first, so nothing is emitted after, drains the ring,
 * then appends the partial per-CPU batches read from the sched_batches map.
 * libbpf's
 * messages are captured (never printed) and the first warning is quoted in
 * errors.
 */
#include "record/streams/sched_stream.h"
#include "record/streams/libbpf_quiet.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/membarrier.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bpf/sched_batch.h"
#include "lib/error.h"
#include "lib/monotime.h"
#include "record/streams/direct_out.h"
#include "sched.skel.h"

_Static_assert(sizeof(struct sched_packed_rec) == SCHED_PACKED_BASE, "sched_packed_rec layout");
_Static_assert(sizeof(struct sched_chunk_header) == SCHED_CHUNK_HEADER_SIZE, "chunk header layout");
_Static_assert(sizeof(struct sched_data_header) == SCHED_DATA_HEADER_SIZE, "sched.data header layout");

/* Every tracepoint, named as its program in bpf/sched.bpf.c, in the order
 * of their record types: tracepoints[i] emits type i + 1. */
static const struct {
	const char *name;
	bool required;
} tracepoints[] = {
	{"sched_switch", true},
	{"sched_wakeup", true},
	{"sched_wakeup_new", true},
	{"sched_waking", true},
	{"sched_migrate_task", true},
	{"sched_process_exit", true},
	{"sched_process_exec", true},
	{"sched_process_fork", true},
	{"irq_handler_entry", false},
	{"irq_handler_exit", false},
	{"softirq_entry", false},
	{"softirq_exit", false},
	{"nmi_handler", false},
	{"local_timer_entry", false},
	{"local_timer_exit", false},
};
#define NR_TP (sizeof(tracepoints) / sizeof(tracepoints[0]))
_Static_assert(NR_TP <= SCHED_MAX_TRACEPOINTS, "too many tracepoints for the stats");

struct sched_stream {
	struct sched_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *links[NR_TP];
	FILE *out;
	struct direct_out dout; /* writes out's fd, page cache bypassed where possible */
	uint64_t hits[SCHED_RECORD_TYPE_MAX + 1]; /* by record type, summed over cpus */
	struct sched_stream_stats st;
};



/* ---- output ---- */

#define OUTBUF_SIZE (1 << 20) /* records are written 1 MB at a time */

/* Append a chunk (its header filled in) to the output. */
static void put_chunk(struct sched_stream *s, const unsigned char *chunk, size_t size, unsigned nrec)
{
	direct_out_put(&s->dout, chunk, size);
	if (!s->dout.err)
		s->st.records += nrec;
}

/* One ring entry: a chunk, a full per-CPU batch or a single nested record
 * in a reservation that may be longer than the chunk. */
static int on_chunk(void *ctx, void *data, size_t size)
{
	struct sched_chunk_header h;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	if (h.size < sizeof(h) || h.size > size || h.size % 8)
		return 0; /* cannot happen: bpf/sched.bpf.c fills it */
	put_chunk(ctx, data, h.size, h.nrec);
	return 0;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static int write_header(struct sched_stream *s)
{
	unsigned char h[SCHED_DATA_HEADER_SIZE] = {0};
	int ncpu = libbpf_num_possible_cpus();

	memcpy(h, SCHED_DATA_MAGIC, 8);
	put_le32(h + 8, SCHED_DATA_VERSION);
	put_le32(h + 12, SCHED_DATA_HEADER_SIZE);
	put_le32(h + 16, 1); /* CLOCK_MONOTONIC */
	put_le32(h + 20, 0); /* variable-size records in chunks */
	put_le64(h + 24, s->st.start_ns);
	put_le32(h + 32, ncpu > 0 ? (uint32_t)ncpu : 0);
	put_le32(h + 36, SCHED_RECORD_TYPE_MAX);
	direct_out_put(&s->dout, h, sizeof(h));
	return 0;
}

static int flush_out(struct sched_stream *s)
{
	if (direct_out_finish(&s->dout) < 0)
		return scx_fail("sched.data: write failed: %s", strerror(s->dout.err));
	return 0;
}

/* ---- start / stop ---- */

static void destroy(struct sched_stream *s)
{
	for (size_t i = 0; i < NR_TP; i++) {
		bpf_link__destroy(s->links[i]);
		s->links[i] = NULL;
	}
	ring_buffer__free(s->rb);
	s->rb = NULL;
	sched_bpf__destroy(s->skel);
	s->skel = NULL;
}

static void free_stream(struct sched_stream *s)
{
	destroy(s);
	direct_out_free(&s->dout);
	free(s);
}

/* Which tracepoints kernel BTF has: present[i]. */
static int probe_btf(bool *present)
{
	struct btf *btf = btf__load_vmlinux_btf();
	char name[64];

	if (!btf)
		return scx_fail("sched stream: no kernel BTF (/sys/kernel/btf/vmlinux): %s", strerror(errno));
	for (size_t i = 0; i < NR_TP; i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", tracepoints[i].name);
		present[i] = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) > 0;
	}
	btf__free(btf);
	return 0;
}

static int start(struct sched_stream *s, unsigned ring_mb)
{
	bool present[NR_TP];
	char said[LIBBPF_QUIET_MSG_MAX + 16];
	struct bpf_program *prog;
	int err;

	if (probe_btf(present) < 0)
		return -1;
	s->skel = sched_bpf__open();
	if (!s->skel)
		return scx_fail("sched stream: opening the BPF object: %s%s", strerror(errno),
				libbpf_quiet_said(said, sizeof(said)));
	for (size_t i = 0; i < NR_TP; i++) {
		prog = bpf_object__find_program_by_name(s->skel->obj, tracepoints[i].name);
		if (!prog)
			return scx_fail("sched stream: no program %s in the BPF object", tracepoints[i].name);
		if (!present[i] && tracepoints[i].required)
			return scx_fail("sched stream: the kernel has no %s tracepoint (btf_trace_%s not in its BTF)",
					tracepoints[i].name, tracepoints[i].name);
		bpf_program__set_autoload(prog, present[i]);
	}
	err = bpf_map__set_max_entries(s->skel->maps.sched_ring, ring_mb << 20);
	if (err)
		return scx_fail("sched stream: sizing the ring buffer to %u MB: %s%s", ring_mb,
				strerror(-err), libbpf_quiet_said(said, sizeof(said)));
	/* wake the reader at a quarter full; it drains every few ms anyway */
	s->skel->rodata->wakeup_bytes = ((uint64_t)ring_mb << 20) / 4;
	err = sched_bpf__load(s->skel);
	if (err)
		return scx_fail("sched stream: loading the BPF programs: %s%s", strerror(-err),
				libbpf_quiet_said(said, sizeof(said)));
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.sched_ring), on_chunk, s, NULL);
	if (!s->rb)
		return scx_fail("sched stream: opening the ring buffer: %s%s", strerror(errno),
				libbpf_quiet_said(said, sizeof(said)));
	/* before the first attach: no record is older than start_ns */
	s->st.start_ns = monotime_ns();
	for (size_t i = 0; i < NR_TP; i++) {
		if (!present[i]) {
			s->st.missing[s->st.nr_missing++] = tracepoints[i].name;
			continue;
		}
		prog = bpf_object__find_program_by_name(s->skel->obj, tracepoints[i].name);
		libbpf_quiet_reset();
		s->links[i] = bpf_program__attach(prog);
		if (!s->links[i]) {
			err = errno;
			if (tracepoints[i].required)
				return scx_fail("sched stream: attaching tp_btf/%s: %s%s", tracepoints[i].name,
						strerror(err), libbpf_quiet_said(said, sizeof(said)));
			s->st.missing[s->st.nr_missing++] = tracepoints[i].name;
			continue;
		}
		s->st.attached[s->st.nr_attached++] = tracepoints[i].name;
	}
	return write_header(s);
}

int sched_stream_start(struct sched_stream **out, const struct sched_stream_opts *o)
{
	struct sched_stream *s;
	unsigned ring_mb = o->ring_mb ? o->ring_mb : SCHED_DEFAULT_RING_MB;
	int rc;

	*out = NULL;
	if (!o->out)
		return scx_fail("sched stream: no output file");
	if (ring_mb > SCHED_MAX_RING_MB || (ring_mb & (ring_mb - 1)))
		return scx_fail("--sched-ring-sz %u: must be a power of two of at most %u (MB)", ring_mb,
				SCHED_MAX_RING_MB);
	s = calloc(1, sizeof(*s));
	if (!s)
		return scx_fail("sched stream: out of memory");
	s->out = o->out;
	s->st.ring_mb = ring_mb;
	/* nothing may sit in out's stdio buffer: we write its fd directly */
	if (fflush(s->out) || direct_out_init(&s->dout, fileno(s->out), OUTBUF_SIZE) < 0) {
		free(s);
		return scx_fail("sched stream: preparing sched.data: %s", strerror(errno));
	}
	libbpf_quiet_begin();
	rc = start(s, ring_mb);
	libbpf_quiet_end();
	if (rc < 0) {
		free_stream(s);
		return -1;
	}
	*out = s;
	return 0;
}

int sched_stream_fd(const struct sched_stream *s)
{
	return s && s->rb ? ring_buffer__epoll_fd(s->rb) : -1;
}

uint64_t sched_stream_records(const struct sched_stream *s)
{
	return s ? s->st.records : 0;
}

const volatile uint64_t *sched_stream_ring_avail(const struct sched_stream *s)
{
	return (const volatile uint64_t *)&s->skel->bss->ring_avail;
}

uint64_t sched_stream_wakeup_bytes(const struct sched_stream *s)
{
	return s->skel->rodata->wakeup_bytes;
}

int sched_stream_poll(struct sched_stream *s)
{
	int n = ring_buffer__consume(s->rb);

	if (n < 0 && n != -EINTR)
		return scx_fail("sched stream: reading the ring buffer: %s", strerror(-n));
	direct_out_sync(&s->dout);
	if (s->dout.err)
		return scx_fail("sched.data: write failed: %s", strerror(s->dout.err));
	return 0;
}

/* After detaching: the records each CPU gathered but had not yet handed to
 * the ring (fewer than SCHED_BATCH each), appended in CPU order, and the hit
 * counts. No program runs any more (wait_programs_done); should one still be
 * filling a record (no RCU grace period to wait for), wait for busy to clear,
 * a bounded number of times. */
static int drain_batches(struct sched_stream *s)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t stride = (sizeof(struct sched_batch) + 7) & ~(size_t)7;
	unsigned char *vals;
	uint32_t zero = 0;
	bool busy = true;

	if (ncpu <= 0)
		return scx_fail("sched stream: number of possible cpus: %s", strerror(-ncpu));
	vals = malloc(stride * (size_t)ncpu);
	if (!vals)
		return scx_fail("sched stream: out of memory");
	for (int tries = 0; busy && tries < 200; tries++) {
		if (tries)
			usleep(1000);
		int err = bpf_map__lookup_elem(s->skel->maps.sched_batches, &zero, sizeof(zero), vals,
					       stride * (size_t)ncpu, 0);

		if (err) {
			err = -err;

			free(vals);
			return scx_fail("sched stream: reading the per-cpu batches: %s", strerror(err));
		}
		busy = false;
		for (int c = 0; c < ncpu; c++)
			busy |= ((const struct sched_batch *)(vals + stride * (size_t)c))->busy != 0;
	}
	for (int c = 0; c < ncpu; c++) {
		struct sched_batch *b = (void *)(vals + stride * (size_t)c);

		for (int t = 0; t <= SCHED_RECORD_TYPE_MAX; t++)
			s->hits[t] += b->hits[t];
	}
	for (int c = 0; c < ncpu; c++) {
		struct sched_batch *b = (void *)(vals + stride * (size_t)c);
		struct sched_chunk_header h = {.size = b->len, .cpu = (uint16_t)c, .nrec = (uint16_t)b->n};

		if (!b->n || b->len <= SCHED_CHUNK_HEADER_SIZE || b->len > SCHED_CHUNK_CAP || b->n > SCHED_BATCH)
			continue;
		memcpy(b->buf, &h, sizeof(h));
		put_chunk(s, b->buf, b->len, b->n);
	}
	free(vals);
	if (busy)
		return scx_fail("sched stream: a BPF program still ran 200 ms after detaching");
	return 0;
}

uint64_t sched_stream_skipped_total(const struct sched_stream_stats *st)
{
	uint64_t n = 0;

	for (size_t i = 0; i < st->nr_attached; i++)
		n += st->skipped_nested[i];
	return n;
}

/* After detaching, while the programs are still loaded: how many hits of
 * each tracepoint the kernel's recursion guard skipped. */
static int read_skipped(struct sched_stream *s)
{
	for (size_t i = 0; i < s->st.nr_attached; i++) {
		struct bpf_program *prog = bpf_object__find_program_by_name(s->skel->obj, s->st.attached[i]);
		struct bpf_prog_info info = {0};
		__u32 len = sizeof(info);
		int err;

		if (!prog)
			return scx_fail("sched stream: no program %s in the BPF object", s->st.attached[i]);
		err = bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len);
		if (err)
			return scx_fail("sched stream: reading the statistics of %s: %s", s->st.attached[i],
					strerror(-err));
		s->st.skipped_nested[i] = info.recursion_misses;
	}
	return 0;
}

/* After the links are gone: wait until no program of ours still runs. A
 * detached tracepoint program may still be running on another cpu (the
 * kernel does not wait for it when the link is closed); it would hand a
 * batch to the ring after the final drain. Tracepoint programs run with
 * preemption off, an RCU read-side section: membarrier's global command
 * waits for an RCU grace period (synchronize_rcu). Where it is refused
 * (nohz_full), drain_batches' wait on busy is the fallback and the hit
 * count reports what that misses. */
static void wait_programs_done(void)
{
	(void)syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
}

/* Hits per attached tracepoint; lost = hits - records - ring drops. */
static void account(struct sched_stream *s)
{
	uint64_t hits = 0, made;

	for (size_t i = 0; i < s->st.nr_attached; i++) {
		for (size_t t = 0; t < NR_TP; t++)
			if (!strcmp(s->st.attached[i], tracepoints[t].name))
				s->st.hits[i] = s->hits[t + 1];
		hits += s->st.hits[i];
	}
	made = s->st.records + s->st.drops;
	s->st.lost = hits > made ? hits - made : 0;
	s->st.drops += s->st.lost;
}

int sched_stream_stop(struct sched_stream *s, struct sched_stream_stats *st)
{
	int rc = 0, n;

	if (!s)
		return 0;
	/* detach first: nothing is emitted after this; then drain */
	for (size_t i = 0; i < NR_TP; i++) {
		bpf_link__destroy(s->links[i]);
		s->links[i] = NULL;
	}
	wait_programs_done();
	n = ring_buffer__consume(s->rb);
	if (n < 0)
		rc = scx_fail("sched stream: draining the ring buffer: %s", strerror(-n));
	if (drain_batches(s) < 0)
		rc = -1;
	/* a program the wait did not cover handed its batch over meanwhile */
	n = ring_buffer__consume(s->rb);
	if (n < 0)
		rc = scx_fail("sched stream: draining the ring buffer: %s", strerror(-n));
	if (read_skipped(s) < 0)
		rc = -1;
	s->st.drops = s->skel->bss->dropped;
	s->st.drops_nmi = s->skel->bss->dropped_nmi;
	account(s);
	if (flush_out(s) < 0)
		rc = -1;
	if (st)
		*st = s->st;
	free_stream(s);
	return rc;
}
