/*
 * backend.h - how `record` samples memory accesses: Intel PEBS load
 * latency, AMD IBS op, Arm SPE, or, when no memory-sampling PMU exists
 * (VMs), by default decoding the instruction at each cpu-clock sample
 * (decode), else page-fault samples. This header is the contract of
 * record/backend/ (the rest of record/ includes nothing else from it): the
 * types and the backend names (backend.c); mem_backend_choose()
 * (backend_choose.c) probes the sysfs PMUs (or encodes --event) and builds
 * complete perf_event_attrs; mem_event_open() (backend_open.c) opens one of
 * them on one cpu with perf's fallbacks. The room's other headers
 * (backend_kit.h, backend_event.h, backend_pmu.h, pmu_sysfs.h, pfm_event.h)
 * are its own.
 */
#ifndef SCX_RECORD_BACKEND_H
#define SCX_RECORD_BACKEND_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/warnings.h"

enum mem_backend_kind {
	MEM_BACKEND_AUTO,
	MEM_BACKEND_INTEL_PEBS,
	MEM_BACKEND_AMD_IBS,
	MEM_BACKEND_ARM_SPE,
	MEM_BACKEND_SOFTWARE,   /* "page-fault" ("software" is an alias) */
	MEM_BACKEND_DECODE,     /* cpu-clock + user registers + instruction decoding */
};

#define MEM_BACKEND_DEFAULT_LDLAT 10
#define MEM_BACKEND_DEFAULT_FREQ 4000 /* perf's default when no period is given */
/* cpu-clock rate of the decode backend per CPU, from `make bench`
 * (bench/bench_decode.sh; docs/performance.md): in a VM each sample's
 * timer interrupt costs the workload about 25 us (the kernel's share,
 * the same for perf record), +2.7-3.0% at 1000 Hz before the recorder's
 * own CPU; 500 Hz keeps the whole under 3% and still gives hundreds of
 * memory samples per busy CPU-second */
#define MEM_BACKEND_DECODE_FREQ 500

struct mem_backend_opts {
	const char *sysfs_root;     /* directory holding the PMU dirs; NULL = /sys/bus/event_source/devices */
	enum mem_backend_kind want; /* --backend (AUTO by default) */
	const char *event_spec;     /* --event, or NULL */
	unsigned ldlat;             /* --ldlat, default 10 */
	uint64_t period;            /* -c, 0 = unset */
	uint64_t freq;              /* -F, 0 = unset */
	bool stores;                /* --stores */
	/* Arm SPE: may this process see physical addresses and PIDs in context
	 * packets (root, CAP_PERFMON or CAP_SYS_ADMIN)? PROBE asks the kernel
	 * (effective capabilities); tests set YES/NO */
	enum { MEM_PRIV_PROBE, MEM_PRIV_YES, MEM_PRIV_NO } priv;
	const char *kconfig_path;   /* Arm SPE: kernel config to read CONFIG_PID_IN_CONTEXTIDR
	                             * from; NULL = /boot/config-$(uname -r) */
};

#define MEM_BACKEND_MAX_EVENTS 6

struct mem_event {
	struct perf_event_attr attr; /* complete: type, config*, sample_type, flags, clockid, precise_ip (max wanted) */
	char name[128];              /* "cpu/mem-loads,ldlat=10/P", "page-faults", ... (used for EVENT_DESC) */
	int leader;                  /* index of the group leader in the set, or -1 (the aux leader itself: -1) */
	char cpus[256];              /* cpu list the PMU covers ("0-7"), "" = all online cpus (hybrid: per PMU) */
	bool is_aux_leader;          /* mem-loads-aux: opened but its samples are not memory samples */
	bool own_ring;               /* a ring buffer of its own on each cpu: a second software event
	                              * (see mem_stream.c, restore_sample_id), or an AUX event */
	bool aux_area;               /* Arm SPE: its data arrives in an AUX area next to its own ring */
};

struct mem_backend {
	enum mem_backend_kind kind;
	char pmu[64];         /* "cpu", "cpu_core,cpu_atom", "ibs_op", "arm_spe_0", "software" */
	char description[256]; /* one line for messages/metadata: what is sampled and how */
	struct mem_event ev[MEM_BACKEND_MAX_EVENTS];
	size_t nr_events;
	bool ldlat_applied;   /* false e.g. on AMD without caps/ldlat, or software */
	struct warnings warnings; /* e.g. the no-PMU warning */
	bool needs_aux_decoder; /* Arm SPE: data arrives in the AUX buffer, as AUXTRACE records
	                         * in perf.mem.data that process decodes */
	/* Arm SPE: the side-band event also records context switches
	 * (attr.context_switch: PERF_RECORD_SWITCH_CPU_WIDE), which attribute
	 * samples to threads where context packets carry no PID */
	bool context_switch;
	char pid_source[160];   /* Arm SPE: how samples get their thread (metadata.json) */
	const char *pid_method; /* Arm SPE: "context-packets", "switch-records" or
	                         * "context-packets-if-present" (kernel config unknown) */
	bool phys_addr;         /* Arm SPE: pa_enable set (physical addresses in the packets) */
	/* decode: the attr perf.mem.data describes its samples with (the
	 * kernel's cpu-clock samples in ev[0] are rewritten into these) */
	bool rewrites_samples;
	struct perf_event_attr out_attr;
	char decoder[64];       /* decode: "zydis 4.0.0" */
};

/* opts with the defaults: AUTO, ldlat 10, nothing else set. */
void mem_backend_opts_init(struct mem_backend_opts *o);

const char *mem_backend_name(enum mem_backend_kind k); /* "intel-pebs", ... */
int mem_backend_parse_name(const char *s, enum mem_backend_kind *k);

/* ---- backend_choose.c: probe the sysfs PMUs (or encode --event) and build
 * the complete perf_event_attrs of the memory-sampling backend `record` uses */

/* Probe and build the event set. -1 with scx_fail() on a clear refusal
 * (e.g. --backend intel-pebs on a machine without it: says what was found;
 * bad --event string: names it and libpfm's/our error). */
int mem_backend_choose(const struct mem_backend_opts *o, struct mem_backend *out);

/* ---- backend_open.c: perf_event_open(2) of one memory event of a chosen
 * backend on one cpu, with perf's fallbacks, and a hook for tests to replace
 * the system call */

/* Open one event of the set on one cpu (pid -1, system-wide) with
 * perf_event_open: tries precise_ip from attr.precise_ip down to 0 on
 * EOPNOTSUPP/EINVAL, and WEIGHT_STRUCT -> WEIGHT on EINVAL; remembers what
 * worked in *ev (so later cpus open the same). group_fd -1 or the leader's
 * fd. Returns fd or -1 with scx_fail naming the event, cpu and errno
 * (errno is kept). */
int mem_event_open(struct mem_event *ev, int cpu, int group_fd);

/* For tests: replace perf_event_open(2) (pid -1) by fn, which returns an fd
 * or -1 with errno set; NULL restores the real system call. */
typedef int (*mem_perf_open_fn)(struct perf_event_attr *attr, int cpu, int group_fd);
void mem_event_set_open_fn(mem_perf_open_fn fn);

#endif
