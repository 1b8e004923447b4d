/*
 * backend_spe.c - the Arm SPE backend (see backend_spe.h): one arm_spe_N
 * event per PMU instance, its config built from the PMU's format/ files
 * (never hard-coded bits) as perf mem builds it, plus jitter, and pa_enable
 * where this process may see physical addresses. Says how samples will be
 * attributed to threads: context packets carry the PID only when the
 * kernel puts it in CONTEXTIDR (CONFIG_PID_IN_CONTEXTIDR) and the event's
 * owner is privileged; otherwise perf (and process) use the cpu's context
 * switch records, which the side-band event then records.
 */
#include "record/backend/backend_spe.h"
#include "record/backend/backend_kit.h"
#include "record/backend/pmu_sysfs.h"
#include "lib/error.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

static int cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* arm_spe_N directories under root, sorted; count. */
size_t mem_backend_spe_pmus(const char *root, char names[MEM_BACKEND_MAX_SPE_PMUS][64])
{
	DIR *d = opendir(pmu_sysfs_root(root));
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL && n < MEM_BACKEND_MAX_SPE_PMUS) {
		if (strncmp(de->d_name, "arm_spe_", 8) == 0 && strlen(de->d_name) < 64)
			strcpy(names[n++], de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_name);
	return n;
}

/* Root, or CAP_PERFMON / CAP_SYS_ADMIN in the effective set: what the
 * SPE driver's perfmon_capable() check asks for pa_enable and CX. */
static bool probe_privileged(void)
{
	char line[256];
	uint64_t eff = 0;
	FILE *f;

	if (geteuid() == 0)
		return true;
	f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %" SCNx64, &eff) == 1)
			break;
	fclose(f);
	return (eff >> CAP_PERFMON_BIT & 1) || (eff >> CAP_SYS_ADMIN_BIT & 1);
}

static bool privileged(const struct mem_backend_opts *o)
{
	return o->priv == MEM_PRIV_YES || (o->priv == MEM_PRIV_PROBE && probe_privileged());
}

/* CONFIG_PID_IN_CONTEXTIDR from the kernel config: 1 set, 0 not set,
 * -1 unknown (no readable plain-text config). */
static int pid_in_contextidr(const struct mem_backend_opts *o)
{
	char path[512], line[256];
	struct utsname u;
	int found = 0;
	FILE *f;

	if (o->kconfig_path)
		snprintf(path, sizeof(path), "%s", o->kconfig_path);
	else if (uname(&u) == 0)
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	else
		return -1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = strncmp(line, "CONFIG_PID_IN_CONTEXTIDR=y", 26) == 0;
	fclose(f);
	return found;
}

void mem_backend_spe_pid_source(const struct mem_backend_opts *o, struct mem_backend *b)
{
	bool priv = privileged(o);
	int cx = pid_in_contextidr(o);

	b->context_switch = true; /* perf records them too: the fallback is always there */
	if (cx == 0) {
		b->pid_method = "switch-records";
		snprintf(b->pid_source, sizeof(b->pid_source),
			 "switch records (kernel built without CONFIG_PID_IN_CONTEXTIDR)");
	} else if (!priv) {
		b->pid_method = "switch-records";
		snprintf(b->pid_source, sizeof(b->pid_source),
			 "switch records (the kernel puts PIDs in context packets only for root "
			 "or CAP_PERFMON)");
	} else if (cx == 1) {
		b->pid_method = "context-packets";
		snprintf(b->pid_source, sizeof(b->pid_source),
			 "context packets (CONFIG_PID_IN_CONTEXTIDR=y, privileged)");
	} else {
		b->pid_method = "context-packets-if-present";
		snprintf(b->pid_source, sizeof(b->pid_source),
			 "context packets if the kernel writes PIDs to CONTEXTIDR (its config "
			 "is unreadable), else switch records");
	}
}

/* min_latency's width from its format file: --ldlat must fit. */
static int check_min_latency(const struct pmu_desc *pmu, unsigned ldlat)
{
	for (size_t i = 0; i < pmu->nr_formats; i++) {
		const struct pmu_format *f = &pmu->formats[i];
		int width = __builtin_popcountll(f->mask);

		if (strcmp(f->name, "min_latency") != 0)
			continue;
		if (width < 32 && ldlat >> width)
			return scx_fail("--ldlat %u: %s's min_latency holds at most %u cycles "
					"(%d bits, format/min_latency)",
					ldlat, pmu->name, (1u << width) - 1, width);
		return 0;
	}
	return scx_fail("%s has no format/min_latency: cannot filter by latency (--ldlat)",
			pmu->name);
}

static bool has_format(const struct pmu_desc *pmu, const char *name)
{
	for (size_t i = 0; i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, name))
			return true;
	return false;
}

/*
 * perf 6.1's `perf mem record` asks for
 * arm_spe_0/ts_enable=1,load_filter=1,store_filter=0,min_latency=N/ (loads)
 * or load_filter=1,store_filter=1 (-t load,store) with a period of
 * caps/min_interval (tools/perf/arch/arm64/util/mem-events.c and
 * arm-spe.c). Added here: jitter=1 (the period varies a little, so a loop
 * as long as the period is not sampled at one place) and pa_enable=1 when
 * privileged (the kernel refuses it otherwise: EACCES).
 */
static int spe_add(struct mem_backend *b, const struct pmu_desc *pmu,
		   const struct mem_backend_opts *o, bool pa)
{
	struct perf_event_attr attr = { 0 };
	char terms[160], name[232];
	int idx;

	if (check_min_latency(pmu, o->ldlat) < 0)
		return -1;
	snprintf(terms, sizeof(terms), "ts_enable=1%s%s,load_filter=1,store_filter=%d,min_latency=%u",
		 pa ? ",pa_enable=1" : "", has_format(pmu, "jitter") ? ",jitter=1" : "",
		 o->stores ? 1 : 0, o->ldlat);
	mem_backend_attr_common(&attr, MEM_BACKEND_ARM_SPE);
	attr.type = pmu->type;
	if (pmu_apply_terms(pmu, &attr, terms) < 0 ||
	    mem_backend_attr_sampling(&attr, MEM_BACKEND_ARM_SPE, o, pmu, false) < 0)
		return -1;
	snprintf(name, sizeof(name), "%s/%s/", pmu->name, terms);
	idx = mem_backend_add(b, &attr, name, -1, pmu->cpus);
	if (idx < 0)
		return -1;
	b->ev[idx].own_ring = true;
	b->ev[idx].aux_area = true;
	return idx;
}

int mem_backend_build_spe(const struct mem_backend_opts *o, char names[][64], size_t n,
			  struct mem_backend *b)
{
	bool priv = privileged(o);
	struct pmu_desc pmu;
	size_t used = 0;

	for (size_t i = 0; i < n; i++) {
		if (pmu_load(o->sysfs_root, names[i], &pmu) < 0 || spe_add(b, &pmu, o, priv) < 0)
			return -1;
		used += (size_t)snprintf(b->pmu + used, sizeof(b->pmu) - used, "%s%s",
					 i ? "," : "", names[i]);
	}
	b->kind = MEM_BACKEND_ARM_SPE;
	b->ldlat_applied = true;
	b->needs_aux_decoder = true;
	b->phys_addr = priv;
	mem_backend_spe_pid_source(o, b);
	if (!priv)
		mem_backend_warn(b, "Arm SPE without physical addresses: pa_enable needs root or "
				    "CAP_PERFMON (the kernel refuses it otherwise)");
	if (n > 1)
		mem_backend_warn(b, "%zu Arm SPE PMUs (%s): perf 6.1 decodes the AUX data of the "
				    "first one's type only (perf supports one arm_spe event)",
				 n, b->pmu);
	snprintf(b->description, sizeof(b->description),
		 "Arm SPE on %s: loads%s with latency >= %u cycles, 1 in %" PRIu64
		 " operations%s; records arrive as AUX-buffer packets",
		 b->pmu, o->stores ? " and stores" : "", o->ldlat, (uint64_t)b->ev[0].attr.sample_period,
		 priv ? ", with physical addresses" : "");
	return 0;
}
