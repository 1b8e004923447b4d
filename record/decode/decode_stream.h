/*
 * decode_stream.h - `record --backend decode` while draining: turns each
 * cpu-clock sample with user registers into one ordinary memory sample per
 * data address its instruction loads or stores (ADDR, PHYS_ADDR from
 * pagemap, DATA_PAGE_SIZE, DATA_SRC with only the op bits), or counts why
 * it cannot (skip reasons). Runs while the process and its page tables
 * still exist; side-band records tell it when a process's mappings change.
 */
#ifndef SCX_RECORD_DECODE_STREAM_H
#define SCX_RECORD_DECODE_STREAM_H

#include <linux/perf_event.h>
#include <stdint.h>

#include "lib/perfdata.h"
#include "record/decode/decode_stats.h"
#include "record/decode/insn.h"

struct mem_stream_stats;

/* What the kernel gives (cpu-clock) and what perf.mem.data holds. Both
 * have the same sample_id trailer (TID, TIME, ID, CPU), so the side-band
 * event can share the output's sample_type. */
#define DECODE_IN_SAMPLE_TYPE                                                                       \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |    \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_CGROUP)
#define DECODE_OUT_SAMPLE_TYPE                                                                      \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |   \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR |       \
	 PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE)

struct decode_stream;

/* NULL with scx_fail on failure. */
struct decode_stream *decode_stream_new(const struct insn_decoder *dec);
/* A drain pass begins (pagemap blocks are read afresh). */
void decode_stream_pass(struct decode_stream *ds);
/* Add the recorder's CPU time of a drain pass to decode_ns. */
void decode_stream_charge(struct decode_stream *ds, uint64_t cpu_ns);
/* A SAMPLE from the ring becomes 0..n samples in w (ms's samples and
 * first/last sample times updated), carrying id (the ring's own event's:
 * the kernel may hand a sample another program's id; 0: the sample's). */
int decode_stream_sample(struct decode_stream *ds, const uint8_t *rec, uint64_t id, struct pd_writer *w,
			 struct mem_stream_stats *ms);
/* A side-band record (the caller writes it): updates the process caches. */
void decode_stream_sideband(struct decode_stream *ds, const uint8_t *rec);
/* Counters so far (text cache counters filled in). */
void decode_stream_stats(const struct decode_stream *ds, struct decode_stats *out);
void decode_stream_free(struct decode_stream *ds);

/* data_src of a decoded access: op LOAD and/or STORE, every other part
 * "not available" (no level, snoop, lock or TLB information). */
uint64_t decode_stream_data_src(int load, int store);

#endif
