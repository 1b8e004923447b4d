/*
 * spe.h - Arm SPE (Statistical Profiling Extension) AUX data in perf.data,
 * decoded into memory samples as perf 6.1's `perf script --itrace=M` makes
 * them (tools/perf/util/arm-spe*.c): one sample per load or store record.
 *
 * The parts, one file each:
 *   spe_packet.c   one packet from bytes (Arm ARM DDI 0487, D10 "Packet formats")
 *   spe_record.c   packets -> records, one decoder per AUX queue, across the
 *                  queue's AUXTRACE buffers in file order, resynchronising byte
 *                  by byte after a bad header as perf does
 *   spe_data_src.c a record's perf_mem_data_src: Neoverse N1/N2/V1 data source
 *                  packets, else the generic events-based levels
 *   spe_trace.c    the perf.data side: TIME_CONV, AUXTRACE_INFO (SPE header of
 *                  perf 6.1, or the versioned one of perf >= 6.9), AUXTRACE and
 *                  AUX records; each queue's buffers, decoded as the replay goes
 *                  (memory does not grow with the AUX data)
 *   spe_replay.c   the records in perf's delivery order between the file's other
 *                  records, each attributed to a thread by its CONTEXT packet or
 *                  else by the CPU's switch records, times through TIME_CONV
 *
 * Hostile input never crashes: a bad packet header is skipped byte by byte
 * and counted; a record cut by one is kept as perf keeps it (its fields so
 * far, time of tick 0) and counted; records that are not loads or stores
 * are counted and give no sample; malformed perf.data records fail with one
 * line naming the file and the offset.
 */
#ifndef SCX_SPE_H
#define SCX_SPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/perfdata.h"

/* ---- packets (spe_packet.c) -------------------------------------------- */

enum spe_pkt_type {
	SPE_PKT_PAD = 1,
	SPE_PKT_END,
	SPE_PKT_TIMESTAMP,
	SPE_PKT_EVENTS,
	SPE_PKT_DATA_SOURCE,
	SPE_PKT_CONTEXT,
	SPE_PKT_OP_TYPE,
	SPE_PKT_ADDRESS,
	SPE_PKT_COUNTER,
};

/* Address packet indexes, counter indexes, operation classes. */
enum { SPE_ADDR_PC = 0, SPE_ADDR_BRANCH = 1, SPE_ADDR_DATA_VA = 2, SPE_ADDR_DATA_PA = 3 };
enum { SPE_CNT_TOTAL = 0, SPE_CNT_ISSUE = 1, SPE_CNT_XLAT = 2 };
enum { SPE_OP_OTHER = 0, SPE_OP_LDST = 1, SPE_OP_BRANCH = 2 };

/* Events packet bits. */
#define SPE_EV_L1D_ACCESS (1u << 2)
#define SPE_EV_L1D_REFILL (1u << 3)
#define SPE_EV_TLB_ACCESS (1u << 4)
#define SPE_EV_TLB_WALK (1u << 5)
#define SPE_EV_LLC_ACCESS (1u << 8)
#define SPE_EV_LLC_MISS (1u << 9)
#define SPE_EV_REMOTE (1u << 10)

struct spe_packet {
	uint8_t type;     /* enum spe_pkt_type */
	uint8_t index;    /* address/counter index, op class, context EL */
	uint64_t payload; /* little-endian payload (0 for PAD/END) */
};

/* Decode the packet at buf[0..len). pos is buf's offset in its AUX buffer
 * (an alignment packet pads to a multiple of its size from the buffer's
 * start). Returns its length (>0), 0 when it runs past len, -1 for a
 * header no packet has. */
int spe_packet_decode(const uint8_t *buf, size_t len, size_t pos, struct spe_packet *p);

/* ---- records (spe_record.c) -------------------------------------------- */

#define SPE_OP_LD 1u
#define SPE_OP_ST 2u

struct spe_record {
	uint64_t pc, va, pa;  /* 0 when absent */
	uint64_t timestamp;   /* generic timer ticks; 0 when the record ended with End */
	uint64_t context;     /* CONTEXTIDR (the pid) when has_context */
	uint32_t events;      /* SPE_EV_* */
	uint16_t lat;         /* total latency (cycles) */
	uint16_t source;      /* data source packet payload */
	uint8_t op;           /* SPE_OP_LD | SPE_OP_ST */
	bool has_context;
	bool cut;             /* ended by a bad packet, not by Timestamp/End */
};

/* Counts of what the decoder saw (process.json "spe"). */
struct spe_counts {
	uint64_t records;      /* records decoded (ended by Timestamp or End, or cut) */
	uint64_t cut_records;  /* records ended by a bad packet (kept as perf keeps them) */
	uint64_t bad_bytes;    /* bytes skipped resynchronising after a bad header */
	uint64_t bad_ops;      /* operation type packets of a reserved class (end the record) */
	uint64_t unfinished;   /* records the AUX data of a queue ends inside (dropped, as by perf) */
	uint64_t not_memory;   /* records neither load nor store: no sample */
	uint64_t samples;      /* memory samples delivered */
	uint64_t dropped_first; /* cut records before a queue's first whole one (perf drops them) */
	uint64_t aux_buffers;  /* AUXTRACE records (buffers of AUX data) */
	uint64_t aux_bytes;
	uint64_t aux_records;  /* kernel AUX records */
	uint64_t aux_truncated, aux_partial, aux_collision; /* AUX records with these flags */
	uint64_t context_samples; /* samples attributed by a CONTEXT packet */
	uint64_t switch_samples;  /* ... by the CPU's switch records */
	uint64_t unknown_thread;  /* ... by neither (tid -1) */
};

/* One queue's decoder: record state lives across the queue's buffers. */
struct spe_decoder {
	struct spe_record cur;
	bool open;            /* cur holds packets of an unfinished record */
	struct spe_counts *counts;
};

void spe_decoder_init(struct spe_decoder *d, struct spe_counts *counts);
/* Decode buf[*pos..len) up to the next finished record: 1 with *out set
 * (*pos after it), 0 when the buffer is used up (a record may stay open
 * for the next buffer). */
int spe_decoder_step(struct spe_decoder *d, const uint8_t *buf, size_t len, size_t *pos,
		     struct spe_record *out);

/* The instruction / data addresses of address packets as perf reads them
 * (bytes 0-6; the top byte filled for EL1/EL2 code and kernel data). */
uint64_t spe_addr_value(unsigned index, uint64_t payload);

/* ---- data source (spe_data_src.c) -------------------------------------- */

/* perf_mem_data_src of a record for a CPU of this MIDR; 0 when the record
 * is neither a load nor a store (perf makes no memory sample of it). */
uint64_t spe_data_src(const struct spe_record *r, uint64_t midr);
/* Whether perf 6.1 reads this MIDR's data source packets (Neoverse N1, N2, V1). */
bool spe_midr_is_neoverse(uint64_t midr);

/* ---- the perf.data side (spe_trace.c, spe_replay.c) -------------------- */

struct spe_time_conv {
	uint64_t shift, mult, zero, cycles, mask;
	bool cap_zero, cap_short;
};
uint64_t spe_tsc_to_perf_time(const struct spe_time_conv *tc, uint64_t tsc);
uint64_t spe_perf_time_to_tsc(const struct spe_time_conv *tc, uint64_t ns);

/* One AUXTRACE record's data (points into the file mapping). */
struct spe_aux_buf {
	const uint8_t *p;
	size_t len;
};

/* An AUX queue (AUXTRACE idx): its buffers in file order, decoded as the
 * replay needs its records, one record ahead. */
struct spe_queue {
	uint32_t idx;         /* AUXTRACE idx */
	int32_t cpu, tid;     /* of its first AUXTRACE record */
	struct spe_aux_buf *bufs;
	size_t nbufs, cap;
	size_t bi, pos;       /* where decoding stands: buffer, offset in it */
	struct spe_decoder dec;
	bool has_head;        /* head holds the next record to deliver */
	struct spe_record head;
	uint64_t head_order;  /* perf's queue timestamp: the largest record time so far */
	uint64_t running;
	bool started;         /* a whole record was decoded (perf drops cut ones before it) */
	int32_t cur_pid, cur_tid; /* perf's speq->pid/tid */
	uint64_t midr;        /* of its CPU (versioned header), else the file's CPUID */
};

/* The delivery of one sample to process's emitter. */
struct spe_sample {
	int32_t pid, tid, cpu;
	uint64_t time, ip, addr, phys_addr, data_src, weight;
	bool kernel;          /* ip in the kernel half */
};

struct spe_trace {
	bool present;         /* the file has SPE AUX data (AUXTRACE_INFO of type ARM_SPE) */
	uint32_t pmu_type;
	uint64_t midr;
	const struct pd_attr *attr; /* the arm_spe event */
	bool timeless;        /* no event samples its time: perf times nothing */
	bool has_phys;        /* the arm_spe event samples PHYS_ADDR */
	bool header_v2;       /* versioned AUXTRACE_INFO (perf >= 6.9) */
	struct spe_time_conv tc;
	bool has_tc;
	struct spe_queue *queues;
	size_t nr_queues, cap_queues;
	struct spe_counts counts;
	/* replay state */
	bool use_context;     /* a CONTEXT packet was seen: switch records no longer count */
	int32_t *cpu_tid;     /* machine's current tid per CPU (-1 unknown) */
	size_t nr_cpu_tid;
	struct spe_queue *last; /* the queue delivered from last (perf's running queue) */
	/* thread lookup: the pid the session knows for tid (created on first
	 * sight with pid -1, as perf's machine__findnew_thread) */
	int32_t (*thread_pid)(void *ctx, int32_t pid, int32_t tid);
	int (*deliver)(void *ctx, const struct spe_sample *s);
	void *ctx;
};

/*
 * Read f's SPE side: 0 and t->present false when it has none; 0 with every
 * AUXTRACE buffer queued and each queue's first record decoded; -1 (scx_fail naming the file) on a malformed
 * AUXTRACE_INFO, AUXTRACE or TIME_CONV record, or SPE data with no
 * TIME_CONV while events sample their time.
 */
int spe_trace_load(struct spe_trace *t, const struct pd_file *f);
void spe_trace_free(struct spe_trace *t);

/* Before the file's record h (in delivery order) reaches process: deliver
 * the samples perf delivers before it, then apply it if it is a switch
 * record (SWITCH or SWITCH_CPU_WIDE out). -1 when deliver fails. */
int spe_trace_before(struct spe_trace *t, const struct pd_file *f, const struct perf_event_header *h);
/* Decode q's next record into q->head (1), or 0 when its data is used up. */
int spe_queue_advance(struct spe_trace *t, struct spe_queue *q);
/* At the end of the file: deliver the rest. */
int spe_trace_finish(struct spe_trace *t);

#endif
