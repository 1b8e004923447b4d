/*
 * fuzz_session.c - libFuzzer target for the side-band replay of process
 * (process/order/session.c) and the data identity it gives samples
 * (lib/data_id.c): threads, forks, exec, MMAP/MMAP2 of any shape.
 *
 * An input is a stream of records (perf_event_header + body, no file
 * header), each applied with session_apply(). A PERF_RECORD_SAMPLE record is
 * a query instead: body pid, tid (u32), addr, phys_addr (u64); its data and
 * its ip (= addr) are resolved and the data identity formatted. Symbols are
 * looked up under a --symfs that does not exist, so no file is read.
 * Anything but a clean return (a crash, a sanitizer report) is a bug.
 *
 * With SCX_FUZZ_SEED_DIR set, LLVMFuzzerInitialize() writes a few record
 * streams there (fuzz/run.sh uses it to seed the corpus).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/error.h"
#include "lib/perfdata.h"
#include "lib/data_id.h"
#include "process/order/order.h"

static volatile uint64_t sink;

static void query(struct session *s, const struct perf_event_header *h, const uint8_t *b, size_t len)
{
	uint32_t pid, tid;
	uint64_t addr, phys;
	struct session_thread *t;
	struct session_data d;
	struct session_resolved r;
	char text[DATA_ID_JSON_MAX];

	if (len < 24)
		return;
	memcpy(&pid, b, 4);
	memcpy(&tid, b + 4, 4);
	memcpy(&addr, b + 8, 8);
	memcpy(&phys, b + 16, 8);
	t = session_thread(s, (int32_t)pid, (int32_t)tid);
	if (!t)
		return;
	session_resolve_data(s, t, (int32_t)pid, addr, phys, &d);
	sink = (uintptr_t)(data_id_put(text, &d.id) - text);
	if (d.map)
		sink = strlen(d.map);
	if (d.sym)
		sink = strlen(d.sym);
	session_resolve_ip(s, t, h->misc & PERF_RECORD_MISC_CPUMODE_MASK, addr, &r);
	sink = strlen(r.dso) + strlen(r.sym);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sym_cache_opts so = {.symfs = "/nonexistent-scxprof-fuzz"};
	struct sym_cache *c = sym_cache_new(&so);
	struct session s;
	_Alignas(8) uint8_t rec[65536];
	size_t pos = 0;

	if (!c)
		abort();
	if (session_init(&s, c) < 0)
		abort();
	while (size - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		memcpy(&h, data + pos, sizeof(h));
		if (h.size < sizeof(h) || h.size > size - pos)
			break;
		memcpy(rec, data + pos, h.size);
		pos += h.size;
		if (h.type == PERF_RECORD_SAMPLE)
			query(&s, &h, rec + sizeof(h), h.size - sizeof(h));
		else if (session_apply(&s, (const struct perf_event_header *)rec, h.size - sizeof(h)) < 0 &&
			 scx_errmsg()[0] == '\0')
			abort(); /* failures must say why */
	}
	session_free(&s);
	sym_cache_free(c);
	return 0;
}

/* ---- seeds ------------------------------------------------------------------ */

struct seed {
	uint8_t d[4096];
	size_t n, start;
};

static void put(struct seed *b, const void *p, size_t len)
{
	memcpy(b->d + b->n, p, len);
	b->n += len;
}

static void put32(struct seed *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put64(struct seed *b, uint64_t v)
{
	put(b, &v, 8);
}

static void begin(struct seed *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {type, misc, 0};

	b->start = b->n;
	put(b, &h, sizeof(h));
}

static void end(struct seed *b)
{
	uint16_t size;

	while ((b->n - b->start) % 8)
		b->d[b->n++] = 0;
	size = (uint16_t)(b->n - b->start);
	memcpy(b->d + b->start + 6, &size, 2);
}

static void mmap2(struct seed *b, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, uint64_t ino,
		  uint32_t prot, uint32_t flags, const char *name, bool build_id)
{
	begin(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | (build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	put32(b, pid);
	put32(b, pid);
	put64(b, start);
	put64(b, len);
	put64(b, pgoff);
	if (build_id) {
		put32(b, 20);
		for (int i = 0; i < 5; i++)
			put32(b, 0x5a5a5a5a);
	} else {
		put32(b, 0xfe);
		put32(b, 1);
		put64(b, ino);
		put64(b, 7);
	}
	put32(b, prot);
	put32(b, flags);
	put(b, name, strlen(name) + 1);
	end(b);
}

static void sample(struct seed *b, uint32_t pid, uint64_t addr, uint64_t phys)
{
	begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put32(b, pid);
	put32(b, pid);
	put64(b, addr);
	put64(b, phys);
	end(b);
}

static void ids4(struct seed *b, uint32_t type, uint16_t misc, const uint32_t v[4], const char *comm)
{
	begin(b, type, misc);
	if (comm) {
		put32(b, v[0]);
		put32(b, v[1]);
		put(b, comm, strlen(comm) + 1);
	} else {
		for (int i = 0; i < 4; i++)
			put32(b, v[i]);
		put64(b, 0);
	}
	end(b);
}

static void write_seed(const char *dir, const char *name, const struct seed *b)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(b->d, 1, b->n, f);
	fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("SCX_FUZZ_SEED_DIR");
	struct seed b = {0};

	(void)argc;
	(void)argv;
	if (!dir)
		return 0;
	mmap2(&b, 10, 0x10000, 0x8000, 0x2000, 0xabc, PROT_READ | PROT_WRITE, MAP_SHARED, "/tmp/shared", false);
	mmap2(&b, 10, 0x20000, 0x4000, 0x20000, 0, PROT_READ | PROT_WRITE, MAP_PRIVATE, "//anon", false);
	mmap2(&b, 10, 0x30000, 0x4000, 0, 0x99, PROT_READ | PROT_WRITE, MAP_SHARED, "/memfd:x (deleted)", false);
	mmap2(&b, 10, 0x40000, 0x4000, 0, 0, PROT_READ | PROT_EXEC, MAP_PRIVATE, "/usr/lib/libc.so.6", true);
	sample(&b, 10, 0x11000, 0x5000);
	sample(&b, 10, 0x20010, 0);
	sample(&b, 10, 0xffff888000001000ULL, 0x1000);
	ids4(&b, PERF_RECORD_FORK, 0, (const uint32_t[4]){11, 10, 11, 10}, NULL);
	sample(&b, 11, 0x31000, 0x6000);
	ids4(&b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, (const uint32_t[4]){11, 11, 0, 0}, "child");
	sample(&b, 11, 0x31000, 0x6000);
	mmap2(&b, 11, 0x12000, 0x1000, 0, 0xabc, PROT_READ, MAP_SHARED, "/tmp/shared", false);
	sample(&b, 11, 0x12000, 0);
	write_seed(dir, "maps", &b);
	return 0;
}
