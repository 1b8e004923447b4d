/*
 * sample-sink.c - a recorder that does nothing: the kernel's share of the
 * decode backend's cost, for bench/bench_decode.py.
 *
 * usage: sample-sink [-F HZ] [-r REGS_MASK] [-u] -- COMMAND [ARG...]
 * Opens one cpu-clock event per online CPU, system-wide, at HZ (default
 * 1000) with PERF_SAMPLE_REGS_USER of REGS_MASK (hex; default the 17
 * x86-64 general-purpose registers and ip) and the sample fields the decode
 * backend asks for, each with a ring buffer; runs COMMAND and, while it
 * runs, throws the samples away every 100 ms (data_tail = data_head, no
 * record read). -u excludes kernel-mode and idle samples (exclude_kernel,
 * exclude_idle). So the kernel does all of its work (the hrtimer
 * interrupt, the sample with its registers copied into the ring) and the
 * sink almost none. At the end it prints "sink bytes B" (what the kernel
 * wrote) to stderr and exits with COMMAND's status.
 */
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 1024
#define RING_PAGES 256

struct ring {
	int fd;
	struct perf_event_mmap_page *ctl;
	size_t map_size;
};

static struct ring rings[MAX_CPUS];
static int nr_rings;
static uint64_t total_bytes;

static void drop_all(void)
{
	for (int i = 0; i < nr_rings; i++) {
		struct perf_event_mmap_page *c = rings[i].ctl;
		uint64_t head = __atomic_load_n(&c->data_head, __ATOMIC_ACQUIRE);

		total_bytes += head - c->data_tail;
		__atomic_store_n(&c->data_tail, head, __ATOMIC_RELEASE);
	}
}

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	uint64_t hz = 1000, regs = 0xff01ff;
	long page = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int c, status = 0, user_only = 0;
	pid_t child;

	while ((c = getopt(argc, argv, "F:r:u")) != -1) {
		switch (c) {
		case 'F': hz = strtoull(optarg, NULL, 10); break;
		case 'r': regs = strtoull(optarg, NULL, 16); break;
		case 'u': user_only = 1; break;
		default: goto usage;
		}
	}
	if (optind >= argc || !hz || ncpu <= 0 || ncpu > MAX_CPUS)
		goto usage;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = hz;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_CGROUP;
	a.sample_regs_user = regs;
	a.disabled = 1;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.exclude_guest = 1;
	a.exclude_kernel = a.exclude_idle = (unsigned)user_only;
	for (long cpu = 0; cpu < ncpu; cpu++) {
		struct ring *r = &rings[nr_rings];

		r->fd = (int)syscall(SYS_perf_event_open, &a, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (r->fd < 0) {
			perror("sample-sink: perf_event_open");
			return 1;
		}
		r->map_size = (size_t)(RING_PAGES + 1) * (size_t)page;
		r->ctl = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
		if (r->ctl == MAP_FAILED) {
			perror("sample-sink: mmap");
			return 1;
		}
		nr_rings++;
	}
	for (int i = 0; i < nr_rings; i++)
		ioctl(rings[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	child = fork();
	if (child < 0) {
		perror("sample-sink: fork");
		return 1;
	}
	if (child == 0) {
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	for (;;) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		pid_t w = waitpid(child, &status, WNOHANG);

		drop_all();
		if (w == child)
			break;
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < nr_rings; i++)
		ioctl(rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	drop_all();
	fprintf(stderr, "sink bytes %llu\n", (unsigned long long)total_bytes);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
usage:
	fprintf(stderr, "usage: sample-sink [-F HZ] [-r REGS_MASK] [-u] -- COMMAND [ARG...]\n");
	return 2;
}
