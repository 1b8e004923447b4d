/*
 * decode.h - the contract of record/decode/, the decode backend of
 * `record` (no memory-sampling PMU: each cpu-clock sample's instruction is
 * decoded for the data addresses it loads or stores): the instruction
 * decoder interface (insn_x86.c), the decode stream's counters and calls
 * (decode_stream.c), and the pagemap reader (pagemap.c) that gives it and
 * the page-fault backend physical addresses. The rest of record/ includes
 * nothing else from this room (insn_text.h and elf_funcs.h are its own).
 */
#ifndef SCX_RECORD_DECODE_H
#define SCX_RECORD_DECODE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/perfdata.h"

/* ---- the instruction decoder (insn_x86.c) behind `record --backend decode`: given
 * the bytes at a sampled user-mode IP and the sampled user registers, the
 * data addresses the instruction is about to load or store. One
 * implementation per architecture behind this small interface (x86-64:
 * Zydis, insn_x86.c); insn_decoder_for_host() picks the one for the
 * machine, or none.
 *
 * A timer sample's IP is the instruction about to run; the one that just
 * ran (usually the stalled load the interrupt waited for) is found through
 * insn_text_prev() and decoded with the registers it left behind.
 *
 * Registers are passed in the kernel's perf_regs numbering for the arch
 * (PERF_SAMPLE_REGS_USER with the decoder's regs_mask), expanded so
 * regs[i] is register number i.
 */

#define INSN_MAX_BYTES 15   /* the longest x86 instruction */
#define INSN_MAX_ACCESSES 4
#define INSN_MAX_REGS 64

enum insn_status {
	INSN_ACCESS,      /* nr >= 1 accesses */
	INSN_NO_MEMORY,   /* no memory operand (lea computes an address but is not an access) */
	INSN_SEGMENT,     /* every memory operand is fs/gs-based (TLS; the base is not sampled) */
	INSN_UNSUPPORTED, /* vector-indexed (gather/scatter) or bound-table operands */
	INSN_TRUNCATED,   /* the bytes given end inside the instruction */
	INSN_INVALID,     /* not an instruction */
	INSN_CLOBBERED,   /* executed: it overwrote a register its address is made of */
	INSN_NR_STATUS
};

struct insn_access {
	uint64_t addr;
	uint32_t size;    /* bytes */
	bool load, store; /* a read-modify-write sets both */
};

struct insn_result {
	enum insn_status status;
	unsigned length;  /* of the instruction, when decoded */
	size_t nr;
	struct insn_access acc[INSN_MAX_ACCESSES];
};

struct insn_decoder {
	const char *name;   /* "zydis" */
	const char *arch;   /* "x86_64" */
	uint64_t regs_mask; /* perf_event_attr.sample_regs_user it needs */
	/* the library's version, "4.0.0" */
	void (*version)(char *buf, size_t size);
	/* decode code[0..len) at ip with regs (INSN_MAX_REGS entries). With
	 * executed, regs are the state after the instruction ran (it is the
	 * one before the sampled IP): instructions that wrote a register of
	 * their address give INSN_CLOBBERED. */
	void (*decode)(const uint8_t *code, size_t len, uint64_t ip, const uint64_t *regs, bool executed,
		       struct insn_result *out);
	/* the length of the instruction at code, 0 when it does not decode */
	unsigned (*length)(const uint8_t *code, size_t len);
};

/* The decoder for the machine we run on, NULL when there is none. */
const struct insn_decoder *insn_decoder_for_host(void);

/* ---- the counters of `record --backend decode` (decode_stream.c, below),
 * held inside the memory stream's counters (record/streams/streams.h).
 */

/* insn_text.h's counters: where instruction bytes came from */
struct insn_text_stats {
	uint64_t maps_reads;   /* /proc/PID/maps parsed */
	uint64_t dsos_opened;  /* files mapped */
	uint64_t dsos_evicted; /* of those, unmapped to make room for another (least recently read first) */
	uint64_t from_file, from_memory; /* reads served */
	uint64_t prev_walks;   /* functions decoded from their start to find a previous instruction */
};

/* pagemap.c's (below) */
struct pagemap_stats {
	uint64_t pagemap_reads;    /* preads of a block of pagemap entries */
	uint64_t kpageflags_reads; /* preads of one PFN's page flags */
	/* lookups that gave 0 because the process had exited before the drain
	 * reached its sample: its page tables are gone, nobody can read them
	 * any more (the loss a pagemap-based backend cannot avoid) */
	uint64_t exited;
};

/* Why a tick gave no data address: decode_stats' skipped[], in the order
 * metadata.json lists them, named there by decode_skip_name(). */
enum decode_skip {
	DECODE_SKIP_KERNEL,      /* IP in kernel mode (or the idle task) */
	DECODE_SKIP_NO_REGS,     /* no user registers in the sample */
	DECODE_SKIP_UNREADABLE,  /* no bytes at the IP (process gone, no exec mapping) */
	DECODE_SKIP_INVALID,     /* bytes that do not decode (or end too early) */
	DECODE_SKIP_NO_MEMORY,   /* no memory operand (lea, register-only) */
	DECODE_SKIP_SEGMENT,     /* only fs/gs-based operands (TLS) */
	DECODE_SKIP_UNSUPPORTED, /* gather/scatter (vector index), bound tables */
	DECODE_SKIP_CLOBBERED,   /* the instruction before overwrote its own address registers */
	DECODE_SKIP_NR
};

/* metadata.json's key of a skip reason: "kernel_mode", ... */
const char *decode_skip_name(enum decode_skip why);

struct decode_stats {
	uint64_t ticks;            /* cpu-clock samples read */
	uint64_t decoded;          /* ticks whose instruction at the IP gave >= 1 access */
	uint64_t decoded_prev;     /* ticks whose IP had no memory operand, but the instruction before it did */
	uint64_t accesses;         /* samples written (one per access) */
	uint64_t loads, stores;    /* of those (a read-modify-write counts in both) */
	uint64_t skipped[DECODE_SKIP_NR]; /* the other ticks, by why */
	uint64_t phys_resolved, phys_unresolved;
	uint64_t decode_ns;        /* recorder thread CPU time draining the stream: text, decoding, pagemap, writing */
	struct insn_text_stats text; /* the instruction bytes read */
	struct pagemap_stats pm;   /* physical addresses looked up (pm.exited: of phys_unresolved, the process had exited) */
	uint64_t passes;           /* drain passes (each a FINISHED_ROUND) */
};

/* ---- decode_stream.c: `record --backend decode` while draining: turns each
 * cpu-clock sample with user registers into one ordinary memory sample per
 * data address its instruction loads or stores (ADDR, PHYS_ADDR from
 * pagemap, DATA_PAGE_SIZE, DATA_SRC with only the op bits), or counts why
 * it cannot (skip reasons). Runs while the process and its page tables
 * still exist; side-band records tell it when a process's mappings change.
 */

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

/* ---- pagemap.c: physical addresses of user virtual addresses from
 * /proc/PID/pagemap, read in blocks of 64 entries per drain pass (one pread
 * serves nearby samples), with the page size from /proc/kpageflags (one
 * pread per page and pass, only for pages whose virtual and physical
 * offsets in a 2 MiB frame agree: no other can be mapped huge) and the
 * kernel's shared zero page reported as "no physical address" (reads of
 * untouched memory share nothing). Used by the page-fault and decode
 * backends while draining, when the pages are still mapped.
 */

struct pagemap_cache;

/* NULL when out of memory (scx_fail set). */
struct pagemap_cache *pagemap_new(void);
/* A new drain pass: blocks read earlier are read again when needed. */
void pagemap_next_pass(struct pagemap_cache *pc);
/* Physical address of vaddr in pid, 0 when the page is not present, the
 * PFN is hidden (no CAP_SYS_ADMIN), it is the zero page or pid has exited
 * (counted in pagemap_stats' exited); *page_size gets the page's size when
 * nonzero is returned. */
uint64_t pagemap_phys(struct pagemap_cache *pc, int pid, uint64_t vaddr, uint64_t *page_size);
/* pid exec'd or exited: an open pagemap file keeps reading the old
 * address space (the mm is bound at open), so close it. */
void pagemap_forget(struct pagemap_cache *pc, int pid);
const struct pagemap_stats *pagemap_stats(const struct pagemap_cache *pc);
void pagemap_free(struct pagemap_cache *pc);

#endif
