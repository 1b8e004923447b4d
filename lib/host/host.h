/*
 * host.h - lib/host's contract: one reader each of the facts a machine
 * gives about itself, and one way to put a file onto it.
 *
 * - CPU lists as the kernel prints them ("0-3,8,10-11").
 * - The CPU topology: each CPU's core, die, package, NUMA node and
 *   last-level cache. The LLC is the one scx_mitosis uses: cache index3,
 *   else index2 (a CPU with neither has no LLC: -1). Read from a sysfs tree
 *   (this machine's, or a fixture's), from a recording's perf.data feature
 *   sections (CACHE, CPU_TOPOLOGY, NUMA_TOPOLOGY, NRCPUS: the host that
 *   recorded it), or from topology.json (schemas/topology.schema.json),
 *   which is written here too.
 * - The cgroup2 mount point, a cgroup's directory under it, the one walk
 *   of a cgroup tree, and the cgroups' cpusets (cpuset.cpus.effective of
 *   each cgroup whose cpuset.cpus is set, as scx_mitosis reads them).
 * - A new file written whole or not at all: a temporary file beside it
 *   (mode 0666 less the umask, as open(2) gives), fsync, then moved to its
 *   name without ever replacing an existing file.
 *
 * Every function reports failure as lib/error.h says: -1 (or NULL) with one
 * line naming the file or the text and what is wrong.
 */
#ifndef SCX_HOST_H
#define SCX_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* ---- CPU lists (cpulist.c) ------------------------------------------- */

/* Largest CPU number a cpulist may name (the kernel's NR_CPUS is at most 8192). */
#define HOST_MAX_CPU 65535

/*
 * The CPUs of a cpulist: ranges "A" or "A-B" (A <= B), separated by ",",
 * each above the one before it; digits only, at most HOST_MAX_CPU; a
 * trailing newline is allowed, "" is the empty list. 0 and *cpus
 * (ascending, malloc'd; NULL when *n is 0); -1 (scx_fail quoting the text)
 * when malformed.
 */
int host_cpulist_parse(const char *s, int **cpus, size_t *n);
/* CPUs in a cpulist ("0-3,8,10-11" -> 7); -1 (no scx_fail) when malformed. */
long host_cpulist_count(const char *s);
/* Whether a well-formed cpulist names cpu (false when malformed). */
bool host_cpulist_has(const char *s, int cpu);
/* The lowest CPU of a cpulist; -1 when empty or malformed. */
int host_cpulist_first(const char *s);
/* Read a one-line cpulist file (sysfs's "online", "shared_cpu_list"). */
int host_cpulist_read(const char *path, int **cpus, size_t *n);

/* ---- CPU topology (topology.c, topology_sysfs.c, topology_perf.c, topology_json.c) ---- */

/* One online CPU. -1, 0 or "" where the source has no answer. */
struct host_cpu {
	int cpu;
	int core, die, package, node;
	int64_t llc;       /* the LLC's id: sysfs's cache id, else the lowest CPU sharing it; -1 none */
	int llc_level;     /* the cache level of that LLC (3 or 2 normally); -1 */
	uint64_t llc_size; /* bytes; 0 */
	char *llc_cpus;    /* cpulist of the CPUs sharing the LLC; "" */
	char *siblings;    /* SMT siblings cpulist; "" */
};

struct host_topology {
	struct host_cpu *cpus; /* ascending by cpu, no CPU twice */
	size_t n;
	char source[64];       /* what it was read from: "sysfs", "perf.data headers"; of topology.json,
				* its "source" (one of those), else "topology.json" */
	char **cpuset_path;    /* the cpusets (topology.json's, host_cgroup_cpusets'): cgroup paths below
				* the cgroup root ("/a/b"; the host's sorted) */
	char **cpuset_cpus;    /* and each one's cpuset.cpus.effective (a cpulist, no newline) */
	size_t nr_cpusets;
};

void host_topology_free(struct host_topology *t);
/* CPUs sharing the largest LLC (by llc_cpus, else by CPUs of the same llc id); n when no CPU has an LLC. */
unsigned host_topology_largest_llc(const struct host_topology *t);

/* The online CPUs under sys_root ("/sys", or a fixture's tree). */
int host_topology_sysfs(const char *sys_root, struct host_topology *t);

/*
 * The recording host's CPUs from perf.data feature sections, each the
 * section's payload or NULL/0 when absent: CPU_TOPOLOGY (core/die/package
 * per CPU, SMT siblings), CACHE (the level 3, else level 2, data or
 * unified cache holding each CPU), NUMA_TOPOLOGY (node per CPU) and
 * NRCPUS (the count of per-CPU ids). The CPUs are those of CPU_TOPOLOGY's
 * sibling lists, else of CACHE's lists. 0, or 1 when the sections name no
 * CPU (neither CPU_TOPOLOGY nor CACHE: perf record writes both; *t empty);
 * -1 (scx_fail naming what and the section) when one is malformed (every
 * count and length is checked against the section).
 */
struct host_perf_sections {
	const void *nrcpus, *cpu_topology, *numa_topology, *cache;
	uint64_t nrcpus_size, cpu_topology_size, numa_topology_size, cache_size;
};
int host_topology_perf(const struct host_perf_sections *s, const char *what, struct host_topology *t);
/* The same from an open perf.data (lib/perfdata.h), what = its path; and from a path. */
struct pd_file;
int host_topology_perfdata(const struct pd_file *f, struct host_topology *t);
int host_topology_perfdata_path(const char *path, struct host_topology *t);

/* topology.json (schemas/topology.schema.json) of t, one object and a newline. */
int host_topology_write_json(FILE *out, const struct host_topology *t, const char *what);
/* topology.json at path: a regular file of at most 16 MB whose "cpus" lists
 * CPUs by number ("cpu" required, the rest -1/"" when absent). */
int host_topology_read_json(const char *path, struct host_topology *t);

/* ---- cgroups (cgroup.c) ---------------------------------------------- */

/* The first cgroup2 mount point in /proc/self/mounts. -1 (scx_fail) when none. */
int host_cgroup2_mount(char *out, size_t size);
/*
 * The directory of a cgroup: path as it is when already under the
 * cgroup2 mount, else the mount joined with path (a leading "/" is the
 * mount's root). -1 (scx_fail) when none is mounted or it does not fit.
 */
int host_cgroup_dir(const char *path, char *out, size_t size);

/* Levels below the root a walk descends (a directory deeper still is visited, not opened). */
#define HOST_CGROUP_MAX_DEPTH 32
/* One cgroup of a walk: dir its directory, rel its path below the root ("/" for the root, "/a/b"). */
typedef int host_cgroup_fn(const char *dir, const char *rel, void *ctx);
/*
 * The one walk of a cgroup2 tree (the mount, or a fake tree under a test's
 * directory): each() for root itself, then for every directory below it,
 * a parent before its children, siblings in readdir order; names starting
 * with "." are not cgroups. A directory that cannot be opened is visited
 * but not descended into. Stops at the first non-zero each(), which is
 * returned; else 0.
 */
int host_cgroup_walk(const char *root, host_cgroup_fn *each, void *ctx);

/* ---- cpusets (cpuset.c) ---------------------------------------------- */

struct warnings;
/*
 * The cpusets of the cgroups below root (root itself left out) into t's
 * cpuset_path/cpuset_cpus (any t had are dropped), sorted by path, as
 * scx_mitosis reads them: a cgroup has one when its cpuset.cpus exists and
 * is not empty once whitespace is trimmed; its CPUs are those of its
 * cpuset.cpus.effective. A file that exists but cannot be read, is not a
 * CPU list, or an empty cpuset.cpus.effective, is one line in w naming it,
 * and its cgroup is left out. -1 (scx_fail) only when out of memory.
 */
int host_cgroup_cpusets(const char *root, struct host_topology *t, struct warnings *w);
/*
 * This machine as a scheduler starting now would see it: the sysfs
 * topology (/sys) with the cpusets of the cgroup2 mount (none when there
 * is no cgroup2 mount). What record writes, and what extract --topology
 * host, check --topology host and place without --topology take.
 */
int host_topology_live(struct host_topology *t, struct warnings *w);

/* ---- files (write_file.c) -------------------------------------------- */

/*
 * Write a new file at path: write(f, ctx) fills "<path>.tmp.XXXXXX"
 * (created O_EXCL beside it, mode 0666 less the umask), which is flushed,
 * fsync'd and moved to path (never over an existing one: "PATH: already
 * exists, not overwritten"). On any failure, write's included, nothing is
 * left behind. write returns 0 or -1 (with scx_fail).
 */
int host_write_file(const char *path, int (*write)(FILE *f, void *ctx), void *ctx);
/*
 * The same for writers of a descriptor (libarchive), the temporary created
 * with mode less the umask (a profile archive: 0600); fd is closed for it.
 */
int host_write_file_fd(const char *path, mode_t mode, int (*write)(int fd, void *ctx), void *ctx);

#endif
