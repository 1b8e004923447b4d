/*
 * synth.h - side-band records for what existed before recording started,
 * the way perf record synthesizes them: COMM (and FORK for non-leader
 * threads) for every task, MMAP2 for every mapping of every process (data
 * mappings too, so data addresses resolve), the kernel map record
 * ([kernel.kallsyms]_text) and a CGROUP record per cgroup2 directory.
 *
 * Every record ends with a zeroed sample_id trailer of trailer_size bytes
 * (perf reads the tail of a synthesized record as its sample_id when
 * sample_id_all is set; zeros mean "time 0", ordered first).
 */
#ifndef SCX_SYNTH_H
#define SCX_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "lib/perfdata.h"

struct synth_stats {
	uint64_t tasks, threads, mmaps, cgroups;
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

/* Where cgroup2 is mounted ("" when it is not). */
void synth_cgroup2_mount(char *out, size_t size);

#endif
