/*
 * fuzz_perfdata.c - libFuzzer target for the perf.data reader (lib/perfdata.c).
 *
 * Each input is written to a memfd and opened through /proc/self/fd/N, then
 * walked completely: every record is decoded with pd_parse_sample() or
 * pd_parse_sample_id(), pd_body_size() and the attr lookups are exercised,
 * every feature bit is queried, the kernel identity checks of process
 * (kernel build-id, kernel map record) run on it, and the recording host's
 * topology is read from its CACHE, CPU_TOPOLOGY, NUMA_TOPOLOGY and NRCPUS
 * sections (lib/host/topology_perf.c: 0 with CPUs ascending, each with a
 * well-formed or empty LLC list, and an LLC and node index per CPU in the
 * CPU -> LLC map built from it, llc/llc_map.c; 1 with none;
 * -1 with a message and nothing kept). Anything but a clean -1 or 0 (a crash,
 * a sanitizer report) is a bug.
 *
 * With SCX_FUZZ_SEED_DIR set, LLVMFuzzerInitialize() first writes a few small
 * valid files with the writer into that directory (fuzz/run.sh uses it to
 * seed the corpus).
 */
#include "lib/error.h"
#include "lib/host/host.h"
#include "lib/kernel_id.h"
#include "lib/perfdata.h"
#include "llc/llc_map.h"
#include "process/mem/kernel_match.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int memfd = -1;
static char memfd_path[64];

/* ---- exercising the reader ------------------------------------------------ */

static volatile uint64_t sink; /* keeps decoded values alive */

static void touch_sample(const struct pd_sample *s)
{
	uint64_t v = s->id ^ s->ip ^ s->time ^ s->addr ^ s->period ^ s->weight;

	for (uint64_t i = 0; i < s->callchain_nr; i++)
		v ^= s->callchain[i];
	if (s->read_size)
		v ^= ((const uint8_t *)s->read)[s->read_size - 1];
	if (s->raw_size)
		v ^= ((const uint8_t *)s->raw)[s->raw_size - 1];
	if (s->branch_nr)
		v ^= ((const uint8_t *)s->branch_entries)[s->branch_nr * 24 - 1];
	if (s->regs_user)
		v ^= s->regs_user[0];
	if (s->regs_intr)
		v ^= s->regs_intr[0];
	if (s->stack_user_size)
		v ^= ((const uint8_t *)s->stack_user)[s->stack_user_size - 1];
	if (s->aux_size)
		v ^= ((const uint8_t *)s->aux)[s->aux_size - 1];
	sink = v;
}

static void walk(struct pd_file *f)
{
	struct pd_cursor c;
	const struct perf_event_header *h;
	struct pd_sample s;

	pd_cursor_init(&c, f);
	while (pd_next(&c, &h) > 0) {
		const uint8_t *body = (const uint8_t *)h + 8;
		size_t body_size = pd_body_size(f, h);

		if (body_size)
			sink = body[body_size - 1];
		sink = (uintptr_t)pd_record_name(h->type);
		if (h->type == PERF_RECORD_SAMPLE) {
			(void)pd_attr_for_sample(f, h);
			if (pd_parse_sample(f, h, &s) == 0)
				touch_sample(&s);
		} else {
			(void)pd_attr_for_trailer(f, h);
			if (pd_parse_sample_id(f, h, &s) == 0)
				touch_sample(&s);
		}
		pd_release_before(f, pd_offset_of(f, h));
	}
}

static void query_features(const struct pd_file *f)
{
	for (int bit = -1; bit <= PD_FEAT_MAX; bit++) {
		const void *data;
		uint64_t size;

		if (pd_feature(f, bit, &data, &size) == 0 && size > 0)
			sink = ((const uint8_t *)data)[size - 1];
	}
	for (size_t i = 0; i < f->nr_attrs; i++)
		sink = strlen(f->attrs[i].name);
}

/* What process checks before trusting a kallsyms file: the kernel's
 * build-id (BUILD_ID feature) and its map record before the first sample.
 * The input doubles as a kernel notes blob (kid_notes_build_id). */
static void kernel_identity(const struct pd_file *f, const uint8_t *data, size_t size)
{
	uint8_t bid[20];
	size_t n = 0;
	uint64_t start = 0;
	char why[512];

	if (pd_build_id_for(f, "[kernel.kallsyms]", bid, &n) > 0 && (n == 0 || n > 20))
		abort();
	if (kernel_match_map_start(f, &start))
		sink = start;
	/* /dev/null as the snapshot: no _text, so a kernel map means a mismatch */
	if (!kernel_match_snapshot(f, "/dev/null", NULL, 0, why, sizeof(why)) && !why[0])
		abort(); /* a mismatch must say why */
	if (kid_notes_build_id(data, size, bid) > 20)
		abort();
}

static void topology(const struct pd_file *f)
{
	struct host_topology t;
	struct llc_map m;
	size_t i;
	int rc;

	scx_clear_error();
	rc = host_topology_perfdata(f, &t);
	if (rc < 0) {
		if (!scx_errmsg()[0] || t.n || t.cpus)
			abort(); /* a failure says why and keeps nothing */
		return;
	}
	if (rc > 1 || (rc == 1) != (t.n == 0))
		abort();
	for (i = 0; i < t.n; i++)
		if ((i && t.cpus[i].cpu <= t.cpus[i - 1].cpu) || t.cpus[i].cpu < 0 || t.cpus[i].cpu > HOST_MAX_CPU ||
		    (t.cpus[i].llc_cpus[0] && host_cpulist_count(t.cpus[i].llc_cpus) < 1) ||
		    (t.cpus[i].llc >= 0 && t.cpus[i].llc != host_cpulist_first(t.cpus[i].llc_cpus)))
			abort();
	/* the CPU -> LLC map extract's cross-LLC figures build from it */
	if (t.n && llc_map_from_topology(&t, t.source, &m) < 0)
		abort();
	if (t.n && (m.nr_llcs > t.n || m.nr_cpus != (size_t)t.cpus[t.n - 1].cpu + 1 || m.online != t.n))
		abort();
	for (i = 0; i < t.n; i++)
		if (m.llc_of[t.cpus[i].cpu] < 0 || (size_t)m.llc_of[t.cpus[i].cpu] >= m.nr_llcs ||
		    m.node_of[t.cpus[i].cpu] < 0 || (size_t)m.node_of[t.cpus[i].cpu] >= m.nr_nodes)
			abort();
	if (t.n)
		llc_map_free(&m);
	sink = host_topology_largest_llc(&t);
	host_topology_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_file f;

	if (memfd < 0 || ftruncate(memfd, 0) < 0)
		abort();
	if (size && pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	if (pd_open(&f, memfd_path) == 0) {
		query_features(&f);
		kernel_identity(&f, data, size);
		topology(&f);
		walk(&f);
		pd_close(&f);
	} else if (scx_errmsg()[0] == '\0') {
		abort(); /* failures must say why */
	}
	return 0;
}

/* ---- seeds ------------------------------------------------------------------ */

struct seed {
	_Alignas(8) uint8_t d[4096];
	size_t n, start;
};

static void put(struct seed *b, const void *p, size_t len)
{
	memcpy(b->d + b->n, p, len);
	b->n += len;
}

static void put64(struct seed *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32(struct seed *b, uint32_t v)
{
	put(b, &v, 4);
}

static void begin(struct seed *b, uint32_t type)
{
	struct perf_event_header h = { type, PERF_RECORD_MISC_USER, 0 };

	b->start = b->n;
	put(b, &h, sizeof(h));
}

static size_t end(struct seed *b)
{
	uint16_t size = (uint16_t)(b->n - b->start);

	memcpy(b->d + b->start + 6, &size, 2);
	return size;
}

#define SEED_ST                                                                               \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |      \
	 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |      \
	 PERF_SAMPLE_READ | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | \
	 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |            \
	 PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_AUX)

static void seed_records(struct seed *b, uint64_t id)
{
	begin(b, PERF_RECORD_COMM); /* with trailer TID TIME ID CPU IDENTIFIER */
	put32(b, 5);
	put32(b, 5);
	put(b, "seed\0\0\0\0", 8);
	put32(b, 5);
	put32(b, 5);
	put64(b, 1);
	put64(b, id);
	put32(b, 0);
	put32(b, 0);
	put64(b, id);
	end(b);
	begin(b, PERF_RECORD_SAMPLE);
	put64(b, id);          /* identifier */
	put64(b, 0x401000);    /* ip */
	put32(b, 5);
	put32(b, 5);
	put64(b, 2);           /* time */
	put64(b, id);          /* id */
	put32(b, 0);           /* cpu */
	put32(b, 0);
	put64(b, 1);           /* period */
	put64(b, 1);           /* read: group nr */
	put64(b, 10);          /* value */
	put64(b, id);          /* id */
	put64(b, 2);           /* callchain */
	put64(b, 0x401000);
	put64(b, 0x402000);
	put32(b, 4);           /* raw */
	put32(b, 0xabcd);
	put64(b, 1);           /* branch nr */
	put64(b, 0);           /* hw_idx */
	put64(b, 1);
	put64(b, 2);
	put64(b, 3);
	put64(b, PERF_SAMPLE_REGS_ABI_64);
	put64(b, 7);           /* 1 reg */
	put64(b, 8);           /* stack size */
	put64(b, 0x1122334455667788ULL);
	put64(b, 8);           /* dyn size */
	put64(b, 100);         /* weight */
	put64(b, 0x42);        /* data_src */
	put64(b, 0x1000);      /* phys */
	put64(b, 4096);        /* page size */
	put64(b, 0);           /* aux size */
	end(b);
	begin(b, PD_RECORD_AUXTRACE);
	put64(b, 8);
	put64(b, 0);
	put64(b, 0);
	put32(b, 0);
	put32(b, 5);
	put32(b, 0);
	put32(b, 0);
	end(b);
	put64(b, 0xaaaaaaaaaaaaaaaaULL); /* AUXTRACE payload */
	begin(b, PD_RECORD_FINISHED_ROUND);
	end(b);
}

static int write_seed(const char *dir, const char *name, int nr_attrs)
{
	char path[4096];
	struct perf_event_attr a;
	struct pd_writer w;
	struct seed b = { .n = 0 };
	uint64_t ids[2][2] = { { 1, 2 }, { 3, 4 } };
	uint32_t nrcpus[2] = { 2, 2 };
	size_t pos = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_period = 1;
	a.sample_type = SEED_ST;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	a.sample_regs_user = 1;
	a.sample_id_all = 1;
	seed_records(&b, 3);
	if (pd_writer_open(&w, path) < 0)
		return -1;
	for (int i = 0; i < nr_attrs; i++)
		if (pd_writer_add_attr(&w, &a, ids[i], 2, i ? "cpu-clock" : "page-faults") < 0)
			goto fail;
	if (pd_writer_add_feature(&w, PD_FEAT_NRCPUS, nrcpus, sizeof(nrcpus)) < 0)
		goto fail;
	while (pos < b.n) {
		struct perf_event_header h;
		uint64_t payload = 0;

		memcpy(&h, b.d + pos, sizeof(h));
		if (h.type == PD_RECORD_AUXTRACE)
			memcpy(&payload, b.d + pos + 8, 8);
		if (pd_writer_add_record(&w, b.d + pos, h.size + payload) < 0)
			goto fail;
		pos += h.size + payload;
	}
	return pd_writer_finish(&w);
fail:
	pd_writer_abort(&w);
	return -1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("SCX_FUZZ_SEED_DIR");

	(void)argc;
	(void)argv;
	memfd = memfd_create("fuzz_perfdata", MFD_CLOEXEC);
	if (memfd < 0)
		abort();
	snprintf(memfd_path, sizeof(memfd_path), "/proc/self/fd/%d", memfd);
	if (dir) {
		/* existing seeds are kept: the writer refuses to overwrite */
		(void)write_seed(dir, "seed-one-attr.data", 1);
		(void)write_seed(dir, "seed-two-attrs.data", 2);
	}
	return 0;
}
