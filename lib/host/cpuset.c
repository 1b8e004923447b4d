/*
 * cpuset.c - the cgroups' cpusets as scx_mitosis reads them, and this
 * machine's topology with them (see host.h): a cgroup whose cpuset.cpus
 * is set once trimmed has the CPUs of its cpuset.cpus.effective.
 */
#include "lib/host/host.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/warnings.h"

struct cpuset {
	char *path, *cpus;
};

#define CPUSET_TEXT_MAX 65536 /* a kernel's cpulist of every one of 8192 CPUs apart is under 40 KB */

struct found {
	struct cpuset *v;
	size_t n, cap;
	struct warnings *w;
	char *buf; /* CPUSET_TEXT_MAX bytes */
};

static void warn(struct warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct warnings *w, const char *fmt, ...)
{
	va_list ap;

	if (!w)
		return;
	va_start(ap, fmt);
	warnings_vadd(w, fmt, ap);
	va_end(ap);
}

/*
 * The text of the small file path in buf, whitespace around it trimmed:
 * 0; 1 when there is no such file; -1 (a line in w) when it cannot be read
 * or is not text of under size bytes.
 */
static int read_trimmed(const char *path, char *buf, size_t size, struct warnings *w)
{
	size_t len = 0, start = 0;
	ssize_t got = 1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		return 1;
	if (fd < 0) {
		warn(w, "%s: %s: its cgroup's cpuset is left out", path, strerror(errno));
		return -1;
	}
	while (len < size && (got = read(fd, buf + len, size - len)) > 0)
		len += (size_t)got;
	close(fd);
	if (got < 0) {
		warn(w, "%s: %s: its cgroup's cpuset is left out", path, strerror(errno));
		return -1;
	}
	if (len == size || memchr(buf, '\0', len)) {
		warn(w, "%s: not a CPU list (%s): its cgroup's cpuset is left out", path,
		     len == size ? "too long" : "a NUL byte");
		return -1;
	}
	while (len && strchr(" \t\n\r\v\f", buf[len - 1]))
		len--;
	while (start < len && strchr(" \t\n\r\v\f", buf[start]))
		start++;
	memmove(buf, buf + start, len - start);
	buf[len - start] = '\0';
	return 0;
}

static int add_cpuset(const char *dir, const char *rel, void *ctx)
{
	struct found *f = ctx;
	char path[PATH_MAX], *buf = f->buf;
	struct cpuset *c;
	long n;
	int r;

	if (!strcmp(rel, "/")) /* the root's cpuset is every CPU: not a cell's */
		return 0;
	if (snprintf(path, sizeof(path), "%s/cpuset.cpus", dir) >= (int)sizeof(path) ||
	    read_trimmed(path, buf, CPUSET_TEXT_MAX, f->w) != 0 || !buf[0])
		return 0; /* no cpuset (or a line in w) */
	if (snprintf(path, sizeof(path), "%s/cpuset.cpus.effective", dir) >= (int)sizeof(path) ||
	    (r = read_trimmed(path, buf, CPUSET_TEXT_MAX, f->w)) < 0)
		return 0;
	if (r > 0 || (n = host_cpulist_count(buf)) <= 0) {
		warn(f->w, "%s: %s: its cgroup's cpuset is left out", path,
		     r > 0 ? "no such file" : n ? "not a CPU list" : "empty");
		return 0;
	}
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;
		struct cpuset *v = realloc(f->v, cap * sizeof(*v));

		if (!v)
			return scx_fail("out of memory (%zu cpusets)", cap);
		f->v = v;
		f->cap = cap;
	}
	c = &f->v[f->n];
	if (!(c->path = strdup(rel)) || !(c->cpus = strdup(buf))) {
		free(c->path);
		return scx_fail("out of memory");
	}
	f->n++;
	return 0;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct cpuset *)a)->path, ((const struct cpuset *)b)->path);
}

static void drop_cpusets(struct host_topology *t)
{
	for (size_t i = 0; i < t->nr_cpusets; i++) {
		free(t->cpuset_path[i]);
		free(t->cpuset_cpus[i]);
	}
	free(t->cpuset_path);
	free(t->cpuset_cpus);
	t->cpuset_path = t->cpuset_cpus = NULL;
	t->nr_cpusets = 0;
}

int host_cgroup_cpusets(const char *root, struct host_topology *t, struct warnings *w)
{
	struct found f = {.w = w};
	size_t i;
	int rc;

	drop_cpusets(t);
	if (!(f.buf = malloc(CPUSET_TEXT_MAX)))
		return scx_fail("out of memory");
	rc = host_cgroup_walk(root, add_cpuset, &f);
	free(f.buf);
	if (rc == 0 && f.n) {
		qsort(f.v, f.n, sizeof(*f.v), by_path);
		t->cpuset_path = calloc(f.n, sizeof(char *));
		t->cpuset_cpus = calloc(f.n, sizeof(char *));
		if (!t->cpuset_path || !t->cpuset_cpus) {
			free(t->cpuset_path);
			free(t->cpuset_cpus);
			t->cpuset_path = t->cpuset_cpus = NULL;
			rc = scx_fail("out of memory (%zu cpusets)", f.n);
		}
	}
	for (i = 0; i < f.n; i++)
		if (rc == 0) {
			t->cpuset_path[i] = f.v[i].path;
			t->cpuset_cpus[i] = f.v[i].cpus;
			t->nr_cpusets++;
		} else {
			free(f.v[i].path);
			free(f.v[i].cpus);
		}
	free(f.v);
	return rc;
}

int host_topology_live(struct host_topology *t, struct warnings *w)
{
	char mnt[PATH_MAX];

	if (host_topology_sysfs("/sys", t) < 0)
		return -1;
	if (host_cgroup2_mount(mnt, sizeof(mnt)) < 0) { /* no cgroup2: no cpusets */
		scx_clear_error();
		return 0;
	}
	if (host_cgroup_cpusets(mnt, t, w) < 0) {
		host_topology_free(t);
		return -1;
	}
	return 0;
}
