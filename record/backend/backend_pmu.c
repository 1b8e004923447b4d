/*
 * backend_pmu.c - the memory-sampling backends built from the sysfs PMUs
 * (see backend_pmu.h): Intel PEBS load latency (cpu, or hybrid cpu_core +
 * cpu_atom, with events/mem-loads), AMD IBS op (ibs_op), page-fault
 * software samples and decode (cpu-clock samples with user registers);
 * Arm SPE (arm_spe_N) is backend_spe.c. Every config bit comes from the
 * PMU's own events/ and format/ files through pmu_sysfs.c.
 */
#include "record/backend/backend_pmu.h"
#include "record/backend/backend_kit.h"
#include "record/backend/pmu_sysfs.h"
#include "record/decode/decode.h"
#include "lib/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INTEL_MIN_LDLAT 3
#define AMD_MIN_LDLAT 128
#define AMD_MAX_LDLAT 2048
#define AMD_LDLAT_STEP 128
#define DECODE_MIN_PERIOD_NS 10000

/* ---- Intel PEBS -------------------------------------------------------- */

static int intel_base_attr(const struct pmu_desc *pmu, const struct mem_backend_opts *o,
			   const char *event, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	mem_backend_attr_common(attr, MEM_BACKEND_INTEL_PEBS);
	attr->type = pmu->type;
	if (pmu_apply_terms(pmu, attr, event) < 0)
		return -1;
	return mem_backend_attr_sampling(attr, MEM_BACKEND_INTEL_PEBS, o, NULL, false);
}

static int intel_add_loads(struct mem_backend *b, const struct pmu_desc *pmu,
			   const struct mem_backend_opts *o)
{
	struct perf_event_attr attr;
	char name[128];
	int leader = -1;

	if (pmu_has_event(pmu, "mem-loads-aux")) {
		leader = mem_backend_add_aux_leader(b, pmu);
		if (leader < 0 || mem_backend_attr_sampling(&b->ev[leader].attr, MEM_BACKEND_INTEL_PEBS, o,
						    NULL, false) < 0)
			return -1;
	}
	if (intel_base_attr(pmu, o, "mem-loads", &attr) < 0 ||
	    pmu_set_term(pmu, &attr, "ldlat", o->ldlat) < 0)
		return -1;
	snprintf(name, sizeof(name), "%s/mem-loads,ldlat=%u/P", pmu->name, o->ldlat);
	return mem_backend_add(b, &attr, name, leader, pmu->cpus);
}

static int intel_add_stores(struct mem_backend *b, const struct pmu_desc *pmu,
			    const struct mem_backend_opts *o)
{
	struct perf_event_attr attr;
	char name[128];

	if (!pmu_has_event(pmu, "mem-stores")) {
		mem_backend_warn(b, "%s has no mem-stores event: stores are not sampled on its cpus",
				 pmu->name);
		return 0;
	}
	if (intel_base_attr(pmu, o, "mem-stores", &attr) < 0)
		return -1;
	snprintf(name, sizeof(name), "%s/mem-stores/P", pmu->name);
	return mem_backend_add(b, &attr, name, -1, pmu->cpus);
}

/* Names of the Intel core PMUs with events/mem-loads under root. */
size_t mem_backend_intel_pmus(const char *root, const char *names[3])
{
	static const char *const candidates[] = { "cpu", "cpu_core", "cpu_atom" };
	size_t n = 0;

	for (int i = 0; i < 3; i++) {
		struct pmu_desc p;

		if (!pmu_exists(root, candidates[i]) || pmu_load(root, candidates[i], &p) < 0)
			continue;
		if (pmu_has_event(&p, "mem-loads"))
			names[n++] = candidates[i];
	}
	scx_clear_error();
	return n;
}

int mem_backend_build_intel(const struct mem_backend_opts *o, const char *const *names, size_t n,
		       struct mem_backend *b)
{
	struct pmu_desc pmu;
	size_t used = 0;

	if (o->ldlat < INTEL_MIN_LDLAT)
		return scx_fail("--ldlat %u: below %d, the minimum load latency the Intel SDM allows",
				o->ldlat, INTEL_MIN_LDLAT);
	for (size_t i = 0; i < n; i++) {
		if (pmu_load(o->sysfs_root, names[i], &pmu) < 0 || intel_add_loads(b, &pmu, o) < 0)
			return -1;
		if (o->stores && intel_add_stores(b, &pmu, o) < 0)
			return -1;
		used += (size_t)snprintf(b->pmu + used, sizeof(b->pmu) - used, "%s%s",
					 i ? "," : "", names[i]);
	}
	b->kind = MEM_BACKEND_INTEL_PEBS;
	b->ldlat_applied = true;
	snprintf(b->description, sizeof(b->description),
		 "Intel PEBS load latency on %s: loads slower than %u cycles%s, with data "
		 "address, source and latency",
		 b->pmu, o->ldlat, o->stores ? " and stores" : "");
	return 0;
}

/* ---- AMD IBS ----------------------------------------------------------- */

static int ibs_ldlat(const struct pmu_desc *pmu, const struct mem_backend_opts *o,
		     struct perf_event_attr *attr, struct mem_backend *b)
{
	uint64_t cap = 0;
	int rc = pmu_read_cap(pmu, "ldlat", &cap);

	if (rc < 0)
		return -1;
	if (rc == 0 || cap == 0) {
		mem_backend_warn(b, "ldlat unavailable on this AMD CPU (no %s/caps/ldlat; needs "
				    "kernel 6.15+ and a CPU with the IBS load-latency filter): "
				    "sampling all ops, --ldlat %u ignored",
				 pmu->name, o->ldlat);
		return 0;
	}
	if (o->ldlat > AMD_MAX_LDLAT)
		return scx_fail("--ldlat %u: AMD IBS accepts %d..%d", o->ldlat, AMD_MIN_LDLAT,
				AMD_MAX_LDLAT);
	if (o->ldlat < AMD_MIN_LDLAT) {
		mem_backend_warn(b, "--ldlat %u is below the AMD IBS minimum %d: sampling all ops "
				    "without a latency filter (use --ldlat %d..%d to filter)",
				 o->ldlat, AMD_MIN_LDLAT, AMD_MIN_LDLAT, AMD_MAX_LDLAT);
		return 0;
	}
	if (o->ldlat % AMD_LDLAT_STEP)
		mem_backend_warn(b, "--ldlat %u: AMD IBS filters in steps of %d cycles; the kernel "
				    "uses %u",
				 o->ldlat, AMD_LDLAT_STEP, o->ldlat / AMD_LDLAT_STEP * AMD_LDLAT_STEP);
	if (pmu_set_term(pmu, attr, "ldlat", o->ldlat) < 0)
		return -1;
	b->ldlat_applied = true;
	return 0;
}

int mem_backend_build_amd(const struct mem_backend_opts *o, struct mem_backend *b)
{
	struct perf_event_attr attr = { 0 };
	struct pmu_desc pmu;
	char name[128];

	if (pmu_load(o->sysfs_root, "ibs_op", &pmu) < 0)
		return -1;
	mem_backend_attr_common(&attr, MEM_BACKEND_AMD_IBS);
	attr.type = pmu.type;
	if (ibs_ldlat(&pmu, o, &attr, b) < 0 ||
	    mem_backend_attr_sampling(&attr, MEM_BACKEND_AMD_IBS, o, &pmu, false) < 0)
		return -1;
	if (b->ldlat_applied)
		snprintf(name, sizeof(name), "ibs_op/ldlat=%u/", o->ldlat);
	else
		snprintf(name, sizeof(name), "ibs_op//");
	if (mem_backend_add(b, &attr, name, -1, pmu.cpus) < 0)
		return -1;
	b->kind = MEM_BACKEND_AMD_IBS;
	snprintf(b->pmu, sizeof(b->pmu), "ibs_op");
	if (b->ldlat_applied)
		snprintf(b->description, sizeof(b->description),
			 "AMD IBS op sampling: L3-miss loads slower than %u cycles, with data "
			 "address, source and latency",
			 o->ldlat);
	else
		snprintf(b->description, sizeof(b->description),
			 "AMD IBS op sampling: all ops (loads and stores; non-memory ops carry "
			 "mem_op NA), with data address, source and latency");
	return 0;
}

/* ---- software fallback ------------------------------------------------- */

/*
 * Minor and major faults, not page-faults: the kernel counts page-faults on
 * entry to the fault handler, before the page is mapped, so its samples
 * carry phys_addr 0 and record had to look the page up in /proc/PID/pagemap
 * when it drained the ring, which a process that exited by then no longer
 * has (62% of a planted workload's samples resolved at load ~15). Minor and
 * major faults are counted once the fault is handled (mm_account_fault), in
 * the faulting task: the page is mapped and the kernel fills in phys_addr
 * and data_page_size itself. Same faults (perf stat: page-faults = minor +
 * major), only the successful ones. The major-fault event writes into a
 * ring of its own so that each ring has one sampling event, whose id record
 * can give back to samples that carry another program's (mem_stream.c).
 */
int mem_backend_build_software(const struct mem_backend_opts *o, struct mem_backend *b)
{
	static const struct { uint64_t config; const char *name; } ev[] = {
		{PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults"},
		{PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults"},
	};
	struct perf_event_attr attr = { 0 };
	int idx;

	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		memset(&attr, 0, sizeof(attr));
		mem_backend_attr_common(&attr, MEM_BACKEND_SOFTWARE);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = ev[i].config;
		if (mem_backend_attr_sampling(&attr, MEM_BACKEND_SOFTWARE, o, NULL, false) < 0 ||
		    (idx = mem_backend_add(b, &attr, ev[i].name, -1, "")) < 0)
			return -1;
		b->ev[idx].own_ring = i > 0;
	}
	b->kind = MEM_BACKEND_SOFTWARE;
	snprintf(b->pmu, sizeof(b->pmu), "software");
	if (attr.freq)
		snprintf(b->description, sizeof(b->description),
			 "software minor/major-fault samples at %" PRIu64 " Hz each: first touches of "
			 "pages, no latency or data source",
			 (uint64_t)attr.sample_freq);
	else
		snprintf(b->description, sizeof(b->description),
			 "software minor/major-fault samples, 1 in %" PRIu64 " faults: first touches of "
			 "pages, no latency or data source",
			 (uint64_t)attr.sample_period);
	return 0;
}

/* ---- decode: cpu-clock samples with user registers ---------------------- */

int mem_backend_build_decode(const struct mem_backend_opts *o, struct mem_backend *b)
{
	const struct insn_decoder *dec = insn_decoder_for_host();
	struct perf_event_attr attr = { 0 };
	char version[32];

	if (!dec)
		return scx_fail("--backend decode: no instruction decoder for this architecture "
				"(x86-64 only so far)");
	if (o->period && o->period < DECODE_MIN_PERIOD_NS)
		return scx_fail("-c %" PRIu64 ": the decode backend's period is nanoseconds of cpu-clock "
				"time, at least %d (the kernel's minimum); -F HZ sets a rate",
				o->period, DECODE_MIN_PERIOD_NS);
	mem_backend_attr_common(&attr, MEM_BACKEND_DECODE);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_type = DECODE_IN_SAMPLE_TYPE;
	attr.sample_regs_user = dec->regs_mask;
	/* kernel-mode and idle ticks have nothing to decode: the kernel
	 * still takes the interrupt but writes no sample for them */
	attr.exclude_kernel = attr.exclude_idle = 1;
	if (mem_backend_attr_sampling(&attr, MEM_BACKEND_DECODE, o, NULL, false) < 0 ||
	    mem_backend_add(b, &attr, "cpu-clock", -1, "") < 0)
		return -1;
	b->kind = MEM_BACKEND_DECODE;
	b->rewrites_samples = true;
	b->out_attr = attr;
	b->out_attr.sample_type = DECODE_OUT_SAMPLE_TYPE;
	b->out_attr.sample_regs_user = 0;
	dec->version(version, sizeof(version));
	snprintf(b->decoder, sizeof(b->decoder), "%s %s", dec->name, version);
	snprintf(b->pmu, sizeof(b->pmu), "software");
	if (attr.freq)
		snprintf(b->description, sizeof(b->description),
			 "cpu-clock at %" PRIu64 " Hz per cpu with user registers; the data addresses "
			 "of each sampled user-mode instruction decoded by %s: loads and stores, no "
			 "latency or data source level",
			 (uint64_t)attr.sample_freq, b->decoder);
	else
		snprintf(b->description, sizeof(b->description),
			 "cpu-clock every %" PRIu64 " ns per cpu with user registers; the data "
			 "addresses of each sampled user-mode instruction decoded by %s: loads and "
			 "stores, no latency or data source level",
			 (uint64_t)attr.sample_period, b->decoder);
	return 0;
}
