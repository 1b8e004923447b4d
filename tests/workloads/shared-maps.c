/*
 * shared-maps.c - test subject for data identity (perf.jsonl data_id): a
 * parent and a forked child each map the same file and the same memfd
 * MAP_SHARED at different addresses, write every page, and each writes
 * private anonymous memory of its own. Usage: shared-maps FILE PAGES.
 * Prints "parent PID child PID file ADDR ADDR memfd ADDR ADDR" (the two
 * processes' mapping addresses) on stdout when both are done.
 *
 * Other modes, for a process that maps FILE before a recording starts and
 * one that maps it during it:
 *   shared-maps -w FILE PAGES  map FILE shared, write it, print "ready PID",
 *                              wait for SIGUSR1, drop the pages from its page
 *                              table (MADV_DONTNEED) and write them again (new
 *                              faults), print "done PID"
 *   shared-maps -1 FILE PAGES  map FILE shared, write it, print "once PID"
 */
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096

static void touch(volatile char *p, size_t pages, char v)
{
	for (size_t i = 0; i < pages; i++)
		p[i * PAGE] = v;
}

static char *map_shared(int fd, size_t pages)
{
	char *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

/* Map both objects, write them and some private memory; report addresses through fd out. */
static void work(int file_fd, int mem_fd, size_t pages, int out, size_t shift_pages)
{
	char *shift = shift_pages ? mmap(NULL, shift_pages * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
				  : NULL;
	char *f = map_shared(file_fd, pages), *m = map_shared(mem_fd, pages);
	char *priv = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char line[128];
	int n;

	if (shift == MAP_FAILED || priv == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	touch(f, pages, 1);
	touch(m, pages, 2);
	touch(priv, pages, 3);
	n = snprintf(line, sizeof(line), "%lx %lx\n", (unsigned long)f, (unsigned long)m);
	if (write(out, line, (size_t)n) != n)
		exit(1);
}

/* The -w and -1 modes. */
static int single(const char *mode, const char *path, size_t pages)
{
	int fd = open(path, O_RDWR | O_CREAT, 0600);
	char *f;
	sigset_t set;
	int sig;

	if (fd < 0 || ftruncate(fd, (off_t)(pages * PAGE)) < 0) {
		perror(path);
		return 1;
	}
	f = map_shared(fd, pages);
	touch(f, pages, 4);
	if (!strcmp(mode, "-1")) {
		printf("once %d\n", (int)getpid());
		return 0;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (sigwait(&set, &sig) != 0 || madvise(f, pages * PAGE, MADV_DONTNEED) < 0)
		return 1;
	touch(f, pages, 5);
	printf("done %d\n", (int)getpid());
	return 0;
}

int main(int argc, char **argv)
{
	size_t pages;
	int file_fd, mem_fd, pfd[2], status;
	char buf[128] = "";
	unsigned long pf, pm;
	pid_t child;
	ssize_t n;

	if (argc == 4 && (!strcmp(argv[1], "-w") || !strcmp(argv[1], "-1")) &&
	    (pages = strtoul(argv[3], NULL, 10)) > 0)
		return single(argv[1], argv[2], pages);
	if (argc != 3 || (pages = strtoul(argv[2], NULL, 10)) == 0) {
		fprintf(stderr, "usage: shared-maps FILE PAGES | -w FILE PAGES | -1 FILE PAGES\n");
		return 2;
	}
	file_fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	mem_fd = memfd_create("scxprof-shared", 0);
	if (file_fd < 0 || mem_fd < 0 || ftruncate(file_fd, (off_t)(pages * PAGE)) < 0 ||
	    ftruncate(mem_fd, (off_t)(pages * PAGE)) < 0 || pipe(pfd) < 0) {
		perror("setup");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		/* a different address for the same objects */
		work(file_fd, mem_fd, pages, pfd[1], 64);
		_exit(0);
	}
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "child failed\n");
		return 1;
	}
	n = read(pfd[0], buf, sizeof(buf) - 1);
	if (n <= 0 || sscanf(buf, "%lx %lx", &pf, &pm) != 2)
		return 1;
	work(file_fd, mem_fd, pages, pfd[1], 0);
	n = read(pfd[0], buf, sizeof(buf) - 1);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	{
		unsigned long f2, m2;

		if (sscanf(buf, "%lx %lx", &f2, &m2) != 2)
			return 1;
		printf("parent %d child %d file %lx %lx memfd %lx %lx\n", (int)getpid(), (int)child, f2, pf, m2, pm);
	}
	return 0;
}
