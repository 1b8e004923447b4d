/*
 * pipe-pingpong.c - `perf bench sched pipe` with a fixed placement, for
 * bench/bench_sched.py's cross-cpu mode.
 *
 * usage: pipe-pingpong LOOPS CPU_A CPU_B
 *   Two processes, pinned to CPU_A and CPU_B, pass an int back and forth
 *   over two pipes LOOPS times, as perf bench sched pipe does. Unpinned, the
 *   scheduler decides per run whether the two share a cpu (a few us per
 *   round trip) or not (every message a cross-cpu wakeup: on a VM an IPI and
 *   a halt exit), so run times mix two speeds; pinned apart, every run is the
 *   cross-cpu case. Prints "Total time: S [sec]" as perf bench does.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "pipe-pingpong: cpu %d: %s\n", cpu, strerror(errno));
		exit(1);
	}
}

static void xfer(int in, int out, int *v)
{
	if ((in >= 0 && read(in, v, sizeof(*v)) != sizeof(*v)) || (out >= 0 && write(out, v, sizeof(*v)) != sizeof(*v))) {
		perror("pipe-pingpong");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int to_b[2], to_a[2], v = 0, status;
	long loops;
	struct timespec t0, t1;
	pid_t b;

	if (argc != 4 || (loops = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: pipe-pingpong LOOPS CPU_A CPU_B\n");
		return 2;
	}
	if (pipe(to_b) < 0 || pipe(to_a) < 0) {
		perror("pipe-pingpong: pipe");
		return 1;
	}
	b = fork();
	if (b < 0) {
		perror("pipe-pingpong: fork");
		return 1;
	}
	if (b == 0) {
		pin(atoi(argv[3]));
		for (long i = 0; i < loops; i++)
			xfer(to_b[0], to_a[1], &v);
		_exit(0);
	}
	pin(atoi(argv[2]));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < loops; i++) {
		xfer(-1, to_b[1], &v);
		xfer(to_a[0], -1, &v);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (waitpid(b, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "pipe-pingpong: the other process failed\n");
		return 1;
	}
	printf("Total time: %.6f [sec]\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
