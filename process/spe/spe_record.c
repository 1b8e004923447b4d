/*
 * spe_record.c - Arm SPE packets into records (spe.h), as perf 6.1's decoder
 * assembles them (tools/perf/util/arm-spe-decoder): a record is the packets
 * up to its Timestamp packet (or End when timestamps are off), padding
 * skipped. A header no packet has (or a packet cut by the end of its
 * buffer) is skipped one byte at a time; the record it interrupts ends
 * there ("cut") and is still delivered, as perf still samples it. An
 * operation type packet of the reserved class ends the record the same way.
 * A record open at the end of a buffer continues in the queue's next one.
 */
#include "process/spe/spe.h"

#include <string.h>

#define BYTES_0_6 ((1ULL << 56) - 1)

uint64_t spe_addr_value(unsigned index, uint64_t payload)
{
	uint64_t v = payload & BYTES_0_6;

	if (index == SPE_ADDR_PC || index == SPE_ADDR_BRANCH) {
		unsigned ns = (unsigned)(payload >> 63) & 1, el = (unsigned)(payload >> 61) & 3;

		if (ns && (el == 1 || el == 2)) /* EL1, or EL2 with VHE: the kernel half */
			v |= 0xffULL << 56;
	} else if (index == SPE_ADDR_DATA_VA) {
		/* bits 63:56 are the top-byte tag; bits 55:52 all set is a kernel address */
		if (((v >> 48) & 0xf0) == 0xf0)
			v |= 0xffULL << 56;
	}
	/* SPE_ADDR_DATA_PA: bit 63 NS, bit 62 CH dropped */
	return v;
}

void spe_decoder_init(struct spe_decoder *d, struct spe_counts *counts)
{
	memset(d, 0, sizeof(*d));
	d->counts = counts;
}

static void reset(struct spe_decoder *d)
{
	memset(&d->cur, 0, sizeof(d->cur));
	d->open = false;
}

/* The current record ends: into *out (1) when it holds anything (or
 * ended normally), else 0. */
static int finish(struct spe_decoder *d, bool cut, struct spe_record *out)
{
	int r = 0;

	if (d->open || !cut) {
		d->cur.cut = cut;
		d->counts->records++;
		if (cut)
			d->counts->cut_records++;
		*out = d->cur;
		r = 1;
	}
	reset(d);
	return r;
}

static void apply(struct spe_record *r, const struct spe_packet *p)
{
	switch (p->type) {
	case SPE_PKT_ADDRESS:
		if (p->index == SPE_ADDR_PC)
			r->pc = spe_addr_value(p->index, p->payload);
		else if (p->index == SPE_ADDR_DATA_VA)
			r->va = spe_addr_value(p->index, p->payload);
		else if (p->index == SPE_ADDR_DATA_PA)
			r->pa = spe_addr_value(p->index, p->payload);
		break;
	case SPE_PKT_COUNTER:
		if (p->index == SPE_CNT_TOTAL)
			r->lat = (uint16_t)p->payload;
		break;
	case SPE_PKT_CONTEXT:
		r->context = p->payload;
		r->has_context = true;
		break;
	case SPE_PKT_OP_TYPE:
		if (p->index == SPE_OP_LDST)
			r->op |= (p->payload & 1) ? SPE_OP_ST : SPE_OP_LD;
		break;
	case SPE_PKT_EVENTS:
		r->events |= (uint32_t)p->payload;
		break;
	case SPE_PKT_DATA_SOURCE:
		r->source = (uint16_t)p->payload;
		break;
	default:
		break;
	}
}

int spe_decoder_step(struct spe_decoder *d, const uint8_t *buf, size_t len, size_t *pos,
		     struct spe_record *out)
{
	struct spe_packet p;
	int n;

	while (*pos < len) {
		n = spe_packet_decode(buf + *pos, len - *pos, *pos, &p);
		if (n <= 0) { /* perf: skip one byte, the record ends here */
			d->counts->bad_bytes++;
			(*pos)++;
			if (finish(d, true, out))
				return 1;
			continue;
		}
		*pos += (size_t)n;
		if (p.type == SPE_PKT_PAD)
			continue;
		if (p.type == SPE_PKT_TIMESTAMP || p.type == SPE_PKT_END) {
			if (p.type == SPE_PKT_TIMESTAMP)
				d->cur.timestamp = p.payload;
			if (finish(d, false, out))
				return 1;
			continue;
		}
		if (p.type == SPE_PKT_OP_TYPE && p.index == 3) { /* reserved class: perf's "Get packet error" */
			d->counts->bad_ops++;
			d->open = true; /* perf samples the record even when nothing came before */
			if (finish(d, true, out))
				return 1;
			continue;
		}
		apply(&d->cur, &p);
		d->open = true;
	}
	return 0;
}
