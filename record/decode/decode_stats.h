/*
 * decode_stats.h - the counters of `record --backend decode` (see
 * decode_stream.h), kept apart so mem_stats.h can hold them.
 */
#ifndef SCX_RECORD_DECODE_STATS_H
#define SCX_RECORD_DECODE_STATS_H

#include <stdint.h>

struct decode_stats {
	uint64_t ticks;            /* cpu-clock samples read */
	uint64_t decoded;          /* ticks whose instruction at the IP gave >= 1 access */
	uint64_t decoded_prev;     /* ticks whose IP had no memory operand, but the instruction before it did */
	uint64_t accesses;         /* samples written (one per access) */
	uint64_t loads, stores;    /* of those (a read-modify-write counts in both) */
	uint64_t skip_kernel;      /* IP in kernel mode (or the idle task) */
	uint64_t skip_no_regs;     /* no user registers in the sample */
	uint64_t skip_unreadable;  /* no bytes at the IP (process gone, no exec mapping) */
	uint64_t skip_invalid;     /* bytes that do not decode (or end too early) */
	uint64_t skip_no_memory;   /* no memory operand (lea, register-only) */
	uint64_t skip_segment;     /* only fs/gs-based operands (TLS) */
	uint64_t skip_unsupported; /* gather/scatter (vector index), bound tables */
	uint64_t skip_clobbered;   /* the instruction before overwrote its own address registers */
	uint64_t phys_resolved, phys_unresolved;
	uint64_t decode_ns;        /* recorder thread CPU time draining the stream: text, decoding, pagemap, writing */
	uint64_t maps_reads, dsos_opened, text_from_file, text_from_memory, prev_walks;
	uint64_t pagemap_reads, kpageflags_reads; /* preads (pagemap.h) */
	uint64_t passes;           /* drain passes (each a FINISHED_ROUND) */
};

#endif
