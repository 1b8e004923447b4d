/*
 * pfm_event.h - encode a libpfm4 event string ("MEM_TRANS_RETIRED:LOAD_LATENCY:
 * ldlat=10:precise=2", "page-faults") into a perf_event_attr. libpfm4 fills
 * type, config, config1, exclude_* and precise_ip; it never sets sample_type,
 * the caller does. LIBPFM_FORCE_PMU (read by pfm_initialize) picks a model.
 */
#ifndef SCX_PFM_EVENT_H
#define SCX_PFM_EVENT_H

#include <linux/perf_event.h>
#include <stddef.h>

/* Encode spec into *attr (zeroed first, attr->size set). fqname (may be
 * NULL) receives libpfm's fully qualified name ("skl::MEM_TRANS_RETIRED:...").
 * -1 + scx_fail naming the string and libpfm's error. */
int pfm_event_encode(const char *spec, struct perf_event_attr *attr, char *fqname, size_t size);

#endif
