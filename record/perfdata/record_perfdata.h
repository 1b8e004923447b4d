/*
 * record_perfdata.h - the contract of record/perfdata/: what `record` adds to
 * perf.mem.data besides the samples, written through lib/perfdata.h's
 * pd_writer: the side-band records of what existed before recording
 * (synth.c, with inode generations from inode_gen.c), the feature sections
 * perf 6.1 needs (features.c), the BUILD_ID feature (buildids.c) and the
 * AUX-area records of Arm SPE (auxtrace.c). The
 * rest of record/ includes nothing else from this room (inode_gen.h is its
 * own).
 */
#ifndef SCX_RECORD_PERFDATA_H
#define SCX_RECORD_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/perfdata.h"

/* ---- synth.c: side-band records for what existed before recording started,
 * the way perf record synthesizes them: COMM (and FORK for non-leader
 * threads) for every task, MMAP2 for every mapping of every process (data
 * mappings too, so data addresses resolve), the kernel map record
 * ([kernel.kallsyms]_text) and a CGROUP record per cgroup2 directory.
 *
 * Every record ends with a zeroed sample_id trailer of trailer_size bytes
 * (perf reads the tail of a synthesized record as its sample_id when
 * sample_id_all is set; zeros mean "time 0", ordered first).
 */

struct synth_stats {
	uint64_t tasks, threads, mmaps, cgroups;
	uint64_t bpf_progs, bpf_ksymbols; /* BPF programs and their functions (KSYMBOL) */
	uint64_t vanished; /* tasks that exited while being scanned */
};

/* The longest /proc/PID/maps line read: a path is at most PATH_MAX bytes,
 * four times that with every byte a newline escaped as \012, plus the fields. */
#define SYNTH_MAPS_LINE_MAX (4 * 4096 + 256)

/* Tasks and their maps from proc_root ("/proc"). */
int synth_tasks(struct pd_writer *w, const char *proc_root, size_t trailer_size, struct synth_stats *st);
/* The kernel map record from kallsyms (start _text, end _etext). */
int synth_kernel_map(struct pd_writer *w, const char *kallsyms_path, size_t trailer_size);
/* One CGROUP record per directory under the cgroup2 mount (none: 0 records). */
int synth_cgroups(struct pd_writer *w, size_t trailer_size, struct synth_stats *st);

/* KSYMBOL records for the JIT-compiled BPF programs loaded now (a sched_ext
 * scheduler, tracers), named as perf record names them
 * (bpf_prog_<tag>_<function>), so that samples in their code resolve. A
 * program that vanishes while being read is skipped; -1 only when the
 * writer fails. Needs CAP_SYS_ADMIN (else nothing is written and
 * *denied is set). */
int synth_bpf_progs(struct pd_writer *w, size_t trailer_size, struct synth_stats *st, bool *denied);

/* ---- features.c: the perf.data feature sections `record` writes, so that
 * perf 6.1 reads perf.mem.data without warnings and its options work
 * (perf script --header, -F tod, --time, -C): HOSTNAME, OSRELEASE,
 * VERSION, ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM, CMDLINE, SAMPLE_TIME,
 * CLOCKID, CLOCK_DATA (EVENT_DESC comes from the writer's attr names).
 */

struct feature_info {
	int argc;
	char **argv;              /* the command line (CMDLINE) */
	uint64_t first_sample_ns; /* SAMPLE_TIME */
	uint64_t last_sample_ns;
	uint64_t clock_ns;        /* CLOCK_DATA: CLOCK_MONOTONIC and wall time read together */
	uint64_t wall_ns;
};

int features_add(struct pd_writer *w, const struct feature_info *fi);

/* CLOCK_MONOTONIC and CLOCK_REALTIME read back to back, in ns. */
void features_clock_pair(uint64_t *mono_ns, uint64_t *wall_ns);

/* ---- buildids.c: the BUILD_ID feature of perf.mem.data: the running kernel
 * ("[kernel.kallsyms]", from /sys/kernel/notes), the [vdso] and every file
 * the recording saw mapped (MMAP and MMAP2 records, synthesized or from the
 * kernel), each with the build-id of its ELF notes, as perf record writes
 * them. perf report / perf script on another host use them to find the
 * right binaries (build-id cache, debuginfod); process checks them too.
 *
 *   struct buildids b = {0};                            // zeroed: empty
 *   w.observe = buildids_observe; w.observe_ctx = &b;   // every record written
 *   ... buildids_add_feature(&b, &w, "/sys/kernel/notes"); buildids_free(&b);
 */

struct buildids {
	char **slots;   /* open addressing set of file names */
	size_t cap, n;
	bool saw_vdso;
	bool oom;       /* a name could not be kept */
	size_t written; /* entries in the feature (after buildids_add_feature) */
};

/* pd_writer observer: notes the file name of MMAP/MMAP2 records. */
void buildids_observe(void *ctx, const void *rec, size_t size);
/* Read the build-ids and add the BUILD_ID feature to w. Files that are
 * gone, not ELF or without a build-id are left out (as perf does). */
int buildids_add_feature(struct buildids *b, struct pd_writer *w, const char *kernel_notes);
void buildids_free(struct buildids *b);

/* ---- auxtrace.c: the AUX-area records of an Arm SPE recording, as perf 6.1
 * writes them (perf script decodes the file offline, process reads the
 * same records): TIME_CONV and AUXTRACE_INFO once before any AUX data, an
 * AUXTRACE record (with the data as its payload) per copy out of a cpu's
 * AUX area, the kernel's PERF_RECORD_AUX records counted by flag, and the
 * HEADER_AUXTRACE index at the end.
 *
 *   struct auxtrace a; auxtrace_init(&a);
 *   auxtrace_write_time_conv(w, mmap_page, adjust); auxtrace_write_info_spe(w, type);
 *   per drain: auxtrace_note_aux(&a, rec, size) for each ring record;
 *              auxtrace_copy(&a, w, aux, aux_size, tail, head, &where);
 *   at the end: auxtrace_add_index_feature(&a, w); auxtrace_free(&a);
 */

struct perf_event_mmap_page;

struct auxtrace_stats {
	uint64_t records, bytes;  /* AUXTRACE records written, AUX bytes copied (no padding) */
	uint64_t wrapped;         /* copies whose data wrapped around the area's end */
	uint64_t bytes_overwritten; /* AUX bytes gone before they were copied (head ran a lap ahead) */
	uint64_t aux_records;     /* the kernel's PERF_RECORD_AUX */
	uint64_t truncated, partial, collision, overwrite; /* of those, by flag */
};

struct auxtrace {
	struct { uint64_t offset, size; } *index; /* of each AUXTRACE record in the file */
	size_t nr_index, cap_index;
	struct auxtrace_stats st;
};

/* Which AUX area a copy comes from (perf's mmap idx and cpu) and the
 * session's reference (perf: any number, the same for one recording). */
struct auxtrace_where {
	uint32_t idx, cpu;
	uint64_t reference;
};

void auxtrace_init(struct auxtrace *a);
void auxtrace_free(struct auxtrace *a);
/* A counter value in the mmap page's clock (perf's tsc_to_perf_time, the
 * conversion perf applies to SPE timestamps with TIME_CONV). */
uint64_t auxtrace_perf_time(const struct perf_event_mmap_page *pg, uint64_t cyc);
/* PERF_RECORD_TIME_CONV from the mmap page (time_zero + zero_adjust_ns:
 * see mem_stream.c). Fails, saying why, without cap_user_time_zero. */
int auxtrace_write_time_conv(struct pd_writer *w, const struct perf_event_mmap_page *pg,
			     int64_t zero_adjust_ns);
/* PERF_RECORD_AUXTRACE_INFO of type ARM_SPE for the PMU of this type. */
int auxtrace_write_info_spe(struct pd_writer *w, uint32_t pmu_type);
/* Copy AUX positions [tail, head) of an area of aux_size bytes at aux as
 * one AUXTRACE record; nothing when head == tail. */
int auxtrace_copy(struct auxtrace *a, struct pd_writer *w, const uint8_t *aux, uint64_t aux_size,
		  uint64_t tail, uint64_t head, const struct auxtrace_where *where);
/* Count a ring record if it is a PERF_RECORD_AUX (by its flags). */
void auxtrace_note_aux(struct auxtrace *a, const void *rec, size_t size);
/* HEADER_AUXTRACE: the index of the AUXTRACE records written. */
int auxtrace_add_index_feature(struct auxtrace *a, struct pd_writer *w);

#endif
