/*
 * interleaved.c - two threads on private 64-byte objects that share every
 * page and no cache line: the negative control of the line evidence
 * (docs/clustering.md, "Estimator").
 *
 * usage: interleaved [-d SECONDS] [-n OBJECTS] [-m heap|mmap] [-s]
 * The main thread allocates OBJECTS (default 65536) 64-byte objects for
 * each of two threads, alternately: from the heap with aligned_alloc(64,
 * 64) (-m heap, the default: glibc places them one after the other, so a
 * page holds objects of both threads), or as the even and odd lines of one
 * anonymous mmap (-m mmap). It writes every object (the warm-up: all page
 * faults happen here), then starts "alpha-0" and "beta-0", each of which
 * loops over its own objects at pseudo-random, adding to their eight
 * words. Nothing is shared. With -s (the positive control) both threads
 * use the same objects, writing different words of each line (false
 * sharing). Exits 0 after SECONDS (default 2).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

struct obj {
	uint64_t w[8];
};

static long nobj = 65536;
static double seconds = 2.0;
static int same_lines;
static volatile int stop;
static struct obj **objs[2];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static uint64_t touch(struct obj **o, long n, uint64_t x, int half)
{
	for (int i = 0; i < 100000; i++) {
		struct obj *p;
		int k;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		p = o[(x >> 33) % (uint64_t)n];
		k = half < 0 ? (int)((x >> 20) & 7) : half * 4 + (int)((x >> 20) & 3);
		p->w[k] += x;
	}
	return x;
}

static void *run(void *arg)
{
	int t = (int)(intptr_t)arg;
	uint64_t x = 12345 + (uint64_t)t;

	prctl(PR_SET_NAME, t ? "beta-0" : "alpha-0");
	while (!stop)
		x = touch(same_lines ? objs[0] : objs[t], nobj, x, same_lines ? t : -1);
	return (void *)(uintptr_t)(x & 1);
}

int main(int argc, char **argv)
{
	const char *mode = "heap";
	pthread_t th[2];
	struct obj *region = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "d:n:m:s")) != -1) {
		if (opt == 'd')
			seconds = atof(optarg);
		else if (opt == 'n')
			nobj = atol(optarg);
		else if (opt == 'm')
			mode = optarg;
		else if (opt == 's')
			same_lines = 1;
		else
			goto usage;
	}
	if (nobj < 1 || (strcmp(mode, "heap") && strcmp(mode, "mmap")))
		goto usage;
	objs[0] = calloc((size_t)nobj, sizeof(*objs[0]));
	objs[1] = calloc((size_t)nobj, sizeof(*objs[1]));
	if (!objs[0] || !objs[1])
		return 1;
	if (!strcmp(mode, "mmap")) {
		region = mmap(NULL, (size_t)nobj * 2 * sizeof(struct obj), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (region == MAP_FAILED)
			return 1;
	}
	for (long i = 0; i < nobj; i++)
		for (int t = 0; t < 2; t++) {
			struct obj *o = region ? &region[2 * i + t] : aligned_alloc(64, sizeof(struct obj));

			if (!o)
				return 1;
			memset(o, 0, sizeof(*o));
			objs[t][i] = o;
		}
	for (int t = 0; t < 2; t++)
		if (pthread_create(&th[t], NULL, run, (void *)(intptr_t)t))
			return 1;
	for (double end = now() + seconds; now() < end;)
		usleep(10000);
	stop = 1;
	for (int t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	return 0;
usage:
	fprintf(stderr, "usage: interleaved [-d SECONDS] [-n OBJECTS] [-m heap|mmap] [-s]\n");
	return 2;
}
