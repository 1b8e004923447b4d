/*
 * perfetto_pb.h - a small protocol-buffers wire-format writer, enough for
 * Perfetto's trace format: varints, strings, fixed64/double, packed arrays
 * (caller-built varint runs) and nested messages: 4 bytes are kept for the
 * length when one opens, and when it closes its length is written as the
 * shortest varint and the content moved back over the bytes not needed (a
 * memmove of the message, far cheaper than sizing messages before writing
 * them; most of ours are under 128 bytes and take a one-byte length).
 * Internal to the trace writer (lib/pftrace/); docs/perfetto.md says why not
 * protobuf-c.
 *
 * A pb_buf grows as needed; an allocation failure sets `oom`, after which
 * writes are dropped and the caller reports the error once.
 */
#ifndef SCX_PERFETTO_PB_H
#define SCX_PERFETTO_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum pb_wire { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2 };

struct pb_buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

#define PB_NEST_LEN 4 /* bytes kept for a nested message's length */
#define PB_NEST_MAX ((1u << 28) - 1)

/* Make room for n more bytes; false (and oom set) on failure. */
bool pb_grow(struct pb_buf *b, size_t n);
void pb_free(struct pb_buf *b);

static inline bool pb_room(struct pb_buf *b, size_t n)
{
	return b->len + n <= b->cap || pb_grow(b, n);
}

static inline uint8_t *pb_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* A bare varint (an element of a packed array). */
static inline void pb_raw_varint(struct pb_buf *b, uint64_t v)
{
	if (pb_room(b, 10))
		b->len = (size_t)(pb_put_varint(b->p + b->len, v) - b->p);
}

static inline void pb_tag(struct pb_buf *b, uint32_t field, enum pb_wire w)
{
	pb_raw_varint(b, (uint64_t)field << 3 | w);
}

/* uint32/uint64/bool/enum; int32/int64 go through (uint64_t)(int64_t)v so
 * negative values take 10 bytes, as protobuf requires. */
static inline void pb_varint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	if (pb_room(b, 15)) {
		uint8_t *p = pb_put_varint(b->p + b->len, (uint64_t)field << 3 | PB_VARINT);

		b->len = (size_t)(pb_put_varint(p, v) - b->p);
	}
}

static inline void pb_int(struct pb_buf *b, uint32_t field, int64_t v)
{
	pb_varint(b, field, (uint64_t)v);
}

static inline void pb_bytes(struct pb_buf *b, uint32_t field, const void *s, size_t n)
{
	if (pb_room(b, n + 15)) {
		uint8_t *p = pb_put_varint(b->p + b->len, (uint64_t)field << 3 | PB_LEN);

		p = pb_put_varint(p, n);
		memcpy(p, s, n);
		b->len = (size_t)(p + n - b->p);
	}
}

static inline void pb_string(struct pb_buf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

static inline void pb_fixed64(struct pb_buf *b, uint32_t field, uint64_t v)
{
	if (pb_room(b, 15)) {
		uint8_t *p = pb_put_varint(b->p + b->len, (uint64_t)field << 3 | PB_I64);

		for (int i = 0; i < 8; i++)
			*p++ = (uint8_t)(v >> (8 * i));
		b->len = (size_t)(p - b->p);
	}
}

static inline void pb_double(struct pb_buf *b, uint32_t field, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	pb_fixed64(b, field, v);
}

/* Start a nested message (or a packed array): returns where its length
 * goes, for pb_close(). */
static inline size_t pb_open(struct pb_buf *b, uint32_t field)
{
	size_t at;

	pb_tag(b, field, PB_LEN);
	if (!pb_room(b, PB_NEST_LEN))
		return 0;
	at = b->len;
	b->len += PB_NEST_LEN;
	return at;
}

/* Write the length of the message opened at `at`; the buffer may shrink
 * (false when it is larger than a 4-byte varint holds: the caller keeps
 * messages far smaller). Messages opened inside it must be closed first. */
bool pb_close(struct pb_buf *b, size_t at);

/* Append another buffer's bytes as field `field` (a sub-message or a packed
 * array built separately). */
static inline void pb_embed(struct pb_buf *b, uint32_t field, const struct pb_buf *src)
{
	pb_bytes(b, field, src->p, src->len);
}

#endif
