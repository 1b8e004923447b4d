/*
 * place_host.h - what `scxprof place` reads from and does to this host:
 * the threads of a process (/proc/PID/task) or of a cgroup v2 subtree
 * (cgroup.threads), each thread's comm, process, cgroup and CPU time
 * (/proc/TID/schedstat), its hint in a pinned BPF task-storage map (the
 * map record --hints-map traces; looked up by a PIDFD_THREAD pidfd), and
 * pinning a thread to an LLC's CPUs (sched_setaffinity).
 */
#ifndef SCX_PLACE_HOST_H
#define SCX_PLACE_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "llc/llc.h"
#include "place/place_plan.h"

struct place_tids {
	int64_t *v;
	size_t n, cap;
};

void place_tids_free(struct place_tids *t);
/* Append tid unless present. -1 on OOM. */
int place_tids_add(struct place_tids *t, int64_t tid);
int place_tids_has(const struct place_tids *t, int64_t tid);

/* The threads of process pid, appended. -1 (scx_fail "pid N: no such process") when it is gone. */
int place_host_process_tids(int64_t pid, struct place_tids *out);
/*
 * The threads of cgroup path and its descendants, appended: path absolute
 * (under the cgroup2 mount) or relative to the cgroup2 mount. -1
 * (scx_fail naming path) when it is no cgroup v2 directory.
 */
int place_host_cgroup_tids(const char *path, struct place_tids *out);

/*
 * Read tid's comm, process and cgroup into t (scope and llc untouched),
 * and its CPU time so far. 1 when the thread is gone, -1 (scx_fail) on
 * another error.
 */
int place_host_thread(int64_t tid, struct place_thread *t, uint64_t *runtime_ns);

/* A pinned task-storage map's fd (bpf(BPF_OBJ_GET)). -1 (scx_fail naming path). */
int place_host_hints_open(const char *path);
/* tid's hint (the value's first 8 bytes; 0 when it has none). 1 when the thread is gone, -1 on error. */
int place_host_hint(int map_fd, int64_t tid, uint64_t *hint);

/* Pin tid to the CPUs of LLC llc. 1 when the thread is gone, -1 (scx_fail naming tid) on error. */
int place_host_pin(int64_t tid, const struct llc_map *m, int llc);
/* Pin tid to cpus[0..n) (CPU numbers). 1 when the thread is gone, -1 (scx_fail naming tid) on error. */
int place_host_pin_cpus(int64_t tid, const int *cpus, size_t n);

#endif
