/*
 * test_data_id.c - the identity of sampled data pages (perf.jsonl data_map /
 * data_id): mapping kinds from MMAP/MMAP2 records, the process tree (fork
 * copies maps, exec drops them), replacement by later mappings, and the text
 * form of each identity.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/data_id.h"
#include "process/order/order.h"

struct rec {
	struct perf_event_header h;
	uint8_t body[512];
};

struct map_spec {
	uint32_t pid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, gen;
	uint32_t prot, flags;
	const char *name;
	uint16_t misc; /* extra misc bits (MMAP_BUILD_ID) */
};

static size_t put_mmap2(struct rec *r, const struct map_spec *m)
{
	size_t off = 0, n = strlen(m->name) + 1;

	memset(r, 0, sizeof(*r));
	memcpy(r->body + off, &m->pid, 4), off += 4;
	memcpy(r->body + off, &m->pid, 4), off += 4;
	memcpy(r->body + off, &m->start, 8), off += 8;
	memcpy(r->body + off, &m->len, 8), off += 8;
	memcpy(r->body + off, &m->pgoff, 8), off += 8;
	if (m->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		r->body[off] = 20;
		memset(r->body + off + 4, 0xab, 20);
		off += 24;
	} else {
		memcpy(r->body + off, &m->maj, 4), off += 4;
		memcpy(r->body + off, &m->min, 4), off += 4;
		memcpy(r->body + off, &m->ino, 8), off += 8;
		memcpy(r->body + off, &m->gen, 8), off += 8;
	}
	memcpy(r->body + off, &m->prot, 4), off += 4;
	memcpy(r->body + off, &m->flags, 4), off += 4;
	memcpy(r->body + off, m->name, n), off += n;
	off = (off + 7) & ~7UL;
	r->h.type = PERF_RECORD_MMAP2;
	r->h.misc = PERF_RECORD_MISC_USER | m->misc;
	r->h.size = (uint16_t)(8 + off);
	return off;
}

static size_t put_mmap1(struct rec *r, uint32_t pid, uint64_t start, uint64_t len, const char *name)
{
	size_t off = 0, n = strlen(name) + 1;
	uint64_t pgoff = 0;

	memset(r, 0, sizeof(*r));
	memcpy(r->body + off, &pid, 4), off += 4;
	memcpy(r->body + off, &pid, 4), off += 4;
	memcpy(r->body + off, &start, 8), off += 8;
	memcpy(r->body + off, &len, 8), off += 8;
	memcpy(r->body + off, &pgoff, 8), off += 8;
	memcpy(r->body + off, name, n), off += n;
	off = (off + 7) & ~7UL;
	r->h.type = PERF_RECORD_MMAP;
	r->h.misc = PERF_RECORD_MISC_USER;
	r->h.size = (uint16_t)(8 + off);
	return off;
}

static size_t put_fork(struct rec *r, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	uint32_t v[4] = {pid, ppid, tid, ptid};

	memset(r, 0, sizeof(*r));
	memcpy(r->body, v, sizeof(v));
	r->h.type = PERF_RECORD_FORK;
	r->h.size = 8 + 24;
	return 24;
}

static size_t put_comm(struct rec *r, uint32_t pid, const char *comm, bool exec)
{
	size_t n = strlen(comm) + 1, off = 8 + n;

	memset(r, 0, sizeof(*r));
	memcpy(r->body, &pid, 4);
	memcpy(r->body + 4, &pid, 4);
	memcpy(r->body + 8, comm, n);
	off = (off + 7) & ~7UL;
	r->h.type = PERF_RECORD_COMM;
	r->h.misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;
	r->h.size = (uint16_t)(8 + off);
	return off;
}

static struct sym_cache *cache;
static struct session sess;

static void setup(void)
{
	struct sym_cache_opts so = {0};

	cache = sym_cache_new(&so);
	cr_assert(cache);
	cr_assert_eq(session_init(&sess, cache), 0);
}

static void teardown(void)
{
	session_free(&sess);
	sym_cache_free(cache);
}

static void apply_map(const struct map_spec *m)
{
	struct rec r;
	size_t n = put_mmap2(&r, m);

	cr_assert_eq(session_apply(&sess, &r.h, n), 0, "%s", m->name);
}

static void apply(struct rec *r, size_t n)
{
	cr_assert_eq(session_apply(&sess, &r->h, n), 0);
}

/* data_id text of pid's addr ("null" when unknown), and its map name */
static const char *id_of(int32_t pid, uint64_t addr, uint64_t phys, const char **map)
{
	static char buf[DATA_ID_JSON_MAX + 1];
	struct session_data d;
	char *end;

	session_resolve_data(&sess, session_thread(&sess, pid, pid), pid, addr, phys, &d);
	end = data_id_put(buf, &d.id);
	*end = '\0';
	if (map)
		*map = d.map;
	return buf;
}

#define RW (PROT_READ | PROT_WRITE)

TestSuite(data_id, .init = setup, .fini = teardown);

Test(data_id, anonymous_private_is_pid_and_virtual_page)
{
	const char *map;

	apply_map(&(struct map_spec){.pid = 10, .start = 0x7f0000000000, .len = 0x10000, .pgoff = 0x7f0000000000,
				     .prot = RW, .flags = MAP_PRIVATE, .name = "//anon"});
	apply_map(&(struct map_spec){.pid = 10, .start = 0x560000000000, .len = 0x21000, .prot = RW,
				     .flags = MAP_PRIVATE, .name = "[heap]"});
	cr_assert_str_eq(id_of(10, 0x7f0000003abc, 0x1234000, &map), "\"A:10:7f0000003\"");
	cr_assert_str_eq(map, "//anon");
	cr_assert_str_eq(id_of(10, 0x560000020fff, 0x1234000, &map), "\"A:10:560000020\"");
	cr_assert_str_eq(map, "[heap]");
}

Test(data_id, private_writable_file_is_the_process_own)
{
	const char *map;

	apply_map(&(struct map_spec){.pid = 11, .start = 0x400000, .len = 0x2000, .pgoff = 0x3000, .maj = 8,
				     .min = 1, .ino = 77, .gen = 5, .prot = RW, .flags = MAP_PRIVATE,
				     .name = "/usr/lib/libfoo.so"});
	cr_assert_str_eq(id_of(11, 0x401008, 0, &map), "\"A:11:401\"", "COW data: only this process");
	cr_assert_str_eq(map, "/usr/lib/libfoo.so");
}

Test(data_id, shared_file_at_different_addresses_is_the_same_page)
{
	char a[DATA_ID_JSON_MAX + 1];

	apply_map(&(struct map_spec){.pid = 20, .start = 0x7f1000000000, .len = 0x8000, .pgoff = 0x2000,
				     .maj = 0xfe, .min = 1, .ino = 0xabc, .gen = 0x1f, .prot = RW,
				     .flags = MAP_SHARED, .name = "/tmp/shared.bin"});
	apply_map(&(struct map_spec){.pid = 21, .start = 0x7f2000005000, .len = 0x8000, .pgoff = 0,
				     .maj = 0xfe, .min = 1, .ino = 0xabc, .gen = 0x1f, .prot = PROT_READ,
				     .flags = MAP_SHARED, .name = "/tmp/shared.bin"});
	/* pid 20: file offset 0x2000 + 0x1000 = page 3; pid 21: 0x3000 -> page 3 */
	snprintf(a, sizeof(a), "%s", id_of(20, 0x7f1000001010, 0, NULL));
	cr_assert_str_eq(a, "\"F:fe:1:abc:1f:3\"");
	cr_assert_str_eq(id_of(21, 0x7f2000008ff0, 0, NULL), a);
	cr_assert_str_neq(id_of(21, 0x7f2000009000, 0, NULL), a, "the next page differs");
}

Test(data_id, read_only_private_file_is_r)
{
	const char *map;

	apply_map(&(struct map_spec){.pid = 30, .start = 0x7f3000000000, .len = 0x100000, .pgoff = 0x28000,
				     .maj = 8, .min = 2, .ino = 0x1234, .gen = 0, .prot = PROT_READ | PROT_EXEC,
				     .flags = MAP_PRIVATE, .name = "/usr/lib/x86_64-linux-gnu/libc.so.6"});
	cr_assert_str_eq(id_of(30, 0x7f3000001000, 0, &map), "\"R:8:2:1234:0:29\"");
	cr_assert_str_eq(map, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

Test(data_id, shm_memfd_and_shared_anonymous_are_f)
{
	const char *map;

	apply_map(&(struct map_spec){.pid = 40, .start = 0x10000, .len = 0x4000, .maj = 0, .min = 1, .ino = 0x99,
				     .gen = 0x42, .prot = RW, .flags = MAP_SHARED, .name = "/memfd:ring (deleted)"});
	apply_map(&(struct map_spec){.pid = 40, .start = 0x20000, .len = 0x4000, .maj = 0, .min = 1, .ino = 0x9a,
				     .prot = RW, .flags = MAP_SHARED, .name = "/dev/zero (deleted)"});
	apply_map(&(struct map_spec){.pid = 40, .start = 0x30000, .len = 0x4000, .maj = 0, .min = 1, .ino = 0x18,
				     .prot = RW, .flags = MAP_SHARED, .name = "/SYSV0000abcd (deleted)"});
	apply_map(&(struct map_spec){.pid = 40, .start = 0x40000, .len = 0x4000, .maj = 0, .min = 0x19,
				     .ino = 0x5, .prot = RW, .flags = MAP_SHARED, .name = "/dev/shm/x"});
	cr_assert_str_eq(id_of(40, 0x11000, 0, &map), "\"F:0:1:99:42:1\"");
	cr_assert_str_eq(map, "/memfd:ring (deleted)");
	cr_assert_str_eq(id_of(40, 0x22000, 0, NULL), "\"F:0:1:9a:0:2\"");
	cr_assert_str_eq(id_of(40, 0x33000, 0, NULL), "\"F:0:1:18:0:3\"");
	cr_assert_str_eq(id_of(40, 0x40000, 0, &map), "\"F:0:19:5:0:0\"");
	cr_assert_str_eq(map, "/dev/shm/x");
}

Test(data_id, kernel_half_is_the_physical_page)
{
	const char *map;

	cr_assert_str_eq(id_of(50, 0xffff888012345678ULL, 0x12345678, &map), "\"K:12345\"");
	cr_assert_str_eq(map, "[kernel]");
	cr_assert_str_eq(id_of(50, 0xffff888012345678ULL, 0, &map), "null", "no physical address: unknown");
	cr_assert_str_eq(map, "[kernel]");
}

Test(data_id, unknown_address_is_null_without_a_map)
{
	const char *map = "x";

	cr_assert_str_eq(id_of(60, 0x1000, 0x5000, &map), "null");
	cr_assert_null(map);
}

Test(data_id, fork_child_inherits_maps_and_exec_drops_them)
{
	struct rec r;
	char parent[DATA_ID_JSON_MAX + 1];

	apply_map(&(struct map_spec){.pid = 70, .start = 0x50000, .len = 0x4000, .prot = RW,
				     .flags = MAP_PRIVATE, .name = "//anon"});
	apply_map(&(struct map_spec){.pid = 70, .start = 0x60000, .len = 0x4000, .maj = 0, .min = 1, .ino = 0x7,
				     .prot = RW, .flags = MAP_SHARED, .name = "/dev/zero (deleted)"});
	apply(&r, put_fork(&r, 71, 70, 71, 70));
	cr_assert_str_eq(id_of(71, 0x51000, 0, NULL), "\"A:71:51\"", "the child's own copy");
	snprintf(parent, sizeof(parent), "%s", id_of(70, 0x61000, 0, NULL));
	cr_assert_str_eq(id_of(71, 0x61000, 0, NULL), parent, "inherited shared memory is shared");
	apply(&r, put_comm(&r, 71, "other", false));
	cr_assert_str_eq(id_of(71, 0x61000, 0, NULL), parent, "a plain COMM keeps the maps");
	apply(&r, put_comm(&r, 71, "other", true));
	cr_assert_str_eq(id_of(71, 0x61000, 0, NULL), "null", "exec: a new address space");
	cr_assert_str_eq(id_of(70, 0x61000, 0, NULL), parent, "the parent keeps its maps");
}

static const char *dso_of(int32_t pid, uint64_t ip)
{
	struct session_resolved where;

	session_resolve_ip(&sess, session_thread(&sess, pid, pid), PERF_RECORD_MISC_USER, ip, &where);
	return where.dso;
}

/* perf 6.1 (map__new): code in executable memory of no file (a JIT's) is in
 * /tmp/perf-PID.map; data_map keeps the mapping's own name */
Test(data_id, jit_code_is_perf_pid_map_data_keeps_the_name)
{
	struct rec r;
	const char *map;
	size_t n;

	apply_map(&(struct map_spec){.pid = 75, .start = 0x10000, .len = 0x4000, .prot = PROT_READ | PROT_EXEC,
				     .flags = MAP_PRIVATE, .name = "//anon"});
	apply_map(&(struct map_spec){.pid = 75, .start = 0x20000, .len = 0x4000, .prot = RW | PROT_EXEC,
				     .flags = MAP_PRIVATE, .name = "[stack]"});
	apply_map(&(struct map_spec){.pid = 75, .start = 0x30000, .len = 0x4000, .prot = RW,
				     .flags = MAP_PRIVATE, .name = "//anon"});
	apply_map(&(struct map_spec){.pid = 75, .start = 0x40000, .len = 0x4000, .prot = PROT_READ | PROT_EXEC,
				     .flags = MAP_PRIVATE | MAP_HUGETLB, .name = "/anon_hugepage (deleted)"});
	cr_assert_str_eq(dso_of(75, 0x10010), "/tmp/perf-75.map");
	cr_assert_str_eq(dso_of(75, 0x20010), "/tmp/perf-75.map", "[stack] made executable");
	cr_assert_str_eq(dso_of(75, 0x30010), "//anon", "not executable: its own name");
	cr_assert_str_eq(dso_of(75, 0x40010), "/tmp/perf-75.map");
	cr_assert_str_eq(id_of(75, 0x11000, 0, &map), "\"A:75:11\"");
	cr_assert_str_eq(map, "//anon", "data_map: the mapping's name");
	id_of(75, 0x21000, 0, &map);
	cr_assert_str_eq(map, "[stack]");
	apply(&r, put_fork(&r, 76, 75, 76, 75));
	cr_assert_str_eq(dso_of(76, 0x10010), "/tmp/perf-75.map", "a fork copies the parent's map, as perf");
	/* MMAP v1: executable unless misc says data */
	apply(&r, put_mmap1(&r, 77, 0x10000, 0x4000, "//anon"));
	n = put_mmap1(&r, 77, 0x20000, 0x4000, "//anon");
	r.h.misc |= PERF_RECORD_MISC_MMAP_DATA;
	apply(&r, n);
	cr_assert_str_eq(dso_of(77, 0x10010), "/tmp/perf-77.map");
	cr_assert_str_eq(dso_of(77, 0x20010), "//anon");
}

Test(data_id, a_later_mmap_replaces_the_range)
{
	const char *map;

	apply_map(&(struct map_spec){.pid = 80, .start = 0x100000, .len = 0x10000, .maj = 8, .min = 1, .ino = 3,
				     .prot = RW, .flags = MAP_SHARED, .name = "/data/a"});
	apply_map(&(struct map_spec){.pid = 80, .start = 0x104000, .len = 0x2000, .prot = RW,
				     .flags = MAP_PRIVATE, .name = "//anon"});
	cr_assert_str_eq(id_of(80, 0x104000, 0, &map), "\"A:80:104\"");
	cr_assert_str_eq(map, "//anon");
	cr_assert_str_eq(id_of(80, 0x107000, 0, &map), "\"F:8:1:3:0:7\"", "the tail keeps its file offset");
	cr_assert_str_eq(map, "/data/a");
}

Test(data_id, build_id_maps_and_mmap_v1_use_the_path)
{
	char a[DATA_ID_JSON_MAX + 1];

	apply_map(&(struct map_spec){.pid = 90, .start = 0x10000, .len = 0x4000, .prot = RW, .flags = MAP_SHARED,
				     .name = "/var/db/x", .misc = PERF_RECORD_MISC_MMAP_BUILD_ID});
	apply_map(&(struct map_spec){.pid = 91, .start = 0x80000, .len = 0x4000, .prot = RW, .flags = MAP_SHARED,
				     .name = "/var/db/x", .misc = PERF_RECORD_MISC_MMAP_BUILD_ID});
	apply_map(&(struct map_spec){.pid = 90, .start = 0x20000, .len = 0x4000, .prot = RW, .flags = MAP_SHARED,
				     .name = "/dev/zero (deleted)", .misc = PERF_RECORD_MISC_MMAP_BUILD_ID});
	snprintf(a, sizeof(a), "%s", id_of(90, 0x11000, 0, NULL));
	cr_assert(!strncmp(a, "\"F:0:0:", 7), "%s", a);
	cr_assert_str_eq(id_of(91, 0x81000, 0, NULL), a, "the same path, the same identity");
	cr_assert_str_eq(id_of(90, 0x21000, 0, NULL), "null", "a name that is no file has no identity");

	struct rec r;

	apply(&r, put_mmap1(&r, 92, 0x30000, 0x4000, "//anon"));
	apply(&r, put_mmap1(&r, 92, 0x40000, 0x4000, "/usr/lib/libbar.so"));
	apply(&r, put_mmap1(&r, 92, 0x50000, 0x4000, "/SYSV00001234 (deleted)"));
	cr_assert_str_eq(id_of(92, 0x30000, 0, NULL), "\"A:92:30\"");
	cr_assert(!strncmp(id_of(92, 0x40000, 0, NULL), "\"R:0:0:", 7));
	cr_assert_str_eq(id_of(92, 0x50000, 0, NULL), "null", "v1 deleted names: unknown");
}

/* a data object of this test binary, found through its own mapping */
int data_id_probe_object[1024] = {1};

Test(data_id, data_symbol_of_a_file_mapping)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096], path[4096];
	uint64_t addr = (uint64_t)(uintptr_t)&data_id_probe_object[700], start = 0, end = 0, off = 0;
	struct session_data d;
	bool found = false;

	cr_assert(f);
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long s0, e0, o0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &s0, &e0, &o0, path) == 4 && s0 <= addr &&
		    addr < e0) {
			start = s0, end = e0, off = o0;
			found = true;
		}
	}
	fclose(f);
	cr_assert(found && path[0] == '/', "no file mapping holds the probe");
	apply_map(&(struct map_spec){.pid = 95, .start = start, .len = end - start, .pgoff = off, .maj = 8,
				     .ino = 1, .prot = RW, .flags = MAP_PRIVATE, .name = path});
	session_resolve_data(&sess, session_thread(&sess, 95, 95), 95, addr, 0, &d);
	cr_assert_str_eq(d.map, path);
	cr_assert_eq(d.id.kind, DATA_ID_ANON, "private writable .data is the process's own");
	cr_assert(d.sym, "no data symbol");
	cr_assert_str_eq(d.sym, "data_id_probe_object");
	session_resolve_data(&sess, session_thread(&sess, 95, 95), 95, start, 0, &d);
	cr_assert(!d.sym || strcmp(d.sym, "data_id_probe_object"), "outside the object");
}
