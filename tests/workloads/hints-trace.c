/*
 * hints-trace.c - test driver of the hints tracer (record/streams/streams.h),
 * until `scxprof record --hints-map` drives it. Links build/libscxprof.a.
 *
 * usage:
 *   hints-trace -m MAP -o FILE [-d SECONDS] [-r RING_MB] [-p POLL_MS] [-s] [-P PROGRESS]
 *       Trace MAP into FILE (hints.jsonl) until SECONDS pass (default 10) or
 *       SIGINT/SIGTERM. -s forces snapshot mode. -P: after every snapshot,
 *       PROGRESS holds the number of snapshots completed (one line, rewritten
 *       in place; hint-setter waits on it). Prints "ready MODE" on
 *       stderr once tracing runs, the drop warning if events were dropped,
 *       and one JSON line of stats on stdout at the end. Errors: the
 *       library's message on stderr, exit 1.
 *   hints-trace --create MAP [--value-size N] [--hash]
 *       Create and pin a task-storage map (key int, value a struct whose first
 *       member is the u64 hint, N bytes, default 16; BTF as the kernel wants
 *       for local storage) or, with --hash, a hash map (for error tests).
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "record/streams/streams.h"

static int create_map(const char *path, unsigned value_size, bool hash)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo);
	struct btf *btf;
	int int_id, u64_id, val_id, fd;

	if (hash) {
		fd = bpf_map_create(BPF_MAP_TYPE_HASH, "not_tstor", 4, value_size, 4, NULL);
	} else {
		if (value_size < 8 || value_size % 8) {
			fprintf(stderr, "hints-trace: --value-size must be a multiple of 8\n");
			return 1;
		}
		btf = btf__new_empty();
		if (!btf) {
			perror("hints-trace: btf__new_empty");
			return 1;
		}
		int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
		u64_id = btf__add_int(btf, "long long unsigned int", 8, 0);
		val_id = btf__add_struct(btf, "task_hint", value_size);
		btf__add_field(btf, "hints", u64_id, 0, 0);
		for (unsigned off = 8; off < value_size; off += 8) {
			char name[32];

			snprintf(name, sizeof(name), "reserved%u", off / 8);
			btf__add_field(btf, name, u64_id, off * 8, 0);
		}
		if (btf__load_into_kernel(btf)) {
			perror("hints-trace: loading BTF");
			return 1;
		}
		mo.btf_fd = btf__fd(btf);
		mo.btf_key_type_id = int_id;
		mo.btf_value_type_id = val_id;
		mo.map_flags = BPF_F_NO_PREALLOC;
		fd = bpf_map_create(BPF_MAP_TYPE_TASK_STORAGE, "task_hints", 4, value_size, 0, &mo);
		btf__free(btf);
	}
	if (fd < 0) {
		perror("hints-trace: bpf_map_create");
		return 1;
	}
	if (bpf_obj_pin(fd, path)) {
		fprintf(stderr, "hints-trace: pinning %s: %s\n", path, strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Rewrite the progress file with n (fixed width: no stale tail). */
static void put_progress(int fd, uint64_t n)
{
	char line[32];
	int len = snprintf(line, sizeof(line), "%020llu\n", (unsigned long long)n);

	if (fd >= 0 && pwrite(fd, line, (size_t)len, 0) != len)
		perror("hints-trace: writing the progress file");
}

static int trace(struct hints_tracer_opts *o, const char *out_path, unsigned seconds, const char *progress)
{
	int pfd_progress = -1;
	uint64_t snaps_told = UINT64_MAX;
	struct hints_tracer_stats so_far;
	struct hints_tracer *t;
	struct hints_tracer_stats st;
	struct pollfd pfd[2];
	sigset_t mask;
	uint64_t end = now_ms() + seconds * 1000ull;
	int sfd, rc = 0;
	bool signalled = false;

	o->out = fopen(out_path, "w");
	if (!o->out) {
		fprintf(stderr, "hints-trace: %s: %s\n", out_path, strerror(errno));
		return 1;
	}
	if (progress) {
		pfd_progress = open(progress, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (pfd_progress < 0) {
			fprintf(stderr, "hints-trace: %s: %s\n", progress, strerror(errno));
			return 1;
		}
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0 || hints_tracer_start(&t, o)) {
		fprintf(stderr, "hints-trace: %s\n", sfd < 0 ? strerror(errno) : scx_errmsg());
		return 1;
	}
	fprintf(stderr, "ready %s\n", hints_tracer_mode(t));
	pfd[0] = (struct pollfd){.fd = sfd, .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = hints_tracer_fd(t), .events = POLLIN};
	for (;;) {
		uint64_t now = now_ms();
		int timeout, tt;

		if (now >= end)
			break;
		timeout = (int)(end - now);
		tt = hints_tracer_timeout_ms(t);
		if (tt >= 0 && tt < timeout)
			timeout = tt;
		if (timeout > 100)
			timeout = 100;
		if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR) {
			perror("hints-trace: poll");
			rc = 1;
			break;
		}
		if (pfd[0].revents & POLLIN) {
			signalled = true;
			break;
		}
		if (hints_tracer_poll(t)) {
			fprintf(stderr, "hints-trace: %s\n", scx_errmsg());
			rc = 1;
			break;
		}
		hints_tracer_counts(t, &so_far);
		if (so_far.snapshots != snaps_told) {
			snaps_told = so_far.snapshots;
			put_progress(pfd_progress, snaps_told);
		}
	}
	if (pfd_progress >= 0)
		close(pfd_progress);
	fprintf(stderr, "stopped by %s\n", signalled ? "signal" : "deadline");
	if (hints_tracer_stop(t, &st)) {
		fprintf(stderr, "hints-trace: %s\n", scx_errmsg());
		rc = 1;
	}
	if (fclose(o->out)) {
		fprintf(stderr, "hints-trace: %s: %s\n", out_path, strerror(errno));
		rc = 1;
	}
	if (st.drops)
		fprintf(stderr, HINTS_DROP_WARNING_FMT, (unsigned long long)st.drops);
	printf("{\"mode\":\"%s\",\"why_not_fentry\":\"", st.mode);
	for (const char *p = st.why_not_fentry; *p; p++) /* JSON-escape the few that matter */
		printf(*p == '"' || *p == '\\' ? "\\%c" : (unsigned char)*p < 0x20 ? " " : "%c", *p);
	printf("\",\"updates_written\":%llu,\"drops\":%llu,\"snapshots\":%llu,\"unresolved\":%llu}\n",
	       (unsigned long long)st.updates_written, (unsigned long long)st.drops,
	       (unsigned long long)st.snapshots, (unsigned long long)st.unresolved);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"create", required_argument, NULL, 'C'},
		{"value-size", required_argument, NULL, 'V'},
		{"hash", no_argument, NULL, 'H'},
		{NULL, 0, NULL, 0},
	};
	struct hints_tracer_opts o = {0};
	const char *create = NULL, *out = NULL, *progress = NULL;
	unsigned seconds = 10, value_size = 16;
	bool hash = false;
	int c;

	while ((c = getopt_long(argc, argv, "m:o:d:r:p:sP:", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': o.map_path = optarg; break;
		case 'o': out = optarg; break;
		case 'd': seconds = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'r': o.ring_mb = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'p': o.poll_ms = (unsigned)strtoul(optarg, NULL, 10); break;
		case 's': o.force_snapshot = true; break;
		case 'P': progress = optarg; break;
		case 'C': create = optarg; break;
		case 'V': value_size = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'H': hash = true; break;
		default:
			fprintf(stderr, "usage: hints-trace -m MAP -o FILE [-d S] [-r MB] [-p MS] [-s] [-P PROGRESS]\n"
					"       hints-trace --create MAP [--value-size N] [--hash]\n");
			return 2;
		}
	}
	if (create)
		return create_map(create, value_size, hash);
	if (!out) {
		fprintf(stderr, "hints-trace: -o FILE is required\n");
		return 2;
	}
	return trace(&o, out, seconds, progress);
}
