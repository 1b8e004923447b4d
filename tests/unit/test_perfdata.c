/*
 * test_perfdata.c - unit tests of lib/perfdata.c and lib/perfdata_write.c:
 * files built with the writer are read back with the reader (attrs, ids,
 * records, samples, trailers, AUXTRACE, EVENT_DESC), corrupt files must fail
 * cleanly with a message naming the file, and perf 6.1 must accept what the
 * writer produces.
 */
#include "lib/error.h"
#include "lib/perfdata.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- temp dir ------------------------------------------------------------ */

static char tmpdir[64];

static void make_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/test_perfdata.XXXXXX");
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
	if (getenv("TEST_PERFDATA_KEEP")) /* debugging: keep the files */
		return;
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(perfdata, .init = make_tmpdir, .fini = remove_tmpdir);

static const char *tmp_path(const char *name)
{
	static char paths[8][256];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, 256, "%s/%s", tmpdir, name);
	return p;
}

/* ---- record builder ---------------------------------------------------------- */

struct buf {
	_Alignas(8) uint8_t d[1 << 16];
	size_t n;
	size_t rec_start;
};

static void put64(struct buf *b, uint64_t v)
{
	memcpy(b->d + b->n, &v, 8);
	b->n += 8;
}

static void put32(struct buf *b, uint32_t v)
{
	memcpy(b->d + b->n, &v, 4);
	b->n += 4;
}

static void put_bytes(struct buf *b, const void *p, size_t len)
{
	memcpy(b->d + b->n, p, len);
	b->n += len;
}

static void rec_begin(struct buf *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, 0 };

	b->rec_start = b->n;
	put_bytes(b, &h, sizeof(h));
}

/* Sets header.size; returns the record size. */
static size_t rec_end(struct buf *b)
{
	uint16_t size = (uint16_t)(b->n - b->rec_start);

	memcpy(b->d + b->rec_start + 6, &size, 2);
	return size;
}

static void write_records(struct pd_writer *w, const struct buf *b)
{
	size_t pos = 0;

	while (pos < b->n) {
		struct perf_event_header h;
		uint64_t payload = 0;

		memcpy(&h, b->d + pos, sizeof(h));
		if (h.type == PD_RECORD_AUXTRACE)
			memcpy(&payload, b->d + pos + 8, 8);
		cr_assert_eq(pd_writer_add_record(w, b->d + pos, h.size + payload), 0, "%s",
			     scx_errmsg());
		pos += h.size + payload;
	}
}

static struct perf_event_attr basic_attr(uint64_t sample_type)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = sample_type;
	a.sample_id_all = 1;
	return a;
}

/* Write a one-attr file holding the records of b. */
static void write_file(const char *path, const struct perf_event_attr *attr, const uint64_t *ids,
		       size_t nr_ids, const struct buf *b)
{
	struct pd_writer w;

	cr_assert_eq(pd_writer_open(&w, path), 0, "%s", scx_errmsg());
	cr_assert_eq(pd_writer_add_attr(&w, attr, ids, nr_ids, "page-faults"), 0);
	write_records(&w, b);
	cr_assert_eq(pd_writer_finish(&w), 0, "%s", scx_errmsg());
}

/* Open, walk and decode everything; -1 on the first failure. */
static int read_all(const char *path, size_t *nr_records)
{
	struct pd_file f;
	struct pd_cursor c;
	const struct perf_event_header *h;
	struct pd_sample s;
	int r;

	*nr_records = 0;
	if (pd_open(&f, path) < 0)
		return -1;
	pd_cursor_init(&c, &f);
	while ((r = pd_next(&c, &h)) > 0) {
		int pr = h->type == PERF_RECORD_SAMPLE ? pd_parse_sample(&f, h, &s)
						       : pd_parse_sample_id(&f, h, &s);
		if (pr < 0) {
			r = -1;
			break;
		}
		(*nr_records)++;
	}
	pd_close(&f);
	return r;
}

static void add_comm(struct buf *b, uint32_t pid, const char *comm, uint64_t time, uint64_t id)
{
	char name[16] = { 0 };

	rec_begin(b, PERF_RECORD_COMM, 0);
	put32(b, pid);
	put32(b, pid);
	snprintf(name, sizeof(name), "%s", comm);
	put_bytes(b, name, sizeof(name));
	/* trailer for TID|TIME|ID|CPU|IDENTIFIER */
	put32(b, pid);
	put32(b, pid);
	put64(b, time);
	put64(b, id);
	put32(b, 1);
	put32(b, 0);
	put64(b, id);
	rec_end(b);
}

#define STD_TYPE                                                                             \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |     \
	 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static void add_std_sample(struct buf *b, uint64_t id, uint64_t ip, uint32_t pid, uint64_t time)
{
	rec_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(b, id);
	put64(b, ip);
	put32(b, pid);
	put32(b, pid);
	put64(b, time);
	put64(b, id);
	put32(b, 1);
	put32(b, 0);
	put64(b, 1);
	rec_end(b);
}

/* ---- round trip ------------------------------------------------------------------ */

Test(perfdata, round_trip_attrs_ids_records)
{
	const char *path = tmp_path("rt.data");
	struct perf_event_attr a = basic_attr(STD_TYPE);
	uint64_t ids[] = { 100, 101, 102 };
	struct buf b = { .n = 0 };
	struct pd_file f;
	struct pd_cursor c;
	const struct perf_event_header *h;
	size_t n = 0, pos = 0;

	a.exclude_kernel = 1;
	add_comm(&b, 42, "worker", 5, 101);
	for (int i = 0; i < 5; i++)
		add_std_sample(&b, ids[i % 3], 0x400000 + i, 42, 10 + i);
	write_file(path, &a, ids, 3, &b);

	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	cr_assert_eq(f.nr_attrs, 1);
	cr_assert_eq(f.attr_size, PERF_ATTR_SIZE_VER7 + 16);
	cr_assert_eq(f.attrs[0].file_attr_size, PERF_ATTR_SIZE_VER7);
	cr_assert_eq(f.attrs[0].attr.sample_type, STD_TYPE);
	cr_assert_eq(f.attrs[0].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	cr_assert_eq(f.attrs[0].attr.exclude_kernel, 1);
	cr_assert_eq(f.attrs[0].nr_ids, 3);
	cr_assert_eq(memcmp(f.attrs[0].ids, ids, sizeof(ids)), 0);
	cr_assert_eq((uintptr_t)f.attrs[0].ids % 8, 0);
	cr_assert_str_eq(f.attrs[0].name, "page-faults");
	cr_assert(f.sample_id_all);
	cr_assert_eq(f.data_sec.size, b.n);

	pd_cursor_init(&c, &f);
	while (pd_next(&c, &h) > 0) {
		cr_assert_eq(memcmp(h, b.d + pos, h->size), 0, "record %zu differs", n);
		cr_assert_eq(pd_offset_of(&f, h), f.data_sec.offset + pos);
		pos += h->size;
		n++;
	}
	cr_assert_eq(n, 6);
	cr_assert_eq(pos, b.n);
	pd_close(&f);
}

Test(perfdata, empty_data_section_is_ok)
{
	const char *path = tmp_path("empty.data");
	struct perf_event_attr a = basic_attr(PERF_SAMPLE_IP);
	struct buf b = { .n = 0 };
	struct pd_file f;
	struct pd_cursor c;
	const struct perf_event_header *h;

	write_file(path, &a, NULL, 0, &b);
	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	cr_assert_eq(f.data_sec.size, 0);
	pd_cursor_init(&c, &f);
	cr_assert_eq(pd_next(&c, &h), 0);
	pd_close(&f);
}

/* ---- sample decoding -------------------------------------------------------------- */

#define MANY_TYPE                                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |           \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |         \
	 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |               \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |              \
	 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |                      \
	 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

static struct perf_event_attr many_attr(void)
{
	struct perf_event_attr a = basic_attr(MANY_TYPE);

	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	a.sample_regs_user = 0x7;  /* 3 regs */
	a.sample_regs_intr = 0x30; /* 2 regs */
	return a;
}

/* The MANY_TYPE sample, field by field in ABI order. */
static void add_many_sample(struct buf *b)
{
	rec_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	put64(b, 7);                 /* identifier */
	put64(b, 0xffffffff81000010); /* ip */
	put32(b, 1234);              /* pid */
	put32(b, 1235);              /* tid */
	put64(b, 999999);            /* time */
	put64(b, 0xdead0000);        /* addr */
	put64(b, 7);                 /* id */
	put64(b, 77);                /* stream_id */
	put32(b, 3);                 /* cpu */
	put32(b, 0);                 /* res */
	put64(b, 4096);              /* period */
	/* read: nr=2, enabled, running, 2 x {value, id, lost} */
	put64(b, 2);
	put64(b, 1000);
	put64(b, 900);
	for (int i = 0; i < 2; i++) {
		put64(b, 50 + i);
		put64(b, 7 + i);
		put64(b, 0);
	}
	/* callchain */
	put64(b, 3);
	put64(b, PERF_CONTEXT_KERNEL);
	put64(b, 0xffffffff81000010);
	put64(b, 0xffffffff81000020);
	/* raw: u32 size + 12 bytes = 16 */
	put32(b, 12);
	put_bytes(b, "abcdefghijkl", 12);
	/* branch stack: nr=2, hw_idx, 2 x 24 bytes */
	put64(b, 2);
	put64(b, 5);
	for (int i = 0; i < 2; i++) {
		put64(b, 0x1000 + i);
		put64(b, 0x2000 + i);
		put64(b, 0);
	}
	/* regs_user: abi, 3 regs */
	put64(b, PERF_SAMPLE_REGS_ABI_64);
	put64(b, 11);
	put64(b, 12);
	put64(b, 13);
	/* stack_user: size 16, data, dyn_size */
	put64(b, 16);
	put_bytes(b, "0123456789abcdef", 16);
	put64(b, 8);
	/* weight struct: var1=300, var2=20, var3=3 */
	put32(b, 300);
	put32(b, 20 | (3u << 16));
	put64(b, 0x1234);   /* data_src */
	put64(b, 0x55);     /* transaction */
	put64(b, PERF_SAMPLE_REGS_ABI_64);
	put64(b, 21);
	put64(b, 22);
	put64(b, 0xabc000); /* phys_addr */
	put64(b, 0x99);     /* cgroup */
	put64(b, 4096);     /* data_page_size */
	put64(b, 2097152);  /* code_page_size */
	put64(b, 8);        /* aux size */
	put_bytes(b, "AUXDATA!", 8);
	rec_end(b);
}

static void check_many_sample(const struct pd_sample *s)
{
	uint64_t r[9];

	cr_assert_eq(s->present, MANY_TYPE);
	cr_assert_eq(s->misc, PERF_RECORD_MISC_KERNEL);
	cr_assert_eq(s->id, 7);
	cr_assert_eq(s->ip, 0xffffffff81000010);
	cr_assert_eq(s->pid, 1234);
	cr_assert_eq(s->tid, 1235);
	cr_assert_eq(s->time, 999999);
	cr_assert_eq(s->addr, 0xdead0000);
	cr_assert_eq(s->stream_id, 77);
	cr_assert_eq(s->cpu, 3);
	cr_assert_eq(s->period, 4096);
	cr_assert_eq(s->read_size, 9 * 8);
	memcpy(r, s->read, sizeof(r));
	cr_assert_eq(r[0], 2);
	cr_assert_eq(r[3], 50);
	cr_assert_eq(r[7], 8);
	cr_assert_eq(s->callchain_nr, 3);
	cr_assert_eq(s->callchain[0], PERF_CONTEXT_KERNEL);
	cr_assert_eq(s->callchain[2], 0xffffffff81000020);
	cr_assert_eq(s->raw_size, 12);
	cr_assert_eq(memcmp(s->raw, "abcdefghijkl", 12), 0);
	cr_assert_eq(s->branch_nr, 2);
	cr_assert_eq(s->branch_hw_idx, 5);
	uint64_t br[6];
	memcpy(br, s->branch_entries, sizeof(br));
	cr_assert_eq(br[0], 0x1000);
	cr_assert_eq(br[4], 0x2001);
	cr_assert_eq(s->regs_user_abi, PERF_SAMPLE_REGS_ABI_64);
	cr_assert_eq(s->regs_user[0], 11);
	cr_assert_eq(s->regs_user[2], 13);
	cr_assert_eq(s->stack_user_size, 16);
	cr_assert_eq(memcmp(s->stack_user, "0123456789abcdef", 16), 0);
	cr_assert_eq(s->stack_user_dyn_size, 8);
	cr_assert_eq(s->weight, 300);
	cr_assert_eq(s->weight_var1, 300);
	cr_assert_eq(s->weight_var2, 20);
	cr_assert_eq(s->weight_var3, 3);
	cr_assert_eq(s->data_src, 0x1234);
	cr_assert_eq(s->transaction, 0x55);
	cr_assert_eq(s->regs_intr_abi, PERF_SAMPLE_REGS_ABI_64);
	cr_assert_eq(s->regs_intr[0], 21);
	cr_assert_eq(s->regs_intr[1], 22);
	cr_assert_eq(s->phys_addr, 0xabc000);
	cr_assert_eq(s->cgroup, 0x99);
	cr_assert_eq(s->data_page_size, 4096);
	cr_assert_eq(s->code_page_size, 2097152);
	cr_assert_eq(s->aux_size, 8);
	cr_assert_eq(memcmp(s->aux, "AUXDATA!", 8), 0);
}

Test(perfdata, sample_with_many_fields)
{
	const char *path = tmp_path("many.data");
	struct perf_event_attr a = many_attr();
	uint64_t ids[] = { 7, 8 };
	struct buf b = { .n = 0 };
	struct pd_file f;
	struct pd_cursor c;
	const struct perf_event_header *h;
	struct pd_sample s;

	add_many_sample(&b);
	write_file(path, &a, ids, 2, &b);
	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	cr_assert_eq(f.attrs[0].id_index_sample, 0);
	pd_cursor_init(&c, &f);
	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(pd_parse_sample(&f, h, &s), 0, "%s", scx_errmsg());
	cr_assert_eq(s.attr, &f.attrs[0]);
	check_many_sample(&s);
	cr_assert_eq(pd_next(&c, &h), 0);
	pd_close(&f);
}

Test(perfdata, sample_plain_read_and_full_weight)
{
	const char *path = tmp_path("plain.data");
	struct perf_event_attr a = basic_attr(PERF_SAMPLE_IP | PERF_SAMPLE_READ | PERF_SAMPLE_WEIGHT |
					      PERF_SAMPLE_REGS_USER);
	struct buf b = { .n = 0 };
	struct pd_file f;
	struct pd_cursor c;
	const struct perf_event_header *h;
	struct pd_sample s;
	uint64_t r[3];

	a.read_format = PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	a.sample_regs_user = 0xff;
	rec_begin(&b, PERF_RECORD_SAMPLE, 0);
	put64(&b, 0x1234);
	put64(&b, 66);   /* value */
	put64(&b, 55);   /* running */
	put64(&b, 9);    /* id */
	put64(&b, PERF_SAMPLE_REGS_ABI_NONE); /* no regs follow */
	put64(&b, 1ULL << 40); /* full weight */
	rec_end(&b);
	write_file(path, &a, NULL, 0, &b);

	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	cr_assert_eq(f.attrs[0].id_index_sample, SIZE_MAX);
	pd_cursor_init(&c, &f);
	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(pd_parse_sample(&f, h, &s), 0, "%s", scx_errmsg());
	cr_assert_eq(s.ip, 0x1234);
	cr_assert_eq(s.read_size, 24);
	memcpy(r, s.read, sizeof(r));
	cr_assert_eq(r[0], 66);
	cr_assert_eq(r[2], 9);
	cr_assert_eq(s.weight, 1ULL << 40);
	cr_assert_eq(s.regs_user_abi, 0);
	cr_assert_null(s.regs_user);
	pd_close(&f);
}

/* A page-fault recording's layout: every field of a fixed size, decoded by
 * pd_parse_sample's fast path; the same record cut short takes the checked
 * reader and fails naming the first missing field. */
Test(perfdata, fixed_layout_sample_and_short_one)
{
	const char *path = tmp_path("fixed.data");
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		      PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT_STRUCT |
		      PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
		      PERF_SAMPLE_DATA_PAGE_SIZE;
	struct perf_event_attr a = basic_attr(st);
	uint64_t ids[] = { 7 };
	struct buf b = { .n = 0 };
	struct pd_file f;
	struct pd_cursor c;
	const struct perf_event_header *h;
	struct pd_sample s;

	for (int cut = 0; cut < 2; cut++) {
		rec_begin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
		put64(&b, 7);          /* identifier */
		put64(&b, 0x401000);   /* ip */
		put32(&b, 100);        /* pid */
		put32(&b, 101);        /* tid */
		put64(&b, 5000);       /* time */
		put64(&b, 0x7f0000001000); /* addr */
		put32(&b, 3);          /* cpu */
		put32(&b, 0);          /* res */
		put64(&b, 1);          /* period */
		put64(&b, 300 | 20ULL << 32 | 3ULL << 48); /* weight struct */
		put64(&b, 0x1234);     /* data_src */
		put64(&b, 0xabc000);   /* phys_addr */
		if (!cut) {
			put64(&b, 0x99);       /* cgroup */
			put64(&b, 4096);       /* data_page_size */
		}
		rec_end(&b);
	}
	write_file(path, &a, ids, 1, &b);
	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	cr_assert_eq(f.attrs[0].fixed_sample_size, 12 * 8);
	pd_cursor_init(&c, &f);
	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(pd_parse_sample(&f, h, &s), 0, "%s", scx_errmsg());
	cr_assert_eq(s.present, st);
	cr_assert_eq(s.id, 7);
	cr_assert_eq(s.ip, 0x401000);
	cr_assert_eq(s.pid, 100);
	cr_assert_eq(s.tid, 101);
	cr_assert_eq(s.time, 5000);
	cr_assert_eq(s.addr, 0x7f0000001000);
	cr_assert_eq(s.cpu, 3);
	cr_assert_eq(s.period, 1);
	cr_assert_eq(s.weight, 300);
	cr_assert_eq(s.weight_var2, 20);
	cr_assert_eq(s.weight_var3, 3);
	cr_assert_eq(s.data_src, 0x1234);
	cr_assert_eq(s.phys_addr, 0xabc000);
	cr_assert_eq(s.cgroup, 0x99);
	cr_assert_eq(s.data_page_size, 4096);
	cr_assert_eq(s.stream_id, 0, "fields the type lacks stay 0");
	cr_assert_eq(s.code_page_size, 0);
	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(pd_parse_sample(&f, h, &s), -1, "a sample 16 bytes short must fail");
	cr_assert(strstr(scx_errmsg(), "record ends before the cgroup field"), "%s", scx_errmsg());
	pd_close(&f);
}

/* ---- several attrs ---------------------------------------------------------------- */

static void write_two_attr_file(const char *path, uint64_t sample_type, const struct buf *b)
{
	struct perf_event_attr a1 = basic_attr(sample_type), a2 = basic_attr(sample_type);
	uint64_t ids1[] = { 10, 11 }, ids2[] = { 20 };
	struct pd_writer w;

	a2.config = PERF_COUNT_SW_CPU_CLOCK;
	cr_assert_eq(pd_writer_open(&w, path), 0, "%s", scx_errmsg());
	cr_assert_eq(pd_writer_add_attr(&w, &a1, ids1, 2, "page-faults"), 0);
	cr_assert_eq(pd_writer_add_attr(&w, &a2, ids2, 1, "cpu-clock"), 0);
	write_records(&w, b);
	cr_assert_eq(pd_writer_finish(&w), 0, "%s", scx_errmsg());
}

Test(perfdata, several_attrs_dispatch_by_id)
{
	const char *path = tmp_path("multi.data");
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID;
	struct buf b = { .n = 0 };
	struct pd_file f;
	struct pd_cursor c;
	const struct perf_event_header *h;
	struct pd_sample s;
	const uint64_t sample_ids[] = { 11, 20, 10, 99 };

	for (int i = 0; i < 4; i++) {
		rec_begin(&b, PERF_RECORD_SAMPLE, 0);
		put64(&b, 0x100 + i);
		put32(&b, 1);
		put32(&b, 1);
		put64(&b, sample_ids[i]);
		rec_end(&b);
	}
	write_two_attr_file(path, st, &b);
	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	cr_assert_eq(f.nr_attrs, 2);
	cr_assert_eq(f.attrs[0].id_index_sample, 2);
	cr_assert_str_eq(f.attrs[0].name, "page-faults");
	cr_assert_str_eq(f.attrs[1].name, "cpu-clock");
	pd_cursor_init(&c, &f);
	const struct pd_attr *want[] = { &f.attrs[0], &f.attrs[1], &f.attrs[0] };
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(pd_next(&c, &h), 1);
		cr_assert_eq(pd_parse_sample(&f, h, &s), 0, "%s", scx_errmsg());
		cr_assert_eq(s.attr, want[i], "sample %d went to the wrong attr", i);
		cr_assert_eq(s.id, sample_ids[i]);
	}
	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(pd_parse_sample(&f, h, &s), -1, "unknown id 99 must fail");
	cr_assert(strstr(scx_errmsg(), "99") && strstr(scx_errmsg(), path), "%s", scx_errmsg());
	pd_close(&f);
}

Test(perfdata, several_attrs_without_id_fail_clearly)
{
	const char *path = tmp_path("noid.data");
	struct buf b = { .n = 0 };
	struct pd_file f;
	struct pd_cursor c;
	const struct perf_event_header *h;
	struct pd_sample s;

	rec_begin(&b, PERF_RECORD_SAMPLE, 0);
	put64(&b, 0x100);
	rec_end(&b);
	write_two_attr_file(path, PERF_SAMPLE_IP, &b);
	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	pd_cursor_init(&c, &f);
	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(pd_parse_sample(&f, h, &s), -1);
	cr_assert(strstr(scx_errmsg(), "IDENTIFIER") && strstr(scx_errmsg(), path), "%s",
		  scx_errmsg());
	pd_close(&f);
}

/* ---- sample_id trailer -------------------------------------------------------------- */

Test(perfdata, id_positions_computed)
{
	struct {
		uint64_t st;
		size_t sample, trailer, trailer_size;
	} cases[] = {
		{ PERF_SAMPLE_IP, SIZE_MAX, 0, 0 },
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID, 3, 1, 24 },
		{ PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_ADDR, 1, 3, 24 },
		{ STD_TYPE, 0, 1, 40 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = tmp_path(i % 2 ? "pos1.data" : "pos0.data");
		struct perf_event_attr a = basic_attr(cases[i].st);
		struct buf b = { .n = 0 };
		struct pd_file f;

		unlink(path);
		write_file(path, &a, NULL, 0, &b);
		cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
		cr_expect_eq(f.attrs[0].id_index_sample, cases[i].sample, "case %zu", i);
		cr_expect_eq(f.attrs[0].id_index_trailer, cases[i].trailer, "case %zu", i);
		cr_expect_eq(f.attrs[0].trailer_size, cases[i].trailer_size, "case %zu", i);
		pd_close(&f);
	}
}

Test(perfdata, sample_id_trailer_decoding)
{
	const char *path = tmp_path("trailer.data");
	uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
		      PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
	struct buf b = { .n = 0 };
	struct pd_file f;
	struct pd_cursor c;
	const struct perf_event_header *h;
	struct pd_sample s;
	char fname[24] = "/usr/lib/libfoo.so";

	/* MMAP with trailer, belongs to attr 2 (id 20) */
	rec_begin(&b, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	put32(&b, 7);
	put32(&b, 8);
	put64(&b, 0x7f0000000000);
	put64(&b, 0x1000);
	put64(&b, 0);
	put_bytes(&b, fname, sizeof(fname));
	put32(&b, 7);      /* pid */
	put32(&b, 8);      /* tid */
	put64(&b, 123456); /* time */
	put64(&b, 20);     /* id */
	put64(&b, 21);     /* stream id */
	put32(&b, 2);      /* cpu */
	put32(&b, 0);
	put64(&b, 20);     /* identifier */
	rec_end(&b);
	/* a FINISHED_ROUND has no trailer */
	rec_begin(&b, PD_RECORD_FINISHED_ROUND, 0);
	rec_end(&b);
	/* LOST too short for its trailer */
	rec_begin(&b, PERF_RECORD_LOST, 0);
	put64(&b, 20);
	rec_end(&b);
	write_two_attr_file(path, st, &b);

	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	cr_assert_eq(f.attrs[1].trailer_size, 48);
	cr_assert_eq(f.attrs[1].id_index_trailer, 1);
	pd_cursor_init(&c, &f);
	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(pd_parse_sample_id(&f, h, &s), 0, "%s", scx_errmsg());
	cr_assert_eq(s.attr, &f.attrs[1]);
	cr_assert_eq(s.present, st & ~(uint64_t)PERF_SAMPLE_IP);
	cr_assert_eq(s.pid, 7);
	cr_assert_eq(s.tid, 8);
	cr_assert_eq(s.time, 123456);
	cr_assert_eq(s.id, 20);
	cr_assert_eq(s.stream_id, 21);
	cr_assert_eq(s.cpu, 2);
	cr_assert_eq(pd_body_size(&f, h), 32 + sizeof(fname));
	cr_assert_eq(pd_attr_for_trailer(&f, h), &f.attrs[1]);

	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(h->type, PD_RECORD_FINISHED_ROUND);
	cr_assert_eq(pd_parse_sample_id(&f, h, &s), 0);
	cr_assert_eq(s.present, 0);
	cr_assert_eq(pd_body_size(&f, h), 0);

	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(pd_parse_sample_id(&f, h, &s), -1);
	cr_assert(strstr(scx_errmsg(), path), "%s", scx_errmsg());
	pd_close(&f);
}

Test(perfdata, no_sample_id_all_means_no_trailer)
{
	const char *path = tmp_path("nosia.data");
	struct perf_event_attr a = basic_attr(STD_TYPE);
	struct buf b = { .n = 0 };
	struct pd_file f;
	struct pd_cursor c;
	const struct perf_event_header *h;
	struct pd_sample s;

	a.sample_id_all = 0;
	rec_begin(&b, PERF_RECORD_COMM, 0);
	put32(&b, 1);
	put32(&b, 1);
	put_bytes(&b, "init\0\0\0\0", 8);
	rec_end(&b);
	write_file(path, &a, NULL, 0, &b);
	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	cr_assert(!f.sample_id_all);
	pd_cursor_init(&c, &f);
	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(pd_parse_sample_id(&f, h, &s), 0);
	cr_assert_eq(s.present, 0);
	cr_assert_eq(pd_body_size(&f, h), 16);
	pd_close(&f);
}

/* ---- AUXTRACE ------------------------------------------------------------------------ */

static void add_auxtrace(struct buf *b, uint64_t payload_size)
{
	rec_begin(b, PD_RECORD_AUXTRACE, 0);
	put64(b, payload_size);
	put64(b, 0);  /* offset */
	put64(b, 0);  /* reference */
	put32(b, 0);  /* idx */
	put32(b, 5);  /* tid */
	put32(b, 1);  /* cpu */
	put32(b, 0);
	rec_end(b);
	for (uint64_t i = 0; i < payload_size; i++)
		b->d[b->n++] = 0xAA; /* would parse as a record of size 0xaaaa */
}

Test(perfdata, auxtrace_payload_is_skipped)
{
	const char *path = tmp_path("aux.data");
	struct perf_event_attr a = basic_attr(STD_TYPE);
	struct buf b = { .n = 0 };
	struct pd_file f;
	struct pd_cursor c;
	const struct perf_event_header *h;
	struct pd_sample s;

	add_auxtrace(&b, 40);
	add_std_sample(&b, 1, 0xabc, 9, 1);
	write_file(path, &a, NULL, 0, &b);
	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	pd_cursor_init(&c, &f);
	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(h->type, PD_RECORD_AUXTRACE);
	cr_assert_str_eq(pd_record_name(h->type), "AUXTRACE");
	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(h->type, PERF_RECORD_SAMPLE);
	cr_assert_eq(pd_parse_sample(&f, h, &s), 0, "%s", scx_errmsg());
	cr_assert_eq(s.ip, 0xabc);
	cr_assert_eq(pd_next(&c, &h), 0);
	pd_close(&f);
}

/* ---- EVENT_DESC -------------------------------------------------------------------------- */

Test(perfdata, event_desc_names_and_malformed_desc)
{
	const char *good = tmp_path("names.data"), *bad = tmp_path("badnames.data");
	struct buf b = { .n = 0 };
	struct pd_file f;
	const void *data;
	uint64_t size;
	struct pd_writer w;
	struct perf_event_attr a = basic_attr(STD_TYPE);
	uint32_t garbage[4] = { 1000, 128, 0, 0 };

	write_two_attr_file(good, STD_TYPE, &b);
	cr_assert_eq(pd_open(&f, good), 0, "%s", scx_errmsg());
	cr_assert_str_eq(f.attrs[0].name, "page-faults");
	cr_assert_str_eq(f.attrs[1].name, "cpu-clock");
	cr_assert_eq(pd_feature(&f, PD_FEAT_EVENT_DESC, &data, &size), 0);
	cr_assert_gt(size, 2 * (128 + 8 + 64));
	cr_assert_eq(pd_feature(&f, PD_FEAT_HOSTNAME, &data, &size), -1);
	pd_close(&f);

	cr_assert_eq(pd_writer_open(&w, bad), 0);
	cr_assert_eq(pd_writer_add_attr(&w, &a, NULL, 0, "ignored"), 0);
	cr_assert_eq(pd_writer_add_feature(&w, PD_FEAT_EVENT_DESC, garbage, sizeof(garbage)), 0);
	cr_assert_eq(pd_writer_finish(&w), 0, "%s", scx_errmsg());
	cr_assert_eq(pd_open(&f, bad), 0, "malformed EVENT_DESC must not fail: %s", scx_errmsg());
	cr_assert_str_eq(f.attrs[0].name, "");
	pd_close(&f);
}

Test(perfdata, features_round_trip)
{
	const char *path = tmp_path("feat.data");
	struct perf_event_attr a = basic_attr(STD_TYPE);
	struct buf b = { .n = 0 };
	struct pd_writer w;
	struct pd_file f;
	const void *data;
	uint64_t size;
	uint32_t nrcpus[2] = { 4, 2 };

	add_std_sample(&b, 1, 2, 3, 4);
	cr_assert_eq(pd_writer_open(&w, path), 0);
	cr_assert_eq(pd_writer_add_attr(&w, &a, NULL, 0, NULL), 0);
	cr_assert_eq(pd_writer_add_feature(&w, PD_FEAT_NRCPUS, nrcpus, sizeof(nrcpus)), 0);
	cr_assert_eq(pd_writer_add_feature(&w, PD_FEAT_HOSTNAME, "host", 5), 0);
	cr_assert_eq(pd_writer_add_feature(&w, PD_FEAT_HOSTNAME, "x", 2), -1, "duplicate feature");
	write_records(&w, &b);
	cr_assert_eq(pd_writer_finish(&w), 0, "%s", scx_errmsg());

	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	cr_assert_eq(pd_feature(&f, PD_FEAT_HOSTNAME, &data, &size), 0);
	cr_assert_eq(size, 5);
	cr_assert_str_eq(data, "host");
	cr_assert_eq(pd_feature(&f, PD_FEAT_NRCPUS, &data, &size), 0);
	cr_assert_eq(size, 8);
	cr_assert_eq(memcmp(data, nrcpus, 8), 0);
	cr_assert_eq(pd_feature(&f, PD_FEAT_EVENT_DESC, &data, &size), -1, "no names, no EVENT_DESC");
	/* index (2 entries) right after the data, then payloads in bit order, 8-aligned */
	cr_assert_eq(f.feat[PD_FEAT_HOSTNAME].offset, f.data_sec.offset + f.data_sec.size + 32);
	cr_assert_eq(f.feat[PD_FEAT_NRCPUS].offset, f.data_sec.offset + f.data_sec.size + 40);
	pd_close(&f);
}

/* ---- writer behaviour ----------------------------------------------------------------- */

Test(perfdata, writer_refuses_existing_file_and_abort_unlinks)
{
	const char *path = tmp_path("exists.data");
	struct pd_writer w;
	struct perf_event_attr a = basic_attr(STD_TYPE);
	struct buf b = { .n = 0 };
	int fd = open(path, O_CREAT | O_WRONLY, 0600);

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(pd_writer_open(&w, path), -1);
	cr_assert(strstr(scx_errmsg(), path), "%s", scx_errmsg());
	cr_assert_eq(access(path, F_OK), 0, "a refused open must not remove the file");

	const char *p2 = tmp_path("aborted.data");
	cr_assert_eq(pd_writer_open(&w, p2), 0);
	cr_assert_eq(pd_writer_add_attr(&w, &a, NULL, 0, NULL), 0);
	add_std_sample(&b, 1, 2, 3, 4);
	b.d[6] = 12; /* header.size no longer matches */
	cr_assert_eq(pd_writer_add_record(&w, b.d, b.n), -1);
	pd_writer_abort(&w);
	cr_assert_eq(access(p2, F_OK), -1, "abort must unlink");
}

Test(perfdata, writer_large_record_stream)
{
	const char *path = tmp_path("big.data");
	struct perf_event_attr a = basic_attr(STD_TYPE);
	struct pd_writer w;
	struct buf b = { .n = 0 };
	struct pd_file f;
	size_t n;

	add_std_sample(&b, 1, 0x10, 3, 4);
	cr_assert_eq(pd_writer_open(&w, path), 0);
	cr_assert_eq(pd_writer_add_attr(&w, &a, NULL, 0, NULL), 0);
	for (int i = 0; i < 40000; i++) /* 2.2 MB: crosses the write buffer twice */
		cr_assert_eq(pd_writer_add_record(&w, b.d, b.n), 0);
	cr_assert_eq(pd_writer_finish(&w), 0, "%s", scx_errmsg());
	cr_assert_eq(read_all(path, &n), 0, "%s", scx_errmsg());
	cr_assert_eq(n, 40000);

	/* release as we go: data stays readable */
	cr_assert_eq(pd_open(&f, path), 0);
	struct pd_cursor c;
	const struct perf_event_header *h;
	struct pd_sample s;
	size_t ok = 0;
	pd_cursor_init(&c, &f);
	while (pd_next(&c, &h) > 0) {
		pd_release_before(&f, pd_offset_of(&f, h));
		if (pd_parse_sample(&f, h, &s) == 0 && s.ip == 0x10)
			ok++;
	}
	cr_assert_eq(ok, 40000);
	cr_assert_gt(f.released, 1 << 20);
	cr_assert_eq(f.released % 4096, 0);
	pd_close(&f);
}

Test(perfdata, record_names)
{
	cr_assert_str_eq(pd_record_name(PERF_RECORD_SAMPLE), "SAMPLE");
	cr_assert_str_eq(pd_record_name(PERF_RECORD_MMAP2), "MMAP2");
	cr_assert_str_eq(pd_record_name(PD_RECORD_FINISHED_ROUND), "FINISHED_ROUND");
	cr_assert_str_eq(pd_record_name(PD_RECORD_FINISHED_INIT), "FINISHED_INIT");
	cr_assert_str_eq(pd_record_name(0), "UNKNOWN");
	cr_assert_str_eq(pd_record_name(40), "UNKNOWN");
	cr_assert_str_eq(pd_record_name(1000), "UNKNOWN");
}

/* ---- corrupt inputs ----------------------------------------------------------------------- */

struct image {
	uint8_t *d;
	size_t n;
};

static struct image load_image(const char *path)
{
	struct image im;
	FILE *fp = fopen(path, "rb");

	cr_assert_not_null(fp);
	fseek(fp, 0, SEEK_END);
	im.n = (size_t)ftell(fp);
	fseek(fp, 0, SEEK_SET);
	im.d = malloc(im.n + 4096);
	cr_assert_eq(fread(im.d, 1, im.n, fp), im.n);
	fclose(fp);
	return im;
}

static void save_image(const char *path, const struct image *im)
{
	FILE *fp = fopen(path, "wb");

	cr_assert_not_null(fp);
	cr_assert_eq(fwrite(im->d, 1, im->n, fp), im->n);
	fclose(fp);
}

static void set64(struct image *im, size_t off, uint64_t v)
{
	memcpy(im->d + off, &v, 8);
}

static void set16(struct image *im, size_t off, uint16_t v)
{
	memcpy(im->d + off, &v, 2);
}

/* Offsets inside the base image (data section starts at 104). */
#define DATA 104
#define REC_SIZE (DATA + 6)

enum base_kind { BASE_STD, BASE_MANY };

static void m_truncate_header(struct image *im) { im->n = 50; }
static void m_truncate_tiny(struct image *im) { im->n = 10; }
static void m_bad_magic(struct image *im) { memcpy(im->d, "PERFILE1", 8); }
static void m_big_endian(struct image *im) { memcpy(im->d, "2ELIFREP", 8); }
static void m_pipe(struct image *im) { set64(im, 8, 16); }
static void m_header_size(struct image *im) { set64(im, 8, 96); }
static void m_attr_size_0(struct image *im) { set64(im, 16, 0); }
static void m_attr_size_huge(struct image *im) { set64(im, 16, 1ULL << 40); }
static void m_attrs_past_eof(struct image *im) { set64(im, 24, im->n + 8); }
static void m_attrs_overlap_header(struct image *im) { set64(im, 24, 8); }
static void m_data_past_eof(struct image *im) { set64(im, 48, im->n); }
static void m_data_offset_huge(struct image *im) { set64(im, 40, UINT64_MAX - 8); }
static void m_no_attrs(struct image *im) { set64(im, 32, 0); }
static void m_attrs_not_multiple(struct image *im) { set64(im, 32, 100); }
static void m_attr_size_field(struct image *im)
{
	uint64_t attrs;

	memcpy(&attrs, im->d + 24, 8);
	uint32_t big = 4000;
	memcpy(im->d + attrs + 4, &big, 4);
}
static void m_ids_past_eof(struct image *im)
{
	uint64_t attrs;

	memcpy(&attrs, im->d + 24, 8);
	set64(im, attrs + 128, im->n - 8);
	set64(im, attrs + 136, 64);
}
static void m_ids_not_multiple(struct image *im)
{
	uint64_t attrs;

	memcpy(&attrs, im->d + 24, 8);
	set64(im, attrs + 136, 12);
}
static void m_feature_index_past_eof(struct image *im)
{
	im->d[72] |= 1 << 3; /* HOSTNAME: one more index entry */
	set64(im, 48, im->n - DATA - 8); /* index would start 8 bytes before EOF */
}
static void m_feature_section_past_eof(struct image *im)
{
	uint64_t data_size;

	memcpy(&data_size, im->d + 48, 8);
	im->d[72] |= 1 << 3;
	/* the image has no features: the index entry is the first 16 bytes of the ids */
	set64(im, DATA + data_size, im->n);
	set64(im, DATA + data_size + 8, 64);
}
static void m_record_size_0(struct image *im) { set16(im, REC_SIZE, 0); }
static void m_record_size_4(struct image *im) { set16(im, REC_SIZE, 4); }
static void m_record_past_end(struct image *im) { set16(im, REC_SIZE, 0xfff8); }
static void m_record_unaligned(struct image *im) { set16(im, REC_SIZE, 60); }
static void m_sample_short(struct image *im)
{
	/* shrink the std sample (64 bytes) to 40 and make the rest a FINISHED_ROUND */
	set16(im, REC_SIZE, 40);
	set64(im, DATA + 40, 0);
	im->d[DATA + 40] = PD_RECORD_FINISHED_ROUND;
	set16(im, DATA + 46, 24);
}
static void m_auxtrace_past_end(struct image *im)
{
	/* turn the sample into an AUXTRACE claiming a huge payload */
	im->d[DATA] = PD_RECORD_AUXTRACE;
	set64(im, DATA + 8, 1ULL << 40);
}
/* BASE_MANY offsets: body starts at DATA+8; read group nr at body+72, callchain
 * nr at body+72+ 8*9 = body+144, raw size at body+144+32=body+176, branch nr
 * at body+192. */
#define MANY_BODY (DATA + 8)
static void m_read_nr_absurd(struct image *im) { set64(im, MANY_BODY + 72, 1ULL << 60); }
static void m_callchain_absurd(struct image *im) { set64(im, MANY_BODY + 144, 1ULL << 60); }
static void m_raw_past_end(struct image *im)
{
	uint32_t big = 0xfffffff0;

	memcpy(im->d + MANY_BODY + 176, &big, 4);
}
static void m_branch_absurd(struct image *im) { set64(im, MANY_BODY + 192, 1ULL << 60); }
static void m_branch_overflow(struct image *im) { set64(im, MANY_BODY + 192, UINT64_MAX / 24 + 2); }
static void m_stack_absurd(struct image *im) { set64(im, MANY_BODY + 192 + 16 + 48 + 32, UINT64_MAX - 3); }

static const struct corrupt_case {
	const char *name;
	enum base_kind base;
	void (*mutate)(struct image *);
	const char *expect; /* substring of the message, or NULL */
} corrupt_cases[] = {
	{ "truncated header", BASE_STD, m_truncate_header, "truncated" },
	{ "tiny file", BASE_STD, m_truncate_tiny, "truncated" },
	{ "bad magic", BASE_STD, m_bad_magic, "magic" },
	{ "big-endian magic", BASE_STD, m_big_endian, "big-endian" },
	{ "pipe-mode header", BASE_STD, m_pipe, "pipe-mode" },
	{ "header size", BASE_STD, m_header_size, "header size" },
	{ "attr_size 0", BASE_STD, m_attr_size_0, "attr_size" },
	{ "attr_size huge", BASE_STD, m_attr_size_huge, "attr_size" },
	{ "attrs past EOF", BASE_STD, m_attrs_past_eof, "past the end" },
	{ "attrs overlap header", BASE_STD, m_attrs_overlap_header, "overlaps" },
	{ "data past EOF", BASE_STD, m_data_past_eof, "past the end" },
	{ "data offset huge", BASE_STD, m_data_offset_huge, "data" },
	{ "no attrs", BASE_STD, m_no_attrs, "attributes" },
	{ "attrs size not multiple", BASE_STD, m_attrs_not_multiple, "multiple" },
	{ "attr.size too big", BASE_STD, m_attr_size_field, "size 4000" },
	{ "ids past EOF", BASE_STD, m_ids_past_eof, "ids of attr 0" },
	{ "ids size not multiple of 8", BASE_STD, m_ids_not_multiple, "multiple of 8" },
	{ "feature index past EOF", BASE_STD, m_feature_index_past_eof, "feature index" },
	{ "feature section past EOF", BASE_STD, m_feature_section_past_eof, "feature 3" },
	{ "record size 0", BASE_STD, m_record_size_0, "size 0" },
	{ "record size 4", BASE_STD, m_record_size_4, "smaller than" },
	{ "record past the end", BASE_STD, m_record_past_end, "past the end" },
	{ "record size unaligned", BASE_STD, m_record_unaligned, "multiple of 8" },
	{ "sample shorter than sample_type", BASE_STD, m_sample_short, "ends before" },
	{ "auxtrace payload past end", BASE_STD, m_auxtrace_past_end, "AUXTRACE" },
	{ "read_format group nr absurd", BASE_MANY, m_read_nr_absurd, "read_format group" },
	{ "callchain nr absurd", BASE_MANY, m_callchain_absurd, "callchain of 1152921504606846976" },
	{ "raw size past end", BASE_MANY, m_raw_past_end, "raw data" },
	{ "branch nr absurd", BASE_MANY, m_branch_absurd, "branch stack" },
	{ "branch nr overflows", BASE_MANY, m_branch_overflow, "branch stack" },
	{ "user stack size absurd", BASE_MANY, m_stack_absurd, "user stack" },
};

static void make_base(const char *path, enum base_kind kind)
{
	struct buf b = { .n = 0 };
	uint64_t ids[] = { 7, 8 };

	if (kind == BASE_STD) {
		struct perf_event_attr a = basic_attr(STD_TYPE);

		add_std_sample(&b, 7, 0x1000, 1, 2);
		add_std_sample(&b, 7, 0x1000, 1, 2);
		write_file(path, &a, ids, 2, &b);
	} else {
		struct perf_event_attr a = many_attr();

		add_many_sample(&b);
		write_file(path, &a, ids, 2, &b);
	}
}

Test(perfdata, base_images_are_valid)
{
	size_t n;

	make_base(tmp_path("base_std.data"), BASE_STD);
	make_base(tmp_path("base_many.data"), BASE_MANY);
	cr_assert_eq(read_all(tmp_path("base_std.data"), &n), 0, "%s", scx_errmsg());
	cr_assert_eq(n, 2);
	cr_assert_eq(read_all(tmp_path("base_many.data"), &n), 0, "%s", scx_errmsg());
	cr_assert_eq(n, 1);
}

Test(perfdata, corrupt_inputs_fail_cleanly)
{
	char bases[2][256];

	snprintf(bases[BASE_STD], sizeof(bases[0]), "%s", tmp_path("base_std.data"));
	snprintf(bases[BASE_MANY], sizeof(bases[0]), "%s", tmp_path("base_many.data"));

	make_base(bases[BASE_STD], BASE_STD);
	make_base(bases[BASE_MANY], BASE_MANY);
	for (size_t i = 0; i < sizeof(corrupt_cases) / sizeof(corrupt_cases[0]); i++) {
		const struct corrupt_case *cc = &corrupt_cases[i];
		struct image im = load_image(bases[cc->base]);
		char name[64];
		size_t n;

		snprintf(name, sizeof(name), "corrupt%zu.data", i);
		const char *path = tmp_path(name);
		cc->mutate(&im);
		save_image(path, &im);
		free(im.d);
		scx_clear_error();
		cr_expect_eq(read_all(path, &n), -1, "%s: accepted", cc->name);
		cr_expect(strstr(scx_errmsg(), path) != NULL, "%s: message lacks the path: '%s'",
			  cc->name, scx_errmsg());
		if (cc->expect)
			cr_expect(strstr(scx_errmsg(), cc->expect) != NULL,
				  "%s: message '%s' lacks '%s'", cc->name, scx_errmsg(), cc->expect);
	}
}

Test(perfdata, missing_file_fails_with_path)
{
	struct pd_file f;
	const char *path = tmp_path("does-not-exist.data");

	cr_assert_eq(pd_open(&f, path), -1);
	cr_assert(strstr(scx_errmsg(), path), "%s", scx_errmsg());
	pd_close(&f); /* harmless after a failed open */
}

/* ---- perf accepts the writer's output ----------------------------------------------------- */

static int count_lines(const char *path)
{
	FILE *fp = fopen(path, "r");
	int c, n = 0;

	if (!fp)
		return -1;
	while ((c = fgetc(fp)) != EOF)
		n += c == '\n';
	fclose(fp);
	return n;
}

Test(perfdata, perf_script_accepts_written_file)
{
	if (system("command -v perf > /dev/null 2>&1") != 0)
		cr_skip_test("SKIP: perf not installed");
	const char *path = tmp_path("perf.data");
	const char *out = tmp_path("script.out"), *err = tmp_path("script.err");
	struct perf_event_attr a1 = basic_attr(STD_TYPE), a2 = basic_attr(STD_TYPE);
	uint64_t ids1[] = { 100, 101 }, ids2[] = { 200 };
	struct buf b = { .n = 0 };
	struct pd_writer w;
	char cmd[1024];

	a1.exclude_guest = 1;
	a2.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
	add_comm(&b, 4242, "scxtest", 1, 100);
	for (int i = 0; i < 25; i++)
		add_std_sample(&b, i % 5 == 0 ? 200 : 100 + i % 2, 0x401000 + i, 4242, 1000 + i);
	rec_begin(&b, PD_RECORD_FINISHED_ROUND, 0);
	rec_end(&b);
	cr_assert_eq(pd_writer_open(&w, path), 0, "%s", scx_errmsg());
	cr_assert_eq(pd_writer_add_attr(&w, &a1, ids1, 2, "page-faults"), 0);
	cr_assert_eq(pd_writer_add_attr(&w, &a2, ids2, 1, "minor-faults"), 0);
	write_records(&w, &b);
	cr_assert_eq(pd_writer_finish(&w), 0, "%s", scx_errmsg());

	snprintf(cmd, sizeof(cmd), "perf script -i %s -F comm,pid,event,ip > %s 2> %s", path, out,
		 err);
	cr_assert_eq(system(cmd), 0, "perf script failed: see %s", err);
	cr_assert_eq(count_lines(out), 25);
	snprintf(cmd, sizeof(cmd), "grep -c 'scxtest.*4242.*minor-faults' %s | grep -qx 5", out);
	cr_assert_eq(system(cmd), 0, "perf did not see 5 minor-faults samples of scxtest");
	snprintf(cmd, sizeof(cmd), "grep -c 'page-faults' %s | grep -qx 20", out);
	cr_assert_eq(system(cmd), 0, "perf did not see 20 page-faults samples");
	snprintf(cmd, sizeof(cmd), "grep -qi 'error\\|corrupt\\|unsupported' %s", err);
	cr_assert_neq(system(cmd), 0, "perf complained on stderr");
	snprintf(cmd, sizeof(cmd), "perf report -i %s --stdio > %s 2> %s", path, out, err);
	cr_assert_eq(system(cmd), 0, "perf report failed: see %s", err);
}

/* perf synthesizes COMM/MMAP records with a zeroed sample_id trailer: id 0
 * belongs to the first attr, as perf itself treats it. */
Test(perfdata, synthesized_id_zero_goes_to_first_attr)
{
	const char *path = tmp_path("synth.data");
	struct buf b = { .n = 0 };
	struct pd_file f;
	struct pd_cursor c;
	const struct perf_event_header *h;
	struct pd_sample s;

	add_comm(&b, 1, "systemd", 0, 0);
	add_comm(&b, 2, "kthreadd", 0, 20);
	add_comm(&b, 3, "bogus", 0, 55);
	write_two_attr_file(path, STD_TYPE, &b);
	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	pd_cursor_init(&c, &f);
	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(pd_parse_sample_id(&f, h, &s), 0, "%s", scx_errmsg());
	cr_assert_eq(s.attr, &f.attrs[0]);
	cr_assert_eq(pd_body_size(&f, h), 24);
	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(pd_parse_sample_id(&f, h, &s), 0, "%s", scx_errmsg());
	cr_assert_eq(s.attr, &f.attrs[1]);
	cr_assert_eq(pd_next(&c, &h), 1);
	cr_assert_eq(pd_parse_sample_id(&f, h, &s), -1, "id 55 is unknown");
	cr_assert(strstr(scx_errmsg(), "55"), "%s", scx_errmsg());
	cr_assert_eq(pd_body_size(&f, h), 0, "no attr: no body");
	pd_close(&f);
}
