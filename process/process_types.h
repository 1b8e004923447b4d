/*
 * process_types.h - the types of the `process` stage: what a profile directory
 * holds (inputs), how to run (options), the streams to write (outputs) and
 * the numbers for process.json (results). Shared by the entry points
 * (stage.h) and every input path below them; declares no functions.
 *
 * Where files go (temp names, renames, refusing to overwrite) is the
 * caller's business; the stage only reads the profile and writes to the
 * FILE*s it is given.
 */
#ifndef SCX_PROCESS_TYPES_H
#define SCX_PROCESS_TYPES_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/warnings.h"
#include "process/hints.h"
#include "process/spe/spe.h"
#include "process/sym/symbols.h"

enum process_mem_kind { MEM_NONE, MEM_PERF_DATA, MEM_SCRIPT_TEXT };
/* scheduling stream: our sched.data, upstream's perf.sched.data or its text */
enum process_sched_kind { SCHED_IN_NONE, SCHED_IN_DATA, SCHED_IN_PERF_DATA, SCHED_IN_SCRIPT };

struct process_inputs {
	char dir[4096];         /* the profile directory, or the perf.data file itself (single_file) */
	bool single_file;       /* -f named a perf.data file: the memory stream only */
	enum process_mem_kind mem_kind;
	char mem_name[64];      /* "perf.mem.data", "perf.data", "perf.mem.script" or "perf.script" */
	char mem_path[4096];
	enum process_sched_kind sched_kind;
	char sched_name[64];    /* "sched.data", "perf.sched.data" or "perf.sched.script" */
	char sched_path[4096];
	bool has_hints;
	char hints_path[4096];
	bool has_kallsyms;      /* kallsyms snapshot written by record */
	char kallsyms_path[4096];
	bool has_metadata;
	char metadata_path[4096];
	bool has_vdso;          /* vdso image saved by record */
	char vdso_path[4096];
};

struct mem_record;
struct sched_line;

/*
 * Instead of writing perf.jsonl and sched.jsonl: each kept sample and each
 * sched.jsonl record (what its line is made of, process/sched/sched_decode.h)
 * handed over in output order, for one-pass extract (pipeline/onepass.h).
 * Only what a config needs is resolved: instruction symbols never (sym and
 * dso are "[unknown]"), data symbols only with data_symbols. Nonzero
 * return: stop (scx_fail set).
 */
struct process_sink {
	int (*mem_sample)(void *ctx, const struct mem_record *r);
	int (*sched_record)(void *ctx, const struct sched_line *l);
	void *ctx;
	bool data_symbols;
};

struct process_opts {
	const struct process_inputs *in;
	const struct process_sink *sink; /* NULL: write the process_outputs */
	const char *symfs;            /* perf --symfs, or NULL */
	bool no_filter;               /* keep samples upstream drops (phys_addr 0, perf/swapper) and the recorder's */
	int verbose;                  /* -v: skipped samples to log */
	FILE *log;                    /* -v lines and notes; warnings are returned, not printed */
	volatile sig_atomic_t *stop;  /* set asynchronously to abort ("interrupted") */
	bool mem_only;                /* the memory stream alone (one pass runs the sched stream
				       * elsewhere); the sched input still names threads perf.data
				       * has no COMM for */
	int jobs;                     /* threads for perf.data's memory stream: 0 or 1 formats on the
				       * decoding thread; N > 1 adds N-1 formatting threads (at most 8).
				       * The outputs are the same bytes for every N. */
};

struct process_outputs {
	FILE *perf_jsonl;  /* NULL when there is no memory stream */
	FILE *sched_jsonl; /* NULL when there is no scheduling stream */
	FILE *hints_copy;  /* NULL when there are no hints */
	FILE *trace;       /* trace.pftrace (Perfetto), or NULL for none */
};

#define PROCESS_SCHED_EVENTS 32

/* The scheduling stream (upstream's "Parsed X of Y sched trace records (U unparseable)"). */
struct process_sched_result {
	bool present;
	uint64_t total, parsed, unparseable;
	uint64_t truncated_bytes;      /* sched.data: trailing partial record */
	uint64_t unknown_types;        /* sched.data: records of types we do not know (skipped) */
	uint64_t hinted;               /* records whose tid had a non-zero hint */
	uint64_t first_ns, last_ns;
	struct { char name[64]; uint64_t count; } events[PROCESS_SCHED_EVENTS];
	size_t nr_events;
	uint64_t other_events;         /* records of events beyond the table */
};
#define PROCESS_RECORD_TYPES 128

struct process_result {
	/* samples (upstream's "Parsed X of Y records (S skipped, U unparseable)") */
	uint64_t total, kept, skipped_no_phys, skipped_comm, unparseable;
	uint64_t skipped_recorder;     /* samples of the recorder itself (metadata.json recorder) */
	/* perf.data records by type; see pd_record_name() */
	uint64_t records[PROCESS_RECORD_TYPES];
	uint64_t lost_events, lost_records, lost_samples, throttle, unthrottle;
	uint64_t unknown_id_records;   /* records whose sample id names no event: skipped */
	bool clock_known;
	int clockid;                   /* when clock_known */
	bool ordered;                  /* timestamp order by rounds; else file order */
	uint64_t rounds, peak_queued, late_records;
	struct hints_stats hints;
	bool has_hints;
	struct sym_stats syms;
	bool kernel_symbols;           /* kallsyms was available */
	const char *kallsyms_source;   /* "snapshot", "/proc/kallsyms" or "none" */
	uint64_t threads, cgroups, dsos;
	uint64_t threads_named_from_sched; /* no COMM record in perf.data: named by the sched stream */
	struct process_sched_result sched;
	struct {                       /* trace.pftrace, when written */
		bool written;
		uint64_t bytes, packets, switches, switches_full, wakings, wakings_full;
		uint64_t irq_events, forks, mem_samples, hint_values, threads;
	} trace;
	struct {                       /* Arm SPE AUX data in perf.data (process/spe) */
		bool present, neoverse, header_v2, context; /* context: threads from CONTEXT packets */
		uint64_t midr;
		struct spe_counts counts;
	} spe;
	struct warnings warnings;
};

#endif
