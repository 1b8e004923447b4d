/*
 * pfm_event.c - the libpfm4 wrapper behind --event for named events.
 * See pfm_event.h.
 */
#include "record/backend/pfm_event.h"
#include "lib/error.h"

#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pfm_ready(void)
{
	int rc = pfm_initialize();

	if (rc != PFM_SUCCESS)
		return scx_fail("libpfm4: pfm_initialize: %s", pfm_strerror(rc));
	return 0;
}

int pfm_event_encode(const char *spec, struct perf_event_attr *attr, char *fqname, size_t size)
{
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int rc;

	if (pfm_ready() < 0)
		return -1;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = attr;
	arg.fstr = &fstr;
	rc = pfm_get_os_event_encoding(spec, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (rc != PFM_SUCCESS) {
		free(fstr);
		return scx_fail("--event \"%s\": libpfm4: %s", spec, pfm_strerror(rc));
	}
	attr->size = sizeof(*attr);
	if (fqname && size)
		snprintf(fqname, size, "%s", fstr ? fstr : spec);
	free(fstr);
	return 0;
}
