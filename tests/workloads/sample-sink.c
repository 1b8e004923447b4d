/*
 * sample-sink.c - a recorder that does nothing: the kernel's share of the
 * decode backend's cost, for bench/bench_decode.py.
 *
 * usage: sample-sink [-F HZ] [-r REGS_MASK] [-u] [-w MS -P PROGRESS] -- COMMAND [ARG...]
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
 *
 * With -w MS -P PROGRESS (COMMAND is warm-share -P PROGRESS -d SECONDS),
 * the events are switched on and off every MS ms once PROGRESS appears,
 * and the rounds the workload's threads complete are counted per window:
 * "windows on N RATE off M RATE" (rounds per second, whole windows only;
 * the window in which COMMAND ends is dropped). Adjacent windows see the
 * same host, so their rates' ratio is the kernel's sampling cost with the
 * slow drifts of a shared machine cancelled.
 */
#include <fcntl.h>
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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void set_all(unsigned long req)
{
	for (int i = 0; i < nr_rings; i++)
		ioctl(rings[i].fd, req, 0);
}

static void drop_all(void)
{
	for (int i = 0; i < nr_rings; i++) {
		struct perf_event_mmap_page *c = rings[i].ctl;
		uint64_t head = __atomic_load_n(&c->data_head, __ATOMIC_ACQUIRE);

		total_bytes += head - c->data_tail;
		__atomic_store_n(&c->data_tail, head, __ATOMIC_RELEASE);
	}
}

static uint64_t progress_sum(const volatile uint64_t *p)
{
	uint64_t sum = 0;

	for (int i = 0; i < 16; i++)
		sum += __atomic_load_n(&p[i], __ATOMIC_RELAXED);
	return sum;
}

/* The -w mode: on/off windows until child exits; returns its status. */
static int windows(pid_t child, long ms, const char *path)
{
	double t_on = 0, t_off = 0, r_on = 0, r_off = 0;
	int n_on = 0, n_off = 0, status = 0, fd = -1, on = 1;
	const volatile uint64_t *p;

	while ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		if (waitpid(child, &status, WNOHANG) == child) {
			fprintf(stderr, "sample-sink: %s never appeared\n", path);
			return status ? status : 1 << 8;
		}
		sleep_ms(1);
	}
	p = mmap(NULL, 16 * sizeof(uint64_t), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror(path);
		return 1 << 8;
	}
	for (;;) {
		uint64_t c0, c1;
		double t0, t1;

		set_all(on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE);
		t0 = now();
		c0 = progress_sum(p);
		sleep_ms(ms);
		c1 = progress_sum(p);
		t1 = now();
		drop_all();
		if (waitpid(child, &status, WNOHANG) == child)
			break;
		if (on) {
			t_on += t1 - t0, r_on += (double)(c1 - c0), n_on++;
		} else {
			t_off += t1 - t0, r_off += (double)(c1 - c0), n_off++;
		}
		on = !on;
	}
	set_all(PERF_EVENT_IOC_DISABLE);
	fprintf(stderr, "windows on %d %.3f off %d %.3f\n", n_on, t_on > 0 ? r_on / t_on : 0, n_off,
		t_off > 0 ? r_off / t_off : 0);
	return status;
}

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	uint64_t hz = 1000, regs = 0xff01ff;
	long page = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int c, status = 0, user_only = 0;
	long window_ms = 0;
	const char *progress_path = NULL;
	pid_t child;

	while ((c = getopt(argc, argv, "F:r:uw:P:")) != -1) {
		switch (c) {
		case 'F': hz = strtoull(optarg, NULL, 10); break;
		case 'r': regs = strtoull(optarg, NULL, 16); break;
		case 'u': user_only = 1; break;
		case 'w': window_ms = atol(optarg); break;
		case 'P': progress_path = optarg; break;
		default: goto usage;
		}
	}
	if (optind >= argc || !hz || ncpu <= 0 || ncpu > MAX_CPUS || (window_ms > 0) != (progress_path != NULL))
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
	set_all(PERF_EVENT_IOC_ENABLE);
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
	if (window_ms > 0) {
		status = windows(child, window_ms, progress_path);
	} else {
		for (;;) {
			pid_t w = waitpid(child, &status, WNOHANG);

			drop_all();
			if (w == child)
				break;
			sleep_ms(100);
		}
	}
	set_all(PERF_EVENT_IOC_DISABLE);
	drop_all();
	fprintf(stderr, "sink bytes %llu\n", (unsigned long long)total_bytes);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
usage:
	fprintf(stderr, "usage: sample-sink [-F HZ] [-r REGS_MASK] [-u] [-w MS -P PROGRESS] -- COMMAND [ARG...]\n");
	return 2;
}
