/*
 * perfetto_pb.c - growth and back-patching of the wire-format writer (see
 * perfetto_pb.h; the hot writes are inline there).
 */
#include "lib/pftrace/perfetto_pb.h"

#include <stdlib.h>

bool pb_grow(struct pb_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *p;

	if (b->oom)
		return false;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void pb_free(struct pb_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

bool pb_close(struct pb_buf *b, size_t at)
{
	uint8_t len[PB_NEST_LEN], *end;
	size_t n, k;

	if (b->oom)
		return false;
	n = b->len - at - PB_NEST_LEN;
	if (n > PB_NEST_MAX) {
		b->oom = true;
		return false;
	}
	/* the shortest varint; the content moves back over the bytes saved */
	end = pb_put_varint(len, n);
	k = (size_t)(end - len);
	if (k < PB_NEST_LEN) {
		memmove(b->p + at + k, b->p + at + PB_NEST_LEN, n);
		b->len -= PB_NEST_LEN - k;
	}
	memcpy(b->p + at, len, k);
	return true;
}
