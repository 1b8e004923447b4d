/*
 * llc-truth.c - known-truth workloads for the cross-LLC figure
 * (docs/llc-sharing.md "## Measured", bench/closed_loop.sh): threads that
 * share one region and pin themselves, so where each ran, and so the
 * figure's true value under a topology that puts each CPU in an LLC of its
 * own, is known.
 *
 * usage: llc-truth [-d SECONDS] [-m MIB|KIBk] [-P PERIOD_MS] [-k rw|ring] [-u PCT] [-z MS] [-s MS[:CPU]] [-R READYFILE]
 *                  [-G CGROUP_PROCS] THREAD... [+ THREAD...]
 *   THREAD = NAME             unpinned (the scheduler, or `scxprof place`, decides)
 *          | NAME:CPU         pinned to CPU the whole run
 *          | NAME:A/B[@D]     alternating: (1-D) of every period on CPU A, then D on CPU B
 *                             (D a fraction, default 0.5; -P PERIOD_MS, default 1000)
 * The kernel keeps 15 bytes of a thread's name; NAME is cut to 15.
 * -k rw (default): every thread reads and writes 8-byte words of one
 *   MAP_SHARED region of MIB MiB (default 4; "64k": 64 KiB, at least 4k) at pseudo-random offsets
 *   (xorshift, seeded per thread), nothing else in its loop.
 * -k ring: a producer/consumer pair over the region as a ring of 64-byte
 *   slots: the first THREAD writes each slot and then publishes its index,
 *   the others (consumers) read every published slot (each at its own pace;
 *   the producer waits when it is a whole ring ahead of the slowest; a
 *   thread that waits yields its CPU, so a producer and a consumer on one
 *   CPU take turns on the ring instead of spinning out their slices).
 * Truths under a topology with one LLC per CPU, by the definition "of the
 * accesses to data another thread also uses, the share whose previous
 * access by another thread came from another LLC" (rw):
 *   a:0 b:1 -> 100%; a:0 b:0 -> 0%; a:0 b:0/1@D -> D; a:0 b:0 c:1 -> 2/3.
 * The last two hold for equal access rates: with -u 40 two threads on one
 * CPU run as fast as on two (at 100% busy they halve each other's rate
 * while together, and a:0 b:0 c:1 is 3/4 of accesses, c's being half).
 * Pinned threads are created on their CPU (and the main thread faults the
 * region in from the first thread's CPU), so they never run elsewhere.
 * -u PCT: each thread works PCT% of every 10 ms and sleeps the rest
 * (default 100), so its CPU demand is at most PCT/100 of a CPU.
 * -z MS (rw): every MS ms a thread of the first THREAD's process drops the
 *   region's page-table entries in that process (MADV_DONTNEED; the shared
 *   memory keeps its data), so the next touch of each page faults again: page
 *   faults (the page-fault backend's samples) from whichever thread touches
 *   a page first, on the same placements. The threads take turns (the k-th
 *   drop is thread k mod N's): the one that drops runs at that moment, so it
 *   touches most pages first (a region's pages fault back in within
 *   microseconds, shmem's fault-around mapping 16 at a time), and a single
 *   dropper would take nearly every fault, its partners none. Their counts
 *   are first touches, not access rates.
 * -s MS[:CPU]: set-up: before the threads start, the main thread memsets
 *   the region again and again for MS ms of its CPU time (on CPU, when
 *   given, where it then also waits), then only waits for them: a thread
 *   that shares the data only while it sets it up, so the others' accesses
 *   never follow its own.
 * With -R, READYFILE is created once every thread runs (where it was
 * pinned), holding the process's pid (and the second process's). Exits 0
 * after SECONDS (default 5).
 * "+": the threads after it run in a second process (forked once the
 *   region is mapped, so both use the same shared pages: one data identity),
 *   which first joins the cgroup whose cgroup.procs file -G names: two
 *   processes, in two cgroups (two cells of a config), that share memory
 *   (rw only).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16
#define SLOT_WORDS 8 /* 64 bytes */

struct thread {
	char name[16];
	int cpu_a, cpu_b; /* -1: unpinned; cpu_b -1: pinned to cpu_a */
	double duty;      /* share of the period on cpu_b */
	int index;
	pthread_t t;
};

static struct thread threads[MAX_THREADS];
static int nr_threads;
static double seconds = 5;
static size_t words;
static long period_ms = 1000;
static int ring;
static uint64_t *region;
static _Atomic uint64_t published; /* ring: slots written */
static _Atomic uint64_t consumed[MAX_THREADS];
static _Atomic int running;
static double t_end;
static void die(const char *what)
{
	fprintf(stderr, "llc-truth: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int busy_pct = 100;
static long drop_ms; /* -z */
static int split = -1; /* threads from here run in the second process ("+"), -1: none */
static long setup_ms; /* -s */
static int setup_cpu = -1;

/* This thread's CPU time, seconds. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* -u: sleep out the rest of the 10 ms slice once PCT% of it was spent working. */
static void duty(double *slice)
{
	double t = now();
	long ns;
	struct timespec ts;

	if (busy_pct >= 100 || t - *slice < (double)busy_pct * 1e-4)
		return;
	ns = (long)((0.01 - (t - *slice)) * 1e9);
	if (ns > 0) {
		ts = (struct timespec){0, ns};
		nanosleep(&ts, NULL);
	}
	*slice = now();
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		die("sched_setaffinity");
}

/* The CPU the thread should be on at time t (alternating threads), or -1 to stay. */
static int cpu_at(const struct thread *th, double t, double t0)
{
	double phase;

	if (th->cpu_b < 0)
		return -1;
	phase = (t - t0) * 1000.0 / (double)period_ms;
	phase -= (double)(long)phase;
	return phase < 1.0 - th->duty ? th->cpu_a : th->cpu_b;
}

/* rw: random 8-byte read-modify-writes over the region; 4096 per time check. */
static void rw_loop(struct thread *th, double t0)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(th->index + 1), sum = 0;
	int on = th->cpu_a;
	double slice = t0;
	/* -z's turns: the first THREAD's process's threads, counted from the run's start */
	const int droppers = split > 0 ? split : nr_threads;
	const double run_start = t_end - seconds;
	long dropped = -1; /* the last turn this thread dropped in */

	while (now() < t_end) {
		int want = cpu_at(th, now(), t0), i;

		if (want >= 0 && want != on)
			pin(on = want);
		duty(&slice);
		if (drop_ms && th->index < droppers) {
			long turn = (long)((now() - run_start) * 1000.0 / (double)drop_ms);

			if (turn % droppers == th->index && turn != dropped) {
				if (madvise(region, words * 8, MADV_DONTNEED) < 0)
					die("madvise");
				dropped = turn;
			}
		}
		for (i = 0; i < 4096; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			sum += region[x % words]++;
		}
	}
	if (sum == 42)
		fputc(' ', stderr); /* keep the loads */
}

static uint64_t slowest(void)
{
	uint64_t m = UINT64_MAX;
	int i;

	for (i = 1; i < nr_threads; i++) {
		uint64_t c = atomic_load_explicit(&consumed[i], memory_order_acquire);

		m = c < m ? c : m;
	}
	return m;
}

/* ring: thread 0 writes slots and publishes them, the others read them in order. */
static void ring_loop(struct thread *th, double t0)
{
	size_t slots = words / SLOT_WORDS, k;
	uint64_t sum = 0, n = 0;
	int on = th->cpu_a;
	double slice = t0;

	while (now() < t_end) {
		int want = cpu_at(th, now(), t0), i;

		if (want >= 0 && want != on)
			pin(on = want);
		duty(&slice);
		for (i = 0; i < 4096; i++) {
			if (th->index == 0) {
				if (n - slowest() >= slots) {
					sched_yield(); /* a consumer on this CPU runs now, not at the end of the slice */
					break;
				}
				for (k = 0; k < SLOT_WORDS; k++)
					region[(n % slots) * SLOT_WORDS + k] = n + k;
				atomic_store_explicit(&published, ++n, memory_order_release);
			} else {
				if (n >= atomic_load_explicit(&published, memory_order_acquire)) {
					sched_yield();
					break;
				}
				for (k = 0; k < SLOT_WORDS; k++)
					sum += region[(n % slots) * SLOT_WORDS + k];
				atomic_store_explicit(&consumed[th->index], ++n, memory_order_release);
			}
		}
	}
	if (sum == 42)
		fputc(' ', stderr);
}

static void *run(void *arg)
{
	struct thread *th = arg;
	double t0;

	pthread_setname_np(pthread_self(), th->name);
	atomic_fetch_add(&running, 1);
	t0 = now();
	if (ring)
		ring_loop(th, t0);
	else
		rw_loop(th, t0);
	return NULL;
}


/* Start threads [from, to) and wait until they all run. */
static void start_threads(int from, int to)
{
	int i;

	for (i = from; i < to; i++) {
		pthread_attr_t attr;
		cpu_set_t set;

		/* a pinned thread is created on its CPU: it never runs anywhere else */
		pthread_attr_init(&attr);
		if (threads[i].cpu_a >= 0) {
			CPU_ZERO(&set);
			CPU_SET(threads[i].cpu_a, &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		if ((errno = pthread_create(&threads[i].t, &attr, run, &threads[i])) != 0)
			die("pthread_create");
		pthread_attr_destroy(&attr);
	}
	while (atomic_load(&running) < to - from)
		usleep(1000);
}

/* The second process: join the cgroup, run threads [split, nr_threads), say so on fd, exit. */
static void child(const char *procs, int fd)
{
	int i;

	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() == 1) /* ends with the first process */
		die("prctl");
	if (procs) {
		FILE *f = fopen(procs, "w");

		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0)
			die(procs);
	}
	start_threads(split, nr_threads);
	if (write(fd, "1", 1) != 1)
		die("pipe");
	close(fd);
	for (i = split; i < nr_threads; i++)
		pthread_join(threads[i].t, NULL);
	exit(0);
}

static void parse_thread(const char *arg)
{
	struct thread *th = &threads[nr_threads];
	const char *colon = strchr(arg, ':');
	char *end;

	if (nr_threads == MAX_THREADS) {
		fprintf(stderr, "llc-truth: at most %d threads\n", MAX_THREADS);
		exit(2);
	}
	snprintf(th->name, sizeof(th->name), "%.*s", colon ? (int)(colon - arg) : (int)strlen(arg), arg);
	th->cpu_a = th->cpu_b = -1;
	th->duty = 0.5;
	th->index = nr_threads++;
	if (!colon)
		return;
	th->cpu_a = (int)strtol(colon + 1, &end, 10);
	if (end == colon + 1 || th->cpu_a < 0)
		goto bad;
	if (*end == '/') {
		const char *b = end + 1;

		th->cpu_b = (int)strtol(b, &end, 10);
		if (end == b || th->cpu_b < 0)
			goto bad;
		if (*end == '@') {
			b = end + 1;
			th->duty = strtod(b, &end);
			if (end == b || th->duty < 0 || th->duty > 1)
				goto bad;
		}
	}
	if (*end)
		goto bad;
	return;
bad:
	fprintf(stderr, "llc-truth: bad THREAD '%s' (NAME, NAME:CPU or NAME:A/B[@DUTY])\n", arg);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *ready = NULL, *procs = NULL;
	cpu_set_t all;
	long kib = 4096;
	char *unit, c;
	int opt, i, fds[2];
	pid_t pid = 0;

	while ((opt = getopt(argc, argv, "d:m:P:k:R:u:G:z:s:")) != -1) {
		switch (opt) {
		case 'd': seconds = atof(optarg); break;
		case 'm':
			kib = strtol(optarg, &unit, 10);
			if (unit == optarg || (*unit && strcmp(unit, "k")))
				goto usage;
			if (!*unit)
				kib = kib > (1L << 30) ? -1 : kib * 1024;
			break;
		case 'P': period_ms = atol(optarg); break;
		case 'k': ring = !strcmp(optarg, "ring"); if (!ring && strcmp(optarg, "rw")) goto usage; break;
		case 'R': ready = optarg; break;
		case 'u': busy_pct = atoi(optarg); break;
		case 'z': drop_ms = atol(optarg); break;
		case 's':
			setup_ms = strtol(optarg, &unit, 10);
			if (*unit == ':')
				setup_cpu = atoi(unit + 1);
			else if (*unit)
				goto usage;
			break;
		case 'G': procs = optarg; break;
		default: goto usage;
		}
	}
	for (i = optind; i < argc; i++) {
		if (!strcmp(argv[i], "+") && split < 0 && nr_threads)
			split = nr_threads;
		else if (!strcmp(argv[i], "+"))
			goto usage;
		else
			parse_thread(argv[i]);
	}
	if (!nr_threads || kib < 4 || period_ms < 1 || seconds <= 0 || busy_pct < 1 || busy_pct > 100 || drop_ms < 0 || setup_ms < 0 ||
	    (ring && nr_threads < 2) ||
	    split == nr_threads || (split >= 0 && ring) || (procs && split < 0))
		goto usage;
	words = (size_t)kib << 7; /* KiB / 8 bytes */
	region = mmap(NULL, words * 8, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		die("mmap");
	/* every page faulted in before the threads start, from the first thread's CPU (its LLC owns the lines) */
	if (sched_getaffinity(0, sizeof(all), &all) < 0)
		die("sched_getaffinity");
	if (threads[0].cpu_a >= 0)
		pin(threads[0].cpu_a);
	memset(region, 1, words * 8);
	if (setup_ms && setup_cpu >= 0)
		pin(setup_cpu);
	for (double t0 = cpu_now(); setup_ms && cpu_now() - t0 < (double)setup_ms * 1e-3;)
		memset(region, (int)(t0 * 1e3) & 0xff, words * 8);
	if (sched_setaffinity(0, sizeof(all), &all) < 0) /* unpinned threads inherit it */
		die("sched_setaffinity");
	t_end = now() + seconds;
	if (split >= 0) {
		if (pipe(fds) < 0)
			die("pipe");
		if ((pid = fork()) < 0)
			die("fork");
		if (pid == 0) {
			close(fds[0]);
			child(procs, fds[1]);
		}
		close(fds[1]);
		if (read(fds[0], &c, 1) != 1) {
			fprintf(stderr, "llc-truth: the second process did not start its threads\n");
			return 1;
		}
		close(fds[0]);
	}
	start_threads(0, split >= 0 ? split : nr_threads);
	if (setup_ms && setup_cpu >= 0) /* the threads have their masks: wait where the set-up ran */
		pin(setup_cpu);
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (!f || fprintf(f, "%d%s%.0d\n", (int)getpid(), pid ? " " : "", (int)pid) < 0 || fclose(f) != 0)
			die(ready);
	}
	for (i = 0; i < (split >= 0 ? split : nr_threads); i++)
		pthread_join(threads[i].t, NULL);
	if (pid)
		waitpid(pid, NULL, 0);
	return 0;
usage:
	fprintf(stderr, "usage: llc-truth [-d SECONDS] [-m MIB|KIBk] [-P PERIOD_MS] [-k rw|ring] [-u PCT] [-z MS] [-s MS[:CPU]] [-R READYFILE]\n"
			"                 [-G CGROUP_PROCS] THREAD... [+ THREAD...]\n"
			"  THREAD = NAME | NAME:CPU | NAME:A/B[@DUTY]; threads after + run in a second process (rw)\n");
	return 2;
}
