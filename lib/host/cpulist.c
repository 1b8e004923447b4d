/*
 * cpulist.c - the one reader of CPU lists (see host.h): "0-3,8,10-11" as
 * sysfs, perf.data's feature sections and topology.json print them.
 * Digits only (strtol would take a sign, spaces and numbers that wrap),
 * ranges ascending and apart, so that a count is the number of CPUs.
 */
#include "lib/host/host.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/* A CPU number at s: digits, at most HOST_MAX_CPU. The end, or NULL. */
static const char *cpu_number(const char *s, long *v)
{
	long x = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		x = x * 10 + (*p - '0');
		if (x > HOST_MAX_CPU)
			return NULL;
	}
	*v = x;
	return p == s ? NULL : p;
}

/*
 * Walk the ranges of s, calling each(lo, hi, ctx) (stopping when it
 * returns non-zero, which is returned). -2 when malformed.
 */
static int walk(const char *s, int (*each)(long lo, long hi, void *ctx), void *ctx)
{
	long prev = -1;

	if (*s == '\n' && !s[1])
		return 0;
	while (*s) {
		long a, b;
		int rc;

		if (!(s = cpu_number(s, &a)))
			return -2;
		b = a;
		if (*s == '-' && (!(s = cpu_number(s + 1, &b)) || b < a))
			return -2;
		if (a <= prev)
			return -2;
		prev = b;
		if ((rc = each(a, b, ctx)))
			return rc;
		if (*s == ',')
			s++;
		else if (*s == '\n' && !s[1])
			break;
		else if (*s)
			return -2;
		else
			break;
		if (!*s || *s == '\n') /* a trailing comma */
			return -2;
	}
	return 0;
}

static int count_range(long lo, long hi, void *ctx)
{
	*(long *)ctx += hi - lo + 1;
	return 0;
}

long host_cpulist_count(const char *s)
{
	long n = 0;

	return walk(s, count_range, &n) < 0 ? -1 : n;
}

struct fill {
	int *cpus;
	size_t n;
};

static int fill_range(long lo, long hi, void *ctx)
{
	struct fill *f = ctx;

	for (; lo <= hi; lo++)
		f->cpus[f->n++] = (int)lo;
	return 0;
}

int host_cpulist_parse(const char *s, int **cpus, size_t *n)
{
	long count = host_cpulist_count(s);
	struct fill f = {0};

	*cpus = NULL;
	*n = 0;
	if (count < 0)
		return scx_fail("\"%.64s%s\": not a CPU list (ascending ranges such as 0-3,8 of CPUs 0 to %d)", s,
				strlen(s) > 64 ? "..." : "", HOST_MAX_CPU);
	if (!count)
		return 0;
	if (!(f.cpus = malloc((size_t)count * sizeof(int))))
		return scx_fail("out of memory (%ld CPUs)", count);
	walk(s, fill_range, &f);
	*cpus = f.cpus;
	*n = f.n;
	return 0;
}

static int has_range(long lo, long hi, void *ctx)
{
	long cpu = *(int *)ctx;

	return cpu >= lo && cpu <= hi;
}

bool host_cpulist_has(const char *s, int cpu)
{
	return host_cpulist_count(s) >= 0 && walk(s, has_range, &cpu) == 1;
}

static int first_range(long lo, long hi, void *ctx)
{
	(void)hi;
	*(long *)ctx = lo;
	return 1;
}

int host_cpulist_first(const char *s)
{
	long first = -1;

	if (host_cpulist_count(s) < 0)
		return -1;
	walk(s, first_range, &first);
	return (int)first;
}

int host_cpulist_read(const char *path, int **cpus, size_t *n)
{
	char buf[65536];
	FILE *f = fopen(path, "re");
	size_t len;

	*cpus = NULL;
	*n = 0;
	if (!f)
		return scx_fail_errno("%s", path);
	len = fread(buf, 1, sizeof(buf) - 1, f);
	if (ferror(f)) {
		fclose(f);
		return scx_fail_errno("%s", path);
	}
	fclose(f);
	buf[len] = '\0';
	if (strlen(buf) != len)
		return scx_fail("%s: a NUL byte in a CPU list", path);
	return host_cpulist_parse(buf, cpus, n) < 0 ? scx_fail_prefix("%s", path) : 0;
}
