/*
 * pmu_sysfs.h - reading perf PMU descriptions from sysfs
 * (/sys/bus/event_source/devices/NAME/{type,cpus,cpumask,events/,format/,caps/})
 * and encoding event terms ("event=0xcd,umask=0x1,ldlat=3") into a
 * perf_event_attr by the PMU's format strings ("config:0-7,32-35",
 * "config1:0-15"), the way perf does, without hard-coded bit positions.
 */
#ifndef SCX_PMU_SYSFS_H
#define SCX_PMU_SYSFS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMU_SYSFS_DEFAULT_ROOT "/sys/bus/event_source/devices"
#define PMU_MAX_FORMATS 64
#define PMU_WORD_CONFIG3 3

/* One format/NAME file: which attr config word and which bits of it. */
struct pmu_format {
	char name[32];
	int word;      /* 0 = config, 1 = config1, 2 = config2, 3 = config3 (read, never set) */
	uint64_t mask; /* bits of that word, filled low to high with the value */
};

struct pmu_desc {
	char name[64];
	char dir[4096];
	uint32_t type;
	char cpus[256]; /* "cpus" or "cpumask" file, "" when absent */
	struct pmu_format formats[PMU_MAX_FORMATS];
	size_t nr_formats;
};

/* The sysfs root to use: root itself, or the default when root is NULL. */
const char *pmu_sysfs_root(const char *root);

/* Does ROOT/NAME exist (as a directory)? */
bool pmu_exists(const char *root, const char *name);

/* Read ROOT/NAME: type, cpus and every format file. -1 + scx_fail on error. */
int pmu_load(const char *root, const char *name, struct pmu_desc *out);

/* Parse one format string ("config1:0-15", "config:0-7,32-35", "config:19"). */
int pmu_parse_format(const char *text, int *word, uint64_t *mask);

/* Does events/EVENT exist? */
bool pmu_has_event(const struct pmu_desc *p, const char *event);

/* Copy events/EVENT (trimmed) into buf. -1 + scx_fail when absent. */
int pmu_read_event(const struct pmu_desc *p, const char *event, char *buf, size_t size);

/* caps/CAP as a number: 1 found, 0 absent, -1 + scx_fail when unparsable. */
int pmu_read_cap(const struct pmu_desc *p, const char *cap, uint64_t *val);

/* Set format field NAME to VAL in attr (clearing its old bits first).
 * Also accepts the raw words "config", "config1", "config2". Unknown name
 * or a value wider than the field: -1 + scx_fail naming it. */
int pmu_set_term(const struct pmu_desc *p, struct perf_event_attr *attr, const char *name,
		 uint64_t val);

/* Apply a comma-separated term list in order. A term is NAME=VALUE, or a
 * bare NAME: an event alias from events/ (its own terms are applied in its
 * place) or a format flag meaning 1. "period=N" and "freq=N" set the
 * sampling period or frequency. */
int pmu_apply_terms(const struct pmu_desc *p, struct perf_event_attr *attr, const char *terms);

/* Space-separated names of the PMUs under root (for error messages). */
void pmu_list_names(const char *root, char *buf, size_t size);

#endif
