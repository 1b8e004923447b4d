/*
 * test_spe.c - the Arm SPE packet decoder and record assembly of
 * process/spe on hand-built bytes: each packet header of the Arm ARM (DDI
 * 0487 D10) with its payload size and index, extended headers, alignment
 * padding, packets cut by the end of a buffer, headers no packet has; the
 * address forms perf reads (EL1 code, tagged and kernel data, PA with NS);
 * records across buffers, cut by a bad byte, ended by End; the data source
 * of Neoverse and other cores; the time conversion both ways.
 */
#include <criterion/criterion.h>
#include <linux/perf_event.h>
#include <string.h>

#include "process/spe/spe.h"

static int dec(const uint8_t *b, size_t n, struct spe_packet *p)
{
	return spe_packet_decode(b, n, 0, p);
}

Test(spe_packet, each_short_header_with_its_size_and_index)
{
	struct spe_packet p;
	const uint8_t pad[] = {0x00}, end[] = {0x01};
	const uint8_t ts[] = {0x71, 1, 2, 3, 4, 5, 6, 7, 8};
	const uint8_t ev1[] = {0x42, 0x16}, ev2[] = {0x52, 0x04, 0x02}, ev8[] = {0x72, 1, 0, 0, 0, 0, 0, 0, 0x80};
	const uint8_t src[] = {0x53, 0x0e, 0x00};
	const uint8_t ctx[] = {0x65, 0x34, 0x12, 0, 0};
	const uint8_t op[] = {0x49, 0x01};
	const uint8_t addr[] = {0xb3, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x91};
	const uint8_t cnt[] = {0x9a, 0x2c, 0x01};

	cr_assert_eq(dec(pad, 1, &p), 1);
	cr_assert_eq(p.type, SPE_PKT_PAD);
	cr_assert_eq(dec(end, 1, &p), 1);
	cr_assert_eq(p.type, SPE_PKT_END);
	cr_assert_eq(dec(ts, sizeof(ts), &p), 9);
	cr_assert_eq(p.type, SPE_PKT_TIMESTAMP);
	cr_assert_eq(p.payload, 0x0807060504030201ULL, "little-endian");
	cr_assert_eq(dec(ev1, sizeof(ev1), &p), 2);
	cr_assert_eq(p.type, SPE_PKT_EVENTS);
	cr_assert_eq(p.payload, 0x16);
	cr_assert_eq(dec(ev2, sizeof(ev2), &p), 3, "ss=01: two bytes");
	cr_assert_eq(p.payload, 0x0204);
	cr_assert_eq(dec(ev8, sizeof(ev8), &p), 9, "ss=11: eight bytes");
	cr_assert_eq(p.payload, 0x8000000000000001ULL);
	cr_assert_eq(dec(src, sizeof(src), &p), 3);
	cr_assert_eq(p.type, SPE_PKT_DATA_SOURCE);
	cr_assert_eq(p.payload, 0xe);
	cr_assert_eq(dec(ctx, sizeof(ctx), &p), 5);
	cr_assert_eq(p.type, SPE_PKT_CONTEXT);
	cr_assert_eq(p.index, 1, "CONTEXTIDR_EL2");
	cr_assert_eq(p.payload, 0x1234);
	cr_assert_eq(dec(op, sizeof(op), &p), 2);
	cr_assert_eq(p.type, SPE_PKT_OP_TYPE);
	cr_assert_eq(p.index, SPE_OP_LDST);
	cr_assert_eq(p.payload, 1, "a store");
	cr_assert_eq(dec(addr, sizeof(addr), &p), 9);
	cr_assert_eq(p.type, SPE_PKT_ADDRESS);
	cr_assert_eq(p.index, SPE_ADDR_DATA_PA);
	cr_assert_eq(p.payload, 0x9122334455667788ULL);
	cr_assert_eq(dec(cnt, sizeof(cnt), &p), 3);
	cr_assert_eq(p.type, SPE_PKT_COUNTER);
	cr_assert_eq(p.index, SPE_CNT_XLAT);
	cr_assert_eq(p.payload, 300);
}

Test(spe_packet, extended_headers_and_alignment)
{
	struct spe_packet p;
	const uint8_t addr[] = {0x21, 0xb2, 1, 0, 0, 0, 0, 0, 0, 0};
	const uint8_t cnt[] = {0x23, 0x9f, 7, 0};
	const uint8_t align[16] = {0x22, 0x00};

	cr_assert_eq(dec(addr, sizeof(addr), &p), 10);
	cr_assert_eq(p.type, SPE_PKT_ADDRESS);
	cr_assert_eq(p.index, 10, "index bits 4:3 from the prefix");
	cr_assert_eq(dec(cnt, sizeof(cnt), &p), 4);
	cr_assert_eq(p.index, 31);
	cr_assert_eq(p.payload, 7);
	cr_assert_eq(spe_packet_decode(align, 16, 0, &p), 8, "pads to 8 bytes from an aligned start");
	cr_assert_eq(p.type, SPE_PKT_PAD);
	cr_assert_eq(spe_packet_decode(align, 16, 5, &p), 3, "from offset 5: to offset 8");
	cr_assert_eq(spe_packet_decode(align, 4, 0, &p), 0, "needs 8 bytes to be there");
}

Test(spe_packet, cut_and_bad_headers)
{
	struct spe_packet p;
	const uint8_t ts[] = {0x71, 1, 2, 3};
	const uint8_t ext[] = {0x20};
	const uint8_t bad[] = {0x80, 0x02, 0x03, 0xf0, 0xff, 0x70, 0x21, 0x05};
	size_t i;

	cr_assert_eq(dec(ts, sizeof(ts), &p), 0, "a timestamp cut by the end of the buffer");
	cr_assert_eq(dec(ts, 0, &p), 0);
	cr_assert_eq(dec(ext, 1, &p), -1, "a lone extended prefix");
	for (i = 0; i + 1 < sizeof(bad); i++)
		cr_assert_eq(dec(bad + i, 1, &p), -1, "byte 0x%02x starts no packet", bad[i]);
	cr_assert_eq(dec(bad + 6, 2, &p), -1, "an extended prefix before no address or counter");
}

Test(spe_packet, addresses_as_perf_reads_them)
{
	/* PC: NS EL1 (kernel) gets the top byte set; EL0 does not */
	cr_assert_eq(spe_addr_value(SPE_ADDR_PC, 0xa0ff800008001000ULL), 0xffff800008001000ULL);
	cr_assert_eq(spe_addr_value(SPE_ADDR_PC, 0x8000aaaad0000400ULL), 0x0000aaaad0000400ULL);
	cr_assert_eq(spe_addr_value(SPE_ADDR_PC, 0x20ff800008001000ULL), 0x00ff800008001000ULL, "secure EL1: NS 0");
	/* data VA: the top-byte tag dropped; bits 55:52 all set: a kernel address */
	cr_assert_eq(spe_addr_value(SPE_ADDR_DATA_VA, 0x0a00ffff80001000ULL), 0x0000ffff80001000ULL);
	cr_assert_eq(spe_addr_value(SPE_ADDR_DATA_VA, 0x00f0000012345678ULL), 0xfff0000012345678ULL);
	/* data PA: NS and CH bits dropped */
	cr_assert_eq(spe_addr_value(SPE_ADDR_DATA_PA, 0xc000008000001000ULL), 0x0000008000001000ULL);
}

struct got {
	struct spe_record r[8];
	int n;
};

/* One AUX buffer through the decoder as the replay's queue steps it
 * (spe_queue_advance): every record it finishes into g. */
static void feed(struct spe_decoder *d, const uint8_t *buf, size_t len, struct got *g)
{
	struct spe_record r;
	size_t pos = 0;

	while (spe_decoder_step(d, buf, len, &pos, &r)) {
		cr_assert_lt(g->n, 8);
		g->r[g->n++] = r;
	}
	cr_assert_eq(pos, len, "the buffer used up");
}

/* a load at pc 0x400 of va 0x1000, lat 42, events L1D refill, source L2, ts 77 */
static const uint8_t LOAD[] = {
	0x64, 0x39, 0x30, 0, 0,                          /* context 12345 */
	0xb0, 0x00, 0x04, 0, 0, 0, 0, 0, 0x80,           /* PC 0x400, NS EL0 */
	0x49, 0x00,                                      /* load */
	0xb2, 0x00, 0x10, 0, 0, 0, 0, 0, 0,              /* VA 0x1000 */
	0x52, 0x0c, 0x00,                                /* events: L1D access + refill */
	0x53, 0x08, 0x00,                                /* source L2 */
	0x00, 0x00,                                      /* padding */
	0x98, 42, 0,                                     /* total latency */
	0x71, 77, 0, 0, 0, 0, 0, 0, 0,                   /* timestamp */
};

Test(spe_record, one_record_split_across_buffers_at_a_packet_boundary)
{
	struct spe_counts c = {0};
	struct spe_decoder d;
	struct got g = {0};

	spe_decoder_init(&d, &c);
	feed(&d, LOAD, 14, &g);
	cr_assert_eq(g.n, 0, "open at the end of the first buffer");
	feed(&d, LOAD + 14, sizeof(LOAD) - 14, &g);
	cr_assert_eq(g.n, 1);
	cr_assert_eq(g.r[0].pc, 0x400);
	cr_assert_eq(g.r[0].va, 0x1000);
	cr_assert_eq(g.r[0].op, SPE_OP_LD);
	cr_assert_eq(g.r[0].lat, 42);
	cr_assert_eq(g.r[0].source, 8);
	cr_assert_eq(g.r[0].timestamp, 77);
	cr_assert(g.r[0].has_context);
	cr_assert_eq(g.r[0].context, 12345);
	cr_assert_not(g.r[0].cut);
	cr_assert_eq(c.records, 1);
	cr_assert_eq(c.bad_bytes, 0);
}

Test(spe_record, a_packet_cut_by_the_buffer_end_is_skipped_byte_by_byte)
{
	struct spe_counts c = {0};
	struct spe_decoder d;
	struct got g = {0};

	/* the VA packet's 9 bytes split 4 + 5: perf does not join packets
	 * across buffers; the record so far is kept (cut), the tail bytes are
	 * read as headers (0x00 pads) */
	spe_decoder_init(&d, &c);
	feed(&d, LOAD, 20, &g);
	cr_assert_eq(g.n, 1, "cut at the bad byte");
	cr_assert(g.r[0].cut);
	cr_assert_eq(g.r[0].pc, 0x400);
	cr_assert_eq(g.r[0].va, 0, "the cut packet never read");
	cr_assert_eq(g.r[0].timestamp, 0);
	cr_assert_eq(c.bad_bytes, 2, "0xb2 cut short, 0x10 no header; the zeros pad");
	feed(&d, LOAD + 20, sizeof(LOAD) - 20, &g);
	cr_assert_eq(g.n, 2);
	cr_assert_eq(g.r[1].op, 0, "the rest has no operation type");
	cr_assert_eq(g.r[1].lat, 42);
	cr_assert_eq(c.cut_records, 1);
}

Test(spe_record, end_terminates_and_reserved_class_cuts)
{
	struct spe_counts c = {0};
	struct spe_decoder d;
	struct got g = {0};
	const uint8_t b[] = {
		0x49, 0x01, 0x98, 5, 0, 0x01,   /* a store ended by End */
		0x49, 0x00, 0x4b, 0x00,         /* a load, then a reserved class */
		0x98, 6, 0, 0x01,               /* the rest: latency only */
		0x48, 0x00, 0x71, 1, 0, 0, 0, 0, 0, 0, 0, /* other class, timestamped */
	};

	spe_decoder_init(&d, &c);
	feed(&d, b, sizeof(b), &g);
	cr_assert_eq(g.n, 4);
	cr_assert_eq(g.r[0].op, SPE_OP_ST);
	cr_assert_eq(g.r[0].lat, 5);
	cr_assert_eq(g.r[0].timestamp, 0);
	cr_assert(g.r[1].cut);
	cr_assert_eq(g.r[1].op, SPE_OP_LD);
	cr_assert_eq(g.r[2].lat, 6);
	cr_assert_eq(g.r[3].op, 0);
	cr_assert_eq(g.r[3].timestamp, 1);
	cr_assert_eq(c.bad_ops, 1);
	cr_assert_eq(c.bad_bytes, 0);
}

#define MIDR_N1 0x410fd0c1ULL
#define MIDR_V2 0x410fd4f0ULL

Test(spe_data_src, neoverse_levels_and_the_generic_events)
{
	struct spe_record r = {.op = SPE_OP_LD, .source = 0x0, .events = SPE_EV_L1D_ACCESS | SPE_EV_TLB_ACCESS};

	cr_assert(spe_midr_is_neoverse(MIDR_N1));
	cr_assert(spe_midr_is_neoverse(0x414fd0c0ULL), "any variant and revision");
	cr_assert_not(spe_midr_is_neoverse(MIDR_V2), "V2: not in perf 6.1's list");
	/* the values perf 6.1 prints for these records (tests/fixtures/spe) */
	cr_assert_eq(spe_data_src(&r, MIDR_N1), 0x288100142ULL, "L1 hit, snoop none, TLB walker hit");
	r.source = 0xb;
	r.events |= SPE_EV_TLB_WALK;
	cr_assert_eq(spe_data_src(&r, MIDR_N1), 0x690200842ULL, "system cache: L3 hit, snoop hit, TLB miss");
	r.source = 0xd;
	r.events &= ~SPE_EV_TLB_WALK;
	cr_assert_eq(spe_data_src(&r, MIDR_N1), 0xbe88000022ULL, "remote: level NA, remote, peer");
	r.op = SPE_OP_ST;
	cr_assert_eq(spe_data_src(&r, MIDR_N1), 0x1e88080024ULL, "stores: no level");
	r.op = SPE_OP_LD;
	r.events = SPE_EV_L1D_ACCESS | SPE_EV_L1D_REFILL | SPE_EV_TLB_ACCESS;
	cr_assert_eq(spe_data_src(&r, MIDR_V2), 0x88000182ULL, "generic: L1 miss");
	r.events |= SPE_EV_LLC_ACCESS | SPE_EV_LLC_MISS | SPE_EV_REMOTE;
	cr_assert_eq(spe_data_src(&r, MIDR_V2) & ~(0x7fULL << 26), 0x2000000882ULL, "generic: L3 miss, remote");
	r.op = 0;
	cr_assert_eq(spe_data_src(&r, MIDR_N1), 0, "neither load nor store: no sample");
}

Test(spe_time, tsc_and_perf_time_both_ways)
{
	struct spe_time_conv tc = {.shift = 21, .mult = 40ULL << 21, .zero = 1000000000};
	struct spe_time_conv sh = {.shift = 0, .mult = 1, .zero = 0, .cycles = 0x1000000, .mask = 0xffffff, .cap_short = true};

	cr_assert_eq(spe_tsc_to_perf_time(&tc, 5000000), 1200000000);
	cr_assert_eq(spe_perf_time_to_tsc(&tc, 1200000000), 5000000);
	cr_assert_eq(spe_perf_time_to_tsc(&tc, 1200000039), 5000000, "rounds down");
	cr_assert_eq(spe_tsc_to_perf_time(&sh, 0x10), 0x1000010, "short counters: above time_cycles");
	tc.mult = 0;
	cr_assert_eq(spe_perf_time_to_tsc(&tc, 5), 0, "no division by zero");
}
