/*
 * backend_open.c - mem_event_open(): perf_event_open(2) of one memory
 * event on one cpu with perf's fallbacks (precise_ip stepped down from the
 * wanted level; WEIGHT_STRUCT replaced by WEIGHT on kernels that refuse it),
 * and error messages that say what to do about the usual failures.
 */
#include "record/backend/backend.h"
#include "lib/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int sys_perf_event_open(struct perf_event_attr *attr, int cpu, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, -1, cpu, group_fd,
			    PERF_FLAG_FD_CLOEXEC);
}

static mem_perf_open_fn open_fn = sys_perf_event_open;

void mem_event_set_open_fn(mem_perf_open_fn fn)
{
	open_fn = fn ? fn : sys_perf_event_open;
}

/* Open at attr->precise_ip, stepping down to 0 on EOPNOTSUPP/EINVAL. */
static int open_stepping_precise(struct perf_event_attr *attr, int cpu, int group_fd)
{
	for (;;) {
		int fd = open_fn(attr, cpu, group_fd);

		if (fd >= 0)
			return fd;
		if ((errno != EOPNOTSUPP && errno != EINVAL) || attr->precise_ip == 0)
			return -1;
		attr->precise_ip--;
	}
}

static long read_proc_long(const char *path, long fallback)
{
	FILE *f = fopen(path, "re");
	long v = fallback;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = fallback;
		fclose(f);
	}
	return v;
}

/* A hint for the usual reasons of err, "" when there is nothing to add. */
static void open_hint(int err, const struct perf_event_attr *attr, unsigned wanted_precise,
		      char *buf, size_t size)
{
	/* the hints that say the same whatever the event */
	static const struct {
		int err;
		const char *hint;
	} fixed[] = {
		{ENOENT, " (no such PMU or event on this cpu)"},
		{ENODEV, " (no such PMU or event on this cpu)"},
		{ENODATA, " (this PMU wants mem-loads in a group led by mem-loads-aux)"},
		{EMFILE, " (too many open files; raise ulimit -n)"},
		{EBUSY, " (the PMU is in use by another tool)"},
	};
	long max_rate;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (fixed[i].err == err)
			snprintf(buf, size, "%s", fixed[i].hint);
	switch (err) {
	case EACCES:
	case EPERM:
		snprintf(buf, size, " (perf_event_paranoid=%ld; run as root or with CAP_PERFMON)",
			 read_proc_long("/proc/sys/kernel/perf_event_paranoid", -99));
		break;
	case EOPNOTSUPP:
		snprintf(buf, size, " (not supported, even at precise_ip 0 from %u)",
			 wanted_precise);
		break;
	case EINVAL:
		max_rate = read_proc_long("/proc/sys/kernel/perf_event_max_sample_rate", -1);
		if (attr->freq && max_rate >= 0 && attr->sample_freq > (uint64_t)max_rate)
			snprintf(buf, size, " (-F %llu is above kernel.perf_event_max_sample_rate=%ld)",
				 (unsigned long long)attr->sample_freq, max_rate);
		break;
	default:
		break;
	}
}

static int open_failed(const struct mem_event *ev, const struct perf_event_attr *attr, int cpu,
		       int err)
{
	char hint[192];

	open_hint(err, attr, ev->attr.precise_ip, hint, sizeof(hint));
	if ((err == EACCES || err == EPERM) && ev->aux_area) /* Arm SPE: arm_spe_pmu_event_init */
		snprintf(hint, sizeof(hint), " (Arm SPE: pa_enable and pct_enable need root or "
			 "CAP_PERFMON; perf_event_paranoid=%ld)",
			 read_proc_long("/proc/sys/kernel/perf_event_paranoid", -99));
	scx_fail("%s on cpu %d: perf_event_open: %s%s", ev->name, cpu, strerror(err), hint);
	errno = err;
	return -1;
}

int mem_event_open(struct mem_event *ev, int cpu, int group_fd)
{
	struct perf_event_attr attr = ev->attr;
	int fd = open_stepping_precise(&attr, cpu, group_fd);

	if (fd < 0 && errno == EINVAL && (attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT)) {
		attr = ev->attr;
		attr.sample_type &= ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT;
		attr.sample_type |= PERF_SAMPLE_WEIGHT;
		fd = open_stepping_precise(&attr, cpu, group_fd);
	}
	if (fd < 0)
		return open_failed(ev, &attr, cpu, errno);
	ev->attr = attr;
	return fd;
}
