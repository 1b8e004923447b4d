/*
 * aux_area.h - the AUX area of one cpu's Arm SPE event (aux_area.c), for
 * mem_stream.c: map it behind the event's ring, copy what the hardware
 * wrote out as AUXTRACE records, and, once per recording, write TIME_CONV
 * and AUXTRACE_INFO from the first ring's mmap page. Not part of the record
 * API (streams.h is).
 */
#ifndef SCX_RECORD_AUX_AREA_H
#define SCX_RECORD_AUX_AREA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/perfdata/record_perfdata.h"

struct aux_area {
	uint8_t *base;    /* NULL: not mapped */
	size_t size;
	uint64_t tail;    /* AUX position copied up to */
	uint32_t idx;     /* which AUX area of the recording (perf's mmap idx) */
	int cpu;
};

/* perf's default AUX area for SPE: 4 MiB per cpu when privileged, else
 * 128 KiB; aux_pages (a power of two) overrides it. */
size_t aux_area_size(size_t aux_pages, bool privileged);

/* Map size bytes of AUX area behind the ring whose control page is ctl
 * (mapped map_size bytes from fd). -1 with scx_fail naming the cpu, the
 * size, the event and why (locked-memory limit, bad size, no AUX support). */
int aux_area_map(struct aux_area *a, int fd, void *ctl, size_t map_size, size_t size, int cpu,
		 const char *event);
void aux_area_unmap(struct aux_area *a);

/* Copy [tail, aux_head) out as one AUXTRACE record into w, then give the
 * space back to the kernel (aux_tail). */
int aux_area_drain(struct aux_area *a, void *ctl, struct auxtrace *t, struct pd_writer *w,
		   uint64_t reference);

/* TIME_CONV (time_zero moved onto CLOCK_MONOTONIC, see aux_area.c; the
 * offset in *adjust, *adjusted false where it cannot be measured) and
 * AUXTRACE_INFO for the SPE PMU of pmu_type, from the control page ctl. */
int aux_area_start(struct pd_writer *w, const void *ctl, uint32_t pmu_type, int64_t *adjust,
		   bool *adjusted);

#endif
