/*
 * hint-setter.c - sets per-thread hints in a pinned BPF task-storage map at
 * known times, for the hints tracer test (tests/integration/test_record_hints.sh).
 * Uses only raw bpf(2) and pidfd_open(2) syscalls, as a scheduler's userspace
 * helper would (no libbpf).
 *
 * usage: hint-setter MAP THREADS STEPS HOLD_MS [PROGRESS | seen:HINTS_GLOB]
 *   Starts THREADS worker threads. Worker i sets its own hint STEPS times
 *   (through a PIDFD_THREAD pidfd of itself), holding each value HOLD_MS
 *   and, with PROGRESS (hints-trace -P: its snapshot count), until the
 *   tracer completed two snapshots after the change (one that started after
 *   it), so a snapshot-mode tracer sees every value however loaded the
 *   machine is (no snapshot for 120 s: exit 1). With seen:HINTS_GLOB (the
 *   hints.jsonl `scxprof record` is writing, e.g. prof.tmp.XXXXXX/hints.jsonl as a glob:
 *   record exposes no snapshot count) each value is held until the file has
 *   one more line for that tid and value than before the change (not there
 *   120 s after the change: exit 1); the one exception is worker 0's value
 *   set again after its delete, held HOLD_MS only, as whether a snapshot fell
 *   between the delete and the new update cannot be seen from the file:
 *     worker 0: 0xffffffffffffff00 + step (values above 2^63)
 *     worker i: 0 at step 0 (zero is a value too), then i*1000 + step
 *   Worker 0 then deletes its value and, HOLD_MS later, sets its last value
 *   again (a value that went away and came back is a new update).
 *   Then the main thread sets 900000 + i for every worker i (the updater is
 *   not the thread the hint is for), then 4242 for itself (a plain pidfd of
 *   the thread-group leader), each held HOLD_MS; the workers stay alive until
 *   then. Bytes after the first u64 of a value are filled with 0xaa.
 * Prints one JSON line per update, in the order they were made per thread:
 *   {"tid":T,"tgid":G,"by":U,"hints":V,"before":NS,"after":NS}
 * where before/after are CLOCK_MONOTONIC ns around the bpf(2) call and U is
 * the thread that made it. Exits 1 on any failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#define MAX_THREADS 64

static int map_fd, progress_fd = -1;
static const char *seen_glob; /* seen:HINTS_GLOB, or NULL */
static unsigned value_size, steps, hold_ms;
static pthread_barrier_t started, workers_done, release;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t worker_tid[MAX_THREADS];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void die(const char *what)
{
	fprintf(stderr, "hint-setter: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int pidfd_of(pid_t tid, unsigned flags)
{
	int fd = (int)syscall(__NR_pidfd_open, tid, flags);

	if (fd < 0)
		die("pidfd_open");
	return fd;
}

/* The tracer's snapshot count (0 before it wrote one; no PROGRESS: 0). */
static uint64_t snapshots(void)
{
	char line[32] = {0};

	if (progress_fd < 0 || pread(progress_fd, line, sizeof(line) - 1, 0) < 0)
		return 0;
	return strtoull(line, NULL, 10);
}

/* What the tracer had seen when a change was made: its snapshot count and
 * (seen: mode) how many lines of its output had this tid and value. */
struct mark {
	uint64_t snaps;
	long lines;
	pid_t tid;
	uint64_t hints;
	bool watch; /* seen: mode: wait for one more line */
};

/* Complete lines of the seen: file for tid with this value (no file yet: 0). */
static long seen_lines(pid_t tid, uint64_t hints)
{
	unsigned pid, tgid;
	unsigned long long v;
	char line[256];
	long n = 0;
	glob_t g;
	FILE *f;

	if (glob(seen_glob, 0, NULL, &g) != 0)
		return 0;
	if (g.gl_pathc != 1) {
		fprintf(stderr, "hint-setter: %s matches %zu files, not one\n", seen_glob, g.gl_pathc);
		exit(1);
	}
	f = fopen(g.gl_pathv[0], "r");
	globfree(&g);
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strchr(line, '\n') &&
		    sscanf(line, "{\"pid\":%u,\"tgid\":%u,\"hints\":%llu,", &pid, &tgid, &v) == 3 &&
		    pid == (unsigned)tid && v == hints)
			n++;
	fclose(f);
	return n;
}

static struct mark mark_before(pid_t tid, uint64_t hints, bool watch)
{
	struct mark m = {.tid = tid, .hints = hints, .watch = watch && seen_glob};

	if (m.watch)
		m.lines = seen_lines(tid, hints);
	return m;
}

/* Hold a change made at mark m (see the usage above). */
static void hold(const struct mark *m)
{
	sleep_ms(hold_ms);
	if (progress_fd < 0 && !m->watch)
		return;
	for (unsigned waited = 0;
	     progress_fd >= 0 ? snapshots() < m->snaps + 2 : seen_lines(m->tid, m->hints) <= m->lines; waited++) {
		if (waited >= 60000) {
			if (progress_fd >= 0)
				fprintf(stderr, "hint-setter: the tracer completed no snapshot for 120 s\n");
			else
				fprintf(stderr, "hint-setter: tid %d value %llu not in %s 120 s after it was set\n",
					(int)m->tid, (unsigned long long)m->hints, seen_glob);
			exit(1);
		}
		sleep_ms(2);
	}
}

/* Set the hint of the thread pidfd names; print what was done. Returns the
 * mark to hold it by (watch: seen: mode waits for its line). */
static struct mark set_hint(int pidfd, pid_t tid, uint64_t hints, bool watch)
{
	struct mark m = mark_before(tid, hints, watch);
	unsigned char value[256];
	union bpf_attr attr;
	uint64_t before, after;

	memset(value, 0xaa, sizeof(value));
	memcpy(value, &hints, sizeof(hints));
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (unsigned)map_fd;
	attr.key = (uintptr_t)&pidfd;
	attr.value = (uintptr_t)value;
	attr.flags = BPF_ANY;
	before = now_ns();
	if (sys_bpf(BPF_MAP_UPDATE_ELEM, &attr))
		die("bpf(BPF_MAP_UPDATE_ELEM)");
	after = now_ns();
	m.snaps = snapshots();
	pthread_mutex_lock(&out_lock);
	printf("{\"tid\":%d,\"tgid\":%d,\"by\":%d,\"hints\":%llu,\"before\":%llu,\"after\":%llu}\n",
	       (int)tid, (int)getpid(), (int)gettid(), (unsigned long long)hints,
	       (unsigned long long)before, (unsigned long long)after);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	return m;
}

static void *worker(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;
	int pidfd;

	worker_tid[i] = gettid();
	pidfd = pidfd_of(gettid(), PIDFD_THREAD);
	pthread_barrier_wait(&started);
	for (unsigned s = 0; s < steps; s++) {
		uint64_t v = i == 0 ? 0xffffffffffffff00ull + s : s == 0 ? 0 : (uint64_t)i * 1000 + s;
		struct mark m = set_hint(pidfd, gettid(), v, true);

		hold(&m);
	}
	if (i == 0 && steps) {
		union bpf_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.map_fd = (unsigned)map_fd;
		attr.key = (uintptr_t)&pidfd;
		if (sys_bpf(BPF_MAP_DELETE_ELEM, &attr))
			die("bpf(BPF_MAP_DELETE_ELEM)");
		struct mark m = {.snaps = snapshots()};

		hold(&m);
		m = set_hint(pidfd, gettid(), 0xffffffffffffff00ull + steps - 1, false);
		hold(&m);
	}
	close(pidfd);
	pthread_barrier_wait(&workers_done);
	pthread_barrier_wait(&release); /* stay alive while main sets our hint */
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	struct bpf_map_info info;
	union bpf_attr attr;
	unsigned n;
	int pidfd;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: hint-setter MAP THREADS STEPS HOLD_MS [PROGRESS | seen:HINTS_GLOB]\n");
		return 2;
	}
	if (argc == 6 && !strncmp(argv[5], "seen:", 5))
		seen_glob = argv[5] + 5;
	else if (argc == 6 && (progress_fd = open(argv[5], O_RDONLY | O_CLOEXEC)) < 0)
		die(argv[5]);
	n = (unsigned)atoi(argv[2]);
	steps = (unsigned)atoi(argv[3]);
	hold_ms = (unsigned)atoi(argv[4]);
	if (n < 1 || n > MAX_THREADS || steps > 900) {
		fprintf(stderr, "hint-setter: THREADS must be 1..%d, STEPS at most 900\n", MAX_THREADS);
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uintptr_t)argv[1];
	map_fd = sys_bpf(BPF_OBJ_GET, &attr);
	if (map_fd < 0)
		die(argv[1]);
	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (unsigned)map_fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr))
		die("BPF_OBJ_GET_INFO_BY_FD");
	value_size = info.value_size;
	if (value_size < 8 || value_size > 256) {
		fprintf(stderr, "hint-setter: value size %u not in 8..256\n", value_size);
		return 1;
	}
	pthread_barrier_init(&started, NULL, n + 1);
	pthread_barrier_init(&workers_done, NULL, n + 1);
	pthread_barrier_init(&release, NULL, n + 1);
	for (unsigned i = 0; i < n; i++)
		if ((errno = pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i)))
			die("pthread_create");
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&workers_done);
	for (unsigned i = 0; i < n; i++) {
		struct mark m;

		pidfd = pidfd_of(worker_tid[i], PIDFD_THREAD);
		m = set_hint(pidfd, worker_tid[i], 900000 + i, true);
		hold(&m);
		close(pidfd);
	}
	pidfd = pidfd_of(getpid(), 0);
	struct mark m = set_hint(pidfd, getpid(), 4242, true);

	hold(&m);
	close(pidfd);
	pthread_barrier_wait(&release);
	for (unsigned i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
