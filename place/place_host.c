/*
 * place_host.c - /proc, cgroup v2, BPF and affinity for `scxprof place`
 * (see place_host.h).
 */
#include "place/place_host.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/bpf.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/grow.h"
#include "lib/host/host.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

void place_tids_free(struct place_tids *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

int place_tids_has(const struct place_tids *t, int64_t tid)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i] == tid)
			return 1;
	return 0;
}

int place_tids_add(struct place_tids *t, int64_t tid)
{
	if (place_tids_has(t, tid))
		return 0;
	if (t->n == t->cap && !GROW(t->v, t->cap, 64))
		return scx_fail("out of memory");
	t->v[t->n++] = tid;
	return 0;
}

/* A decimal number that is all of s. */
static int parse_i64(const char *s, int64_t *v)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || end == s || (*end && *end != '\n') || x <= 0)
		return -1;
	*v = x;
	return 0;
}

int place_host_process_tids(int64_t pid, struct place_tids *out)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%" PRId64 "/task", pid);
	if (!(d = opendir(path)))
		return errno == ENOENT ? scx_fail("pid %" PRId64 ": no such process", pid)
				       : scx_fail_errno("pid %" PRId64 ": %s", pid, path);
	while (!rc && (e = readdir(d))) {
		int64_t tid;

		if (parse_i64(e->d_name, &tid) == 0)
			rc = place_tids_add(out, tid);
	}
	closedir(d);
	return rc;
}

static int cgroup_walk(const char *dir, struct place_tids *out, int depth)
{
	char path[PATH_MAX], line[64];
	struct dirent *e;
	FILE *f;
	DIR *d;
	int rc = 0;

	if (depth > 64)
		return scx_fail("%s: cgroups nested more than 64 deep", dir);
	if (snprintf(path, sizeof(path), "%s/cgroup.threads", dir) >= (int)sizeof(path))
		return scx_fail("%s: path too long", dir);
	if (!(f = fopen(path, "r")))
		return scx_fail_errno("%s: not a cgroup v2 directory (cgroup.threads)", dir);
	while (!rc && fgets(line, sizeof(line), f)) {
		int64_t tid;

		if (parse_i64(line, &tid) == 0)
			rc = place_tids_add(out, tid);
	}
	fclose(f);
	if (rc || !(d = opendir(dir)))
		return rc;
	while (!rc && (e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.' || snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
			continue;
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			rc = cgroup_walk(path, out, depth + 1);
	}
	closedir(d);
	return rc;
}

int place_host_cgroup_tids(const char *path, struct place_tids *out)
{
	char dir[PATH_MAX];

	if (host_cgroup_dir(path, dir, sizeof(dir)) < 0)
		return -1;
	return cgroup_walk(dir, out, 0);
}

/* Read /proc/TID/NAME into buf (NUL-terminated). 1 when the thread is gone. */
static int read_proc(int64_t tid, const char *name, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%" PRId64 "/%s", tid, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT || errno == ESRCH ? 1 : scx_fail_errno("%s", path);
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return errno == ESRCH ? 1 : scx_fail_errno("%s", path);
	buf[n] = '\0';
	return 0;
}

int place_host_thread(int64_t tid, struct place_thread *t, uint64_t *runtime_ns)
{
	char buf[4096], *p, *nl;
	unsigned long long ns;
	int rc;

	t->tid = tid;
	if ((rc = read_proc(tid, "comm", buf, sizeof(buf))) != 0)
		return rc;
	if ((nl = strchr(buf, '\n')))
		*nl = '\0';
	snprintf(t->comm, sizeof(t->comm), "%.63s", buf);
	if ((rc = read_proc(tid, "status", buf, sizeof(buf))) != 0)
		return rc;
	if (!(p = strstr(buf, "\nTgid:")) || (t->pid = strtoll(p + 6, NULL, 10)) <= 0)
		return scx_fail("/proc/%" PRId64 "/status: no Tgid", tid);
	/* the cgroup v2 line "0::/path" (the only line on a cgroup2-only host) */
	t->cgroup[0] = '\0';
	if ((rc = read_proc(tid, "cgroup", buf, sizeof(buf))) != 0)
		return rc;
	for (p = buf; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(p, "0::", 3)) {
			snprintf(t->cgroup, sizeof(t->cgroup), "%.511s", p + 3);
			break;
		}
	}
	if ((rc = read_proc(tid, "schedstat", buf, sizeof(buf))) != 0)
		return rc;
	if (sscanf(buf, "%llu", &ns) != 1)
		return scx_fail("/proc/%" PRId64 "/schedstat: no CPU time", tid);
	*runtime_ns = ns;
	return 0;
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

int place_host_hints_open(const char *path)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(uintptr_t)path;
	if ((fd = sys_bpf(BPF_OBJ_GET, &a)) < 0)
		return scx_fail_errno("%s: not a pinned BPF map", path);
	return fd;
}

int place_host_hint(int map_fd, int64_t tid, uint64_t *hint)
{
	struct bpf_map_info info;
	union bpf_attr a;
	unsigned char *value;
	int pfd, rc = 0;

	*hint = 0;
	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)map_fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uint64_t)(uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) < 0)
		return scx_fail_errno("the hints map");
	if (info.type != BPF_MAP_TYPE_TASK_STORAGE || info.key_size != 4 || info.value_size < 8)
		return scx_fail("the hints map is not a task-storage map with values of at least 8 bytes");
	if ((pfd = (int)syscall(__NR_pidfd_open, (pid_t)tid, PIDFD_THREAD)) < 0)
		return errno == ESRCH ? 1 : scx_fail_errno("pidfd of thread %" PRId64, tid);
	if (!(value = calloc(1, info.value_size))) {
		close(pfd);
		return scx_fail("out of memory");
	}
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)map_fd;
	a.key = (uint64_t)(uintptr_t)&pfd;
	a.value = (uint64_t)(uintptr_t)value;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a) == 0)
		memcpy(hint, value, sizeof(*hint));
	else if (errno != ENOENT)
		rc = errno == ESRCH ? 1 : scx_fail_errno("hint of thread %" PRId64, tid);
	free(value);
	close(pfd);
	return rc;
}

int place_host_pin(int64_t tid, const struct llc_map *m, int llc)
{
	size_t cpu, size = CPU_ALLOC_SIZE(m->nr_cpus ? m->nr_cpus : 1);
	cpu_set_t *set = CPU_ALLOC(m->nr_cpus ? m->nr_cpus : 1);
	int rc = 0;

	if (!set)
		return scx_fail("out of memory");
	CPU_ZERO_S(size, set);
	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		if (m->llc_of[cpu] == llc)
			CPU_SET_S(cpu, size, set);
	if (sched_setaffinity((pid_t)tid, size, set) < 0)
		rc = errno == ESRCH ? 1 : scx_fail_errno("thread %" PRId64 ": sched_setaffinity", tid);
	CPU_FREE(set);
	return rc;
}

int place_host_pin_cpus(int64_t tid, const int *cpus, size_t n)
{
	size_t i, top = 1, size;
	cpu_set_t *set;
	int rc = 0;

	for (i = 0; i < n; i++)
		if ((size_t)cpus[i] + 1 > top)
			top = (size_t)cpus[i] + 1;
	size = CPU_ALLOC_SIZE(top);
	if (!(set = CPU_ALLOC(top)))
		return scx_fail("out of memory");
	CPU_ZERO_S(size, set);
	for (i = 0; i < n; i++)
		CPU_SET_S((size_t)cpus[i], size, set);
	if (sched_setaffinity((pid_t)tid, size, set) < 0)
		rc = errno == ESRCH ? 1 : scx_fail_errno("thread %" PRId64 ": sched_setaffinity", tid);
	CPU_FREE(set);
	return rc;
}
