/*
 * test_backend.c - unit tests for record/backend*.c, record/backend/pmu_sysfs.c and
 * record/backend/pfm_event.c: the perf_event_attrs built from fixture sysfs trees
 * (tests/fixtures/sysfs/<machine>/bus/event_source/devices: skl, spr, adl
 * hybrid, zen4 without and zen5 with the IBS ldlat cap, spe and a two-SPE
 * spe2, and vm, a mirror of this PMU-less VM) against the values in
 * mem-sampling-backends.md; --event in sysfs and libpfm4 syntax
 * (LIBPFM_FORCE_PMU=skl/icl/spr; criterion runs each test in its own
 * process, so each test initializes libpfm4 itself); mem_event_open's
 * fallbacks through a fake opener; and a real system-wide page-fault event
 * on cpu 0 whose samples are read back from the ring buffer.
 */
#include "record/backend/backend.h"
#include "record/backend/pmu_sysfs.h"
#include "lib/error.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define COMMON_SAMPLE                                                                       \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |            \
	 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_PHYS_ADDR |     \
	 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CGROUP)
#define X86_SAMPLE (COMMON_SAMPLE | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT)

/* ------------------------------------------------------------- helpers */

/* The PMU directory of fixture machine `name`. */
static const char *fixture(const char *name)
{
	static char bufs[4][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 4];
	const char *top = getenv("TOP");

	snprintf(b, PATH_MAX, "%s%stests/fixtures/sysfs/%s/bus/event_source/devices",
		 top ? top : "", top ? "/" : "", name);
	cr_assert(access(b, R_OK) == 0, "fixture %s not found (run from the repo root)", b);
	return b;
}

static struct mem_backend_opts opts_for(const char *machine)
{
	struct mem_backend_opts o;

	mem_backend_opts_init(&o);
	o.sysfs_root = fixture(machine);
	return o;
}

static void choose_ok(const struct mem_backend_opts *o, struct mem_backend *b)
{
	int rc = mem_backend_choose(o, b);

	cr_assert_eq(rc, 0, "mem_backend_choose failed: %s", scx_errmsg());
}

static void choose_fails(const struct mem_backend_opts *o, const char *needle)
{
	struct mem_backend b;

	cr_assert_eq(mem_backend_choose(o, &b), -1, "expected a refusal containing \"%s\"", needle);
	cr_assert(strstr(scx_errmsg(), needle), "error \"%s\" lacks \"%s\"", scx_errmsg(), needle);
}

/* The flags every memory event must carry. */
static void assert_common_flags(const struct perf_event_attr *a)
{
	cr_assert_eq(a->size, sizeof(*a));
	cr_assert_eq(a->sample_id_all, 1);
	cr_assert_eq(a->use_clockid, 1);
	cr_assert_eq(a->clockid, CLOCK_MONOTONIC);
	cr_assert_eq(a->inherit, 0);
	cr_assert_eq(a->mmap, 0, "side-band records belong to the lead's dummy event");
	cr_assert_eq(a->mmap_data, 0);
	cr_assert_eq(a->cgroup, 0, "perf sets attr.cgroup only on the tracking event");
}

static void assert_freq_4000(const struct perf_event_attr *a)
{
	cr_assert_eq(a->freq, 1);
	cr_assert_eq(a->sample_freq, 4000);
}

static bool has_warning(const struct mem_backend *b, const char *needle)
{
	for (size_t i = 0; i < b->warnings.nr; i++) {
		if (strstr(b->warnings.line[i], needle))
			return true;
	}
	return false;
}

/* ------------------------------------------------------------- pmu_sysfs */

Test(pmu_sysfs, parses_single_range_bit_and_multi_range_formats)
{
	uint64_t mask;
	int word;

	cr_assert_eq(pmu_parse_format("config1:0-15", &word, &mask), 0);
	cr_assert_eq(word, 1);
	cr_assert_eq(mask, 0xffffULL);
	cr_assert_eq(pmu_parse_format("config:19", &word, &mask), 0);
	cr_assert_eq(word, 0);
	cr_assert_eq(mask, 1ULL << 19);
	cr_assert_eq(pmu_parse_format("config:0-7,32-35", &word, &mask), 0);
	cr_assert_eq(mask, 0xf000000ffULL);
	cr_assert_eq(pmu_parse_format("config2:0-11", &word, &mask), 0);
	cr_assert_eq(word, 2);
	cr_assert_eq(mask, 0xfffULL);
	cr_assert_eq(pmu_parse_format("config1:0-63", &word, &mask), 0);
	cr_assert_eq(mask, ~0ULL);
}

Test(pmu_sysfs, refuses_malformed_formats)
{
	static const char *const bad[] = { "conf:1", "config", "config:", "config:8-3",
					   "config:64", "config:1-", "config:a", "config4:1" };
	uint64_t mask;
	int word;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(pmu_parse_format(bad[i], &word, &mask), -1, "accepted %s", bad[i]);
}

Test(pmu_sysfs, loads_type_cpus_and_formats)
{
	struct pmu_desc p;

	cr_assert_eq(pmu_load(fixture("adl"), "cpu_atom", &p), 0, "%s", scx_errmsg());
	cr_assert_eq(p.type, 10);
	cr_assert_str_eq(p.cpus, "16-23");
	cr_assert_eq(p.nr_formats, 7);
	cr_assert_eq(pmu_load(fixture("spe"), "arm_spe_0", &p), 0, "%s", scx_errmsg());
	cr_assert_str_eq(p.cpus, "0-7", "SPE's cpumask file is its cpu list");
	cr_assert_eq(pmu_load(fixture("skl"), "cpu", &p), 0);
	cr_assert_str_eq(p.cpus, "", "non-hybrid cpu has no cpus file");
	cr_assert_eq(pmu_load(fixture("skl"), "nope", &p), -1);
	cr_assert(strstr(scx_errmsg(), "nope"));
}

Test(pmu_sysfs, spreads_values_over_multi_range_formats)
{
	struct perf_event_attr a = { 0 };
	struct pmu_desc p;

	cr_assert_eq(pmu_load(fixture("zen4"), "cpu", &p), 0);
	/* AMD event select 0x1c0: low 8 bits in config:0-7, the rest in 32-35 */
	cr_assert_eq(pmu_set_term(&p, &a, "event", 0x1c0), 0, "%s", scx_errmsg());
	cr_assert_eq(a.config, 0x1000000c0ULL);
	cr_assert_eq(pmu_set_term(&p, &a, "umask", 0x3), 0);
	cr_assert_eq(a.config, 0x1000003c0ULL);
	/* overriding a field clears its old bits */
	cr_assert_eq(pmu_set_term(&p, &a, "event", 0x76), 0);
	cr_assert_eq(a.config, 0x376ULL);
	cr_assert_eq(pmu_set_term(&p, &a, "event", 0x1000), -1, "12 bits do not fit 8+4");
	cr_assert(strstr(scx_errmsg(), "event"));
}

Test(pmu_sysfs, expands_aliases_and_applies_terms_in_order)
{
	struct perf_event_attr a = { 0 };
	struct pmu_desc p;

	cr_assert_eq(pmu_load(fixture("skl"), "cpu", &p), 0);
	cr_assert_eq(pmu_apply_terms(&p, &a, "mem-loads,ldlat=30,inv,period=1000"), 0, "%s",
		     scx_errmsg());
	cr_assert_eq(a.config, 0x1cdULL | (1ULL << 23));
	cr_assert_eq(a.config1, 30, "a later ldlat overrides the alias's ldlat=3");
	cr_assert_eq(a.sample_period, 1000);
	cr_assert_eq(a.freq, 0);
	memset(&a, 0, sizeof(a));
	cr_assert_eq(pmu_apply_terms(&p, &a, "config=0x12345,config1=7"), 0);
	cr_assert_eq(a.config, 0x12345);
	cr_assert_eq(a.config1, 7);
}

Test(pmu_sysfs, refuses_unknown_terms_and_bad_values)
{
	struct perf_event_attr a = { 0 };
	struct pmu_desc p;

	cr_assert_eq(pmu_load(fixture("skl"), "cpu", &p), 0);
	cr_assert_eq(pmu_apply_terms(&p, &a, "event=0xcd,bogus=1"), -1);
	cr_assert(strstr(scx_errmsg(), "bogus"), "%s", scx_errmsg());
	cr_assert_eq(pmu_apply_terms(&p, &a, "ldlat=0x10000"), -1, "ldlat is 16 bits");
	cr_assert_eq(pmu_apply_terms(&p, &a, "event=zz"), -1);
	cr_assert_eq(pmu_apply_terms(&p, &a, "ldlat=?"), -1);
	cr_assert_eq(pmu_apply_terms(&p, &a, "event=-1"), -1);
	cr_assert_eq(pmu_has_event(&p, "../cpu/type"), false, "no escaping events/");
}

Test(pmu_sysfs, reads_caps_and_lists_pmus)
{
	char names[256];
	struct pmu_desc p;
	uint64_t v = 0;

	cr_assert_eq(pmu_load(fixture("zen5"), "ibs_op", &p), 0);
	cr_assert_eq(pmu_read_cap(&p, "ldlat", &v), 1);
	cr_assert_eq(v, 1);
	cr_assert_eq(pmu_read_cap(&p, "absent", &v), 0);
	pmu_list_names(fixture("vm"), names, sizeof(names));
	cr_assert_str_eq(names, "breakpoint msr power software tracepoint uprobe");
}

/* ------------------------------------------------------------- names */

Test(backend, names_round_trip_and_refuse_unknown)
{
	enum mem_backend_kind k;
	static const char *const names[] = { "auto", "intel-pebs", "amd-ibs", "arm-spe",
					     "page-fault", "decode" };

	for (int i = 0; i < 6; i++) {
		cr_assert_eq(mem_backend_parse_name(names[i], &k), 0);
		cr_assert_eq((int)k, i);
		cr_assert_str_eq(mem_backend_name(k), names[i]);
	}
	cr_assert_eq(mem_backend_parse_name("pebs", &k), -1);
	cr_assert(strstr(scx_errmsg(), "pebs"));
}

/* ------------------------------------------------------------- Intel */

Test(backend, intel_skl_plain_pebs_load_latency)
{
	struct mem_backend_opts o = opts_for("skl");
	struct mem_backend b;

	choose_ok(&o, &b);
	cr_assert_eq(b.kind, MEM_BACKEND_INTEL_PEBS);
	cr_assert_str_eq(b.pmu, "cpu");
	cr_assert_eq(b.nr_events, 1);
	cr_assert_eq(b.warnings.nr, 0);
	cr_assert(b.ldlat_applied);
	cr_assert_eq(b.ev[0].attr.type, 4);
	cr_assert_eq(b.ev[0].attr.config, 0x1cd);
	cr_assert_eq(b.ev[0].attr.config1, 10);
	cr_assert_eq(b.ev[0].attr.precise_ip, 3);
	cr_assert_eq(b.ev[0].attr.sample_type, X86_SAMPLE);
	cr_assert_eq(b.ev[0].attr.exclude_guest, 1);
	cr_assert_eq(b.ev[0].attr.disabled, 1);
	cr_assert_eq(b.ev[0].leader, -1);
	cr_assert_not(b.ev[0].is_aux_leader);
	cr_assert_str_eq(b.ev[0].name, "cpu/mem-loads,ldlat=10/P");
	cr_assert_str_eq(b.ev[0].cpus, "");
	assert_common_flags(&b.ev[0].attr);
	assert_freq_4000(&b.ev[0].attr);
}

Test(backend, intel_skl_stores_period_and_ldlat)
{
	struct mem_backend_opts o = opts_for("skl");
	struct mem_backend b;

	o.stores = true;
	o.period = 2003;
	o.ldlat = 50;
	choose_ok(&o, &b);
	cr_assert_eq(b.nr_events, 2);
	cr_assert_eq(b.ev[0].attr.config1, 50);
	cr_assert_eq(b.ev[1].attr.config, 0x82d0, "Skylake mem-stores event=0xd0,umask=0x82");
	cr_assert_eq(b.ev[1].attr.config1, 0);
	cr_assert_str_eq(b.ev[1].name, "cpu/mem-stores/P");
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(b.ev[i].attr.freq, 0);
		cr_assert_eq(b.ev[i].attr.sample_period, 2003);
	}
}

Test(backend, intel_ldlat_below_sdm_minimum_is_refused)
{
	struct mem_backend_opts o = opts_for("skl");

	o.ldlat = 2;
	choose_fails(&o, "--ldlat 2");
	o.ldlat = 3;
	struct mem_backend b;
	choose_ok(&o, &b);
	cr_assert_eq(b.ev[0].attr.config1, 3);
}

Test(backend, intel_spr_mem_loads_aux_leads_the_group)
{
	struct mem_backend_opts o = opts_for("spr");
	struct mem_backend b;

	o.stores = true;
	choose_ok(&o, &b);
	cr_assert_eq(b.nr_events, 3);
	cr_assert(b.ev[0].is_aux_leader);
	cr_assert_eq(b.ev[0].leader, -1);
	cr_assert_eq(b.ev[0].attr.config, 0x8203, "mem-loads-aux event=0x03,umask=0x82");
	cr_assert_eq(b.ev[0].attr.disabled, 1, "the leader starts disabled");
	cr_assert_str_eq(b.ev[0].name, "cpu/mem-loads-aux/");
	assert_freq_4000(&b.ev[0].attr);
	cr_assert_eq(b.ev[1].leader, 0);
	cr_assert_not(b.ev[1].is_aux_leader);
	cr_assert_eq(b.ev[1].attr.config, 0x1cd);
	cr_assert_eq(b.ev[1].attr.config1, 10);
	cr_assert_eq(b.ev[1].attr.disabled, 0, "group members follow the leader");
	cr_assert_eq(b.ev[2].attr.config, 0x2cd, "SPR mem-stores event=0xcd,umask=0x2");
	cr_assert_eq(b.ev[2].leader, -1, "stores need no aux leader");
}

Test(backend, intel_hybrid_one_set_per_core_pmu)
{
	struct mem_backend_opts o = opts_for("adl");
	struct mem_backend b;

	o.stores = true;
	choose_ok(&o, &b);
	cr_assert_str_eq(b.pmu, "cpu_core,cpu_atom");
	cr_assert_eq(b.nr_events, 5);
	/* cpu_core: aux leader, loads, stores */
	cr_assert(b.ev[0].is_aux_leader);
	cr_assert_eq(b.ev[0].attr.type, 4);
	cr_assert_str_eq(b.ev[0].cpus, "0-15");
	cr_assert_eq(b.ev[1].leader, 0);
	cr_assert_eq(b.ev[1].attr.config, 0x1cd);
	cr_assert_str_eq(b.ev[1].name, "cpu_core/mem-loads,ldlat=10/P");
	cr_assert_eq(b.ev[2].attr.config, 0x2cd);
	/* cpu_atom: own type, cpus, event encoding, no aux leader */
	cr_assert_eq(b.ev[3].attr.type, 10);
	cr_assert_eq(b.ev[3].attr.config, 0x5d0, "atom mem-loads event=0xd0,umask=0x5");
	cr_assert_eq(b.ev[3].attr.config1, 10);
	cr_assert_eq(b.ev[3].leader, -1);
	cr_assert_str_eq(b.ev[3].cpus, "16-23");
	cr_assert_str_eq(b.ev[3].name, "cpu_atom/mem-loads,ldlat=10/P");
	cr_assert_eq(b.ev[4].attr.config, 0x6d0);
	cr_assert_str_eq(b.ev[4].cpus, "16-23");
}

/* ------------------------------------------------------------- AMD */

Test(backend, amd_ibs_without_ldlat_cap_warns_and_samples_all_ops)
{
	struct mem_backend_opts o = opts_for("zen4");
	struct mem_backend b;

	choose_ok(&o, &b);
	cr_assert_eq(b.kind, MEM_BACKEND_AMD_IBS, "AMD's cpu PMU has no mem-loads: not Intel");
	cr_assert_str_eq(b.pmu, "ibs_op");
	cr_assert_eq(b.nr_events, 1);
	cr_assert_not(b.ldlat_applied);
	cr_assert(has_warning(&b, "ldlat unavailable"));
	cr_assert_eq(b.ev[0].attr.type, 11);
	cr_assert_eq(b.ev[0].attr.config, 0);
	cr_assert_eq(b.ev[0].attr.config1, 0);
	cr_assert_eq(b.ev[0].attr.precise_ip, 0);
	cr_assert_eq(b.ev[0].attr.exclude_guest, 0, "IBS rejects exclude_guest");
	cr_assert_eq(b.ev[0].attr.sample_type, X86_SAMPLE);
	cr_assert_str_eq(b.ev[0].name, "ibs_op//");
	assert_common_flags(&b.ev[0].attr);
	assert_freq_4000(&b.ev[0].attr);
}

Test(backend, amd_ibs_with_ldlat_cap_encodes_config1)
{
	struct mem_backend_opts o = opts_for("zen5");
	struct mem_backend b;

	o.ldlat = 256;
	choose_ok(&o, &b);
	cr_assert(b.ldlat_applied);
	cr_assert_eq(b.warnings.nr, 0);
	cr_assert_eq(b.ev[0].attr.config1, 256);
	cr_assert_str_eq(b.ev[0].name, "ibs_op/ldlat=256/");
	o.ldlat = 300;
	choose_ok(&o, &b);
	cr_assert_eq(b.ev[0].attr.config1, 300);
	cr_assert(has_warning(&b, "uses 256"), "steps of 128 are reported");
}

Test(backend, amd_ibs_ldlat_range)
{
	struct mem_backend_opts o = opts_for("zen5");
	struct mem_backend b;

	choose_ok(&o, &b); /* default 10 < 128: no filter, with a warning */
	cr_assert_not(b.ldlat_applied);
	cr_assert_eq(b.ev[0].attr.config1, 0);
	cr_assert(has_warning(&b, "below the AMD IBS minimum 128"));
	o.ldlat = 2049;
	choose_fails(&o, "128..2048");
	o.ldlat = 2048;
	choose_ok(&o, &b);
	cr_assert_eq(b.ev[0].attr.config1, 2048);
}

Test(backend, amd_ibs_period_rules)
{
	struct mem_backend_opts o = opts_for("zen4");
	struct mem_backend b;

	o.period = 0x1001;
	choose_fails(&o, "multiple of 16");
	o.period = 0x8;
	choose_fails(&o, "at least 0x10");
	o.period = 0x10000;
	choose_ok(&o, &b);
	cr_assert_eq(b.ev[0].attr.freq, 0);
	cr_assert_eq(b.ev[0].attr.sample_period, 0x10000);
	cr_assert(strstr(b.description, "loads and stores"), "%s", b.description);
}

/* ------------------------------------------------------------- Arm SPE */

/*
 * What perf would build for the same options. perf 6.1's `perf mem record`
 * on arm64 encodes arm_spe_0/ts_enable=1,load_filter=1,store_filter=0,
 * min_latency=N/ for loads and load_filter=1,store_filter=1 for loads and
 * stores (tools/perf/arch/arm64/util/mem-events.c, perf_mem_events[]),
 * each term placed by the PMU's format/ file (util/pmu.c,
 * pmu_format_value: value bits spread over the format's bits, low to
 * high); arm_spe_recording_options() (arch/arm64/util/arm-spe.c) sets
 * freq 0 and sample_period = caps/min_interval (4096 when absent); no
 * aux_watermark (0: the kernel wakes at half the AUX area); exclude_guest
 * 1 (util/util.c event_attr_init). We add jitter=1 and, when privileged,
 * pa_enable=1 (perf mem's -p/--phys-data asks for the same bit). The
 * expected words below are written from the fixture's format files by
 * hand: ts_enable config:0, pa_enable config:1, jitter config:16,
 * load_filter config:33, store_filter config:34, min_latency config2:0-11.
 */
#define SPE_TS (1ULL << 0)
#define SPE_PA (1ULL << 1)
#define SPE_JITTER (1ULL << 16)
#define SPE_LOADS (1ULL << 33)
#define SPE_STORES (1ULL << 34)

static void spe_assert_perf_attr(const struct perf_event_attr *a, uint32_t type, uint64_t config,
				 uint64_t config2, uint64_t period)
{
	cr_assert_eq(a->type, type);
	cr_assert_eq(a->config, config, "config %#llx, want %#llx", (unsigned long long)a->config,
		     (unsigned long long)config);
	cr_assert_eq(a->config1, 0, "no event_filter");
	cr_assert_eq(a->config2, config2, "min_latency");
	cr_assert_eq(a->freq, 0);
	cr_assert_eq(a->sample_period, period);
	cr_assert_eq(a->aux_watermark, 0, "perf leaves aux_watermark 0");
	cr_assert_eq(a->precise_ip, 0);
	cr_assert_eq(a->exclude_guest, 1);
	cr_assert_eq(a->sample_type, COMMON_SAMPLE | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT);
	assert_common_flags(a);
}

static const char *kconfig(const char *name)
{
	static char b[PATH_MAX];
	const char *top = getenv("TOP");

	snprintf(b, sizeof(b), "%s%stests/fixtures/kconfig/%s", top ? top : "", top ? "/" : "", name);
	return b;
}

Test(backend, arm_spe_neoverse_loads_as_perf_mem_builds_them)
{
	static const struct { const char *machine; uint32_t type; const char *cpus; } hosts[] = {
		{ "neoverse-n1", 9, "0-63" },  /* Graviton2, Ampere Altra */
		{ "neoverse-v1", 10, "0-63" }, /* Graviton3 */
		{ "neoverse-v2", 11, "0-95" }, /* Graviton4, Grace; config3 format files too */
	};

	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		struct mem_backend_opts o = opts_for(hosts[i].machine);
		struct mem_backend b;

		o.priv = MEM_PRIV_YES;
		o.kconfig_path = kconfig("pid_in_contextidr");
		choose_ok(&o, &b);
		cr_assert_eq(b.kind, MEM_BACKEND_ARM_SPE);
		cr_assert_str_eq(b.pmu, "arm_spe_0");
		cr_assert(b.needs_aux_decoder);
		cr_assert_not(has_warning(&b, "not implemented"));
		cr_assert_eq(b.nr_events, 1);
		cr_assert(b.ev[0].aux_area && b.ev[0].own_ring, "one ring with an AUX area per cpu");
		spe_assert_perf_attr(&b.ev[0].attr, hosts[i].type,
				     SPE_TS | SPE_PA | SPE_JITTER | SPE_LOADS, 10, 1024);
		cr_assert_str_eq(b.ev[0].cpus, hosts[i].cpus);
		cr_assert(b.phys_addr);
		cr_assert(b.context_switch, "switch records are recorded as perf does");
		cr_assert(strstr(b.pid_source, "context packets"), "%s", b.pid_source);
		cr_assert_str_eq(b.pid_method, "context-packets");
		cr_assert_str_eq(b.ev[0].name, "arm_spe_0/ts_enable=1,pa_enable=1,jitter=1,"
					       "load_filter=1,store_filter=0,min_latency=10/");
	}
}

Test(backend, arm_spe_unprivileged_no_pa_and_switch_records)
{
	struct mem_backend_opts o = opts_for("neoverse-n1");
	struct mem_backend b;

	o.priv = MEM_PRIV_NO;
	o.kconfig_path = kconfig("pid_in_contextidr");
	choose_ok(&o, &b);
	spe_assert_perf_attr(&b.ev[0].attr, 9, SPE_TS | SPE_JITTER | SPE_LOADS, 10, 1024);
	cr_assert_not(b.phys_addr);
	cr_assert(has_warning(&b, "pa_enable needs root or CAP_PERFMON"));
	cr_assert(strstr(b.pid_source, "switch records"), "%s", b.pid_source);
	cr_assert_str_eq(b.pid_method, "switch-records", "unprivileged: no PID in CONTEXTIDR");
	o.priv = MEM_PRIV_YES;
	o.kconfig_path = kconfig("no_pid_in_contextidr");
	choose_ok(&o, &b);
	cr_assert(strstr(b.pid_source, "without CONFIG_PID_IN_CONTEXTIDR"), "%s", b.pid_source);
	cr_assert_str_eq(b.pid_method, "switch-records");
	o.kconfig_path = "/nonexistent/config";
	o.priv = MEM_PRIV_NO;
	choose_ok(&o, &b);
	cr_assert_str_eq(b.pid_method, "switch-records", "unprivileged: never context packets");
	o.priv = MEM_PRIV_YES;
	choose_ok(&o, &b);
	cr_assert(strstr(b.pid_source, "unreadable"), "%s", b.pid_source);
	cr_assert_str_eq(b.pid_method, "context-packets-if-present");
	cr_assert(b.context_switch);
}

Test(backend, arm_spe_stores_and_period_rules)
{
	struct mem_backend_opts o = opts_for("neoverse-v1");
	struct mem_backend b;

	o.priv = MEM_PRIV_YES;
	o.stores = true;
	o.period = 8192;
	o.ldlat = 30; /* perf mem's default */
	choose_ok(&o, &b);
	spe_assert_perf_attr(&b.ev[0].attr, 10, SPE_TS | SPE_PA | SPE_JITTER | SPE_LOADS | SPE_STORES,
			     30, 8192);
	cr_assert(strstr(b.description, "loads and stores"), "%s", b.description);
	o.period = 512;
	choose_fails(&o, "minimum sampling interval 1024");
	o.period = 0;
	o.freq = 1000;
	choose_fails(&o, "fixed period");
	o.freq = 0;
	o.ldlat = 4096;
	choose_fails(&o, "min_latency holds at most 4095 cycles (12 bits");
	o.ldlat = 4095;
	choose_ok(&o, &b);
	cr_assert_eq(b.ev[0].attr.config2, 4095);
}

/* Every bit from format/: a PMU whose fields sit elsewhere (spe-moved:
 * ts_enable config:40, pa_enable config:41-42, load_filter config:5,
 * store_filter config:7, min_latency config2:8-15,20-23, no jitter, no
 * caps/min_interval) gets them there. */
Test(backend, arm_spe_bits_come_from_format_files)
{
	struct mem_backend_opts o = opts_for("spe-moved");
	struct mem_backend b;

	o.priv = MEM_PRIV_YES;
	o.stores = true;
	o.ldlat = 0x321; /* low 8 bits -> 8-15, the next 4 -> 20-23 */
	choose_ok(&o, &b);
	spe_assert_perf_attr(&b.ev[0].attr, 21, (1ULL << 40) | (1ULL << 41) | (1ULL << 5) | (1ULL << 7),
			     (0x21ULL << 8) | (0x3ULL << 20), 4096);
	cr_assert_str_eq(b.ev[0].cpus, "0-3");
}

/* config3 format files (kernel 6.13+: inv_event_filter) load; setting one
 * is refused by name, since our perf_event_attr has no config3. */
Test(backend, arm_spe_config3_formats_load_but_are_not_set)
{
	struct mem_backend_opts o = opts_for("neoverse-v2");
	struct perf_event_attr attr = { 0 };
	struct pmu_desc p;
	struct mem_backend b;

	cr_assert_eq(pmu_load(o.sysfs_root, "arm_spe_0", &p), 0, "%s", scx_errmsg());
	cr_assert_neq(pmu_set_term(&p, &attr, "inv_event_filter", 1), 0);
	cr_assert(strstr(scx_errmsg(), "config3"), "%s", scx_errmsg());
	o.event_spec = "arm_spe_0/inv_event_filter=1/";
	choose_fails(&o, "config3");
	o.event_spec = "arm_spe_0/ts_enable=1,load_filter=1,min_latency=20/";
	choose_ok(&o, &b);
	cr_assert(b.ev[0].aux_area && b.ev[0].own_ring);
	cr_assert(b.context_switch);
}

Test(backend, arm_spe_two_instances_default_interval)
{
	struct mem_backend_opts o = opts_for("spe2");
	struct mem_backend b;

	choose_ok(&o, &b);
	cr_assert_str_eq(b.pmu, "arm_spe_0,arm_spe_1");
	cr_assert_eq(b.nr_events, 2);
	cr_assert_eq(b.ev[0].attr.type, 12);
	cr_assert_str_eq(b.ev[0].cpus, "0-3");
	cr_assert_eq(b.ev[1].attr.type, 13);
	cr_assert_str_eq(b.ev[1].cpus, "4-7");
	cr_assert_eq(b.ev[0].attr.sample_period, 4096, "no caps/min_interval: 4096");
	cr_assert(has_warning(&b, "perf 6.1 decodes the AUX data of the first one's type only"));
}

/* ------------------------------------------------------------- software */

Test(backend, vm_auto_chooses_decode_with_one_warning)
{
	struct mem_backend_opts o = opts_for("vm");
	struct mem_backend b;

	choose_ok(&o, &b);
	cr_assert_eq(b.kind, MEM_BACKEND_DECODE);
	cr_assert_str_eq(mem_backend_name(b.kind), "decode");
	cr_assert_not(b.ldlat_applied);
	cr_assert_eq(b.warnings.nr, 1);
	cr_assert(has_warning(&b, "no memory-sampling PMU"));
	cr_assert(has_warning(&b, "no latency, no data source level"), "%s", b.warnings.line[0]);
	cr_assert_eq(b.nr_events, 1);
	cr_assert_str_eq(b.ev[0].name, "cpu-clock");
	cr_assert_eq(b.ev[0].attr.type, PERF_TYPE_SOFTWARE);
	cr_assert_eq(b.ev[0].attr.config, PERF_COUNT_SW_CPU_CLOCK);
	cr_assert_eq(b.ev[0].attr.freq, 1);
	cr_assert_eq(b.ev[0].attr.sample_freq, MEM_BACKEND_DECODE_FREQ);
	cr_assert(b.ev[0].attr.sample_type & PERF_SAMPLE_REGS_USER);
	cr_assert_eq(b.ev[0].attr.sample_regs_user, 0xff01ffULL, "ax..ip and r8..r15");
	cr_assert_eq(b.ev[0].attr.clockid, CLOCK_MONOTONIC);
	cr_assert(b.rewrites_samples);
	cr_assert_eq(b.out_attr.sample_type & (PERF_SAMPLE_ADDR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_SRC |
					       PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_REGS_USER),
		     PERF_SAMPLE_ADDR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_DATA_PAGE_SIZE);
	cr_assert(strstr(b.decoder, "zydis"), "%s", b.decoder);
}

Test(backend, page_fault_backend_by_name_and_old_alias)
{
	struct mem_backend_opts o = opts_for("vm");
	enum mem_backend_kind k = MEM_BACKEND_AUTO;
	struct mem_backend b;

	cr_assert_eq(mem_backend_parse_name("page-fault", &k), 0);
	cr_assert_eq(k, MEM_BACKEND_SOFTWARE);
	k = MEM_BACKEND_AUTO;
	cr_assert_eq(mem_backend_parse_name("software", &k), 0);
	cr_assert_eq(k, MEM_BACKEND_SOFTWARE);
	cr_assert_eq(mem_backend_parse_name("decode", &k), 0);
	cr_assert_eq(k, MEM_BACKEND_DECODE);
	o.want = MEM_BACKEND_SOFTWARE;
	choose_ok(&o, &b);
	cr_assert_eq(b.kind, MEM_BACKEND_SOFTWARE);
	cr_assert_str_eq(mem_backend_name(b.kind), "page-fault");
	cr_assert_str_eq(b.pmu, "software");
	cr_assert_not(b.ldlat_applied);
	cr_assert_not(b.needs_aux_decoder);
	cr_assert_eq(b.warnings.nr, 0, "a deliberate choice is not warned about");
	/* counted after the fault is handled: the kernel gives phys_addr */
	cr_assert_eq(b.nr_events, 2);
	cr_assert_str_eq(b.ev[0].name, "minor-faults");
	cr_assert_eq(b.ev[0].attr.config, PERF_COUNT_SW_PAGE_FAULTS_MIN);
	cr_assert_not(b.ev[0].own_ring);
	cr_assert_str_eq(b.ev[1].name, "major-faults");
	cr_assert_eq(b.ev[1].attr.config, PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	cr_assert(b.ev[1].own_ring, "one sampling event per ring, so foreign ids can be restored");
	for (size_t i = 0; i < 2; i++) {
		cr_assert_eq(b.ev[i].attr.type, PERF_TYPE_SOFTWARE);
		cr_assert_eq(b.ev[i].leader, -1);
		cr_assert_eq(b.ev[i].attr.freq, 0);
		cr_assert_eq(b.ev[i].attr.sample_period, 1, "every fault by default");
		cr_assert_eq(b.ev[i].attr.sample_type, COMMON_SAMPLE, "no data_src/weight to report");
		cr_assert(b.ev[i].attr.sample_type & PERF_SAMPLE_PHYS_ADDR);
		cr_assert_eq(b.ev[i].attr.precise_ip, 0);
		assert_common_flags(&b.ev[i].attr);
	}
}

Test(backend, decode_honours_freq_and_period)
{
	struct mem_backend_opts o = opts_for("skl");
	struct mem_backend b;

	o.want = MEM_BACKEND_DECODE;
	o.freq = 250;
	choose_ok(&o, &b);
	cr_assert_eq(b.kind, MEM_BACKEND_DECODE, "--backend decode wins over PEBS");
	cr_assert_eq(b.warnings.nr, 0);
	cr_assert_eq(b.ev[0].attr.sample_freq, 250);
	o.freq = 0;
	o.period = 2000000;
	choose_ok(&o, &b);
	cr_assert_eq(b.ev[0].attr.freq, 0);
	cr_assert_eq(b.ev[0].attr.sample_period, 2000000);
	cr_assert_eq(b.out_attr.sample_period, 2000000);
	o.period = 8; /* a page-fault count is not a cpu-clock period */
	choose_fails(&o, "nanoseconds of cpu-clock");
}

Test(backend, software_honours_freq_and_explicit_choice)
{
	struct mem_backend_opts o = opts_for("skl");
	struct mem_backend b;

	o.want = MEM_BACKEND_SOFTWARE;
	o.freq = 999;
	choose_ok(&o, &b);
	cr_assert_eq(b.kind, MEM_BACKEND_SOFTWARE, "--backend software wins over PEBS");
	cr_assert_eq(b.warnings.nr, 0, "a deliberate choice is not warned about");
	cr_assert_eq(b.ev[0].attr.freq, 1);
	cr_assert_eq(b.ev[0].attr.sample_freq, 999);
}

Test(backend, this_machine_auto_chooses_decode)
{
	struct mem_backend_opts o;
	struct mem_backend b;

	if (pmu_exists(NULL, "ibs_op") || access(PMU_SYSFS_DEFAULT_ROOT "/cpu/events/mem-loads",
						 F_OK) == 0 ||
	    access(PMU_SYSFS_DEFAULT_ROOT "/cpu_core", F_OK) == 0 ||
	    access(PMU_SYSFS_DEFAULT_ROOT "/arm_spe_0", F_OK) == 0)
		cr_skip_test("SKIP: this host has a memory-sampling PMU");
	mem_backend_opts_init(&o);
	choose_ok(&o, &b);
	cr_assert_eq(b.kind, MEM_BACKEND_DECODE);
	cr_assert(has_warning(&b, "no memory-sampling PMU"));
}

/* ------------------------------------------------------------- refusals */

Test(backend, wanted_backend_missing_says_what_was_found)
{
	struct mem_backend_opts o = opts_for("vm");

	o.want = MEM_BACKEND_INTEL_PEBS;
	choose_fails(&o, "found: breakpoint msr power software tracepoint uprobe");
	o.want = MEM_BACKEND_AMD_IBS;
	choose_fails(&o, "ibs_op");
	o.want = MEM_BACKEND_ARM_SPE;
	choose_fails(&o, "arm_spe_N");
	o = opts_for("zen4");
	o.want = MEM_BACKEND_INTEL_PEBS;
	choose_fails(&o, "no Intel PEBS PMU");
}

Test(backend, period_and_freq_are_exclusive)
{
	struct mem_backend_opts o = opts_for("vm");

	o.period = 10;
	o.freq = 10;
	choose_fails(&o, "mutually exclusive");
}

/* ------------------------------------------------------------- --event (sysfs) */

Test(backend_event, sysfs_spec_with_alias_and_override)
{
	struct mem_backend_opts o = opts_for("skl");
	struct mem_backend b;

	o.event_spec = "cpu/mem-loads,ldlat=30/P";
	choose_ok(&o, &b);
	cr_assert_eq(b.kind, MEM_BACKEND_INTEL_PEBS);
	cr_assert_eq(b.nr_events, 1);
	cr_assert_eq(b.ev[0].attr.config, 0x1cd);
	cr_assert_eq(b.ev[0].attr.config1, 30);
	cr_assert_eq(b.ev[0].attr.precise_ip, 3);
	cr_assert(b.ldlat_applied);
	cr_assert_str_eq(b.ev[0].name, "cpu/mem-loads,ldlat=30/P");
	cr_assert_eq(b.ev[0].attr.sample_type, X86_SAMPLE);
	assert_freq_4000(&b.ev[0].attr);
}

Test(backend_event, sysfs_spec_gets_aux_leader_on_spr)
{
	struct mem_backend_opts o = opts_for("spr");
	struct mem_backend b;

	o.event_spec = "cpu/mem-loads,ldlat=30/pp";
	choose_ok(&o, &b);
	cr_assert_eq(b.nr_events, 2);
	cr_assert(b.ev[0].is_aux_leader);
	cr_assert_eq(b.ev[0].attr.config, 0x8203);
	cr_assert_eq(b.ev[1].leader, 0);
	cr_assert_eq(b.ev[1].attr.precise_ip, 2);
	o.event_spec = "cpu/mem-stores/";
	choose_ok(&o, &b);
	cr_assert_eq(b.nr_events, 1, "stores are not grouped");
	cr_assert_not(b.ldlat_applied);
}

Test(backend_event, sysfs_spec_raw_terms_modifiers_and_period)
{
	struct mem_backend_opts o = opts_for("skl");
	struct mem_backend b;

	o.event_spec = "cpu/event=0xd0,umask=0x81,period=5003/pu";
	choose_ok(&o, &b);
	cr_assert_eq(b.ev[0].attr.config, 0x81d0);
	cr_assert_eq(b.ev[0].attr.precise_ip, 1);
	cr_assert_eq(b.ev[0].attr.exclude_kernel, 1);
	cr_assert_eq(b.ev[0].attr.exclude_user, 0);
	cr_assert_eq(b.ev[0].attr.freq, 0);
	cr_assert_eq(b.ev[0].attr.sample_period, 5003, "the spec's own period is kept");
	o.period = 7;
	choose_ok(&o, &b);
	cr_assert_eq(b.ev[0].attr.sample_period, 7, "-c overrides it");
}

Test(backend_event, sysfs_spec_on_ibs_and_spe)
{
	struct mem_backend_opts o = opts_for("zen4");
	struct mem_backend b;

	o.event_spec = "ibs_op/cnt_ctl=1,l3missonly/";
	choose_ok(&o, &b);
	cr_assert_eq(b.kind, MEM_BACKEND_AMD_IBS);
	cr_assert_eq(b.ev[0].attr.config, (1ULL << 19) | (1ULL << 16));
	cr_assert_eq(b.ev[0].attr.exclude_guest, 0);
	o = opts_for("spe");
	o.event_spec = "arm_spe_0/ts_enable=1,load_filter=1,min_latency=20/";
	choose_ok(&o, &b);
	cr_assert_eq(b.kind, MEM_BACKEND_ARM_SPE);
	cr_assert_eq(b.ev[0].attr.config, (1ULL << 33) | 1);
	cr_assert_eq(b.ev[0].attr.config2, 20);
	cr_assert_eq(b.ev[0].attr.sample_period, 1024);
	cr_assert(b.needs_aux_decoder);
	cr_assert(b.ldlat_applied);
}

Test(backend_event, sysfs_spec_errors_name_the_problem)
{
	struct mem_backend_opts o = opts_for("skl");

	o.event_spec = "cpu/mem-loads,bogus=1/";
	choose_fails(&o, "bogus");
	o.event_spec = "cpu/ldlat=70000/";
	choose_fails(&o, "wider");
	o.event_spec = "cpu/mem-loads/x";
	choose_fails(&o, "modifier 'x'");
	o.event_spec = "nosuch/event=1/";
	choose_fails(&o, "nosuch");
	o.event_spec = "cpu/mem-loads";
	choose_fails(&o, "pmu/term=value");
	o.event_spec = "ibs_op//";
	choose_fails(&o, "ibs_op");
	o.event_spec = "cpu/mem-loads/";
	o.want = MEM_BACKEND_AMD_IBS;
	choose_fails(&o, "does not match");
}

/* ------------------------------------------------------------- --event (libpfm4) */

static void pfm_load_latency(const char *model, const char *machine, const char *spec,
			     unsigned want_precise)
{
	struct mem_backend_opts o = opts_for(machine);
	struct mem_backend b;
	size_t load;

	setenv("LIBPFM_FORCE_PMU", model, 1);
	o.event_spec = spec;
	choose_ok(&o, &b);
	load = b.nr_events - 1;
	cr_assert_eq(b.kind, MEM_BACKEND_INTEL_PEBS);
	cr_assert_eq(b.ev[load].attr.type, PERF_TYPE_RAW);
	cr_assert_eq(b.ev[load].attr.config, 0x1cd);
	cr_assert_eq(b.ev[load].attr.config1, 10);
	cr_assert_eq(b.ev[load].attr.precise_ip, want_precise);
	cr_assert_eq(b.ev[load].attr.sample_type, X86_SAMPLE);
	cr_assert(b.ldlat_applied);
	assert_common_flags(&b.ev[load].attr);
	assert_freq_4000(&b.ev[load].attr);
}

Test(backend_pfm, skl_load_latency)
{
	pfm_load_latency("skl", "skl", "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=10", 0);
}

Test(backend_pfm, icl_load_latency_precise_2)
{
	pfm_load_latency("icl", "skl", "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=10:precise=2", 2);
}

Test(backend_pfm, spr_load_latency_gets_aux_leader)
{
	struct mem_backend_opts o = opts_for("spr");
	struct mem_backend b;

	pfm_load_latency("spr", "spr", "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=10:precise=2", 2);
	setenv("LIBPFM_FORCE_PMU", "spr", 1);
	o.event_spec = "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=10:precise=2";
	choose_ok(&o, &b);
	cr_assert_eq(b.nr_events, 2);
	cr_assert(b.ev[0].is_aux_leader);
	cr_assert_eq(b.ev[1].leader, 0);
	cr_assert_eq(b.ev[0].attr.precise_ip, 2);
}

Test(backend_pfm, bad_string_names_it_and_libpfm_error)
{
	struct mem_backend_opts o = opts_for("skl");

	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	o.event_spec = "NOT_AN_EVENT:FOO";
	choose_fails(&o, "NOT_AN_EVENT:FOO");
	cr_assert(strstr(scx_errmsg(), "libpfm4"), "%s", scx_errmsg());
}

Test(backend_pfm, page_faults_is_the_software_backend)
{
	struct mem_backend_opts o = opts_for("vm");
	struct mem_backend b;

	o.event_spec = "page-faults";
	choose_ok(&o, &b);
	cr_assert_eq(b.kind, MEM_BACKEND_SOFTWARE);
	cr_assert_eq(b.ev[0].attr.type, PERF_TYPE_SOFTWARE);
	cr_assert_eq(b.ev[0].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	cr_assert_eq(b.ev[0].attr.sample_period, 1);
	cr_assert_eq(b.ev[0].attr.sample_type, COMMON_SAMPLE);
	o.want = MEM_BACKEND_INTEL_PEBS;
	choose_fails(&o, "does not match");
}

/* ------------------------------------------------------------- mem_event_open fallbacks */

static int fake_calls;
static struct perf_event_attr fake_last;

/* PEBS-like PMU: precise_ip above 1 is EOPNOTSUPP. */
static int fake_max_precise_1(struct perf_event_attr *attr, int cpu, int group_fd)
{
	(void)cpu;
	(void)group_fd;
	fake_calls++;
	fake_last = *attr;
	if (attr->precise_ip > 1) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return dup(0);
}

/* Old kernel: WEIGHT_STRUCT is EINVAL at any precise level. */
static int fake_no_weight_struct(struct perf_event_attr *attr, int cpu, int group_fd)
{
	(void)cpu;
	(void)group_fd;
	fake_calls++;
	fake_last = *attr;
	if (attr->sample_type & PERF_SAMPLE_WEIGHT_STRUCT) {
		errno = EINVAL;
		return -1;
	}
	return dup(0);
}

static int fake_errno;

static int fake_fail(struct perf_event_attr *attr, int cpu, int group_fd)
{
	(void)attr;
	(void)cpu;
	(void)group_fd;
	fake_calls++;
	errno = fake_errno;
	return -1;
}

static struct mem_event intel_event(void)
{
	struct mem_backend_opts o = opts_for("skl");
	struct mem_backend b;

	choose_ok(&o, &b);
	return b.ev[0];
}

Test(backend_open, steps_precise_down_and_remembers_it)
{
	struct mem_event ev = intel_event();
	int fd;

	mem_event_set_open_fn(fake_max_precise_1);
	fd = mem_event_open(&ev, 3, -1);
	cr_assert_geq(fd, 0, "%s", scx_errmsg());
	close(fd);
	cr_assert_eq(fake_calls, 3, "tried 3, 2, 1");
	cr_assert_eq(ev.attr.precise_ip, 1, "the working level is remembered");
	cr_assert_eq(ev.attr.sample_type, X86_SAMPLE, "weight struct untouched");
	fake_calls = 0;
	fd = mem_event_open(&ev, 4, -1);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(fake_calls, 1, "the next cpu opens at once");
	mem_event_set_open_fn(NULL);
}

Test(backend_open, falls_back_from_weight_struct_to_weight)
{
	struct mem_event ev = intel_event();
	int fd;

	mem_event_set_open_fn(fake_no_weight_struct);
	fd = mem_event_open(&ev, 0, -1);
	cr_assert_geq(fd, 0, "%s", scx_errmsg());
	close(fd);
	cr_assert_eq(fake_calls, 5, "precise 3..0 with WEIGHT_STRUCT, then 3 with WEIGHT");
	cr_assert_eq(ev.attr.precise_ip, 3, "precise restored for the WEIGHT attempt");
	cr_assert_eq(ev.attr.sample_type & PERF_SAMPLE_WEIGHT_TYPE, PERF_SAMPLE_WEIGHT);
	cr_assert_eq(ev.attr.sample_type & ~PERF_SAMPLE_WEIGHT_TYPE,
		     X86_SAMPLE & ~PERF_SAMPLE_WEIGHT_TYPE);
	mem_event_set_open_fn(NULL);
}

Test(backend_open, permission_error_names_event_cpu_and_paranoid)
{
	struct mem_event ev = intel_event();

	fake_errno = EACCES;
	mem_event_set_open_fn(fake_fail);
	cr_assert_eq(mem_event_open(&ev, 1, -1), -1);
	cr_assert_eq(errno, EACCES);
	cr_assert_eq(fake_calls, 1, "no precise stepping on EACCES");
	cr_assert(strstr(scx_errmsg(), "cpu/mem-loads,ldlat=10/P on cpu 1: perf_event_open: "
				       "Permission denied (perf_event_paranoid="),
		  "%s", scx_errmsg());
	fake_errno = ENODATA;
	cr_assert_eq(mem_event_open(&ev, 2, -1), -1);
	cr_assert(strstr(scx_errmsg(), "mem-loads-aux"), "%s", scx_errmsg());
	cr_assert_eq(ev.attr.precise_ip, 3, "failures change nothing");
	mem_event_set_open_fn(NULL);
}

Test(backend_open, spe_permission_error_says_what_needs_privilege)
{
	struct mem_backend_opts o = opts_for("neoverse-n1");
	struct mem_backend b;

	o.priv = MEM_PRIV_YES;
	choose_ok(&o, &b);
	fake_errno = EACCES;
	mem_event_set_open_fn(fake_fail);
	cr_assert_eq(mem_event_open(&b.ev[0], 2, -1), -1);
	mem_event_set_open_fn(NULL);
	cr_assert(strstr(scx_errmsg(), "arm_spe_0/ts_enable=1,pa_enable=1,") &&
		  strstr(scx_errmsg(), " on cpu 2: perf_event_open: Permission denied (Arm SPE: "
				       "pa_enable and pct_enable need root or CAP_PERFMON; "
				       "perf_event_paranoid="),
		  "%s", scx_errmsg());
}

/* ------------------------------------------------------------- real page-fault event */

struct ring {
	void *base;
	size_t len;
};

static void *map_ring(int fd, struct ring *r)
{
	long page = sysconf(_SC_PAGESIZE);

	r->len = (size_t)page * (1 + 64);
	r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert_neq(r->base, MAP_FAILED, "mmap of the ring: %s", strerror(errno));
	return r->base;
}

static void pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	cr_assert_eq(sched_setaffinity(0, sizeof(set), &set), 0);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Count our samples whose data address lies in [lo, hi) and time in
 * [t0, t1], and in *with_phys those the kernel gave a physical address.
 * Layout (COMMON_SAMPLE): ip, pid+tid, time, addr, id, cpu, period, phys_addr, ... */
static int count_samples_in(const struct ring *r, uintptr_t lo, uintptr_t hi, uint64_t t0,
			    uint64_t t1, int *with_phys)
{
	struct perf_event_mmap_page *meta = r->base;
	const char *data = (const char *)r->base + meta->data_offset;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t off = meta->data_tail, size = meta->data_size;
	int n = 0;

	while (off + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t rec[8];

		memcpy(&h, data + off % size, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE && off % size + h.size <= size) {
			memcpy(rec, data + off % size + sizeof(h), sizeof(rec));
			uint32_t pid = (uint32_t)rec[1];
			if (pid == (uint32_t)getpid() && rec[3] >= lo && rec[3] < hi &&
			    rec[2] >= t0 && rec[2] <= t1) {
				n++;
				*with_phys += rec[7] != 0;
			}
		}
		cr_assert_gt(h.size, 0);
		off += h.size;
	}
	return n;
}

Test(backend_open, real_page_fault_event_samples_on_cpu0)
{
	struct mem_backend_opts o = opts_for("vm");
	struct mem_backend b;
	struct ring r;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t t0, t1;
	char *buf;
	int fd, n, with_phys = 0;

	o.want = MEM_BACKEND_SOFTWARE;
	choose_ok(&o, &b);
	cr_assert_eq(b.ev[0].attr.sample_type, COMMON_SAMPLE, "the layout count_samples_in reads");
	fd = mem_event_open(&b.ev[0], 0, -1);
	if (fd < 0 && (errno == EACCES || errno == EPERM))
		cr_skip_test("SKIP: perf_event_open denied: %s", scx_errmsg());
	cr_assert_geq(fd, 0, "%s", scx_errmsg());
	map_ring(fd, &r);
	pin_to_cpu0();
	buf = mmap(NULL, (size_t)page * 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	cr_assert_neq(buf, MAP_FAILED);
	t0 = now_ns();
	cr_assert_eq(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	for (int i = 0; i < 16; i++)
		((volatile char *)buf)[(long)i * page] = 1;
	cr_assert_eq(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	t1 = now_ns();
	n = count_samples_in(&r, (uintptr_t)buf, (uintptr_t)buf + 16 * (uintptr_t)page, t0, t1, &with_phys);
	cr_assert_geq(n, 16, "one sample per first touch, with addr and CLOCK_MONOTONIC time");
	/* minor-faults is counted once the page is mapped: the kernel fills in
	 * phys_addr (page-faults, counted on entry, had 0 here) */
	cr_assert_eq(with_phys, n, "%d of %d samples with a physical address", with_phys, n);
	munmap(buf, (size_t)page * 16);
	munmap(r.base, r.len);
	close(fd);
}

Test(backend_open, real_open_of_missing_pmu_type_fails_clearly)
{
	struct mem_event ev = intel_event();

	ev.attr.type = 0x7ffff; /* no such PMU */
	cr_assert_eq(mem_event_open(&ev, 0, -1), -1);
	cr_assert(strstr(scx_errmsg(), "cpu/mem-loads,ldlat=10/P on cpu 0: perf_event_open: "),
		  "%s", scx_errmsg());
}
