/*
 * backend_choose.c - mem_backend_choose(): which memory-sampling backend
 * `record` uses (see backend.h). --event goes to backend_event.c; a
 * named --backend is built if its PMU exists, else refused naming what was
 * found; auto probes Intel PEBS, AMD IBS and Arm SPE in that order, then
 * falls back to decode (or page faults where no instruction decoder exists),
 * with a warning saying what is lost. The builders are backend_pmu.c.
 */
#include "record/backend/backend.h"
#include "record/backend/backend_event.h"
#include "record/backend/backend_kit.h"
#include "record/backend/backend_pmu.h"
#include "record/backend/backend_spe.h"
#include "record/decode/decode.h"
#include "record/backend/pmu_sysfs.h"
#include "lib/error.h"

#include <string.h>

static int refuse_missing(const struct mem_backend_opts *o, const char *what)
{
	char found[512];

	pmu_list_names(o->sysfs_root, found, sizeof(found));
	return scx_fail("--backend %s: %s under %s (found: %s)", mem_backend_name(o->want), what,
			pmu_sysfs_root(o->sysfs_root), found[0] ? found : "nothing");
}

static int choose_wanted(const struct mem_backend_opts *o, struct mem_backend *b)
{
	const char *intel[3];
	char spe[MEM_BACKEND_MAX_SPE_PMUS][64];
	size_t n;

	switch (o->want) {
	case MEM_BACKEND_INTEL_PEBS:
		n = mem_backend_intel_pmus(o->sysfs_root, intel);
		if (!n)
			return refuse_missing(o, "no Intel PEBS PMU (cpu, cpu_core or cpu_atom with "
						 "events/mem-loads)");
		return mem_backend_build_intel(o, intel, n, b);
	case MEM_BACKEND_AMD_IBS:
		if (!pmu_exists(o->sysfs_root, "ibs_op"))
			return refuse_missing(o, "no AMD IBS op PMU (ibs_op)");
		return mem_backend_build_amd(o, b);
	case MEM_BACKEND_ARM_SPE:
		n = mem_backend_spe_pmus(o->sysfs_root, spe);
		if (!n)
			return refuse_missing(o, "no Arm SPE PMU (arm_spe_N)");
		return mem_backend_build_spe(o, spe, n, b);
	case MEM_BACKEND_SOFTWARE:
		return mem_backend_build_software(o, b);
	case MEM_BACKEND_DECODE:
		return mem_backend_build_decode(o, b);
	default:
		return scx_fail("unknown backend %d", (int)o->want);
	}
}

static const char no_pmu_warning[] =
	"no memory-sampling PMU (Intel PEBS, AMD IBS, Arm SPE) found, as in most VMs: "
	"sampling page faults instead; they see only the first touch of each page, carry "
	"no latency or data source (--ldlat ignored), and most lack phys_addr";

static const char decode_warning[] =
	"no memory-sampling PMU (Intel PEBS, AMD IBS, Arm SPE) found, as in most VMs: "
	"using --backend decode: cpu-clock samples whose user-mode instruction is decoded "
	"for its data addresses; no latency, no data source level (--ldlat ignored), no "
	"kernel-mode or fs/gs (TLS) accesses";

static int choose_auto(const struct mem_backend_opts *o, struct mem_backend *b)
{
	const char *intel[3];
	char spe[MEM_BACKEND_MAX_SPE_PMUS][64];
	size_t n = mem_backend_intel_pmus(o->sysfs_root, intel);

	if (n)
		return mem_backend_build_intel(o, intel, n, b);
	if (pmu_exists(o->sysfs_root, "ibs_op"))
		return mem_backend_build_amd(o, b);
	n = mem_backend_spe_pmus(o->sysfs_root, spe);
	if (n)
		return mem_backend_build_spe(o, spe, n, b);
	if (insn_decoder_for_host()) {
		mem_backend_warn(b, "%s", decode_warning);
		return mem_backend_build_decode(o, b);
	}
	mem_backend_warn(b, "%s", no_pmu_warning);
	return mem_backend_build_software(o, b);
}

int mem_backend_choose(const struct mem_backend_opts *o, struct mem_backend *out)
{
	memset(out, 0, sizeof(*out));
	if (o->period && o->freq)
		return scx_fail("-c PERIOD and -F HZ are mutually exclusive");
	if (o->event_spec)
		return mem_backend_from_spec(o, out);
	if (o->want == MEM_BACKEND_AUTO)
		return choose_auto(o, out);
	return choose_wanted(o, out);
}
