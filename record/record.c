/*
 * record.c - the record stage's main loop (see record.h): open the streams,
 * synthesize what already exists, start the command, drain every few
 * milliseconds until the timeout, the command's exit or a signal, then stop
 * hints first, then the sched stream, and the memory stream last (as
 * upstream), and write the profile's files.
 */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/host/host.h"
#include "lib/monotime.h"
#include "lib/fsutil.h"
#include "lib/perfdata.h"
#include "lib/vdso.h"
#include "record/backend/backend.h"
#include "record/perfdata/record_perfdata.h"
#include "record/streams/streams.h"
#include "record/metadata.h"
#include "record/yield_prio.h"

/* Poll period. The memory stream says how often it must be drained
 * (mem_stream_drain_ms(): physical addresses come from pagemap, which must
 * be read soon after the sample). Without it, the
 * sched ring wakes us at a quarter full and a slower timer suffices, so the
 * recorder itself wakes up on the traced workload's cpus less often: each
 * wakeup can also move the workload's tasks apart (unpinned
 * `perf bench sched pipe`, many short runs, median slowdown: +3.6% and +0.0%
 * at 250 ms against +6.9% and +14.6% at 50 ms). The command's exit (a
 * pidfd) and the -t deadline end the wait early. */
#define DRAIN_MS_NO_MEM 250

struct recorder {
	const struct record_opts *o;
	struct record_result *res;
	struct pd_writer w;
	bool writer_open;
	struct buildids bids; /* files seen mapped, for the BUILD_ID feature */
	struct mem_stream ms;
	bool ms_open;
	struct hints_tracer *ht;
	FILE *hints_out;
	struct sched_stream *ss;
	FILE *sched_out;
	pid_t child;
	int child_pidfd; /* readable when the command exits; -1 if none */
};


/* --hints-poll-ms, 10 when unset */
static unsigned hints_poll_ms(const struct record_opts *o)
{
	return o->hints_poll_ms ? o->hints_poll_ms : 10;
}

static int path_in(const struct recorder *rc, const char *name, char *out, size_t size)
{
	return fs_join(out, size, rc->o->dir, name);
}

/* Profile files are 0600: they describe the whole host. */
static FILE *create_file(const struct recorder *rc, const char *name)
{
	return fs_create_in(rc->o->dir, name, 0600);
}

static int close_file(FILE **f, const char *what)
{
	int rc = 0;

	if (*f && (fflush(*f) != 0 || ferror(*f)))
		rc = scx_fail_errno("%s: write failed", what);
	if (*f && fclose(*f) != 0 && !rc)
		rc = scx_fail_errno("%s: write failed", what);
	*f = NULL;
	return rc;
}

/*
 * topology.json: this machine's CPUs as sysfs describes them (lib/host: the
 * LLC is index3, else index2) and its cgroups' cpusets (a cpuset file that
 * cannot be read: a warning, the cgroup left out).
 */
static int write_topology(FILE *f, struct warnings *w)
{
	struct host_topology t;
	int rc;

	if (host_topology_live(&t, w) < 0)
		return -1;
	rc = host_topology_write_json(f, &t, "topology.json");
	host_topology_free(&t);
	return rc;
}

/* ---- streams ----------------------------------------------------------------- */

static int start_mem(struct recorder *rc)
{
	const struct record_opts *o = rc->o;
	struct mem_stream_opts mo = {.mmap_pages = o->mmap_pages};
	char path[4096];
	size_t i;

	if (mem_backend_choose(&o->backend, &rc->res->backend) < 0)
		return -1;
	for (i = 0; i < rc->res->backend.warnings.nr; i++)
		warnings_add(&rc->res->warnings, "%s", rc->res->backend.warnings.line[i]);
	mo.aux_pages = o->aux_pages;
	mo.resolve_phys = rc->res->backend.kind == MEM_BACKEND_SOFTWARE;
	if (path_in(rc, "perf.mem.data", path, sizeof(path)) < 0 || pd_writer_open(&rc->w, path) < 0)
		return -1;
	rc->writer_open = true;
	rc->w.observe = buildids_observe;
	rc->w.observe_ctx = &rc->bids;
	if (mem_stream_open(&rc->ms, &rc->res->backend, &rc->w, &mo) < 0)
		return -1;
	rc->ms_open = true;
	rc->res->mem_on = true;
	return 0;
}

static int start_hints(struct recorder *rc)
{
	struct hints_tracer_opts ho = {
		.map_path = rc->o->hints_map,
		.ring_mb = rc->o->hints_ring_mb ? rc->o->hints_ring_mb : 8,
		.poll_ms = hints_poll_ms(rc->o),
	};

	rc->hints_out = create_file(rc, "hints.jsonl");
	if (!rc->hints_out)
		return -1;
	ho.out = rc->hints_out;
	if (hints_tracer_start(&rc->ht, &ho) < 0)
		return -1;
	rc->res->hints_on = true;
	/* -v: the mode from the start (snapshots miss values held for less than a period) */
	if (rc->o->verbose && rc->o->status && !strcmp(hints_tracer_mode(rc->ht), "iter-snapshot"))
		fprintf(rc->o->status, "hints: tracing %s by iter-snapshot, every %u ms\n", rc->o->hints_map,
			hints_poll_ms(rc->o));
	else if (rc->o->verbose && rc->o->status)
		fprintf(rc->o->status, "hints: tracing %s by %s\n", rc->o->hints_map, hints_tracer_mode(rc->ht));
	return 0;
}

static int start_sched(struct recorder *rc)
{
	struct sched_stream_opts so = {.ring_mb = rc->o->sched_ring_mb};

	rc->sched_out = create_file(rc, "sched.data");
	if (!rc->sched_out)
		return -1;
	so.out = rc->sched_out;
	if (sched_stream_start(&rc->ss, &so) < 0)
		return -1;
	rc->res->sched_on = true;
	return 0;
}

/* Kernel map, existing tasks and cgroups, plus the kallsyms snapshot. */
static int synthesize(struct recorder *rc)
{
	struct synth_stats st = {0};
	bool bpf_denied = false;
	char ksyms[4096], vdso[4096];
	size_t trailer = rc->ms.trailer_size;

	if (path_in(rc, "kallsyms", ksyms, sizeof(ksyms)) < 0 || fs_copy_file("/proc/kallsyms", ksyms) < 0)
		return -1;
	if (path_in(rc, "vdso.so", vdso, sizeof(vdso)) < 0 || vdso_save(vdso) < 0)
		warnings_add(&rc->res->warnings, "[vdso] symbols will not resolve offline: %s", scx_errmsg());
	if (synth_kernel_map(&rc->w, ksyms, trailer) < 0)
		warnings_add(&rc->res->warnings, "no kernel map record: %s", scx_errmsg());
	if (synth_tasks(&rc->w, "/proc", trailer, &st) < 0 || synth_cgroups(&rc->w, trailer, &st) < 0)
		return -1;
	if (synth_bpf_progs(&rc->w, trailer, &st, &bpf_denied) < 0)
		return -1;
	if (bpf_denied)
		warnings_add(&rc->res->warnings, "BPF programs loaded before recording are not named "
				 "(listing them needs CAP_SYS_ADMIN): samples in their code are [unknown]");
	if (rc->o->verbose && rc->o->status)
		fprintf(rc->o->status,
			"synthesized %llu processes, %llu threads, %llu maps, %llu cgroups, "
			"%llu BPF functions of %llu programs\n",
			(unsigned long long)st.tasks, (unsigned long long)st.threads,
			(unsigned long long)st.mmaps, (unsigned long long)st.cgroups,
			(unsigned long long)st.bpf_ksymbols, (unsigned long long)st.bpf_progs);
	return 0;
}

/* ---- the command -------------------------------------------------------------- */

static int start_command(struct recorder *rc)
{
	int pipefd[2];
	char err;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return scx_fail_errno("pipe");
	rc->child = fork();
	if (rc->child < 0)
		return scx_fail_errno("fork");
	if (rc->child > 0) {
		rc->res->command_pid = rc->child;
		setpgid(rc->child, rc->child); /* as the child does: whichever runs first */
	}
	if (rc->child == 0) {
		/* a process group of its own (as timeout(1)): stop_command ends
		 * what the command started too (a pipeline, a server), not only
		 * its first process */
		setpgid(0, 0);
		close(pipefd[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(rc->o->command[0], rc->o->command);
		err = (char)errno;
		if (write(pipefd[1], &err, 1) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	/* the exec closes the pipe; a byte means it failed */
	if (read(pipefd[0], &err, 1) == 1) {
		close(pipefd[0]);
		waitpid(rc->child, NULL, 0);
		rc->child = 0;
		errno = err;
		return scx_fail_errno("%s: cannot run", rc->o->command[0]);
	}
	close(pipefd[0]);
	/* poll wakes when it exits; without pidfds (Linux < 5.3) the poll
	 * period bounds the delay */
	rc->child_pidfd = (int)syscall(SYS_pidfd_open, rc->child, 0);
	return 0;
}

static void close_child_pidfd(struct recorder *rc)
{
	if (rc->child_pidfd >= 0)
		close(rc->child_pidfd);
	rc->child_pidfd = -1;
}

/* 1 when the command has exited (status stored). */
static int command_done(struct recorder *rc)
{
	int status;

	if (rc->child <= 0)
		return 0;
	if (waitpid(rc->child, &status, WNOHANG) != rc->child)
		return 0;
	rc->res->command_status = status;
	rc->child = 0;
	close_child_pidfd(rc);
	return 1;
}

/*
 * The command still runs (-t elapsed, or SIGINT/SIGTERM): kill its process
 * group, so the processes it started (a pipeline's other ends, a server
 * behind a script) do not outlive the recording. One that exited by itself
 * leaves what it started alone.
 */
static void stop_command(struct recorder *rc)
{
	close_child_pidfd(rc);
	if (rc->child > 0) {
		kill(-rc->child, SIGKILL);
		kill(rc->child, SIGKILL);
		waitpid(rc->child, NULL, 0);
		rc->child = 0;
	}
}

/* ---- the loop ------------------------------------------------------------------- */

static void status_line(struct recorder *rc, uint64_t start, bool final)
{
	const struct record_opts *o = rc->o;
	double el = (double)(monotime_ns() - start) / 1e9;
	struct hints_tracer_stats hs = {.updates_written = rc->res->hints_updates};

	if (!o->status)
		return;
	if (rc->ht) /* running: its count so far (res has it once the tracer stops) */
		hints_tracer_counts(rc->ht, &hs);
	fprintf(o->status, "%s[record] %5.1fs of %us  samples %llu  lost %llu  sched %llu  hints %llu%s",
		o->status_tty ? "\r" : "", el, o->timeout_s, (unsigned long long)rc->ms.st.samples,
		(unsigned long long)(rc->ms.st.lost_events + rc->ms.st.lost_samples),
		(unsigned long long)sched_stream_records(rc->ss),
		(unsigned long long)hs.updates_written, o->status_tty && !final ? "   " : "\n");
	fflush(o->status);
}

static int run_loop(struct recorder *rc)
{
	const struct record_opts *o = rc->o;
	uint64_t start = monotime_ns(), deadline = start + (uint64_t)o->timeout_s * 1000000000ULL, next_status = start;
	struct yield_prio yp = {0};
	int err = 0;
	bool printed = false; /* a status line in the last round */

	/* without the memory stream nothing here is urgent: stay out of the
	 * workload's way until the sched ring says we are behind */
	if (!rc->ms_open && rc->ss)
		yield_prio_start(&yp, sched_stream_ring_avail(rc->ss), sched_stream_wakeup_bytes(rc->ss));
	rc->res->drain_yielded = yp.on;
	for (;;) {
		struct pollfd pfds[3];
		nfds_t n = 0, sched_i = 3;
		int timeout = rc->ms_open ? mem_stream_drain_ms(&rc->ms) : DRAIN_MS_NO_MEM;
		uint64_t now = monotime_ns(), wake = deadline < next_status ? deadline : next_status;

		if (rc->ht && hints_tracer_fd(rc->ht) >= 0)
			pfds[n++] = (struct pollfd){.fd = hints_tracer_fd(rc->ht), .events = POLLIN};
		if (rc->ss) {
			sched_i = n;
			pfds[n++] = (struct pollfd){.fd = sched_stream_fd(rc->ss), .events = POLLIN};
		}
		if (rc->child_pidfd >= 0)
			pfds[n++] = (struct pollfd){.fd = rc->child_pidfd, .events = POLLIN};
		if (rc->ht && hints_tracer_timeout_ms(rc->ht) >= 0 && hints_tracer_timeout_ms(rc->ht) < timeout)
			timeout = hints_tracer_timeout_ms(rc->ht);
		/* not past the deadline or the next status line */
		if (wake <= now)
			timeout = 0;
		else if ((wake - now) / 1000000 + 1 < (uint64_t)timeout)
			timeout = (int)((wake - now) / 1000000 + 1);
		/* the sched ring only signals at a quarter full */
		yield_prio_beat(&yp, poll(pfds, n, timeout) > 0 && sched_i < n && (pfds[sched_i].revents & POLLIN));
		if (o->stop && *o->stop) {
			rc->res->interrupted = true;
			err = scx_fail("interrupted");
			break;
		}
		if ((rc->ht && hints_tracer_poll(rc->ht) < 0) || (rc->ss && sched_stream_poll(rc->ss) < 0) ||
		    (rc->ms_open && mem_stream_drain(&rc->ms) < 0)) {
			err = -1;
			break;
		}
		printed = monotime_ns() >= next_status;
		if (printed) {
			status_line(rc, start, false);
			next_status += 1000000000ULL;
		}
		if (command_done(rc) || monotime_ns() >= deadline)
			break;
	}
	yield_prio_stop(&yp);
	rc->res->drain_boosts = atomic_load(&yp.boosts);
	if (err < 0)
		return -1;
	/* on a terminal the last line ends it; elsewhere it would repeat the
	 * one just printed (-t whole seconds: the deadline is a status time) */
	if (!printed || o->status_tty)
		status_line(rc, start, true);
	return 0;
}

/* Hints first (the hint window ends with the capture), then sched, memory
 * last. */
static int stop_streams(struct recorder *rc)
{
	struct hints_tracer_stats hs = {0};
	int rc_ = 0;

	if (rc->ht) {
		if (hints_tracer_stop(rc->ht, &hs) < 0)
			rc_ = -1;
		rc->ht = NULL;
		rc->res->hints_updates = hs.updates_written;
		rc->res->hints_drops = hs.drops;
		rc->res->hints_max_gap_ns = hs.max_snapshot_gap_ns;
		snprintf(rc->res->hints_mode, sizeof(rc->res->hints_mode), "%s", hs.mode);
		snprintf(rc->res->hints_why_not_fentry, sizeof(rc->res->hints_why_not_fentry), "%s", hs.why_not_fentry);
		if (hs.drops)
			warnings_add(&rc->res->warnings, "%llu hint events were dropped because the ring buffer was full; "
			     "consider increasing --hints-map-ring-sz", (unsigned long long)hs.drops);
		/* snapshots skipped: a value set and changed again in between is not in
		 * hints.jsonl (metadata.json has the gap in any case; 25-40 ms is
		 * common on a busy 2-cpu host, 768 ms seen under two busy loops) */
		if (hs.max_snapshot_gap_ns >= 5 * (uint64_t)hints_poll_ms(rc->o) * 1000000)
			warnings_add(&rc->res->warnings, "hint snapshots were up to %llu ms apart (every %u ms asked; the "
			     "drain loop that takes them ran late: a loaded host, or long drains): a hint value held "
			     "for less may be missing from hints.jsonl",
			     (unsigned long long)(hs.max_snapshot_gap_ns / 1000000), hints_poll_ms(rc->o));
	}
	if (rc->ss) {
		if (sched_stream_stop(rc->ss, &rc->res->sched) < 0)
			rc_ = -1;
		rc->ss = NULL;
		if (rc->res->sched.lost)
			warnings_add(&rc->res->warnings, "%llu scheduling records our BPF programs made did not reach sched.data "
			     "(hits counted by the programs minus records written and ring-buffer drops; a recorder bug, "
			     "counted in drops)", (unsigned long long)rc->res->sched.lost);
		if (rc->res->sched.drops > rc->res->sched.lost)
			warnings_add(&rc->res->warnings, "%llu scheduling records were dropped because the ring buffer was full; "
			     "consider increasing --sched-ring-sz (now %u MB)",
			     (unsigned long long)(rc->res->sched.drops - rc->res->sched.lost), rc->res->sched.ring_mb);
		if (sched_stream_skipped_total(&rc->res->sched))
			warnings_add(&rc->res->warnings, "%llu scheduling tracepoint hits were not recorded: an interrupt hit the same "
			     "tracepoint while its BPF program ran, and the kernel skips nested runs of a program "
			     "(counted per tracepoint in metadata.json)",
			     (unsigned long long)sched_stream_skipped_total(&rc->res->sched));
		if (rc->res->sched.nr_missing && rc->o->verbose && rc->o->status) {
			fprintf(rc->o->status, "sched: tracepoints the kernel does not have:");
			for (size_t i = 0; i < rc->res->sched.nr_missing; i++)
				fprintf(rc->o->status, " %s", rc->res->sched.missing[i]);
			fprintf(rc->o->status, "\n");
		}
	}
	if (rc->ms_open && !rc_) {
		if (mem_stream_disable(&rc->ms) < 0 || mem_stream_drain(&rc->ms) < 0)
			rc_ = -1;
	}
	return rc_;
}

/* Arm SPE: what the kernel's PERF_RECORD_AUX flags and our copies say was lost. */
static void warn_aux(struct recorder *rc)
{
	const struct auxtrace_stats *a = &rc->ms.st.aux;

	if (a->truncated)
		warnings_add(&rc->res->warnings, "Arm SPE: %llu of %llu AUX records were truncated (the AUX "
			     "area filled before it was drained: SPE records lost; raise --aux-pages or -c)",
			     (unsigned long long)a->truncated, (unsigned long long)a->aux_records);
	if (a->partial || a->collision)
		warnings_add(&rc->res->warnings, "Arm SPE: %llu AUX records partial, %llu with collisions "
			     "(the hardware dropped or merged records)",
			     (unsigned long long)a->partial, (unsigned long long)a->collision);
	if (a->bytes_overwritten)
		warnings_add(&rc->res->warnings, "Arm SPE: %llu bytes of AUX data were overwritten before "
			     "they were copied", (unsigned long long)a->bytes_overwritten);
}

static int finish_files(struct recorder *rc)
{
	struct feature_info fi = {.argc = rc->o->argc, .argv = rc->o->argv};
	FILE *f;
	int r;

	if (rc->ms_open) {
		fi.first_sample_ns = rc->ms.st.first_time;
		fi.last_sample_ns = rc->ms.st.last_time;
		fi.clock_ns = rc->res->start_mono_ns;
		fi.wall_ns = rc->res->start_wall_ns;
		rc->res->mem = rc->ms.st;
		if (buildids_add_feature(&rc->bids, &rc->w, "/sys/kernel/notes") < 0 ||
		    mem_stream_add_features(&rc->ms) < 0 || features_add(&rc->w, &fi) < 0 ||
		    pd_writer_finish(&rc->w) < 0)
			return -1;
		if (rc->o->verbose && rc->o->status)
			fprintf(rc->o->status, "perf.mem.data: build-ids of %zu files (kernel, [vdso], mapped ELF files)\n",
				rc->bids.written);
		rc->writer_open = false;
		if (rc->ms.st.foreign_ids)
			warnings_add(&rc->res->warnings, "%llu samples carried the event id of another program sampling page faults "
			     "at the same time (the kernel shares one sample's data among such events); ids "
			     "restored, their times may follow that program's clock",
			     (unsigned long long)rc->ms.st.foreign_ids);
		warn_aux(rc);
		if (rc->ms.st.lost_events || rc->ms.st.lost_samples)
			warnings_add(&rc->res->warnings, "the kernel lost %llu events and %llu samples: raise --mmap-pages",
			     (unsigned long long)rc->ms.st.lost_events, (unsigned long long)rc->ms.st.lost_samples);
	}
	if (close_file(&rc->hints_out, "hints.jsonl") < 0 || close_file(&rc->sched_out, "sched.data") < 0)
		return -1;
	if (!(f = create_file(rc, "topology.json")))
		return -1;
	r = write_topology(f, &rc->res->warnings);
	if (close_file(&f, "topology.json") < 0 || r < 0)
		return -1;
	features_clock_pair(&rc->res->end_mono_ns, &rc->res->end_wall_ns);
	if (!(f = create_file(rc, "metadata.json")))
		return -1;
	r = metadata_write(f, rc->o, rc->res);
	return close_file(&f, "metadata.json") < 0 || r < 0 ? -1 : 0;
}

static void cleanup(struct recorder *rc)
{
	struct hints_tracer_stats hs;

	stop_command(rc);
	if (rc->ht)
		hints_tracer_stop(rc->ht, &hs);
	if (rc->ss)
		sched_stream_stop(rc->ss, NULL);
	if (rc->ms_open)
		mem_stream_close(&rc->ms);
	if (rc->writer_open)
		pd_writer_abort(&rc->w);
	buildids_free(&rc->bids);
	if (rc->hints_out)
		fclose(rc->hints_out);
	if (rc->sched_out)
		fclose(rc->sched_out);
}

int record_run(const struct record_opts *o, struct record_result *res)
{
	struct recorder rc = {.o = o, .res = res, .child_pidfd = -1};
	int r = -1;

	memset(res, 0, sizeof(*res));
	res->command_status = -1;
	if (!o->mem && !o->sched && !o->hints_map)
		return scx_fail("nothing to record: the memory and sched streams are off and no "
				"--hints-map was given");
	features_clock_pair(&res->start_mono_ns, &res->start_wall_ns);
	streams_verbose(o->verbose > 0);
	if ((o->mem && start_mem(&rc) < 0) || (o->sched && start_sched(&rc) < 0) ||
	    (o->hints_map && start_hints(&rc) < 0))
		goto out;
	if (rc.ms_open && (mem_stream_enable(&rc.ms) < 0 || synthesize(&rc) < 0))
		goto out;
	if (o->command && start_command(&rc) < 0)
		goto out;
	if (run_loop(&rc) < 0)
		goto out;
	stop_command(&rc);
	if (stop_streams(&rc) < 0 || finish_files(&rc) < 0)
		goto out;
	if (res->command_status > 0 || (res->command_status >= 0 && !WIFEXITED(res->command_status))) {
		scx_fail("%s %s", o->command[0], WIFEXITED(res->command_status)
			 ? "exited with a failure status" : "was killed by a signal");
		if (WIFEXITED(res->command_status))
			scx_fail("%s exited with status %d", o->command[0], WEXITSTATUS(res->command_status));
		goto out;
	}
	r = 0;
out:
	cleanup(&rc);
	return r;
}
