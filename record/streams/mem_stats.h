/*
 * mem_stats.h - the counters of the memory stream of `record`, filled by
 * mem_stream.c while draining and by decode_stream.c for the samples it
 * rewrites; kept apart so decode_stream.c needs nothing else of
 * mem_stream.h (which calls into it).
 */
#ifndef SCX_RECORD_MEM_STATS_H
#define SCX_RECORD_MEM_STATS_H

#include <stdint.h>

#include "record/decode/decode.h"

struct mem_stream_stats {
	uint64_t samples, records;
	uint64_t lost_records, lost_events, lost_samples, throttle, unthrottle;
	uint64_t phys_resolved, phys_unresolved, phys_kernel; /* kernel: the kernel gave it */
	uint64_t first_time, last_time;
	uint64_t rounds;
	uint64_t foreign_ids;   /* samples that carried another program's event id, restored */
	struct decode_stats decode; /* the decode backend's counters */
};

#endif
