/*
 * auxtrace.c - the AUX-area records of perf.mem.data (see record_perfdata.h), laid
 * out as perf 6.1 writes and reads them (tools/perf/util/auxtrace.c,
 * util/event.h, arch/arm64/util/arm-spe.c): PERF_RECORD_TIME_CONV from the
 * ring's mmap page, PERF_RECORD_AUXTRACE_INFO with the Arm SPE private
 * words (PMU type, per-cpu mmaps), one PERF_RECORD_AUXTRACE per copy of
 * AUX data (payload padded to 8 bytes, the padding counted in its size,
 * offset = the AUX position of its first byte), the HEADER_AUXTRACE index
 * of those records, and the counts of the kernel's PERF_RECORD_AUX flags.
 */
#include "record/perfdata/record_perfdata.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

#define AUXTRACE_TYPE_ARM_SPE 4 /* enum auxtrace_type: PERF_AUXTRACE_ARM_SPE */
#define AUX_FLAG_TRUNCATED 0x01
#define AUX_FLAG_OVERWRITE 0x02
#define AUX_FLAG_PARTIAL 0x04
#define AUX_FLAG_COLLISION 0x08

struct auxtrace_rec {
	struct perf_event_header h;
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu, reserved;
};

void auxtrace_init(struct auxtrace *a)
{
	memset(a, 0, sizeof(*a));
}

void auxtrace_free(struct auxtrace *a)
{
	free(a->index);
	a->index = NULL;
	a->nr_index = a->cap_index = 0;
}

uint64_t auxtrace_perf_time(const struct perf_event_mmap_page *pg, uint64_t cyc)
{
	uint64_t quot, rem;

	if (pg->cap_user_time_short)
		cyc = pg->time_cycles + ((cyc - pg->time_cycles) & pg->time_mask);
	quot = cyc >> pg->time_shift;
	rem = cyc & ((1ULL << pg->time_shift) - 1);
	return pg->time_zero + quot * pg->time_mult + ((rem * pg->time_mult) >> pg->time_shift);
}

int auxtrace_write_time_conv(struct pd_writer *w, const struct perf_event_mmap_page *pg,
			     int64_t zero_adjust_ns)
{
	struct {
		struct perf_event_header h;
		uint64_t time_shift, time_mult, time_zero, time_cycles, time_mask;
		uint8_t cap_user_time_zero, cap_user_time_short, reserved[6];
	} r;

	if (!pg->cap_user_time_zero)
		return scx_fail("the kernel gives no time_zero in the mmap page (cap_user_time_zero 0): "
				"SPE timestamps cannot be converted to perf time");
	memset(&r, 0, sizeof(r));
	r.h.type = PD_RECORD_TIME_CONV;
	r.h.size = sizeof(r);
	r.time_shift = pg->time_shift;
	r.time_mult = pg->time_mult;
	r.time_zero = pg->time_zero + (uint64_t)zero_adjust_ns;
	r.time_cycles = pg->time_cycles;
	r.time_mask = pg->time_mask;
	r.cap_user_time_zero = 1;
	r.cap_user_time_short = pg->cap_user_time_short;
	return pd_writer_add_record(w, &r, sizeof(r));
}

int auxtrace_write_info_spe(struct pd_writer *w, uint32_t pmu_type)
{
	struct {
		struct perf_event_header h;
		uint32_t type, reserved;
		uint64_t priv[2]; /* ARM_SPE_PMU_TYPE, ARM_SPE_PER_CPU_MMAPS (util/arm-spe.h) */
	} r;

	memset(&r, 0, sizeof(r));
	r.h.type = PD_RECORD_AUXTRACE_INFO;
	r.h.size = sizeof(r);
	r.type = AUXTRACE_TYPE_ARM_SPE;
	r.priv[0] = pmu_type;
	r.priv[1] = 1; /* one AUX area per cpu */
	return pd_writer_add_record(w, &r, sizeof(r));
}

static int note_index(struct auxtrace *a, uint64_t offset, uint64_t size)
{
	if (a->nr_index == a->cap_index) {
		size_t cap = a->cap_index ? 2 * a->cap_index : 256;
		void *grown = realloc(a->index, cap * sizeof(*a->index));

		if (!grown)
			return scx_fail("out of memory for the AUXTRACE index");
		a->index = grown;
		a->cap_index = cap;
	}
	a->index[a->nr_index].offset = offset;
	a->index[a->nr_index].size = size;
	a->nr_index++;
	return 0;
}

/*
 * [tail, head) of an AUX area of aux_size bytes (positions only grow; the
 * data of position p sits at p % aux_size). When the kernel wrote more than
 * the area holds since tail (it should not: it stops with TRUNCATED), only
 * the newest aux_size bytes are there; the rest is counted as lost.
 */
int auxtrace_copy(struct auxtrace *a, struct pd_writer *w, const uint8_t *aux, uint64_t aux_size,
		  uint64_t tail, uint64_t head, const struct auxtrace_where *where)
{
	uint64_t size, off, first, padded;
	struct auxtrace_rec *r;
	uint8_t *buf;
	int rc;

	if (head == tail)
		return 0;
	if (head < tail || !aux_size)
		return scx_fail("cpu %u: AUX head %llu behind tail %llu", where->cpu,
				(unsigned long long)head, (unsigned long long)tail);
	size = head - tail;
	if (size > aux_size) {
		a->st.bytes_overwritten += size - aux_size;
		tail = head - aux_size;
		size = aux_size;
	}
	padded = (size + 7) & ~7ULL;
	buf = calloc(1, sizeof(*r) + padded);
	if (!buf)
		return scx_fail("out of memory for %llu bytes of AUX data", (unsigned long long)size);
	r = (struct auxtrace_rec *)buf;
	r->h.type = PD_RECORD_AUXTRACE;
	r->h.size = sizeof(*r);
	r->size = padded;
	r->offset = tail;
	r->reference = where->reference;
	r->idx = where->idx;
	r->tid = (uint32_t)-1; /* per-cpu AUX areas */
	r->cpu = where->cpu;
	off = tail % aux_size;
	first = aux_size - off < size ? aux_size - off : size;
	memcpy(buf + sizeof(*r), aux + off, first);
	memcpy(buf + sizeof(*r) + first, aux, size - first);
	rc = note_index(a, w->data_offset + w->data_size, sizeof(*r));
	if (rc == 0)
		rc = pd_writer_add_record(w, buf, sizeof(*r) + padded);
	free(buf);
	if (rc == 0) {
		a->st.records++;
		a->st.bytes += size;
		a->st.wrapped += first < size;
	}
	return rc;
}

void auxtrace_note_aux(struct auxtrace *a, const void *rec, size_t size)
{
	struct perf_event_header h;
	uint64_t body[3]; /* aux_offset, aux_size, flags */

	if (size < sizeof(h) + sizeof(body))
		return;
	memcpy(&h, rec, sizeof(h));
	if (h.type != PERF_RECORD_AUX)
		return;
	memcpy(body, (const uint8_t *)rec + sizeof(h), sizeof(body));
	a->st.aux_records++;
	a->st.truncated += !!(body[2] & AUX_FLAG_TRUNCATED);
	a->st.partial += !!(body[2] & AUX_FLAG_PARTIAL);
	a->st.collision += !!(body[2] & AUX_FLAG_COLLISION);
	a->st.overwrite += !!(body[2] & AUX_FLAG_OVERWRITE);
}

/* HEADER_AUXTRACE: u64 count, then {u64 file_offset, u64 size} per
 * AUXTRACE record (util/auxtrace.c, auxtrace_index__write), size being
 * the record's header.size without the payload (perf checks exactly that
 * in auxtrace_queues__add_indexed_event). */
int auxtrace_add_index_feature(struct auxtrace *a, struct pd_writer *w)
{
	size_t size = 8 + 16 * a->nr_index;
	uint64_t *buf = malloc(size);
	int rc;

	if (!buf)
		return scx_fail("out of memory for the AUXTRACE index");
	buf[0] = a->nr_index;
	for (size_t i = 0; i < a->nr_index; i++) {
		buf[1 + 2 * i] = a->index[i].offset;
		buf[2 + 2 * i] = a->index[i].size;
	}
	rc = pd_writer_add_feature(w, PD_FEAT_AUXTRACE, buf, size);
	free(buf);
	return rc;
}
