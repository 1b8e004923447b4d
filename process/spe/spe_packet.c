/*
 * spe_packet.c - one Arm SPE packet from bytes (spe.h). The header formats are
 * the Arm ARM's (DDI 0487, D10.2): a one-byte short header, or a two-byte
 * extended header (0b001000hh prefix) for address and counter indexes above
 * 7 and for alignment padding. The payload size of every sized packet is
 * 1 << header bits 5:4 (of the last header byte), little-endian.
 */
#include "process/spe/spe.h"

#include <string.h>

static uint64_t le_bytes(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* A sized packet: hdr_len header bytes, then 1 << bits 5:4 of the last. */
static int sized(const uint8_t *buf, size_t len, size_t hdr_len, uint8_t type, uint8_t index,
		 struct spe_packet *p)
{
	size_t n = (size_t)1 << ((buf[hdr_len - 1] >> 4) & 3);

	if (len < hdr_len + n)
		return 0;
	p->type = type;
	p->index = index;
	p->payload = le_bytes(buf + hdr_len, n);
	return (int)(hdr_len + n);
}

int spe_packet_decode(const uint8_t *buf, size_t len, size_t pos, struct spe_packet *p)
{
	uint8_t h;
	size_t hdr_len = 1;
	uint8_t hi = 0;

	memset(p, 0, sizeof(*p));
	if (len == 0)
		return 0;
	h = buf[0];
	if (h == 0x00) {
		p->type = SPE_PKT_PAD;
		return 1;
	}
	if (h == 0x01) {
		p->type = SPE_PKT_END;
		return 1;
	}
	if (h == 0x71) /* 0b01110001 */
		return sized(buf, len, 1, SPE_PKT_TIMESTAMP, 0, p);
	if ((h & 0xcf) == 0x42) /* 0b01ss0010 */
		return sized(buf, len, 1, SPE_PKT_EVENTS, 0, p);
	if ((h & 0xcf) == 0x43) /* 0b01ss0011 */
		return sized(buf, len, 1, SPE_PKT_DATA_SOURCE, 0, p);
	if ((h & 0xfc) == 0x64) /* 0b011001ii (ss 0b10) */
		return sized(buf, len, 1, SPE_PKT_CONTEXT, h & 3, p);
	if ((h & 0xfc) == 0x48) /* 0b010010cc: ss 0b00 */
		return sized(buf, len, 1, SPE_PKT_OP_TYPE, h & 3, p);
	if ((h & 0xfc) == 0x20) { /* extended header 0b001000hh */
		if (len < 2)
			return -1; /* perf calls a lone prefix byte bad, not short */
		hi = (uint8_t)((h & 3) << 3);
		hdr_len = 2;
		h = buf[1];
		if (h == 0x00) { /* alignment: pad to 1 << (hh + 1) bytes */
			size_t align = (size_t)1 << ((buf[0] & 0xf) + 1);

			if (len < align)
				return 0;
			p->type = SPE_PKT_PAD;
			return (int)(align - (pos & (align - 1)));
		}
	}
	if ((h & 0xf8) == 0xb0) /* 0b10110iii */
		return sized(buf, len, hdr_len, SPE_PKT_ADDRESS, (uint8_t)(hi | (h & 7)), p);
	if ((h & 0xf8) == 0x98) /* 0b10011iii */
		return sized(buf, len, hdr_len, SPE_PKT_COUNTER, (uint8_t)(hi | (h & 7)), p);
	return -1;
}
