/*
 * perfdata_internal.h - what the files of the perf.data reader share (see
 * perfdata.h for the contract): perfdata.c (the core: mapping, header,
 * sections, attrs and ids, each record's attr and offset, features,
 * EVENT_DESC names) and the parts that call it, never each other:
 * perfdata_records.c (record names, the record walk, each record's time)
 * and perfdata_sample.c (sample and sample_id decoding); perfdata_buildid.c
 * needs only perfdata.h. Not for other modules.
 */
#ifndef SCX_PERFDATA_INTERNAL_H
#define SCX_PERFDATA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/perfdata.h"

/* Branch counters (kernel 6.8+): one u64 per branch entry after the entries.
 * The bit is ABI; older headers lack the enum value. */
#define PD_SAMPLE_BRANCH_COUNTERS (1ULL << 19)

#define PD_MAX_ATTR_SIZE 4096
#define PD_BRANCH_ENTRY_SIZE 24
#define PD_TRAILER_BITS                                                          \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* ---- small helpers ------------------------------------------------------ */

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline size_t popcount64(uint64_t v)
{
	return (size_t)__builtin_popcountll(v);
}

/* True when [off, off+len) lies within a buffer of `size` bytes. */
static inline bool range_ok(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static inline unsigned long long pd_rec_off(const struct pd_file *f, const struct perf_event_header *h)
{
	return (unsigned long long)pd_offset_of(f, h);
}

/* PERF_SAMPLE_* fields of a variable size (or none of a sample's own). */
#define PD_SAMPLE_VARIABLE_BITS                                                          \
	(PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_AUX)
/* The u64 fields pd_parse_sample takes, one each (WEIGHT_TYPE is one u64). */
#define PD_SAMPLE_FIXED_BITS                                                                \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |           \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |                     \
	 PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |                 \
	 PERF_SAMPLE_CODE_PAGE_SIZE)

/* Body size of a sample of this sample_type when all its fields have a fixed
 * size, else 0 (struct pd_attr.fixed_sample_size). */
static inline size_t pd_fixed_sample_size(uint64_t st)
{
	if (st & PD_SAMPLE_VARIABLE_BITS)
		return 0;
	return 8 * (popcount64(st & PD_SAMPLE_FIXED_BITS) + !!(st & PERF_SAMPLE_WEIGHT_TYPE));
}

/* ---- perfdata.c ---- */
/* The attr owning id, or NULL (no message). */
struct pd_attr *pd_id_lookup(const struct pd_file *f, uint64_t id);

#endif
