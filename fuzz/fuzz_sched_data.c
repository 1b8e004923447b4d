/*
 * fuzz_sched_data.c - libFuzzer target for the sched.data reader
 * (process/sched/sched_data.c: version 1's fixed records, version 2's chunks of
 * packed records with comm references).
 *
 * Each input is written to a memfd and read through process_sched() as a
 * profile's sched.data (opened via /proc/self/fd/N), sched.jsonl going to
 * /dev/null, and through the Perfetto trace writer (trace.pftrace to
 * /dev/null too). The reader may accept or refuse it; a refusal must say why.
 * Then through the names pass (process_sched_names: the names records give
 * threads whose COMM perf.data lost): it reads what the real pass reads, so
 * it succeeds when that did, and every name it keeps is found again, sorted.
 * Anything else (a crash, a sanitizer report) is a bug.
 *
 * With SCX_FUZZ_SEED_DIR set, LLVMFuzzerInitialize() first writes a small
 * valid file of each version into that directory (fuzz/run.sh seeds the
 * corpus with it).
 */
#include "lib/error.h"
#include "lib/sched_data_format.h"
#include "lib/pftrace/perfetto_trace.h"
#include "process/sched/sched_decode.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int memfd = -1;
static struct process_inputs in;
static FILE *devnull;

static void check_names(const struct process_opts *opts, int sched_rc)
{
	struct thread_names names;
	size_t i;
	int rc;

	thread_names_init(&names);
	scx_clear_error();
	rc = process_sched_names(opts, &names);
	if (rc < 0 && (sched_rc == 0 || scx_errmsg()[0] == '\0'))
		abort(); /* it reads no more than process_sched, and failures say why */
	for (i = 0; i < names.n; i++) {
		const struct thread_name *e = &names.v[i];
		const char *n = thread_names_lookup(&names, e->tid, e->time_ns);

		if (!n || !n[0] || e->tid == 0 || e->tid > INT32_MAX)
			abort(); /* a noted tid has a name at its own time */
		if (i && (names.v[i - 1].tid > e->tid ||
			  (names.v[i - 1].tid == e->tid && names.v[i - 1].time_ns > e->time_ns)))
			abort(); /* sorted by tid and time */
	}
	thread_names_free(&names);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct process_opts opts = {.in = &in};
	static struct process_result res;
	struct pftrace *trace;
	int rc;

	if (memfd < 0 || ftruncate(memfd, 0) < 0)
		abort();
	if (size && pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	memset(&res, 0, sizeof(res));
	scx_clear_error();
	/* the Perfetto trace writer runs on every record too */
	trace = pftrace_new(devnull, NULL);
	if (!trace)
		abort();
	rc = process_sched(&opts, devnull, trace, &res);
	if (rc == 0 && pftrace_finish(trace) < 0)
		abort(); /* /dev/null takes every write */
	pftrace_free(trace);
	if (rc < 0 && scx_errmsg()[0] == '\0')
		abort(); /* failures must say why */
	if (res.sched.parsed + res.sched.unparseable != res.sched.total)
		abort(); /* every record is either emitted or counted as unparseable */
	check_names(&opts, rc);
	return 0;
}

/* ---- seeds ------------------------------------------------------------------ */

static void header(uint8_t *d, uint32_t version)
{
	struct sched_data_header h = {.version = version, .header_size = SCHED_DATA_HEADER_SIZE, .clock_id = 1,
				      .record_size = version == 1 ? SCHED_RECORD_SIZE : 0, .start_ns = 1,
				      .nr_cpus = 2, .type_max = SCHED_RECORD_TYPE_MAX};

	memcpy(h.magic, SCHED_DATA_MAGIC, 8);
	memcpy(d, &h, sizeof(h));
}

/* version 2: one chunk of a switch (both comms inline), a wakeup referring
 * back to them, and an irq entry with a u64 arg1 and its action name */
static size_t seed_v2(uint8_t *d)
{
	size_t n = SCHED_DATA_HEADER_SIZE, c = n, rel;
	struct sched_packed_rec r = {.timestamp = 10, .type = SCHED_SWITCH, .flags = SCHED_F_COMM | SCHED_F_COMM2,
			       .cpu = 1, .pid = 5, .tgid = 5, .pid2 = 6, .tgid2 = 6, .prio = 120, .prio2 = 120, .arg0 = 1};
	struct sched_chunk_header ch = {.cpu = 1, .nrec = 3};
	uint64_t handler = 0xffffffff81000000ull;

	header(d, 2);
	n += sizeof(ch);
	rel = n - c;
	memcpy(d + n, &r, sizeof(r));
	memcpy(d + n + 40, "alpha\0\0\0\0\0\0\0\0\0\0\0beta\0\0\0\0\0\0\0\0\0\0\0\0", 32);
	n += 72;
	r = (struct sched_packed_rec){.timestamp = 20, .type = SCHED_WAKING, .cpu = 1, .comm_ref = (uint16_t)(rel + 56),
				.comm2_ref = (uint16_t)(rel + 40), .pid = 6, .tgid = 6, .pid2 = 5, .tgid2 = 5,
				.prio = 120, .arg0 = 1};
	memcpy(d + n, &r, sizeof(r));
	n += 40;
	r = (struct sched_packed_rec){.timestamp = 30, .type = IRQ_HANDLER_ENTRY, .flags = SCHED_F_ARG1 | SCHED_F_COMM2,
				.cpu = 1, .comm_ref = (uint16_t)(rel + 56), .pid = 6, .tgid = 6, .arg0 = 24};
	memcpy(d + n, &r, sizeof(r));
	memcpy(d + n + 40, &handler, 8);
	memcpy(d + n + 48, "eth0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	n += 64;
	ch.size = (uint32_t)(n - c);
	memcpy(d + c, &ch, sizeof(ch));
	return n;
}

static size_t seed_v1(uint8_t *d)
{
	struct sched_record r = {.timestamp = 10, .cpu = 0, .type = SCHED_SWITCH, .pid = 0, .pid2 = 7, .tgid2 = 7,
				 .prio = 120, .prio2 = 120, .comm = "swapper/0", .comm2 = "gamma"};

	header(d, 1);
	memcpy(d + SCHED_DATA_HEADER_SIZE, &r, sizeof(r));
	return SCHED_DATA_HEADER_SIZE + sizeof(r);
}

static void write_seed(const char *dir, const char *name, const uint8_t *d, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wbx");
	if (!f)
		return; /* already there */
	fwrite(d, 1, n, f);
	fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("SCX_FUZZ_SEED_DIR");
	static _Alignas(8) uint8_t d[1024];

	(void)argc;
	(void)argv;
	memfd = memfd_create("fuzz_sched_data", MFD_CLOEXEC);
	devnull = fopen("/dev/null", "w");
	if (memfd < 0 || !devnull)
		abort();
	snprintf(in.sched_path, sizeof(in.sched_path), "/proc/self/fd/%d", memfd);
	snprintf(in.sched_name, sizeof(in.sched_name), "sched.data");
	in.sched_kind = SCHED_IN_DATA;
	if (dir) {
		write_seed(dir, "seed-v2", d, seed_v2(d));
		write_seed(dir, "seed-v1", d, seed_v1(d));
	}
	return 0;
}
