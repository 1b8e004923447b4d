/*
 * cmd_record.c - `scxprof record`: options, where the profile goes (a
 * temporary directory next to DIR, then DIR.tar.gz or DIR), signals and
 * the summary. The recording itself is record/record.c.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "cmd/signals.h"
#include "lib/archive.h"
#include "lib/error.h"
#include "lib/fsutil.h"
#include "record/record.h"

/* The options that decide where the profile goes; the others fill record_opts directly. */
struct record_args {
	const char *outdir, *archive, *backend;
	bool no_archive;
};

static int check_args(struct record_args *a, const struct cmd_usage *u, struct record_opts *o, char *archive,
		      size_t archive_size)
{
	const char *fail = NULL;

	if (!o->mem && !o->hints_map && !o->sched)
		fail = "at least one of the memory, sched and hints streams must stay on";
	else if (o->sched_ring_mb & (o->sched_ring_mb - 1))
		fail = "--sched-ring-sz must be a power of two";
	else if (o->backend.period && o->backend.freq)
		fail = "-c PERIOD and -F HZ exclude each other";
	else if (a->archive && a->no_archive)
		fail = "-f ARCHIVE and --disable-archive exclude each other";
	else if (a->archive && (strlen(a->archive) < 8 || strcmp(a->archive + strlen(a->archive) - 7, ".tar.gz")))
		fail = "-f ARCHIVE must end in .tar.gz";
	if (!fail && a->backend && mem_backend_parse_name(a->backend, &o->backend.want) < 0)
		fail = "--backend must be auto, intel-pebs, amd-ibs, arm-spe, decode or page-fault (alias software)";
	if (fail)
		return opts_usage_error(u, "%s", fail);
	if (a->archive)
		snprintf(archive, archive_size, "%s", a->archive);
	else
		snprintf(archive, archive_size, "%.4088s.tar.gz", a->outdir);
	return 0;
}

/* The archive's top-level directory: its base name without .tar.gz. */
static void archive_top(const char *archive, char *out, size_t size)
{
	const char *base = strrchr(archive, '/');

	fs_strip_suffix(out, size, base ? base + 1 : archive, ".tar.gz");
}

static void print_summary(const struct record_result *r, const char *where)
{
	const struct decode_stats *d = &r->mem.decode;
	size_t i;

	for (i = 0; i < r->warnings.nr; i++)
		fprintf(stderr, "WARNING: %s\n", r->warnings.line[i]);
	if (r->mem_on && r->backend.kind == MEM_BACKEND_ARM_SPE)
		printf("Memory samples: in %llu bytes of Arm SPE data (%llu AUXTRACE records; process decodes "
		       "them; AUX records truncated %llu of %llu; threads from %s)\n",
		       (unsigned long long)r->mem.aux.bytes, (unsigned long long)r->mem.aux.records,
		       (unsigned long long)r->mem.aux.truncated, (unsigned long long)r->mem.aux.aux_records,
		       r->backend.pid_source);
	else if (r->mem_on)
		printf("Memory samples: %llu (%s; lost %llu events, %llu samples; phys_addr from pagemap %llu, "
		       "unresolved %llu, %llu of them drained after their process exited)\n",
		       (unsigned long long)r->mem.samples, mem_backend_name(r->backend.kind),
		       (unsigned long long)r->mem.lost_events, (unsigned long long)r->mem.lost_samples,
		       (unsigned long long)(r->mem.phys_resolved + r->mem.decode.phys_resolved),
		       (unsigned long long)(r->mem.phys_unresolved + r->mem.decode.phys_unresolved),
		       (unsigned long long)(r->mem.phys_exited + r->mem.decode.pm.exited));
	if (r->mem_on && r->backend.kind == MEM_BACKEND_DECODE)
		printf("Decoded: %llu of %llu cpu-clock samples gave data addresses (%llu at the IP, %llu the "
		       "instruction before; skipped: %llu kernel mode, %llu no memory operand, %llu fs/gs, "
		       "%llu unreadable text; see metadata.json)\n",
		       (unsigned long long)(d->decoded + d->decoded_prev), (unsigned long long)d->ticks,
		       (unsigned long long)d->decoded, (unsigned long long)d->decoded_prev,
		       (unsigned long long)d->skipped[DECODE_SKIP_KERNEL],
		       (unsigned long long)d->skipped[DECODE_SKIP_NO_MEMORY],
		       (unsigned long long)d->skipped[DECODE_SKIP_SEGMENT],
		       (unsigned long long)d->skipped[DECODE_SKIP_UNREADABLE]);
	if (r->sched_on)
		printf("Sched records: %llu (%zu tracepoints; dropped %llu)\n", (unsigned long long)r->sched.records,
		       r->sched.nr_attached, (unsigned long long)r->sched.drops);
	if (r->hints_on)
		printf("Hint updates: %llu (%s)\n", (unsigned long long)r->hints_updates, r->hints_mode);
	printf("Profile: %s\n", where);
}

static int run(struct record_args *a, struct record_opts *o, const struct cmd_usage *u)
{
	char archive[PATH_MAX], top[PATH_MAX], outdir[PATH_MAX], tmp[PATH_MAX];
	struct record_result *res = calloc(1, sizeof(*res));
	int rc = EXIT_ERROR;

	if (!res || check_args(a, u, o, archive, sizeof(archive)) < 0) {
		free(res);
		return res ? EXIT_USAGE : EXIT_ERROR;
	}
	fs_strip_suffix(outdir, sizeof(outdir), a->outdir, "");
	if (fs_exists(outdir)) {
		scx_fail("output directory '%s' already exists", outdir);
		goto fail;
	}
	if (!a->no_archive && fs_exists(archive)) {
		scx_fail("archive '%s' already exists", archive);
		goto fail;
	}
	if (fs_make_temp_dir_for(outdir, tmp, sizeof(tmp)) < 0)
		goto fail;
	o->dir = tmp;
	if (record_run(o, res) < 0) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", scx_errmsg());
		fs_remove_tree(tmp);
		scx_fail("%s", msg);
		goto fail;
	}
	if (a->no_archive) {
		if (fs_commit_dir(tmp, outdir, false) < 0)
			goto fail_rm;
		print_summary(res, outdir);
	} else {
		archive_top(archive, top, sizeof(top));
		if (archive_create(archive, tmp, top) < 0)
			goto fail_rm;
		fs_remove_tree(tmp);
		print_summary(res, archive);
	}
	rc = EXIT_OK;
	goto out;
fail_rm:
	{
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", scx_errmsg());
		fs_remove_tree(tmp);
		scx_fail("%s", msg);
	}
fail:
	fprintf(stderr, "scxprof record: %s\n", scx_errmsg());
	rc = res->interrupted || cmd_interrupted ? EXIT_INTERRUPTED : EXIT_ERROR;
out:
	free(res);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	static const struct cmd_usage u = {
		"record",
		"[-o DIR] [-f ARCHIVE.tar.gz] [-t SECS] [-l CYCLES] [--hints-map PATH] [--sched-ring-sz MB] "
		"[--backend NAME] [--event SPEC] [-c PERIOD | -F HZ] [--stores] [--mmap-pages N] [--aux-pages N] [-v] "
		"[-- COMMAND ARGS...]",
		"Sample memory accesses system-wide (with the CPU's load-latency sampling, or page faults\n"
		"on machines without it), trace scheduler, irq and softirq events with BPF and trace\n"
		"per-thread hints, all on CLOCK_MONOTONIC, for -t seconds or until COMMAND exits.\n"
		"Writes DIR/ (perf.mem.data, sched.data, hints.jsonl, kallsyms, topology.json,\n"
		"metadata.json) and archives it as DIR.tar.gz, whose single top-level\n"
		"directory is the archive's base name; DIR is then removed. Needs root (or\n"
		"CAP_PERFMON + CAP_BPF). SIGINT/SIGTERM stop and delete everything (exit 130).\n"
		"COMMAND runs in a process group of its own (as timeout(1)); when -t or a signal\n"
		"stops it, the whole group is killed, not only COMMAND's first process.",
		true, /* -- COMMAND ARGS... */
	};
	struct record_args a = {.outdir = "scxprof.out"};
	struct record_opts o = {
		.timeout_s = 30, .mem = true, .sched = true, .sched_ring_mb = 32, .hints_ring_mb = 8, .hints_poll_ms = 10,
	};
	const struct opt opts[] = {
		OPT_STRING('o', "output", &a.outdir, "DIR", "output directory, refused if it exists (scxprof.out)"),
		OPT_STRING('f', "file", &a.archive, "ARCHIVE", "archive path, must end in .tar.gz (DIR.tar.gz)"),
		OPT_INT('t', "timeout", &o.timeout_s, "SECS", "recording duration in seconds (30)", 1, 86400),
		OPT_INT('l', "ldlat", &o.backend.ldlat, "CYCLES", "load-latency threshold (10)", 1, 65535),
		OPT_STRING(0, "hints-map", &o.hints_map, "PATH", "pinned BPF task-storage map whose updates are traced"),
		OPT_INT(0, "hints-map-ring-sz", &o.hints_ring_mb, "MB", "ring buffer for hint events (8)", 1, 1024),
		OPT_INT(0, "hints-poll-ms", &o.hints_poll_ms, "MS", "snapshot period when fentry is refused (10)", 1, 10000),
		OPT_INT(0, "sched-ring-sz", &o.sched_ring_mb, "MB",
			"ring buffer for scheduling records, a power of two (32)", 1, 4096),
		OPT_FLAG(0, "disable-archive", &a.no_archive, "keep DIR instead of DIR.tar.gz"),
		OPT_FLAG_OFF(0, "disable-mem-trace", &o.mem, "do not record the memory stream"),
		OPT_FLAG_OFF(0, "disable-sched-trace", &o.sched, "do not record the scheduling stream"),
		OPT_STRING(0, "backend", &a.backend, "NAME", "auto|intel-pebs|amd-ibs|arm-spe|decode|page-fault (auto)"),
		OPT_STRING(0, "event", &o.backend.event_spec, "SPEC", "libpfm4 event string or pmu/term=val,.../"),
		OPT_INT('c', "count", &o.backend.period, "PERIOD", "sample every PERIOD events (decode: ns of cpu time)", 1,
			LONG_MAX),
		OPT_INT('F', "freq", &o.backend.freq, "HZ", "sample at HZ per second and cpu (decode: 500)", 1, 1000000),
		OPT_FLAG(0, "stores", &o.backend.stores, "also sample stores"),
		OPT_INT(0, "mmap-pages", &o.mmap_pages, "N", "ring buffer pages per cpu, a power of two (1024)", 1, 1 << 20),
		OPT_INT(0, "aux-pages", &o.aux_pages, "N",
			"Arm SPE: AUX area pages per cpu, a power of two (4 MiB as root, else 128 KiB)", 1, 1 << 20),
		OPT_COUNT('v', "verbose", &o.verbose, "more detail on stderr"),
		OPT_END(),
	};
	char **cmdline = malloc(((size_t)argc + 1) * sizeof(*cmdline)); /* opts_parse reorders argv */
	int rc;

	mem_backend_opts_init(&o.backend); /* before the options set its fields */
	if (!cmdline) {
		fprintf(stderr, "scxprof record: out of memory\n");
		return EXIT_ERROR;
	}
	memcpy(cmdline, argv, ((size_t)argc + 1) * sizeof(*cmdline));
	o.argc = argc;
	o.argv = cmdline;
	argc = opts_parse(argc, argv, opts, &u);
	if (argc < 0) {
		free(cmdline);
		return argc == OPTS_HELP ? EXIT_OK : EXIT_USAGE;
	}
	o.command = argc > 0 ? argv : NULL;
	o.stop = &cmd_interrupted;
	o.status = stderr;
	o.status_tty = isatty(STDERR_FILENO);
	rc = run(&a, &o, &u);
	free(cmdline);
	return rc;
}
