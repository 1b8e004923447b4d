/*
 * backend_kit.c - the toolkit the memory-sampling backends are built with
 * (see backend_kit.h): the attr fields every memory event shares, the -c/-F
 * rules of each kind, appending events and warnings to a set. Used by
 * backend_pmu.c (the vendor event sets), backend_event.c (--event) and
 * backend_choose.c; not part of the record API.
 */
#include "record/backend/backend_kit.h"
#include "record/backend/pmu_sysfs.h"
#include "lib/error.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- shared attr pieces ------------------------------------------------ */

static bool kind_is_x86(enum mem_backend_kind kind)
{
	return kind == MEM_BACKEND_INTEL_PEBS || kind == MEM_BACKEND_AMD_IBS;
}

void mem_backend_attr_common(struct perf_event_attr *attr, enum mem_backend_kind kind)
{
	attr->size = sizeof(*attr);
	attr->sample_type = MEM_SAMPLE_COMMON;
	if (kind_is_x86(kind))
		attr->sample_type |= PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT;
	else if (kind == MEM_BACKEND_ARM_SPE)
		attr->sample_type |= PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	attr->disabled = 1;
	attr->inherit = 0;
	attr->sample_id_all = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->exclude_guest = kind != MEM_BACKEND_AMD_IBS;
	attr->precise_ip = kind == MEM_BACKEND_INTEL_PEBS ? 3 : 0;
}

static int check_ibs_period(uint64_t period)
{
	if (period < IBS_MIN_PERIOD || (period & 0xf))
		return scx_fail("-c %" PRIu64 ": AMD IBS needs a period that is a multiple of 16 "
				"(low 4 bits zero) and at least %#x",
				period, IBS_MIN_PERIOD);
	return 0;
}

static int spe_min_interval(const struct pmu_desc *pmu, uint64_t *out)
{
	int rc;

	*out = SPE_DEFAULT_MIN_INTERVAL;
	if (!pmu)
		return 0;
	rc = pmu_read_cap(pmu, "min_interval", out);
	if (rc < 0)
		return -1;
	if (rc == 0)
		*out = SPE_DEFAULT_MIN_INTERVAL;
	return 0;
}

static int spe_sampling(struct perf_event_attr *attr, const struct mem_backend_opts *o,
			const struct pmu_desc *pmu, bool keep_own)
{
	uint64_t min;

	if (o->freq || (keep_own && attr->freq))
		return scx_fail("Arm SPE samples by a fixed period only: use -c PERIOD instead of "
				"-F/freq=");
	if (spe_min_interval(pmu, &min) < 0)
		return -1;
	if (o->period)
		attr->sample_period = o->period;
	else if (!(keep_own && attr->sample_period))
		attr->sample_period = min;
	if (attr->sample_period < min)
		return scx_fail("-c %" PRIu64 ": below %s's minimum sampling interval %" PRIu64
				" (caps/min_interval)",
				(uint64_t)attr->sample_period, pmu ? pmu->name : "Arm SPE", min);
	attr->freq = 0;
	return 0;
}

int mem_backend_attr_sampling(struct perf_event_attr *attr, enum mem_backend_kind kind,
		      const struct mem_backend_opts *o, const struct pmu_desc *pmu, bool keep_own)
{
	if (o->period && o->freq)
		return scx_fail("-c PERIOD and -F HZ are mutually exclusive");
	if (kind == MEM_BACKEND_ARM_SPE)
		return spe_sampling(attr, o, pmu, keep_own);
	if (o->period) {
		attr->freq = 0;
		attr->sample_period = o->period;
	} else if (o->freq) {
		attr->freq = 1;
		attr->sample_freq = o->freq;
	} else if (!(keep_own && (attr->freq || attr->sample_period))) {
		attr->freq = kind != MEM_BACKEND_SOFTWARE;
		attr->sample_period = kind == MEM_BACKEND_SOFTWARE ? 1
				      : kind == MEM_BACKEND_DECODE ? MEM_BACKEND_DECODE_FREQ
								   : MEM_BACKEND_DEFAULT_FREQ;
	}
	if (kind == MEM_BACKEND_AMD_IBS && !attr->freq)
		return check_ibs_period(attr->sample_period);
	return 0;
}

static void copy_truncated(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

int mem_backend_add(struct mem_backend *b, const struct perf_event_attr *attr, const char *name,
		    int leader, const char *cpus)
{
	struct mem_event *ev;

	if (b->nr_events == MEM_BACKEND_MAX_EVENTS)
		return scx_fail("more than %d memory events", MEM_BACKEND_MAX_EVENTS);
	ev = &b->ev[b->nr_events];
	memset(ev, 0, sizeof(*ev));
	ev->attr = *attr;
	copy_truncated(ev->name, sizeof(ev->name), name);
	snprintf(ev->cpus, sizeof(ev->cpus), "%s", cpus ? cpus : "");
	ev->leader = leader;
	if (leader >= 0)
		ev->attr.disabled = 0; /* group members follow their leader */
	return (int)b->nr_events++;
}

void mem_backend_warn(struct mem_backend *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warnings_vadd(&b->warnings, fmt, ap);
	va_end(ap);
}

/* ---- the aux leader (Intel PEBS, also for --event) ---------------------- */

int mem_backend_add_aux_leader(struct mem_backend *b, const struct pmu_desc *pmu)
{
	struct perf_event_attr attr = { 0 };
	char name[128];
	int idx;

	mem_backend_attr_common(&attr, MEM_BACKEND_INTEL_PEBS);
	attr.type = pmu->type;
	if (pmu_apply_terms(pmu, &attr, "mem-loads-aux") < 0)
		return -1;
	snprintf(name, sizeof(name), "%s/mem-loads-aux/", pmu->name);
	idx = mem_backend_add(b, &attr, name, -1, pmu->cpus);
	if (idx >= 0)
		b->ev[idx].is_aux_leader = true;
	return idx;
}
