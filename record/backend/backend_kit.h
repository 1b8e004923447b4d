/*
 * backend_kit.h - the toolkit of the backend builders (backend_kit.c),
 * used by backend_pmu.c (the vendor event sets), backend_event.c (--event)
 * and backend_choose.c: the attr every memory event shares, the
 * period/frequency rules, and appending events and warnings. Not part of
 * the record API.
 */
#ifndef SCX_RECORD_BACKEND_KIT_H
#define SCX_RECORD_BACKEND_KIT_H

#include "record/backend/backend.h"
#include "record/backend/pmu_sysfs.h"

#define MEM_SAMPLE_COMMON                                                                   \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |            \
	 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_PHYS_ADDR |     \
	 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CGROUP)

#define SPE_DEFAULT_MIN_INTERVAL 4096
#define IBS_MIN_PERIOD 0x10

/* Fill the fields every event of this backend kind shares: sample_type,
 * clock, disabled, exclude_guest (not IBS), precise_ip (max wanted). */
void mem_backend_attr_common(struct perf_event_attr *attr, enum mem_backend_kind kind);

/* Apply -c/-F (or the kind's default, unless attr already has its own
 * period/freq from event terms and keep_own is set) with the kind's rules.
 * pmu is the IBS/SPE PMU (for caps/min_interval), may be NULL otherwise. */
int mem_backend_attr_sampling(struct perf_event_attr *attr, enum mem_backend_kind kind,
		      const struct mem_backend_opts *o, const struct pmu_desc *pmu, bool keep_own);

/* Append an event (attr copied) to the set; returns its index or -1. */
int mem_backend_add(struct mem_backend *b, const struct perf_event_attr *attr, const char *name,
		    int leader, const char *cpus);

/* Append a warning line to b->warnings (see lib/warnings.h). */
void mem_backend_warn(struct mem_backend *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Encode events/mem-loads-aux of pmu as the group leader; index or -1. */
int mem_backend_add_aux_leader(struct mem_backend *b, const struct pmu_desc *pmu);

#endif
