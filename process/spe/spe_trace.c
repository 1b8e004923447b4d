/*
 * spe_trace.c - the perf.data side of SPE (spe.h): the AUXTRACE_INFO header
 * (perf 6.1's two words, PMU type and per-CPU mmaps; or the versioned one
 * perf >= 6.9 writes, with each CPU's MIDR), TIME_CONV, the kernel's AUX
 * records (their truncated / partial / collision flags counted) and the
 * AUXTRACE records that carry the AUX data. Each queue (AUXTRACE idx) keeps
 * its buffers in file order (pointers into the mapping) and is decoded one
 * record ahead of the replay (spe_replay.c), so memory does not grow with the
 * AUX data.
 */
#include "process/spe/spe.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/grow.h"

#define AUXTRACE_TYPE_ARM_SPE 4
#define SPE_CPU_MAGIC 0x1010101010101010ULL
#define AUXTRACE_FIXED 48 /* header + size, offset, reference, idx, tid, cpu, reserved */

static uint64_t u64_at(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t u32_at(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static unsigned long long off_of(const struct pd_file *f, const struct perf_event_header *h)
{
	return (unsigned long long)pd_offset_of(f, h);
}

/* One CPU's MIDR from the versioned header; the CPUID feature otherwise. */
struct midr_map {
	int64_t cpu;
	uint64_t midr;
};

struct load {
	struct spe_trace *t;
	const struct pd_file *f;
	struct midr_map *midrs;
	size_t nr_midrs;
};

static uint64_t cpuid_midr(const struct pd_file *f)
{
	const void *data;
	uint64_t size;
	char buf[64];
	uint32_t len;

	if (pd_feature(f, PD_FEAT_CPUID, &data, &size) < 0 || size < 4)
		return 0;
	len = u32_at(data);
	if (len > size - 4)
		len = (uint32_t)(size - 4);
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, (const uint8_t *)data + 4, len);
	buf[len] = '\0';
	return strtoull(buf, NULL, 16);
}

static int read_info(struct load *L, const struct perf_event_header *h)
{
	struct spe_trace *t = L->t;
	const uint8_t *b = (const uint8_t *)(h + 1);
	size_t n, i, pos, ncpu;

	if (h->size < 8 + 8 + 16)
		return scx_fail("%s: record at offset %llu: AUXTRACE_INFO of Arm SPE of %u bytes, "
				"needs at least 32", L->f->path, off_of(L->f, h), h->size);
	n = (h->size - 16) / 8; /* priv words */
	const uint8_t *priv = b + 8;
	if (n == 2) { /* perf <= 6.8: PMU type, per-CPU mmaps */
		t->pmu_type = (uint32_t)u64_at(priv);
		return 0;
	}
	/* versioned: version, header words, PMU type, CPUs; then per CPU
	 * magic, cpu, nr params, midr, ... */
	if (n < 4 || u64_at(priv) < 2 || u64_at(priv + 8) < 4 || u64_at(priv + 8) > n)
		return scx_fail("%s: record at offset %llu: AUXTRACE_INFO of Arm SPE has %zu words and "
				"no header version perf reads", L->f->path, off_of(L->f, h), n);
	t->header_v2 = true;
	t->pmu_type = (uint32_t)u64_at(priv + 16);
	ncpu = (size_t)u64_at(priv + 24);
	pos = (size_t)u64_at(priv + 8);
	if (ncpu > (n - pos) / 3)
		return scx_fail("%s: record at offset %llu: AUXTRACE_INFO of Arm SPE names %zu CPUs in "
				"%zu words", L->f->path, off_of(L->f, h), ncpu, n - pos);
	L->midrs = calloc(ncpu ? ncpu : 1, sizeof(*L->midrs));
	if (!L->midrs)
		return scx_fail("out of memory");
	for (i = 0; i < ncpu; i++) {
		uint64_t nparams;

		if (n - pos < 3 || u64_at(priv + 8 * pos) != SPE_CPU_MAGIC)
			return scx_fail("%s: record at offset %llu: AUXTRACE_INFO of Arm SPE: CPU entry %zu "
					"has no magic number", L->f->path, off_of(L->f, h), i);
		nparams = u64_at(priv + 8 * (pos + 2));
		if (nparams > n - pos - 3)
			return scx_fail("%s: record at offset %llu: AUXTRACE_INFO of Arm SPE: CPU entry %zu "
					"runs past the record", L->f->path, off_of(L->f, h), i);
		L->midrs[L->nr_midrs].cpu = (int64_t)u64_at(priv + 8 * (pos + 1));
		L->midrs[L->nr_midrs].midr = nparams >= 1 ? u64_at(priv + 8 * (pos + 3)) : 0;
		L->nr_midrs++;
		pos += 3 + (size_t)nparams;
	}
	return 0;
}

static void read_time_conv(struct spe_trace *t, const struct perf_event_header *h)
{
	const uint8_t *b = (const uint8_t *)(h + 1);

	memset(&t->tc, 0, sizeof(t->tc));
	t->tc.shift = u64_at(b);
	t->tc.mult = u64_at(b + 8);
	t->tc.zero = u64_at(b + 16);
	if (h->size >= 8 + 40 + 2) { /* time_cycles, time_mask and the caps (perf >= 5.11) */
		t->tc.cycles = u64_at(b + 24);
		t->tc.mask = u64_at(b + 32);
		t->tc.cap_zero = b[40];
		t->tc.cap_short = b[41];
	}
	t->has_tc = true;
}

static struct spe_queue *queue_for(struct spe_trace *t, uint32_t idx, int32_t cpu, int32_t tid)
{
	struct spe_queue *q;
	size_t i;

	for (i = 0; i < t->nr_queues; i++)
		if (t->queues[i].idx == idx)
			return &t->queues[i];
	if (!grow_one_max((void **)&t->queues, &t->cap_queues, t->nr_queues, sizeof(*t->queues), 4096,
			  "more than 4096 AUX queues"))
		return NULL;
	q = &t->queues[t->nr_queues++];
	memset(q, 0, sizeof(*q));
	q->idx = idx;
	q->cpu = cpu;
	q->tid = tid;
	q->cur_pid = q->cur_tid = -1;
	return q;
}

static int read_auxtrace(struct load *L, const struct perf_event_header *h)
{
	const uint8_t *b = (const uint8_t *)(h + 1);
	uint64_t size;
	struct spe_queue *q;

	if (h->size < AUXTRACE_FIXED)
		return scx_fail("%s: record at offset %llu: AUXTRACE record of %u bytes, needs %d",
				L->f->path, off_of(L->f, h), h->size, AUXTRACE_FIXED);
	size = u64_at(b); /* pd_next checked it lies within the data section */
	q = queue_for(L->t, u32_at(b + 24), (int32_t)u32_at(b + 32), (int32_t)u32_at(b + 28));
	if (!q)
		return -1;
	L->t->counts.aux_buffers++;
	L->t->counts.aux_bytes += size;
	if (!size)
		return 0;
	if (q->nbufs == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 16;
		struct spe_aux_buf *v = realloc(q->bufs, cap * sizeof(*v));

		if (!v)
			return scx_fail("out of memory");
		q->bufs = v;
		q->cap = cap;
	}
	q->bufs[q->nbufs].p = (const uint8_t *)h + h->size;
	q->bufs[q->nbufs].len = (size_t)size;
	q->nbufs++;
	return 0;
}

int spe_queue_advance(struct spe_trace *t, struct spe_queue *q)
{
	struct spe_record r;

	q->has_head = false;
	while (q->bi < q->nbufs) {
		if (!spe_decoder_step(&q->dec, q->bufs[q->bi].p, q->bufs[q->bi].len, &q->pos, &r)) {
			q->bi++;
			q->pos = 0;
			continue;
		}
		if (r.cut && !q->started) { /* perf drops cut records before a queue's first whole one */
			t->counts.dropped_first++;
			continue;
		}
		if (!r.cut) {
			q->started = true;
			if (r.timestamp > q->running)
				q->running = r.timestamp;
		}
		q->head = r;
		q->head_order = q->running;
		q->has_head = true;
		return 1;
	}
	if (q->dec.open) { /* perf drops a record the data ends inside */
		t->counts.unfinished++;
		q->dec.open = false;
	}
	return 0;
}

static void read_aux(struct spe_trace *t, const struct pd_file *f, const struct perf_event_header *h)
{
	uint64_t flags;

	if (h->size < 8 + 24)
		return;
	if (!pd_attr_for_trailer(f, h) || pd_attr_for_trailer(f, h)->attr.type != t->pmu_type)
		return;
	flags = u64_at((const uint8_t *)(h + 1) + 16);
	t->counts.aux_records++;
	if (flags & PERF_AUX_FLAG_TRUNCATED)
		t->counts.aux_truncated++;
	if (flags & PERF_AUX_FLAG_PARTIAL)
		t->counts.aux_partial++;
	if (flags & PERF_AUX_FLAG_COLLISION)
		t->counts.aux_collision++;
}

/* The SPE header and the TIME_CONV before it (perf copies it then). perf
 * needs the header before any AUX data: the search stops at the first
 * AUXTRACE or SAMPLE record, so that files of other events are not read
 * through twice. */
static int find_info(struct load *L)
{
	struct pd_cursor c;
	const struct perf_event_header *h;
	int r;

	pd_cursor_init(&c, L->f);
	while ((r = pd_next(&c, &h)) > 0) {
		if (h->type == PD_RECORD_TIME_CONV && h->size >= 8 + 24) {
			read_time_conv(L->t, h);
		} else if (h->type == PD_RECORD_AUXTRACE_INFO) {
			if (h->size < 16 || u32_at(h + 1) != AUXTRACE_TYPE_ARM_SPE)
				return 0;
			L->t->present = true;
			return read_info(L, h);
		} else if (h->type == PD_RECORD_AUXTRACE || h->type == PERF_RECORD_SAMPLE) {
			return 0;
		}
	}
	return r;
}

static int64_t attr_of_pmu(const struct pd_file *f, uint32_t type)
{
	size_t i;

	for (i = 0; i < f->nr_attrs; i++)
		if (f->attrs[i].attr.type == type)
			return (int64_t)i;
	return -1;
}

int spe_trace_load(struct spe_trace *t, const struct pd_file *f)
{
	struct load L = {.t = t, .f = f};
	struct pd_cursor c;
	const struct perf_event_header *h;
	int64_t ai;
	size_t i;
	int r = 0;

	memset(t, 0, sizeof(*t));
	if (find_info(&L) < 0)
		goto fail;
	if (!t->present)
		return 0;
	ai = attr_of_pmu(f, t->pmu_type);
	if (ai < 0) {
		scx_fail("%s: AUXTRACE_INFO names Arm SPE PMU type %u, which no event of the file has",
			 f->path, t->pmu_type);
		goto fail;
	}
	t->attr = &f->attrs[ai];
	t->has_phys = t->attr->attr.sample_type & PERF_SAMPLE_PHYS_ADDR;
	t->timeless = true;
	for (i = 0; i < f->nr_attrs; i++)
		if (f->attrs[i].attr.sample_type & PERF_SAMPLE_TIME)
			t->timeless = false;
	t->midr = cpuid_midr(f);
	pd_cursor_init(&c, f);
	while ((r = pd_next(&c, &h)) > 0) {
		if (h->type == PD_RECORD_AUXTRACE)
			r = read_auxtrace(&L, h);
		else if (h->type == PERF_RECORD_AUX)
			read_aux(t, f, h);
		else if (h->type == PD_RECORD_TIME_CONV && !t->has_tc && h->size >= 8 + 24)
			read_time_conv(t, h); /* none before the header: the first after it */
		if (r < 0)
			break;
	}
	if (r < 0)
		goto fail;
	if (!t->timeless && (!t->has_tc || t->tc.mult == 0)) {
		scx_fail("%s: Arm SPE data but no TIME_CONV record (or one of multiplier 0): its "
			 "timestamps cannot be converted to perf time", f->path);
		goto fail;
	}
	/* each queue's CPU's MIDR, when the header lists them; its first record */
	for (i = 0; i < t->nr_queues; i++) {
		struct spe_queue *q = &t->queues[i];
		size_t k;

		q->midr = t->midr;
		for (k = 0; k < L.nr_midrs; k++)
			if (L.midrs[k].cpu == q->cpu)
				q->midr = L.midrs[k].midr;
		spe_decoder_init(&q->dec, &t->counts);
		spe_queue_advance(t, q);
	}
	free(L.midrs);
	return 0;
fail:
	free(L.midrs);
	spe_trace_free(t);
	return -1;
}

void spe_trace_free(struct spe_trace *t)
{
	size_t i;

	for (i = 0; i < t->nr_queues; i++)
		free(t->queues[i].bufs);
	free(t->queues);
	free(t->cpu_tid);
	t->queues = NULL;
	t->cpu_tid = NULL;
	t->nr_queues = t->cap_queues = 0;
}
