/*
 * test_perfetto.c - unit tests of the Perfetto trace writer: the
 * wire-format encoder (perfetto_pb.c), trace text back to values
 * (sched_trace_parse.c), and the compact/full choice for switches and
 * wakings (perfetto_sched.c). The whole trace is checked against real
 * recordings by tests/integration/test_perfetto.sh.
 */
#include "lib/pftrace/perfetto_pb.h"
#include "lib/pftrace/perfetto_sched.h"
#include "lib/pftrace/perfetto_trace.h"
#include "lib/pftrace/perfetto_track.h"
#include "process/sched/sched_decode.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

Test(perfetto_pb, varints_and_negative_ints)
{
	struct pb_buf b = {0};
	static const uint8_t want[] = {
		0x08, 0xac, 0x02,                                     /* field 1 varint 300 */
		0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* field 2 int -1: 10 bytes */
		0x1a, 0x02, 'h', 'i',                                 /* field 3 string */
		0x21, 1, 0, 0, 0, 0, 0, 0, 0,                          /* field 4 fixed64 1 */
	};

	pb_varint(&b, 1, 300);
	pb_int(&b, 2, -1);
	pb_string(&b, 3, "hi");
	pb_fixed64(&b, 4, 1);
	cr_assert_not(b.oom);
	cr_assert_eq(b.len, sizeof(want));
	cr_assert_arr_eq(b.p, want, sizeof(want));
	pb_free(&b);
}

Test(perfetto_pb, nested_lengths_are_shortest_varints)
{
	struct pb_buf b = {0};
	size_t outer, inner;
	char big[200];

	memset(big, 'x', sizeof(big));
	outer = pb_open(&b, 5);
	inner = pb_open(&b, 1);
	pb_varint(&b, 1, 7);
	cr_assert(pb_close(&b, inner));
	pb_bytes(&b, 2, big, sizeof(big));
	cr_assert(pb_close(&b, outer));
	/* 0x2a len(2 bytes: 4 + 3+200 = 207) 0x0a 0x02 0x08 0x07 0x12 0xc8 0x01 ... */
	cr_assert_eq(b.len, 1 + 2 + 4 + 3 + 200);
	cr_assert_eq(b.p[0], 0x2a);
	cr_assert_eq(b.p[1], (207 & 0x7f) | 0x80);
	cr_assert_eq(b.p[2], 207 >> 7);
	cr_assert_eq(b.p[3], 0x0a);
	cr_assert_eq(b.p[4], 2);
	cr_assert_eq(b.p[5], 0x08);
	cr_assert_eq(b.p[6], 7);
	cr_assert_eq(b.p[7], 0x12);
	cr_assert_eq(b.p[b.len - 1], 'x');
	pb_free(&b);
}

static void roundtrip(enum sched_kind k, const struct sched_vals *v, struct sched_vals *out)
{
	char text[512];
	size_t n = sched_trace_format(k, v, text, sizeof(text));

	cr_assert(sched_trace_vals_from_text(k, text, n, out), "%s", text);
}

Test(perfetto_text, values_back_from_trace_text)
{
	struct sched_vals v = {0}, o;

	snprintf(v.comm, sizeof(v.comm), "a b");
	snprintf(v.comm2, sizeof(v.comm2), "next one");
	snprintf(v.state, sizeof(v.state), "R+");
	v.pid = 12;
	v.prio = 120;
	v.pid2 = 0;
	v.prio2 = 100;
	roundtrip(SK_SWITCH, &v, &o);
	cr_assert_str_eq(o.comm, "a b");
	cr_assert_str_eq(o.comm2, "next one");
	cr_assert_str_eq(o.state, "R+");
	cr_assert_eq(o.pid, 12);
	cr_assert_eq(o.prio2, 100);

	v.a0 = 3;
	v.pid = 77;
	roundtrip(SK_WAKING, &v, &o);
	cr_assert_str_eq(o.comm, "a b");
	cr_assert_eq(o.pid, 77);
	cr_assert_eq(o.prio, 120);
	cr_assert_eq(o.a0, 3);

	memset(&v, 0, sizeof(v));
	v.a0 = 19;
	snprintf(v.str, sizeof(v.str), "virtio0-input.0");
	roundtrip(SK_IRQ_ENTRY, &v, &o);
	cr_assert_eq(o.a0, 19);
	cr_assert_str_eq(o.str, "virtio0-input.0");
	v.a1 = 1;
	roundtrip(SK_IRQ_EXIT, &v, &o);
	cr_assert_eq(o.a1, 1);
	v.a0 = 7;
	roundtrip(SK_SOFTIRQ_ENTRY, &v, &o);
	cr_assert_eq(o.a0, 7);
	v.a0 = 236;
	roundtrip(SK_TIMER_EXIT, &v, &o);
	cr_assert_eq(o.a0, 236);
	cr_assert_not(sched_trace_vals_from_text(SK_MIGRATE, "comm=x pid=1", 12, &o));
	cr_assert_not(sched_trace_vals_from_text(SK_WAKING, "comm=x prio=1", 13, &o));
}

static bool next_field(const uint8_t **p, const uint8_t *end, uint32_t *field, int *wire, uint64_t *v,
		       const uint8_t **data);

/* The bundles are in a compressed_packets packet (50) whose zlib stream
 * inflates to Trace.packets of sequence 2 (ftrace) holding a bundle. */
static void check_compressed_bundles(const uint8_t *buf, size_t len)
{
	const uint8_t *p = buf, *end = buf + len, *d, *q, *qe, *dd;
	uint8_t out[1 << 16];
	uint64_t v, vv;
	uint32_t field, f2;
	int wire, w2, found = 0;

	while (next_field(&p, end, &field, &wire, &v, &d)) {
		uLongf n = sizeof(out);

		q = d;
		qe = d + v;
		if (!next_field(&q, qe, &f2, &w2, &vv, &dd) || f2 != 50)
			continue;
		cr_assert_eq(q, qe, "compressed_packets is the packet's only field");
		cr_assert_eq(uncompress(out, &n, dd, vv), Z_OK);
		q = out;
		qe = out + n;
		while (next_field(&q, qe, &f2, &w2, &vv, &dd)) {
			const uint8_t *x = dd, *xe = dd + vv, *y;
			uint32_t f3;
			int w3;
			uint64_t v3, seq = 0;
			bool bundle = false;

			cr_assert_eq(f2, 1, "inflated: Trace.packet fields only");
			while (next_field(&x, xe, &f3, &w3, &v3, &y)) {
				if (f3 == 10)
					seq = v3;
				bundle |= f3 == 1;
			}
			cr_assert(bundle && seq == 2, "an ftrace bundle on sequence 2");
			found++;
		}
	}
	cr_assert_gt(found, 0, "the bundles are compressed");
}

static int sched(struct pftrace *t, enum sched_kind k, uint64_t ts, int64_t cpu, int64_t cur, int64_t pid,
		 int64_t pid2)
{
	struct sched_vals v = {0};
	struct pftrace_sched_rec r = {.kind = k, .time_ns = ts, .cpu = cpu, .tid = cur, .pid = cur, .comm = "c",
				      .v = &v, .tgid = pid, .tgid2 = pid2};

	snprintf(v.comm, sizeof(v.comm), "t%lld", (long long)pid);
	snprintf(v.comm2, sizeof(v.comm2), "t%lld", (long long)pid2);
	snprintf(v.state, sizeof(v.state), "S");
	v.pid = pid;
	v.pid2 = pid2;
	v.prio = v.prio2 = 120;
	return pftrace_sched(t, &r);
}

Test(perfetto_sched, full_events_only_where_the_chain_breaks)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct pftrace *t = pftrace_new(f, NULL);
	struct pftrace_stats st;

	cr_assert_not_null(t);
	cr_assert_eq(sched(t, SK_SWITCH, 100, 0, 10, 10, 11), 0); /* first on cpu 0: full */
	cr_assert_eq(sched(t, SK_SWITCH, 200, 0, 11, 11, 12), 0); /* prev 11 = last next: compact */
	cr_assert_eq(sched(t, SK_SWITCH, 300, 0, 13, 13, 14), 0); /* prev 13, last next 12: full */
	cr_assert_eq(sched(t, SK_SWITCH, 150, 1, 20, 20, 21), 0); /* first on cpu 1: full */
	cr_assert_eq(sched(t, SK_WAKING, 310, 0, 14, 30, 0), 0);  /* waker 14 is current: compact */
	cr_assert_eq(sched(t, SK_WAKING, 320, 0, 99, 31, 0), 0);  /* waker 99 is not: full */
	cr_assert_eq(sched(t, SK_MIGRATE, 330, 0, 14, 31, 0), 0); /* not in the trace */
	cr_assert_eq(sched(t, SK_SWITCH, 340, 2000, 1, 1, 2), 0); /* cpu out of range: skipped */
	cr_assert_eq(pftrace_finish(t), 0);
	pftrace_get_stats(t, &st);
	cr_assert_eq(st.switches, 4);
	cr_assert_eq(st.switches_full, 3);
	cr_assert_eq(st.wakings, 2);
	cr_assert_eq(st.wakings_full, 1);
	cr_assert_eq(st.skipped_sched, 2);
	pftrace_free(t);
	fclose(f);
	/* SystemInfo first: packet tag, then sequence id 1 with flag 1 */
	cr_assert_gt(len, 8);
	cr_assert_eq((unsigned char)buf[0], 0x0a);
	check_compressed_bundles((const uint8_t *)buf, len);
	free(buf);
}

/* A minimal wire-format walker for the checks below: the next field of
 * [*p, end), its number, wire type, varint value or bytes. */
static bool next_field(const uint8_t **p, const uint8_t *end, uint32_t *field, int *wire, uint64_t *v,
		       const uint8_t **data)
{
	uint64_t tag = 0, x = 0;
	int shift = 0;

	if (*p >= end)
		return false;
	do {
		tag |= (uint64_t)(**p & 0x7f) << shift;
		shift += 7;
	} while (*(*p)++ & 0x80);
	*field = (uint32_t)(tag >> 3);
	*wire = (int)(tag & 7);
	cr_assert(*wire == 0 || *wire == 2, "wire type %d", *wire);
	shift = 0;
	do {
		x |= (uint64_t)(**p & 0x7f) << shift;
		shift += 7;
	} while (*(*p)++ & 0x80);
	*v = x;
	*data = *p;
	if (*wire == 2)
		*p += x;
	return true;
}

static void sample(struct pftrace *t, int64_t tid, uint64_t ts, uint64_t addr)
{
	struct mem_record r = {.comm = "w", .tid = tid, .pid = tid, .time_ns = ts, .addr = addr, .cgroup = "",
			       .sym = "work", .dso = "/bin/w", .event = "page-faults", .has_cpu = true, .cpu = 1};

	cr_assert_eq(pftrace_mem_sample(t, &r), 0);
}

/* Memory samples: their own sequence (3), each timestamp a delta on the
 * incremental clock 64 from the ClockSnapshot (at the first sample: delta
 * 0), a sample earlier than the one before on the trace's clock (6)
 * instead; sym and dso one interned SourceLocation; phys_addr 0 and an
 * empty cgroup left out. */
Test(perfetto_mem, incremental_timestamps_and_source_locations)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct pftrace *t = pftrace_new(f, NULL);
	const uint8_t *p, *end, *d, *q, *qe, *dd;
	uint64_t want_ts[] = {0, 500, 1200, 100}, want_clock[] = {64, 64, 6, 64}, v, vv;
	uint64_t snap = 0, locs[4] = {0};
	uint32_t field, f2;
	int wire, w2, n = 0, nlocs = 0;

	cr_assert_not_null(t);
	sample(t, 7, 1000, 0x1000);
	sample(t, 7, 1500, 0x2000);
	sample(t, 8, 1200, 0x3000); /* earlier than the one before */
	sample(t, 8, 1600, 0x4000);
	cr_assert_eq(pftrace_finish(t), 0);
	pftrace_free(t);
	fclose(f);
	p = (const uint8_t *)buf;
	end = p + len;
	while (next_field(&p, end, &field, &wire, &v, &d)) {
		uint64_t seq = 0, ts = 0, clock = 64, loc = 0;
		bool te = false, phys = false, cg = false;

		cr_assert_eq(field, 1);
		q = d;
		qe = d + v;
		while (next_field(&q, qe, &f2, &w2, &vv, &dd)) {
			if (f2 == 10)
				seq = vv;
			else if (f2 == 8)
				ts = vv;
			else if (f2 == 58)
				clock = vv;
			else if (f2 == 6)
				snap = 1;
			else if (f2 == 11) {
				const uint8_t *e = dd, *ee = dd + vv, *x;
				uint32_t f3;
				int w3;
				uint64_t v3;

				te = true;
				while (next_field(&e, ee, &f3, &w3, &v3, &x)) {
					if (f3 == 34)
						loc = v3;
					if (f3 == 4 && v3 >= 2 && x[0] == 0x08 && x[1] == 2) /* name_iid 2: phys_addr */
						phys = true;
					if (f3 == 4 && v3 >= 2 && x[0] == 0x08 && x[1] == 7) /* name_iid 7: cgroup */
						cg = true;
				}
			}
		}
		if (!te || seq != 3)
			continue;
		cr_assert(snap, "a ClockSnapshot comes before the first sample");
		cr_assert_lt(n, 4);
		cr_assert_eq(ts, want_ts[n], "sample %d: timestamp %llu", n, (unsigned long long)ts);
		cr_assert_eq(clock, want_clock[n], "sample %d: clock %llu", n, (unsigned long long)clock);
		cr_assert_not(phys);
		cr_assert_not(cg);
		cr_assert_neq(loc, 0);
		locs[nlocs++] = loc;
		n++;
	}
	cr_assert_eq(n, 4);
	for (int i = 1; i < nlocs; i++)
		cr_assert_eq(locs[i], locs[0], "one SourceLocation for the same sym and dso");
	free(buf);
}
