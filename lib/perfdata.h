/*
 * perfdata.h - the perf.data file format: reading (and, for tests and the
 * recorder, writing) perf's on-disk "PERFILE2" files.
 *
 * This module owns the file format and nothing else: it knows the header,
 * attribute section (with ids), data section, feature sections, record
 * framing and the PERF_SAMPLE_* layout. It knows nothing about threads,
 * symbols or JSON. Every length read from the file is bounds-checked: a
 * hostile file yields -1 and a one-line message from scx_errmsg() naming the
 * file and the problem, never a crash.
 *
 * Reading:
 *   struct pd_file f;
 *   if (pd_open(&f, path) < 0) ... scx_errmsg() ...
 *   struct pd_cursor c; pd_cursor_init(&c, &f);
 *   const struct perf_event_header *h;
 *   while ((r = pd_next(&c, &h)) > 0) {
 *       if (h->type == PERF_RECORD_SAMPLE) pd_parse_sample(&f, h, &s);
 *       else pd_parse_sample_id(&f, h, &s);   // trailer of other records
 *   }
 *   pd_close(&f);
 *
 * Records returned by pd_next() point into the file mapping and stay valid
 * until pd_close() or pd_release_before() past their offset.
 */
#ifndef SCX_PERFDATA_H
#define SCX_PERFDATA_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PD_MAGIC 0x32454c4946524550ULL /* "PERFILE2" little-endian */
#define PD_HEADER_SIZE 104

/* Record types that the perf tool (not the kernel) writes into files. */
enum pd_user_record_type {
	PD_RECORD_HEADER_ATTR = 64,
	PD_RECORD_HEADER_EVENT_TYPE = 65,
	PD_RECORD_HEADER_TRACING_DATA = 66,
	PD_RECORD_HEADER_BUILD_ID = 67,
	PD_RECORD_FINISHED_ROUND = 68,
	PD_RECORD_ID_INDEX = 69,
	PD_RECORD_AUXTRACE_INFO = 70,
	PD_RECORD_AUXTRACE = 71,
	PD_RECORD_AUXTRACE_ERROR = 72,
	PD_RECORD_THREAD_MAP = 73,
	PD_RECORD_CPU_MAP = 74,
	PD_RECORD_STAT_CONFIG = 75,
	PD_RECORD_STAT = 76,
	PD_RECORD_STAT_ROUND = 77,
	PD_RECORD_EVENT_UPDATE = 78,
	PD_RECORD_TIME_CONV = 79,
	PD_RECORD_HEADER_FEATURE = 80,
	PD_RECORD_COMPRESSED = 81,
	PD_RECORD_FINISHED_INIT = 82,
};

/* Feature bits of the header bitmap (tools/perf/util/header.h order). */
enum pd_feature {
	PD_FEAT_TRACING_DATA = 1,
	PD_FEAT_BUILD_ID = 2,
	PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4,
	PD_FEAT_VERSION = 5,
	PD_FEAT_ARCH = 6,
	PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8,
	PD_FEAT_CPUID = 9,
	PD_FEAT_TOTAL_MEM = 10,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_CPU_TOPOLOGY = 13,
	PD_FEAT_NUMA_TOPOLOGY = 14,
	PD_FEAT_BRANCH_STACK = 15,
	PD_FEAT_PMU_MAPPINGS = 16,
	PD_FEAT_GROUP_DESC = 17,
	PD_FEAT_AUXTRACE = 18,
	PD_FEAT_STAT = 19,
	PD_FEAT_CACHE = 20,
	PD_FEAT_SAMPLE_TIME = 21,
	PD_FEAT_MEM_TOPOLOGY = 22,
	PD_FEAT_CLOCKID = 23,
	PD_FEAT_DIR_FORMAT = 24,
	PD_FEAT_BPF_PROG_INFO = 25,
	PD_FEAT_BPF_BTF = 26,
	PD_FEAT_COMPRESSED = 27,
	PD_FEAT_CPU_PMU_CAPS = 28,
	PD_FEAT_CLOCK_DATA = 29,
	PD_FEAT_HYBRID_TOPOLOGY = 30,
	PD_FEAT_PMU_CAPS = 31,
	PD_FEAT_MAX = 256,
};

struct pd_section {
	uint64_t offset;
	uint64_t size;
};

/* One event attribute of the file with the sample ids that belong to it. */
struct pd_attr {
	struct perf_event_attr attr; /* zero-extended to sizeof(struct perf_event_attr) */
	uint32_t file_attr_size;     /* attr.size as found in the file */
	const uint64_t *ids;         /* points into the mapping (8-byte aligned) */
	size_t nr_ids;
	char name[128];              /* from EVENT_DESC, else "" */
	size_t id_index_sample;      /* where PERF_SAMPLE_ID/IDENTIFIER sits in a sample, in u64 from
				      * the start of the body; SIZE_MAX if absent */
	size_t id_index_trailer;     /* where the id sits in a sample_id trailer, in u64 counted
				      * back from the end of the record (1 = last u64); 0 if absent */
	size_t trailer_size;         /* bytes of the sample_id trailer (0 unless sample_id_all) */
	size_t time_index_sample;    /* like id_index_sample, for PERF_SAMPLE_TIME */
	size_t time_index_trailer;   /* like id_index_trailer, for PERF_SAMPLE_TIME */
	size_t fixed_sample_size;    /* bytes of a sample body when every field of sample_type has a
				      * fixed size (no read, callchain, raw, branch stack, regs,
				      * user stack or aux): pd_parse_sample's fast path; else 0 */
};

/* An open, validated perf.data file. */
struct pd_file {
	char path[4096];
	int fd;
	const uint8_t *map;
	size_t size;
	uint64_t attr_size;      /* header.attr_size */
	struct pd_section attrs_sec, data_sec, event_types_sec;
	uint64_t features[4];    /* header bitmap */
	struct pd_section feat[PD_FEAT_MAX]; /* per set bit; {0,0} when absent */
	struct pd_attr *attrs;
	size_t nr_attrs;
	bool sample_id_all;      /* every attr has sample_id_all */
	/* id -> attr lookup (open addressing over all ids) */
	uint64_t *id_keys;
	uint32_t *id_vals;
	size_t id_cap;
	uint64_t released;       /* mapping below this offset handed back (pd_release_before) */
};

/* Open and validate path (header, sections within the file, attrs and ids).
 * Refuses pipe-mode and big-endian files with a clear message. */
int pd_open(struct pd_file *f, const char *path);
void pd_close(struct pd_file *f);

/* Whether path opens and starts with the magic "PERFILE2": what a path given
 * as a profile is, before pd_open says whether the rest holds (never blocks
 * on a FIFO; no message). */
bool pd_is_perf_data(const char *path);

/* The attr a record belongs to: by sample id when several attrs exist, else
 * the only attr. Id 0 (records perf synthesizes) maps to the first attr unless
 * 0 is a real id, as in perf. NULL (with scx_fail) when an id is unknown. */
const struct pd_attr *pd_attr_for_sample(const struct pd_file *f, const struct perf_event_header *h);
const struct pd_attr *pd_attr_for_trailer(const struct pd_file *f, const struct perf_event_header *h);

/* A record's time without decoding the rest (samples: PERF_SAMPLE_TIME;
 * other kernel records: their sample_id trailer). 1: *time set; 0: the
 * record carries no time; -1: unknown attr or too short (scx_fail). */
int pd_record_time(const struct pd_file *f, const struct perf_event_header *h, uint64_t *time);

/* True when the record's sample id could be read but belongs to no attr of
 * the file (perf skips such records and counts them; so do we). False when
 * the id is known, or cannot be read at all (then parsing reports why). */
bool pd_id_is_unknown(const struct pd_file *f, const struct perf_event_header *h);

/* Payload of a feature section, or -1 (no scx_fail) when the bit is unset. */
int pd_feature(const struct pd_file *f, int feat, const void **data, uint64_t *size);

/*
 * The build-id the file's BUILD_ID feature section records for a DSO name
 * (e.g. "[vdso]" or "/usr/lib/x86_64-linux-gnu/libc.so.6"). 1 and the id
 * in bid (20 bytes max) with its size; 0 when not recorded or malformed.
 */
int pd_build_id_for(const struct pd_file *f, const char *filename, uint8_t bid[20], size_t *size);

/* Human-readable name of a record type ("SAMPLE", "MMAP2", "FINISHED_ROUND", ...),
 * "UNKNOWN" otherwise. */
const char *pd_record_name(uint32_t type);

/* Sequential walk over the data section. */
struct pd_cursor {
	const struct pd_file *f;
	uint64_t pos; /* absolute file offset of the next record */
	uint64_t end; /* data_sec.offset + data_sec.size */
};
void pd_cursor_init(struct pd_cursor *c, const struct pd_file *f);
/* 1: *h set to the next record (size >= 8, within the data section, and for
 * PD_RECORD_AUXTRACE the trailing payload skipped); 0: end; -1: corrupt. */
int pd_next(struct pd_cursor *c, const struct perf_event_header **h);
/* File offset of a record returned by pd_next(). */
uint64_t pd_offset_of(const struct pd_file *f, const struct perf_event_header *h);
/* Tell the kernel the mapping below offset will not be needed again. */
void pd_release_before(struct pd_file *f, uint64_t offset);

/* A decoded sample (or the sample_id trailer of another record). Only the
 * fields whose bit is in `present` are meaningful. */
struct pd_sample {
	const struct pd_attr *attr;
	uint64_t present; /* PERF_SAMPLE_* bits decoded */
	uint16_t misc;    /* header.misc (cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK) */
	uint64_t id;      /* PERF_SAMPLE_ID or IDENTIFIER */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	const void *read; /* PERF_SAMPLE_READ: raw bytes, layout per attr.read_format */
	size_t read_size;
	uint64_t callchain_nr;
	const uint64_t *callchain;
	uint32_t raw_size;
	const void *raw;
	uint64_t branch_nr;
	uint64_t branch_hw_idx; /* valid when branch_sample_type has PERF_SAMPLE_BRANCH_HW_INDEX */
	const void *branch_entries; /* branch_nr * 24 bytes */
	uint64_t regs_user_abi;
	const uint64_t *regs_user; /* popcount(sample_regs_user) values when abi != 0 */
	uint64_t stack_user_size;
	const void *stack_user;
	uint64_t stack_user_dyn_size;
	uint64_t weight;         /* PERF_SAMPLE_WEIGHT, or var1 of WEIGHT_STRUCT */
	uint32_t weight_var1;    /* WEIGHT_STRUCT parts */
	uint16_t weight_var2, weight_var3;
	uint64_t data_src;
	uint64_t transaction;
	uint64_t regs_intr_abi;
	const uint64_t *regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t aux_size;
	const void *aux;
};

/* Decode a PERF_RECORD_SAMPLE in ABI order with bounds checks. */
int pd_parse_sample(const struct pd_file *f, const struct perf_event_header *h, struct pd_sample *s);
/* Decode the sample_id trailer of a non-sample record (TID, TIME, ID,
 * STREAM_ID, CPU, IDENTIFIER in that order). With no sample_id_all, sets
 * present = 0 and returns 0. */
int pd_parse_sample_id(const struct pd_file *f, const struct perf_event_header *h, struct pd_sample *s);

/* Bytes of a record body before its sample_id trailer (for COMM/MMAP strings).
 * 0 (with scx_fail) when the record's attr is unknown or the trailer does not fit. */
size_t pd_body_size(const struct pd_file *f, const struct perf_event_header *h);

/* ---- Writing ---------------------------------------------------------- */

/*
 * A streaming writer. Records are appended to the data section as they come;
 * the header, attrs, ids and features are written by pd_writer_finish().
 * The caller chooses the path (normally a temp name it renames later).
 */
struct pd_writer {
	int fd;
	char path[4096];
	uint64_t data_offset;
	uint64_t data_size;
	struct pd_writer_attr {
		struct perf_event_attr attr;
		uint64_t *ids;
		size_t nr_ids;
		char name[128];
	} *attrs;
	size_t nr_attrs;
	struct pd_writer_feat {
		int bit;
		void *data;
		size_t size;
	} *feats;
	size_t nr_feats;
	uint8_t *buf; /* write buffer */
	size_t buf_len, buf_cap;
	/* optional: sees every record appended (the recorder collects the
	 * mapped files' names for the BUILD_ID feature) */
	void (*observe)(void *ctx, const void *rec, size_t size);
	void *observe_ctx;
};

int pd_writer_open(struct pd_writer *w, const char *path);
/* attr.size is forced to PERF_ATTR_SIZE_VER7 (128), the largest perf 6.1 reads. */
int pd_writer_add_attr(struct pd_writer *w, const struct perf_event_attr *attr,
		       const uint64_t *ids, size_t nr_ids, const char *name);
int pd_writer_add_record(struct pd_writer *w, const void *rec, size_t size);
/* Feature payload written verbatim (copied). EVENT_DESC is generated from the
 * attr names when any attr has a name and the caller did not add one. */
int pd_writer_add_feature(struct pd_writer *w, int bit, const void *data, size_t size);
int pd_writer_finish(struct pd_writer *w);
/* Close and unlink after an error. */
void pd_writer_abort(struct pd_writer *w);

#endif
