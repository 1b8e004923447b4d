/*
 * scxprof-workload.c - a workload with planted memory sharing, for tests,
 * the demo and benchmarks.
 *
 * usage: scxprof-workload [-d SECONDS | -i ITERATIONS] [-p PAGES] [-H MS] [-W ROUNDS] [-P] [-S] [-K] [-J] GROUP...
 *   GROUP = NAME:THREADS[:REGION[:CGROUP[:CPU]]]
 * A group with a CPU pins its threads to that CPU (pthread_setaffinity_np),
 * as taskset would, so tests can place sharing threads together or apart.
 * All groups run at the same time. -S runs the groups of this process one
 * after another instead (the old behaviour; groups in processes of their
 * own still run beside them). -P runs every group in a process of its own
 * (default: all groups are threads of one process). A group with a CGROUP (a path under the cgroup2
 * mount, e.g. workload.slice/app; created if missing) always runs in its own
 * process, moved into that cgroup before its threads start. Regions are
 * mapped before any fork, so a shared region is shared across processes too.
 * Each of the PAGES pages of a region sits in its own 64 KiB window (see
 * STRIDE). Every group runs THREADS threads named "NAME-0", "NAME-1", ... (a NAME may
 * contain spaces; the kernel keeps 15 bytes of a thread name, so NAME is cut
 * to 10). Groups naming the same REGION work on one shared
 * MAP_SHARED region of PAGES pages; a group without a REGION gets a private
 * region of its own. Each thread loops: touch every page of its region
 * (a write per page), keep the pages mapped for -H milliseconds (default 0;
 * the software sampling backend reads physical addresses from pagemap a few
 * milliseconds after the fault, so it needs them still mapped; -W ROUNDS
 * touches them ROUNDS times more meanwhile, in user space, so that an
 * instruction-sampling backend sees the same lines often), then drop
 * the region's page-table entries with MADV_DONTNEED so the next touch
 * faults again on the same physical pages.
 * That makes page faults (visible to the software sampling backend) on
 * pages whose sharing is known. -K: each thread first read()s /dev/zero
 * into PAGES fresh private pages, so the kernel's clear_user takes their
 * first-touch faults in kernel mode: a page-fault recording of the workload
 * always holds kernel-mode samples (kernel ip), whatever else it catches.
 * -J: each thread first writes PAGES fresh private pages from code it copied
 * into an anonymous executable page (as a JIT does; x86-64 and arm64 only),
 * so each of those page faults has its ip in //anon executable memory.
 * Exits 0 after the duration or iterations.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define MAX_GROUPS 32
/* One touched page per 64 KiB: the kernel's fault-around maps the other
 * pages of a 16-page window of a shared mapping on one fault, so touching
 * neighbours would fault once per window only. */
#define STRIDE 16
#define MAX_THREADS 256

struct region {
	char name[64];
	uint8_t *mem;
};

struct group {
	char name[64];
	int threads;
	struct region *region;
	char cgroup[256];
	int cpu; /* -1: not pinned */
	pid_t pid;
};

struct worker {
	struct group *g;
	int index;
	pthread_t thread;
};

static struct region regions[MAX_GROUPS];
static int nr_regions;
static long pages = 64;
static long iterations = -1;
static double seconds = 2.0;
static long hold_ms;
static long rounds; /* -W: extra passes over the mapped pages per iteration */
static int own_process;
static int sequential;
static int kernel_faults; /* -K */
static int jit_faults;    /* -J */
static size_t page_size;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct region *region_new(const char *name)
{
	struct region *r;
	int i;

	for (i = 0; name[0] && i < nr_regions; i++)
		if (!strcmp(regions[i].name, name))
			return &regions[i];
	if (nr_regions == MAX_GROUPS)
		return NULL;
	r = &regions[nr_regions++];
	snprintf(r->name, sizeof(r->name), "%.63s", name);
	r->mem = mmap(NULL, (size_t)pages * STRIDE * page_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	return r->mem == MAP_FAILED ? NULL : r;
}

/* -K: n fresh pages written by the kernel (read of /dev/zero), each first
 * touch a page fault in kernel mode. */
static int kernel_touch(long n)
{
	size_t len = (size_t)n * page_size, done = 0;
	uint8_t *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	ssize_t got = 0;

	while (buf != MAP_FAILED && fd >= 0 && done < len && (got = read(fd, buf + done, len - done)) > 0)
		done += (size_t)got;
	if (fd >= 0)
		close(fd);
	if (buf != MAP_FAILED)
		munmap(buf, len);
	return done == len ? 0 : -1;
}

/* -J: n fresh pages written by code in an anonymous executable page. */
static int jit_touch(long n)
{
#if defined(__x86_64__)
	static const uint8_t code[] = {0xc6, 0x07, 0x01, 0xc3}; /* movb $1, (%rdi); ret */
#elif defined(__aarch64__)
	static const uint32_t code[] = {0x52800021, 0x39000001, 0xd65f03c0}; /* mov w1, #1; strb w1, [x0]; ret */
#else
	static const uint8_t code[1];
	errno = ENOSYS;
	(void)n;
	(void)code;
	return -1;
#endif
#if defined(__x86_64__) || defined(__aarch64__)
	size_t len = (size_t)n * page_size;
	uint8_t *text = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void (*store)(uint8_t *);
	int rc = -1;

	if (text != MAP_FAILED && buf != MAP_FAILED) {
		memcpy(text, code, sizeof(code));
		__builtin___clear_cache((char *)text, (char *)text + sizeof(code));
		if (!mprotect(text, page_size, PROT_READ | PROT_EXEC)) {
			store = (void (*)(uint8_t *))(uintptr_t)text;
			for (long p = 0; p < n; p++)
				store(buf + (size_t)p * page_size);
			rc = 0;
		}
	}
	if (text != MAP_FAILED)
		munmap(text, page_size);
	if (buf != MAP_FAILED)
		munmap(buf, len);
	return rc;
#endif
}

static void *work(void *arg)
{
	struct worker *w = arg;
	char tname[16];
	double end = now() + seconds;
	long it, p;
	volatile uint8_t *mem = w->g->region->mem;

	snprintf(tname, sizeof(tname), "%.10s-%d", w->g->name, w->index % 1000);
	pthread_setname_np(pthread_self(), tname);
	if (w->g->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->g->cpu, &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
			fprintf(stderr, "scxprof-workload: cannot pin %s to CPU %d\n", tname, w->g->cpu);
			exit(1);
		}
	}
	if (kernel_faults && kernel_touch(pages) < 0) {
		fprintf(stderr, "scxprof-workload: %s: cannot read /dev/zero into fresh pages: %s\n", tname,
			strerror(errno));
		exit(1);
	}
	if (jit_faults && jit_touch(pages) < 0) {
		fprintf(stderr, "scxprof-workload: %s: -J: cannot run code in anonymous memory: %s\n", tname,
			strerror(errno));
		exit(1);
	}
	for (it = 0; iterations < 0 ? now() < end : it < iterations; it++) {
		for (long r = 0; r <= rounds; r++)
			for (p = 0; p < pages; p++)
				mem[(size_t)p * STRIDE * page_size + (size_t)(w->index * 8 % 64)] += 1;
		if (hold_ms)
			nanosleep(&(struct timespec){hold_ms / 1000, (hold_ms % 1000) * 1000000L}, NULL);
		madvise((void *)mem, (size_t)pages * STRIDE * page_size, MADV_DONTNEED);
	}
	return NULL;
}

static int parse_group(char *spec, struct group *g)
{
	/* strsep, not strtok: "NAME:2::CGROUP" has an empty REGION */
	char *name = strsep(&spec, ":"), *threads = strsep(&spec, ":"), *region = strsep(&spec, ":");
	char *cgroup = strsep(&spec, ":"), *cpu = strsep(&spec, ":");
	char priv[80];

	if (!name || !threads || atoi(threads) <= 0)
		return -1;
	snprintf(g->name, sizeof(g->name), "%.63s", name);
	g->threads = atoi(threads);
	if (cgroup)
		snprintf(g->cgroup, sizeof(g->cgroup), "%.255s", cgroup);
	g->cpu = cpu && *cpu ? atoi(cpu) : -1;
	if (cpu && *cpu && (g->cpu < 0 || g->cpu >= CPU_SETSIZE))
		return -1;
	if (region && !*region)
		region = NULL;
	snprintf(priv, sizeof(priv), "private:%s", name);
	g->region = region_new(region ? region : priv);
	return g->region ? 0 : -1;
}

/* Move this process into the cgroup2 directory rel (created if missing). */
static int enter_cgroup(const char *rel)
{
	char mnt[512] = "", line[1024], dev[256], dir[512], type[64], path[1024];
	FILE *f = fopen("/proc/self/mounts", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %511s %63s", dev, dir, type) == 3 && !strcmp(type, "cgroup2")) {
			snprintf(mnt, sizeof(mnt), "%s", dir);
			break;
		}
	if (f)
		fclose(f);
	if (!mnt[0]) {
		fprintf(stderr, "scxprof-workload: no cgroup2 mount for %s\n", rel);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", mnt, rel);
	for (char *p = path + strlen(mnt) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
	strncat(path, "/cgroup.procs", sizeof(path) - strlen(path) - 1);
	if (!(f = fopen(path, "w")) || fprintf(f, "%d\n", getpid()) < 0 || fclose(f) != 0) {
		fprintf(stderr, "scxprof-workload: cannot join %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Run the threads of the groups [from, to) not forked off (pid 0) in this process, and wait for them. */
static int run_groups(struct group *groups, int from, int to)
{
	static struct worker workers[MAX_THREADS];
	int nr = 0, i, t;

	for (i = from; i < to; i++)
		for (t = 0; !groups[i].pid && t < groups[i].threads && nr < MAX_THREADS; t++) {
			workers[nr] = (struct worker){.g = &groups[i], .index = t};
			if (pthread_create(&workers[nr].thread, NULL, work, &workers[nr])) {
				fprintf(stderr, "scxprof-workload: cannot start a thread\n");
				return 1;
			}
			nr++;
		}
	for (i = 0; i < nr; i++)
		pthread_join(workers[i].thread, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	static struct group groups[MAX_GROUPS];
	int opt, nr_groups = 0, i, rc = 0, status;

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "d:i:p:H:W:PSKJh")) != -1) {
		switch (opt) {
		case 'H': hold_ms = atol(optarg); break;
		case 'W': rounds = atol(optarg); break;
		case 'P': own_process = 1; break;
		case 'S': sequential = 1; break;
		case 'K': kernel_faults = 1; break;
		case 'J': jit_faults = 1; break;
		case 'd': seconds = atof(optarg); break;
		case 'i': iterations = atol(optarg); break;
		case 'p': pages = atol(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-d SECONDS | -i ITERATIONS] [-p PAGES] [-H MS] [-W ROUNDS] [-P] [-S] [-K] [-J] "
					"NAME:THREADS[:REGION[:CGROUP]]...\n", argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind == argc || pages <= 0) {
		fprintf(stderr, "%s: name at least one group NAME:THREADS[:REGION[:CGROUP]]\n", argv[0]);
		return 2;
	}
	for (i = optind; i < argc && nr_groups < MAX_GROUPS; i++) {
		if (parse_group(argv[i], &groups[nr_groups]) < 0) {
			fprintf(stderr, "%s: bad group '%s' (NAME:THREADS[:REGION[:CGROUP]]) or mmap failed: %s\n",
				argv[0], argv[i], strerror(errno));
			return 2;
		}
		nr_groups++;
	}
	/* groups of their own process first, the rest as threads of this one */
	for (i = 0; i < nr_groups; i++) {
		if (!own_process && !groups[i].cgroup[0])
			continue;
		groups[i].pid = fork();
		if (groups[i].pid < 0) {
			fprintf(stderr, "%s: fork: %s\n", argv[0], strerror(errno));
			return 1;
		}
		if (groups[i].pid == 0) {
			char pname[16];

			snprintf(pname, sizeof(pname), "%.15s", groups[i].name);
			prctl(PR_SET_NAME, pname);
			if (groups[i].cgroup[0] && enter_cgroup(groups[i].cgroup) < 0)
				_exit(1);
			_exit(run_groups(groups, i, i + 1));
		}
	}
	if (!sequential)
		rc = run_groups(groups, 0, nr_groups);
	else
		for (i = 0; i < nr_groups; i++)
			if (!groups[i].pid && run_groups(groups, i, i + 1))
				rc = 1;
	for (i = 0; i < nr_groups; i++)
		if (groups[i].pid > 0 && (waitpid(groups[i].pid, &status, 0) < 0 || !WIFEXITED(status) ||
					  WEXITSTATUS(status)))
			rc = 1;
	return rc;
}
