/*
 * comm_name.h - the name a thread's comm counts under: upstream strips
 * trailing ASCII digits so that "web1".."web12" are one name ("web").
 * Shared by the aggregation (mem_agg), the comm summaries (mem_groups),
 * the thread-to-unit mapping (mem_sched) and the report.
 */
#ifndef SCX_EXTRACT_COMM_NAME_H
#define SCX_EXTRACT_COMM_NAME_H

#include <stddef.h>

/* "web12" -> "web"; an all-digit comm stays as is. Returns the new length. */
size_t comm_name_normalize(const char *comm, size_t len);

#endif
