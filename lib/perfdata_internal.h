/*
 * perfdata_internal.h - what the files of the perf.data reader share (see
 * perfdata.h for the contract): perfdata.c (the file: mapping, header,
 * sections, attrs and ids, features, EVENT_DESC names, build-ids),
 * perfdata_records.c (record names, the record walk, each record's attr and
 * time) and perfdata_sample.c (sample and sample_id decoding). Not for other
 * modules.
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

/* ---- perfdata.c ---- */
/* The attr owning id, or NULL (no message). */
struct pd_attr *pd_id_lookup(const struct pd_file *f, uint64_t id);

#endif
