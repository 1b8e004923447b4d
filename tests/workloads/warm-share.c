/*
 * warm-share.c - a workload whose threads share memory only after a
 * warm-up, for the decode backend's tests and benchmark.
 *
 * usage: warm-share [-d SECONDS | -i ROUNDS] [-p PAGES] [-m MAPFILE] [-P PROGRESS] [-T] [GROUP...]
 *   GROUP = NAME:REGION (default: alpha:A beta:A gamma:G delta:D)
 * The main thread maps one anonymous region of PAGES pages (default 256)
 (a power of two)
 * per distinct REGION, writes every page (the warm-up: every page fault
 * happens here, in the main thread) and mlocks it, so no page of a region
 * faults again or moves. Then one thread per GROUP, named "NAME-0", loops
 * over its region in hot_loop(): loads and stores of 8-byte words at
 * pseudo-random offsets, no other memory access (no page fault either).
 * Groups naming the same REGION share it; the others share nothing.
 * With -m, after the warm-up it writes MAPFILE (complete when it appears:
 * written to MAPFILE.tmp, then renamed) with its pid ("pid N"), one line
 * per region,
 * "region NAME START END" (hex, END exclusive), and one per page,
 * "page VADDR PHYS" (hex; PHYS 0 when /proc/self/pagemap hides PFNs).
 * With -P, after the warm-up it creates PROGRESS (complete when it
 * appears) holding one 64-bit count per GROUP, in memory it shares with
 * the threads: each adds 1 after every round of hot_loop (for
 * sample-sink's on/off windows, bench/bench_decode.py).
 * With -T it prints "work WALL_S cpu CPU_S" to stderr at the end: the wall
 * time of the threads' phase and the process's CPU time (for bench/).
 * Exits 0 after SECONDS (default 2) or ROUNDS passes of every thread.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_GROUPS 16

struct region {
	char name[32];
	uint64_t *mem;
};

struct group {
	char name[32];
	struct region *region;
	pthread_t thread;
};

static struct region regions[MAX_GROUPS];
static int nr_regions;
static struct group groups[MAX_GROUPS];
static int nr_groups;
static long pages = 256;
static double seconds = 2.0;
static long rounds = -1;
static size_t page_size;
static uint64_t *progress; /* -P: rounds done, per group */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The only memory this touches is words of mem (words a power of two):
 * per step two loads and a store at pseudo-random word offsets, n steps.
 * Returns the state. */
__attribute__((noinline)) static uint64_t hot_loop(uint64_t *mem, uint64_t words, uint64_t x, long n)
{
	uint64_t mask = words - 1;

	for (long i = 0; i < n; i++) {
		uint64_t j;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		j = (x >> 33) & mask;
		x ^= mem[j];
		mem[(j + 513) & mask] = x;
		x += mem[(j * 7 + 1) & mask];
	}
	return x;
}

static void *work(void *arg)
{
	struct group *g = arg;
	char tname[16];
	uint64_t words = (uint64_t)pages * page_size / 8, x = (uintptr_t)g;
	double end = now() + seconds;

	snprintf(tname, sizeof(tname), "%.10s-0", g->name);
	pthread_setname_np(pthread_self(), tname);
	for (long r = 0; rounds < 0 ? now() < end : r < rounds; r++) {
		x = hot_loop(g->region->mem, words, x, 100000);
		if (progress)
			__atomic_store_n(&progress[g - groups], (uint64_t)r + 1, __ATOMIC_RELAXED);
	}
	return (void *)(uintptr_t)(x & 1);
}

static struct region *region_get(const char *name)
{
	struct region *r;

	for (int i = 0; i < nr_regions; i++)
		if (!strcmp(regions[i].name, name))
			return &regions[i];
	if (nr_regions == MAX_GROUPS)
		return NULL;
	r = &regions[nr_regions++];
	snprintf(r->name, sizeof(r->name), "%.31s", name);
	r->mem = mmap(NULL, (size_t)pages * page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->mem == MAP_FAILED)
		return NULL;
	madvise(r->mem, (size_t)pages * page_size, MADV_NOHUGEPAGE);
	/* the warm-up: every fault of the region happens here */
	memset(r->mem, 0x5a, (size_t)pages * page_size);
	if (mlock(r->mem, (size_t)pages * page_size) < 0)
		perror("warm-share: mlock (pages may move)");
	return r;
}

static int write_map(const char *path)
{
	char tmp[4096];
	FILE *f;
	int pm = open("/proc/self/pagemap", O_RDONLY);

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(f = fopen(tmp, "w")))
		return -1;
	fprintf(f, "pid %d\n", (int)getpid());
	for (int i = 0; i < nr_regions; i++) {
		uintptr_t start = (uintptr_t)regions[i].mem;

		fprintf(f, "region %s %lx %lx\n", regions[i].name, (unsigned long)start,
			(unsigned long)(start + (size_t)pages * page_size));
		for (long p = 0; p < pages; p++) {
			uintptr_t va = start + (size_t)p * page_size;
			uint64_t e = 0;

			if (pm < 0 || pread(pm, &e, 8, (off_t)(va / page_size * 8)) != 8 || !(e >> 63))
				e = 0;
			fprintf(f, "page %lx %llx\n", (unsigned long)va,
				(unsigned long long)((e & ((1ULL << 55) - 1)) * page_size));
		}
	}
	if (pm >= 0)
		close(pm);
	if (fclose(f) != 0)
		return -1;
	return rename(tmp, path);
}

/* The -P file, shared with this process: created as PATH.tmp, renamed. */
static int make_progress(const char *path)
{
	char tmp[4096];
	size_t size = MAX_GROUPS * sizeof(uint64_t);
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		return -1;
	progress = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (progress == MAP_FAILED) {
		progress = NULL;
		return -1;
	}
	return rename(tmp, path);
}

int main(int argc, char **argv)
{
	static char *defaults[] = { "alpha:A", "beta:A", "gamma:G", "delta:D" };
	const char *map_path = NULL, *progress_path = NULL;
	char **specs;
	int nspecs, c, report = 0;
	double t0;
	struct rusage ru;

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	while ((c = getopt(argc, argv, "d:i:p:m:P:T")) != -1) {
		switch (c) {
		case 'd': seconds = atof(optarg); break;
		case 'i': rounds = atol(optarg); break;
		case 'p': pages = atol(optarg); break;
		case 'm': map_path = optarg; break;
		case 'P': progress_path = optarg; break;
		case 'T': report = 1; break;
		default: goto usage;
		}
	}
	if (pages <= 0 || (pages & (pages - 1)))
		goto usage; /* a power of two: hot_loop masks offsets */
	specs = optind < argc ? argv + optind : defaults;
	nspecs = optind < argc ? argc - optind : 4;
	for (int i = 0; i < nspecs; i++) {
		char spec[80], *colon;

		snprintf(spec, sizeof(spec), "%s", specs[i]);
		if (!(colon = strchr(spec, ':')) || colon == spec || !colon[1] || nr_groups == MAX_GROUPS)
			goto usage;
		*colon = '\0';
		snprintf(groups[nr_groups].name, sizeof(groups[0].name), "%.31s", spec);
		if (!(groups[nr_groups++].region = region_get(colon + 1))) {
			perror("warm-share: region");
			return 1;
		}
	}
	if (map_path && write_map(map_path) < 0) {
		perror(map_path);
		return 1;
	}
	if (progress_path && make_progress(progress_path) < 0) {
		perror(progress_path);
		return 1;
	}
	t0 = now();
	for (int i = 0; i < nr_groups; i++)
		if (pthread_create(&groups[i].thread, NULL, work, &groups[i]) != 0) {
			fprintf(stderr, "warm-share: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < nr_groups; i++)
		pthread_join(groups[i].thread, NULL);
	if (report && getrusage(RUSAGE_SELF, &ru) == 0)
		fprintf(stderr, "work %.6f cpu %.6f\n", now() - t0,
			(double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
				((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6);
	return 0;
usage:
	fprintf(stderr, "usage: %s [-d SECONDS | -i ROUNDS] [-p PAGES] [-m MAPFILE] [-P PROGRESS] [-T] [NAME:REGION...]\n", argv[0]);
	return 2;
}
