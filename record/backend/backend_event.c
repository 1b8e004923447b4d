/*
 * backend_event.c - the --event path of mem_backend_choose(): a sysfs
 * spec "pmu/term=val,.../mods" (terms encoded by the PMU's format files,
 * event aliases expanded) or a libpfm4 event string. The backend kind
 * follows from the PMU the event lands on; an Intel load-latency event on a
 * PMU with events/mem-loads-aux gets that group leader added, as the
 * kernel requires.
 */
#include "record/backend/backend_event.h"
#include "record/backend/backend_kit.h"
#include "record/backend/backend_spe.h"
#include "record/backend/pfm_event.h"
#include "record/backend/pmu_sysfs.h"
#include "lib/error.h"

#include <stdio.h>
#include <string.h>

/* The parts of "pmu/terms/mods". */
struct sysfs_spec {
	char pmu[64];
	char terms[512];
	char mods[16];
};

static int split_sysfs_spec(const char *spec, struct sysfs_spec *s)
{
	const char *first = strchr(spec, '/'), *last = strrchr(spec, '/');
	size_t pmu_len = (size_t)(first - spec), terms_len;

	if (first == last)
		return scx_fail("--event \"%s\": expected pmu/term=value,.../", spec);
	terms_len = (size_t)(last - first - 1);
	if (!pmu_len || pmu_len >= sizeof(s->pmu) || terms_len >= sizeof(s->terms) ||
	    strlen(last + 1) >= sizeof(s->mods))
		return scx_fail("--event \"%s\": malformed or too long", spec);
	memcpy(s->pmu, spec, pmu_len);
	s->pmu[pmu_len] = '\0';
	memcpy(s->terms, first + 1, terms_len);
	s->terms[terms_len] = '\0';
	snprintf(s->mods, sizeof(s->mods), "%s", last + 1 + (last[1] == ':'));
	return 0;
}

/* Prefix the current error with the --event string. */
static int fail_for_spec(const char *spec)
{
	char why[512];

	snprintf(why, sizeof(why), "%s", scx_errmsg());
	return scx_fail("--event \"%s\": %s", spec, why);
}

static int kind_of_pmu(const char *pmu, enum mem_backend_kind *kind)
{
	if (!strcmp(pmu, "cpu") || !strcmp(pmu, "cpu_core") || !strcmp(pmu, "cpu_atom"))
		*kind = MEM_BACKEND_INTEL_PEBS;
	else if (!strcmp(pmu, "ibs_op"))
		*kind = MEM_BACKEND_AMD_IBS;
	else if (!strncmp(pmu, "arm_spe_", 8))
		*kind = MEM_BACKEND_ARM_SPE;
	else if (!strcmp(pmu, "software"))
		*kind = MEM_BACKEND_SOFTWARE;
	else
		return scx_fail("--event: PMU %s does not sample memory accesses (expected cpu, "
				"cpu_core, cpu_atom, ibs_op, arm_spe_N or software)",
				pmu);
	return 0;
}

/* perf's modifiers: p/pp/ppp (precise level), P (highest), u, k. */
static int apply_modifiers(const char *spec, const char *mods, struct perf_event_attr *attr)
{
	unsigned precise = 0;
	bool max = false;

	for (const char *m = mods; *m; m++) {
		switch (*m) {
		case 'p':
			precise++;
			break;
		case 'P':
			max = true;
			break;
		case 'u':
			attr->exclude_kernel = 1;
			attr->exclude_hv = 1;
			break;
		case 'k':
			attr->exclude_user = 1;
			attr->exclude_hv = 1;
			break;
		default:
			return scx_fail("--event \"%s\": unknown modifier '%c' (p, P, u, k)", spec, *m);
		}
	}
	if (precise > 3)
		return scx_fail("--event \"%s\": at most ppp", spec);
	if (max || precise)
		attr->precise_ip = max ? 3 : precise;
	return 0;
}

static bool format_nonzero(const struct pmu_desc *p, const struct perf_event_attr *attr,
			   const char *name)
{
	const uint64_t words[3] = { attr->config, attr->config1, attr->config2 };

	for (size_t i = 0; i < p->nr_formats; i++) {
		if (!strcmp(p->formats[i].name, name) && p->formats[i].word < 3)
			return (words[p->formats[i].word] & p->formats[i].mask) != 0;
	}
	return false;
}

/* Is attr the PMU's mem-loads event (the one the kernel wants led by
 * mem-loads-aux)? Compares the config word with events/mem-loads. */
static bool needs_aux_leader(const struct pmu_desc *p, const struct perf_event_attr *attr)
{
	struct perf_event_attr loads = { 0 };

	if (!pmu_has_event(p, "mem-loads-aux") || !pmu_has_event(p, "mem-loads"))
		return false;
	if (pmu_apply_terms(p, &loads, "mem-loads") < 0) {
		scx_clear_error();
		return false;
	}
	return loads.config == attr->config;
}

static int check_wanted(const struct mem_backend_opts *o, enum mem_backend_kind kind)
{
	if (o->want != MEM_BACKEND_AUTO && o->want != kind)
		return scx_fail("--backend %s does not match --event \"%s\" (a %s event)",
				mem_backend_name(o->want), o->event_spec, mem_backend_name(kind));
	return 0;
}

/* Common tail: aux leader if needed, the event, backend fields. */
static int add_spec_event(const struct mem_backend_opts *o, struct mem_backend *b,
			  const struct pmu_desc *pmu, const struct perf_event_attr *attr,
			  enum mem_backend_kind kind)
{
	int leader = -1, idx;

	if (pmu && kind == MEM_BACKEND_INTEL_PEBS && needs_aux_leader(pmu, attr)) {
		leader = mem_backend_add_aux_leader(b, pmu);
		if (leader < 0 || mem_backend_attr_sampling(&b->ev[leader].attr, kind, o, NULL, false) < 0)
			return -1;
		b->ev[leader].attr.precise_ip = attr->precise_ip;
	}
	idx = mem_backend_add(b, attr, o->event_spec, leader, pmu ? pmu->cpus : "");
	if (idx < 0)
		return -1;
	b->kind = kind;
	b->needs_aux_decoder = kind == MEM_BACKEND_ARM_SPE;
	snprintf(b->pmu, sizeof(b->pmu), "%s",
		 pmu ? pmu->name : kind == MEM_BACKEND_SOFTWARE ? "software" : "cpu");
	snprintf(b->description, sizeof(b->description), "%s backend, --event %s",
		 mem_backend_name(kind), o->event_spec);
	if (o->stores)
		mem_backend_warn(b, "--stores ignored with --event: the event says what is sampled");
	if (b->needs_aux_decoder) { /* its own ring with an AUX area on each cpu */
		b->ev[idx].own_ring = b->ev[idx].aux_area = true;
		b->phys_addr = pmu && format_nonzero(pmu, attr, "pa_enable");
		mem_backend_spe_pid_source(o, b);
	}
	return 0;
}

static int from_sysfs_spec(const struct mem_backend_opts *o, struct mem_backend *b)
{
	struct perf_event_attr attr = { 0 };
	enum mem_backend_kind kind = MEM_BACKEND_AUTO;
	struct sysfs_spec s;
	struct pmu_desc pmu;

	if (split_sysfs_spec(o->event_spec, &s) < 0 || kind_of_pmu(s.pmu, &kind) < 0 ||
	    check_wanted(o, kind) < 0)
		return -1;
	if (pmu_load(o->sysfs_root, s.pmu, &pmu) < 0)
		return fail_for_spec(o->event_spec);
	mem_backend_attr_common(&attr, kind);
	attr.type = pmu.type;
	if (pmu_apply_terms(&pmu, &attr, s.terms) < 0)
		return fail_for_spec(o->event_spec);
	if (apply_modifiers(o->event_spec, s.mods, &attr) < 0 ||
	    mem_backend_attr_sampling(&attr, kind, o, &pmu, true) < 0)
		return -1;
	b->ldlat_applied = format_nonzero(&pmu, &attr, "ldlat") ||
			   format_nonzero(&pmu, &attr, "min_latency");
	return add_spec_event(o, b, &pmu, &attr, kind);
}

static int kind_of_type(const struct mem_backend_opts *o, uint32_t type,
			enum mem_backend_kind *kind)
{
	switch (type) {
	case PERF_TYPE_SOFTWARE:
		*kind = MEM_BACKEND_SOFTWARE;
		return 0;
	case PERF_TYPE_RAW:
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
		*kind = MEM_BACKEND_INTEL_PEBS;
		return 0;
	default:
		return scx_fail("--event \"%s\": libpfm4 made an event of type %u, which does not "
				"sample memory accesses",
				o->event_spec, type);
	}
}

/* The core PMU a raw libpfm4 event lands on, if sysfs has one. */
static bool load_core_pmu(const char *root, struct pmu_desc *pmu)
{
	static const char *const names[] = { "cpu", "cpu_core" };

	for (int i = 0; i < 2; i++) {
		if (pmu_exists(root, names[i]) && pmu_load(root, names[i], pmu) == 0)
			return true;
	}
	scx_clear_error();
	return false;
}

static int from_libpfm(const struct mem_backend_opts *o, struct mem_backend *b)
{
	struct perf_event_attr attr;
	enum mem_backend_kind kind = MEM_BACKEND_AUTO;
	struct pmu_desc pmu;
	bool have_pmu;
	unsigned precise;
	unsigned excl_guest;

	if (pfm_event_encode(o->event_spec, &attr, NULL, 0) < 0 ||
	    kind_of_type(o, attr.type, &kind) < 0 || check_wanted(o, kind) < 0)
		return -1;
	precise = attr.precise_ip;
	excl_guest = attr.exclude_guest;
	mem_backend_attr_common(&attr, kind);
	attr.precise_ip = precise; /* as the string's modifiers say */
	attr.exclude_guest = excl_guest;
	if (mem_backend_attr_sampling(&attr, kind, o, NULL, true) < 0)
		return -1;
	have_pmu = kind == MEM_BACKEND_INTEL_PEBS && load_core_pmu(o->sysfs_root, &pmu);
	b->ldlat_applied = kind == MEM_BACKEND_INTEL_PEBS && attr.config1 != 0;
	return add_spec_event(o, b, have_pmu ? &pmu : NULL, &attr, kind);
}

int mem_backend_from_spec(const struct mem_backend_opts *o, struct mem_backend *out)
{
	if (strchr(o->event_spec, '/'))
		return from_sysfs_spec(o, out);
	return from_libpfm(o, out);
}
