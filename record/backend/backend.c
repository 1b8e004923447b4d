/*
 * backend.c - the memory-sampling backends' names and default options (see
 * backend.h). The toolkit the backends are built with is backend_kit.c;
 * the builders are backend_pmu.c (probed PMUs) and backend_event.c
 * (--event); backend_choose.c picks one.
 */
#include "record/backend/backend.h"
#include "lib/error.h"

#include <string.h>

static const char *const backend_names[] = {
	[MEM_BACKEND_AUTO] = "auto",
	[MEM_BACKEND_INTEL_PEBS] = "intel-pebs",
	[MEM_BACKEND_AMD_IBS] = "amd-ibs",
	[MEM_BACKEND_ARM_SPE] = "arm-spe",
	[MEM_BACKEND_SOFTWARE] = "page-fault",
	[MEM_BACKEND_DECODE] = "decode",
};

const char *mem_backend_name(enum mem_backend_kind k)
{
	if ((unsigned)k < sizeof(backend_names) / sizeof(backend_names[0]))
		return backend_names[k];
	return "unknown";
}

int mem_backend_parse_name(const char *s, enum mem_backend_kind *k)
{
	if (strcmp(s, "software") == 0) { /* the page-fault backend's old name */
		*k = MEM_BACKEND_SOFTWARE;
		return 0;
	}
	for (unsigned i = 0; i < sizeof(backend_names) / sizeof(backend_names[0]); i++) {
		if (strcmp(s, backend_names[i]) == 0) {
			*k = (enum mem_backend_kind)i;
			return 0;
		}
	}
	return scx_fail("--backend %s: expected auto, intel-pebs, amd-ibs, arm-spe, decode or page-fault", s);
}

void mem_backend_opts_init(struct mem_backend_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->want = MEM_BACKEND_AUTO;
	o->ldlat = MEM_BACKEND_DEFAULT_LDLAT;
}
