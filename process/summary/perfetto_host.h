/*
 * perfetto_host.h - the recording host for the trace's SystemInfo, from metadata.json
 * (perfetto_host.c).
 */
#ifndef SCX_PERFETTO_HOST_H
#define SCX_PERFETTO_HOST_H

#include "lib/pftrace/perfetto_types.h"

/* The recording host from metadata.json ("kernel", "arch",
 * "online_cpus"); fields it lacks stay empty. -1 (scx_fail) if unreadable. */
int pftrace_host_from_metadata(const char *path, struct pftrace_host *host);

#endif
