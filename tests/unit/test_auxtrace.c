/*
 * test_auxtrace.c - unit tests of record/perfdata/auxtrace.c, the AUX-area
 * records of an Arm SPE recording: synthetic AUX areas (one wrapped: the
 * head past the area's end) holding hand-encoded SPE records, and a
 * synthetic ring of PERF_RECORD_AUX records, go through the writer path
 * into a perf.data; perf 6.1's `perf script` (which decodes SPE offline on
 * any architecture) must open it and synthesize exactly the encoded
 * samples: time from TIME_CONV, thread from context packets in one file
 * and from PERF_RECORD_SWITCH_CPU_WIDE in the other; and process must
 * write the same samples to perf.jsonl.
 *
 * The SPE packets are encoded here from the Arm ARM's packet format (DDI
 * 0487, "Statistical Profiling Extension", packet headers): address
 * 0b10110iii + 8 bytes, counter 0b10011iii + 2 bytes, events 0b01ss0010
 * (ss = log2 size), operation type 0b010010cc + 1 byte, context 0b011001ii
 * + 4 bytes, data source 0b01ss0011, timestamp 0b01110001 + 8 bytes (ends
 * a record), padding 0x00.
 */
#include "lib/error.h"
#include "lib/perfdata.h"
#include "record/perfdata/record_perfdata.h"

#include <criterion/criterion.h>
#include <ftw.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPE_TYPE 9
#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
	    PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_PHYS_ADDR | \
	    PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT)
#define PID 4242
#define TID_A 4242
#define TID_B 4243
/* TIME_CONV: perf time = time_zero + (cyc >> shift) * mult + ... = 5 s + 40 ns * cyc */
#define TC_ZERO 5000000000ULL
#define TC_MULT 80
#define TC_SHIFT 1

static char tmpdir[64];

static void make_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/test_auxtrace.XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tmpdir(void)
{
	if (!getenv("TEST_AUXTRACE_KEEP"))
		nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(auxtrace, .init = make_tmpdir, .fini = remove_tmpdir);

/* ---- SPE packets (from the Arm ARM, not from any decoder) ----------------- */

struct spe_buf {
	uint8_t d[1024];
	size_t n;
};

static void put_le(struct spe_buf *b, uint64_t v, size_t bytes)
{
	for (size_t i = 0; i < bytes; i++)
		b->d[b->n++] = (uint8_t)(v >> (8 * i));
}

static void pkt(struct spe_buf *b, uint8_t header, uint64_t payload, size_t bytes)
{
	b->d[b->n++] = header;
	put_le(b, payload, bytes);
}

struct spe_rec {
	uint64_t pc, va, pa; /* pa 0: no packet */
	bool store;
	uint16_t latency;
	uint16_t events;     /* bit 1 retired, 2 L1D access, 3 L1D refill, 8 LLC access, 9 LLC miss */
	int64_t context;     /* -1: no context packet */
	uint64_t ts;         /* counter cycles */
};

static void encode(struct spe_buf *b, const struct spe_rec *r)
{
	/* PC: bit 63 NS, bits 62:61 EL (0: user) */
	pkt(b, 0xb0 | 0, (1ULL << 63) | r->pc, 8);
	if (r->context >= 0)
		pkt(b, 0x64 | 0, (uint64_t)r->context, 4); /* CONTEXTIDR_EL1 */
	pkt(b, 0x48 | 1, r->store ? 1 : 0, 1);          /* load/store class, bit 0 = store */
	pkt(b, 0x52, r->events, 2);                      /* 2-byte events */
	pkt(b, 0x98 | 0, r->latency, 2);                 /* total latency */
	pkt(b, 0x98 | 1, r->latency / 2, 2);             /* issue latency */
	pkt(b, 0xb0 | 2, r->va, 8);                      /* data virtual address */
	if (r->pa)
		pkt(b, 0xb0 | 3, (1ULL << 63) | r->pa, 8); /* data physical address, NS */
	pkt(b, 0x71, r->ts, 8);                          /* timestamp: end of record */
}

/* ---- the perf.data ----------------------------------------------------------- */

struct trailer {
	uint32_t pid, tid;
	uint64_t time, id;
	uint32_t cpu, res;
};

static void add(struct pd_writer *w, uint32_t type, uint16_t misc, const void *body, size_t len,
		const struct trailer *t)
{
	uint8_t rec[512];
	struct perf_event_header h = { .type = type, .misc = misc,
				       .size = (uint16_t)(sizeof(h) + len + sizeof(*t)) };

	cr_assert(h.size <= sizeof(rec) && len % 8 == 0);
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), body, len);
	memcpy(rec + sizeof(h) + len, t, sizeof(*t));
	cr_assert_eq(pd_writer_add_record(w, rec, h.size), 0, "%s", scx_errmsg());
}

static void add_comm(struct pd_writer *w, uint32_t tid, const char *name)
{
	struct { uint32_t pid, tid; char comm[16]; } c = { PID, tid, { 0 } };
	struct trailer t = { PID, tid, 0, 200, 0, 0 };

	snprintf(c.comm, sizeof(c.comm), "%s", name);
	add(w, PERF_RECORD_COMM, 0, &c, sizeof(c), &t);
}

static void add_aux(struct pd_writer *w, struct auxtrace *a, uint64_t off, uint64_t size,
		    uint64_t flags, uint32_t cpu, uint64_t time)
{
	uint64_t body[3] = { off, size, flags };
	struct trailer t = { (uint32_t)-1, (uint32_t)-1, time, 100 + cpu, cpu, 0 };
	uint8_t rec[64];

	add(w, PERF_RECORD_AUX, 0, body, sizeof(body), &t);
	memcpy(rec, &(struct perf_event_header){ PERF_RECORD_AUX, 0, 64 }, 8);
	memcpy(rec + 8, body, sizeof(body));
	auxtrace_note_aux(a, rec, 8 + sizeof(body) + sizeof(t));
}

static void add_attrs(struct pd_writer *w)
{
	struct perf_event_attr spe = { 0 }, dummy = { 0 };
	uint64_t spe_ids[2] = { 100, 101 }, dummy_ids[2] = { 200, 201 };

	spe.size = dummy.size = sizeof(spe);
	spe.type = SPE_TYPE;
	spe.config = (1ULL << 33) | 0x3 | (1ULL << 16);
	spe.config2 = 10;
	spe.sample_period = 1024;
	spe.sample_type = dummy.sample_type = ST;
	spe.sample_id_all = dummy.sample_id_all = 1;
	spe.disabled = dummy.disabled = 1;
	spe.exclude_guest = dummy.exclude_guest = 1;
	dummy.type = PERF_TYPE_SOFTWARE;
	dummy.config = PERF_COUNT_SW_DUMMY;
	dummy.sample_period = 1;
	dummy.mmap = dummy.mmap2 = dummy.comm = dummy.task = 1;
	dummy.context_switch = 1;
	cr_assert_eq(pd_writer_add_attr(w, &spe, spe_ids, 2, "arm_spe_0//"), 0);
	cr_assert_eq(pd_writer_add_attr(w, &dummy, dummy_ids, 2, "dummy:u"), 0);
}

/* An AUX area of AREA bytes holding b's bytes from position pos on (so
 * they wrap when pos % AREA + n > AREA). */
#define AREA 256
static void place(uint8_t area[AREA], uint64_t pos, const struct spe_buf *b)
{
	for (size_t i = 0; i < b->n; i++)
		area[(pos + i) % AREA] = b->d[i];
}

static const struct spe_rec cpu0_recs[] = {
	{ 0x400100, 0x7f0000001000, 0x80001000, false, 40, 0x0006, PID, 1000 },
	{ 0x400200, 0x7f0000002008, 0x80002008, true, 120, 0x010e, PID, 1100 },
};
static const struct spe_rec cpu0_late[] = {
	{ 0x400300, 0x7f0000003010, 0x80003010, false, 300, 0x030e, PID, 1300 },
};
static const struct spe_rec cpu1_recs[] = {
	{ 0x400400, 0x7f0000004018, 0x80004018, false, 64, 0x0006, TID_B, 1200 },
};

/* The file: cpu 0's area wraps (its records start at position 200 of a
 * 256-byte area) and is copied in two parts, the second after a
 * TRUNCATED AUX record; cpu 1 has one copy. with_context: context packets
 * carry the tid; else they are left out and a switch-out record on each
 * cpu names the next task. */
static void write_file(const char *path, bool with_context, struct auxtrace *a)
{
	struct perf_event_mmap_page pg;
	struct pd_writer w;
	uint8_t area0[AREA] = { 0 }, area1[AREA] = { 0 };
	struct spe_buf b0 = { .n = 0 }, b0late = { .n = 0 }, b1 = { .n = 0 };
	struct auxtrace_where where0 = { 0, 0, 0x1234 }, where1 = { 1, 1, 0x1234 };
	uint64_t pos0 = 200;

	for (size_t i = 0; i < 2; i++) {
		struct spe_rec r = cpu0_recs[i];

		r.context = with_context ? r.context : -1;
		encode(&b0, &r);
	}
	b0.d[b0.n++] = 0; /* padding */
	{
		struct spe_rec r = cpu0_late[0], r1 = cpu1_recs[0];

		r.context = with_context ? r.context : -1;
		r1.context = with_context ? r1.context : -1;
		encode(&b0late, &r);
		encode(&b1, &r1);
	}
	place(area0, pos0, &b0);
	place(area0, pos0 + b0.n, &b0late);
	place(area1, 0, &b1);

	cr_assert_eq(pd_writer_open(&w, path), 0, "%s", scx_errmsg());
	add_attrs(&w);
	memset(&pg, 0, sizeof(pg));
	pg.cap_user_time_zero = 1;
	pg.time_zero = TC_ZERO - 1000; /* the adjustment below adds it back */
	pg.time_mult = TC_MULT;
	pg.time_shift = TC_SHIFT;
	cr_assert_eq(auxtrace_write_time_conv(&w, &pg, 1000), 0, "%s", scx_errmsg());
	cr_assert_eq(auxtrace_write_info_spe(&w, SPE_TYPE), 0, "%s", scx_errmsg());
	add_comm(&w, TID_A, "spe-main");
	add_comm(&w, TID_B, "spe-worker");
	if (!with_context) {
		struct { uint32_t pid, tid; } next;
		struct trailer t0 = { 0, 0, TC_ZERO + 100, 200, 0, 0 };
		struct trailer t1 = { 0, 0, TC_ZERO + 100, 201, 1, 0 };

		next.pid = PID;
		next.tid = TID_A;
		add(&w, PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT, &next, sizeof(next), &t0);
		next.tid = TID_B;
		add(&w, PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT, &next, sizeof(next), &t1);
	}
	add_aux(&w, a, pos0, b0.n, 0, 0, TC_ZERO + 45000);
	cr_assert_eq(auxtrace_copy(a, &w, area0, AREA, pos0, pos0 + b0.n, &where0), 0, "%s",
		     scx_errmsg());
	add_aux(&w, a, 0, b1.n, 0, 1, TC_ZERO + 49000);
	cr_assert_eq(auxtrace_copy(a, &w, area1, AREA, 0, b1.n, &where1), 0, "%s", scx_errmsg());
	add_aux(&w, a, pos0 + b0.n, b0late.n, 0x1 /* TRUNCATED */, 0, TC_ZERO + 53000);
	cr_assert_eq(auxtrace_copy(a, &w, area0, AREA, pos0 + b0.n, pos0 + b0.n + b0late.n, &where0),
		     0, "%s", scx_errmsg());
	cr_assert_eq(auxtrace_add_index_feature(a, &w), 0, "%s", scx_errmsg());
	cr_assert_eq(pd_writer_finish(&w), 0, "%s", scx_errmsg());
}

/* ---- perf script ------------------------------------------------------------- */

static bool have_perf(void)
{
	return system("perf version >/dev/null 2>&1") == 0;
}

/* perf script's memory samples (--itrace=M: one per load/store record):
 * "tid cpu time event addr weight ip phys_addr" per line, in the order perf
 * prints them (time). */
static size_t perf_memory_samples(const char *path, char lines[][160], size_t max, char *err,
				  size_t err_size)
{
	char cmd[512], line[512];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "perf script -i %s --ns -F tid,cpu,time,event,ip,addr,phys_addr,weight --itrace=M "
		 "2>%s.err", path, path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned tid, cpu;
		char t[64], ev[64];
		uint64_t ip, addr, phys, weight;

		if (sscanf(line, " %u [%u] %63s %63s %" SCNx64 " %" SCNu64 " %" SCNx64 " %" SCNx64, &tid,
			   &cpu, t, ev, &addr, &weight, &ip, &phys) != 8 || n == max)
			continue;
		snprintf(lines[n++], 160, "%u %u %s %s %" PRIx64 " %" PRIu64 " %" PRIx64 " %" PRIx64, tid,
			 cpu, t, ev, addr, weight, ip, phys);
	}
	cr_assert_eq(pclose(p), 0, "perf script failed on %s", path);
	snprintf(cmd, sizeof(cmd), "%s.err", path);
	{
		FILE *f = fopen(cmd, "r");
		size_t len = f ? fread(err, 1, err_size - 1, f) : 0;

		err[len] = '\0';
		if (f)
			fclose(f);
	}
	return n;
}

static void expect(char got[][160], size_t i, unsigned tid, unsigned cpu, const struct spe_rec *r)
{
	char want[160];
	uint64_t ns = TC_ZERO + (r->ts >> TC_SHIFT) * TC_MULT;

	snprintf(want, sizeof(want), "%u %u %" PRIu64 ".%09" PRIu64 ": memory: %" PRIx64 " %u %" PRIx64
		 " %" PRIx64, tid, cpu, ns / 1000000000, ns % 1000000000, r->va, r->latency, r->pc, r->pa);
	cr_assert_str_eq(got[i], want, "sample %zu", i);
}

static void check_file(bool with_context)
{
	char path[128], got[16][160], err[4096];
	struct auxtrace a;
	size_t n;

	if (!have_perf()) {
		remove_tmpdir(); /* a skipped test does not reach the suite's .fini */
		cr_skip_test("SKIP: perf is not installed: the oracle cannot run");
	}
	snprintf(path, sizeof(path), "%s/spe-%s.data", tmpdir, with_context ? "ctx" : "switch");
	auxtrace_init(&a);
	write_file(path, with_context, &a);
	cr_assert_eq(a.st.records, 3, "three AUXTRACE copies");
	cr_assert_eq(a.st.wrapped, 1, "cpu 0's first copy wraps the area's end");
	cr_assert_eq(a.st.aux_records, 3);
	cr_assert_eq(a.st.truncated, 1);
	cr_assert_eq(a.nr_index, 3);
	auxtrace_free(&a);
	n = perf_memory_samples(path, got, 16, err, sizeof(err));
	cr_assert_eq(n, 4, "perf script synthesized %zu memory samples, want 4; stderr: %s", n, err);
	/* in time order: cpu 0 at 1000, 1100; cpu 1 at 1200; cpu 0 at 1300 */
	expect(got, 0, TID_A, 0, &cpu0_recs[0]);
	expect(got, 1, TID_A, 0, &cpu0_recs[1]);
	expect(got, 2, TID_B, 1, &cpu1_recs[0]);
	expect(got, 3, TID_A, 0, &cpu0_late[0]);
	cr_assert(strstr(err, "AUX data lost 1 times out of 3"), "perf reports the TRUNCATED "
		  "AUX record; stderr: %s", err);
	/* perf warns exactly when it has to fall back on switch records */
	cr_assert_eq(strstr(err, "CONTEXT packets not found") == NULL, with_context, "%s", err);
}

/* process (process/spe) on the same file: perf.jsonl's samples, in order,
 * carry what perf script printed (tid, cpu, time, addr, ip, phys_addr,
 * weight). Needs the scxprof binary: tests/run.sh exports SCXPROF. */
static void check_process(bool with_context)
{
	const char *bin = getenv("SCXPROF");
	static const struct { unsigned tid, cpu; const struct spe_rec *r; } want[] = {
		{ TID_A, 0, &cpu0_recs[0] }, { TID_A, 0, &cpu0_recs[1] },
		{ TID_B, 1, &cpu1_recs[0] }, { TID_A, 0, &cpu0_late[0] },
	};
	char dir[128], cmd[512], line[2048];
	struct auxtrace a;
	size_t n = 0;
	FILE *f;

	if (!bin) {
		remove_tmpdir(); /* a skipped test does not reach the suite's .fini */
		cr_skip_test("SKIP: SCXPROF unset (run through tests/run.sh): process cannot run");
	}
	snprintf(dir, sizeof(dir), "%s/prof", tmpdir);
	cr_assert_eq(mkdir(dir, 0700), 0);
	snprintf(cmd, sizeof(cmd), "%s/perf.mem.data", dir);
	auxtrace_init(&a);
	write_file(cmd, with_context, &a);
	auxtrace_free(&a);
	snprintf(cmd, sizeof(cmd), "%s process -f %s --no-filter --no-perfetto >/dev/null 2>&1", bin,
		 dir);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
	snprintf(cmd, sizeof(cmd), "%s.out/perf.jsonl", dir);
	f = fopen(cmd, "r");
	cr_assert_not_null(f, "%s", cmd);
	while (fgets(line, sizeof(line), f)) {
		const struct spe_rec *r;
		char keys[6][96];
		uint64_t ns;

		cr_assert_lt(n, 4, "more than 4 samples: %s", line);
		r = want[n].r;
		ns = TC_ZERO + (r->ts >> TC_SHIFT) * TC_MULT;
		snprintf(keys[0], 96, "\"tid\":%u,", want[n].tid);
		snprintf(keys[1], 96, "\"addr\":\"%" PRIx64 "\"", r->va);
		snprintf(keys[2], 96, "\"ip\":\"%" PRIx64 "\"", r->pc);
		snprintf(keys[3], 96, "\"phys_addr\":\"%" PRIx64 "\"", r->pa);
		snprintf(keys[4], 96, "\"cpu\":%u,\"time_ns\":%" PRIu64 ",", want[n].cpu, ns);
		snprintf(keys[5], 96, "\"weight\":%u,", r->latency);
		for (int k = 0; k < 6; k++)
			cr_assert(strstr(line, keys[k]), "sample %zu lacks %s: %s", n, keys[k], line);
		n++;
	}
	fclose(f);
	cr_assert_eq(n, 4, "process wrote %zu samples, perf script 4", n);
}

Test(auxtrace, process_agrees_on_context_packet_file)
{
	check_process(true);
}

Test(auxtrace, process_agrees_on_switch_record_file)
{
	check_process(false);
}

Test(auxtrace, perf_script_decodes_context_packet_file)
{
	check_file(true);
}

Test(auxtrace, perf_script_decodes_switch_record_file)
{
	check_file(false);
}

/* The kernel ran more than a lap ahead (it should stop with TRUNCATED
 * instead): only the newest AREA bytes are there to copy, the rest is
 * counted; a head behind the tail and a page without time_zero are
 * refused with a message saying why. */
Test(auxtrace, overrun_counted_and_bad_positions_refused)
{
	char path[128];
	uint8_t area[AREA];
	struct pd_writer w;
	struct auxtrace a;
	struct perf_event_mmap_page pg;
	struct auxtrace_where where = { 0, 3, 1 };

	for (size_t i = 0; i < AREA; i++)
		area[i] = (uint8_t)i;
	snprintf(path, sizeof(path), "%s/overrun.data", tmpdir);
	auxtrace_init(&a);
	cr_assert_eq(pd_writer_open(&w, path), 0, "%s", scx_errmsg());
	add_attrs(&w);
	cr_assert_eq(auxtrace_copy(&a, &w, area, AREA, 100, 100, &where), 0, "nothing to copy");
	cr_assert_eq(a.st.records, 0);
	cr_assert_eq(auxtrace_copy(&a, &w, area, AREA, 100, 100 + AREA + 40, &where), 0, "%s",
		     scx_errmsg());
	cr_assert_eq(a.st.bytes_overwritten, 40);
	cr_assert_eq(a.st.bytes, AREA);
	cr_assert_eq(a.index[0].offset, PD_HEADER_SIZE, "the first record of the data section");
	cr_assert_eq(a.index[0].size, 48, "header.size, as perf checks it");
	cr_assert_neq(auxtrace_copy(&a, &w, area, AREA, 500, 400, &where), 0);
	cr_assert(strstr(scx_errmsg(), "cpu 3: AUX head 400 behind tail 500"), "%s", scx_errmsg());
	memset(&pg, 0, sizeof(pg));
	cr_assert_neq(auxtrace_write_time_conv(&w, &pg, 0), 0);
	cr_assert(strstr(scx_errmsg(), "cap_user_time_zero"), "%s", scx_errmsg());
	pd_writer_abort(&w);
	auxtrace_free(&a);
}
