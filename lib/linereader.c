/*
 * linereader.c - bounded line reader (see linereader.h). One buffer that
 * grows by doubling up to the longest accepted line; lines are found with
 * memchr() and handed out in place, their '\n' replaced by a NUL. Input
 * that starts with zstd's magic is decompressed into that buffer
 * (streaming, a compressed-input buffer of ZSTD_DStreamInSize()).
 */
#include "linereader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#include <zstd.h>

#define FIRST_CAP (64u << 10)
#define ZSTD_MAGIC "\x28\xb5\x2f\xfd"

struct line_reader_zstd {
	ZSTD_DCtx *dctx;
	char *in;              /* compressed bytes in[pos..len) not yet decompressed */
	size_t cap, pos, len;
	bool raw_eof;          /* the FILE is at its end */
	size_t last;           /* ZSTD_decompressStream()'s last return: 0 at a frame's end */
};

static long allocs_left = -1;

void line_reader_fail_allocs_after(long after)
{
	allocs_left = after;
}

void line_reader_init(struct line_reader *r, FILE *f, const char *path)
{
	memset(r, 0, sizeof(*r));
	r->f = f;
	r->path = path;
	r->max = LINE_READER_MAX;
}

void line_reader_free(struct line_reader *r)
{
	if (r->z) {
		ZSTD_freeDCtx(r->z->dctx);
		free(r->z->in);
		free(r->z);
		r->z = NULL;
	}
	free(r->buf);
	r->buf = NULL;
	r->cap = r->start = r->end = r->scanned = 0;
}

/* Room for more bytes after r->end: move the unread bytes to the front, or
 * grow (never past max + 2: the longest line, its '\n' and a spare byte). */
static int make_room(struct line_reader *r)
{
	size_t want, limit = r->max + 2;
	char *nb;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->scanned -= r->start;
		r->start = 0;
		if (r->end + 1 < r->cap)
			return 0;
	}
	want = r->cap ? r->cap * 2 : (FIRST_CAP < limit ? FIRST_CAP : limit);
	if (want > limit)
		want = limit;
	if (allocs_left == 0 || !(nb = realloc(r->buf, want)))
		return scx_fail("%s:%llu: out of memory (a buffer of %zu bytes for the line)", r->path,
				(unsigned long long)r->lineno + 1, want);
	if (allocs_left > 0)
		allocs_left--;
	r->buf = nb;
	r->cap = want;
	return 0;
}

/* fread() up to cap bytes: *n of them, *eof at the end of the input. A
 * signal we do not stop for is read past. */
static int read_raw(struct line_reader *r, char *dst, size_t cap, size_t *n, bool *eof)
{
	for (;;) {
		errno = 0;
		*n = fread(dst, 1, cap, r->f);
		if (!ferror(r->f)) {
			if (*n == 0 && feof(r->f))
				*eof = true;
			return 0;
		}
		if (errno != EINTR)
			return scx_fail_errno("%s: read error", r->path);
		if (!r->stop || *r->stop)
			return scx_fail("interrupted");
		clearerr(r->f); /* a signal we do not stop for: read on */
		if (*n)
			return 0;
	}
}

static int fill_plain(struct line_reader *r)
{
	size_t n;
	bool eof = false;

	if (read_raw(r, r->buf + r->end, r->cap - 1 - r->end, &n, &eof) < 0)
		return -1;
	r->end += n;
	r->eof = eof;
	return 0;
}

/* Decompress more of the input into the buffer (at least a byte unless at
 * the end). */
static int fill_zstd(struct line_reader *r)
{
	struct line_reader_zstd *z = r->z;

	for (;;) {
		ZSTD_outBuffer out = {r->buf + r->end, r->cap - 1 - r->end, 0};
		ZSTD_inBuffer in;
		size_t ret;

		if (z->pos == z->len && !z->raw_eof) {
			if (read_raw(r, z->in, z->cap, &z->len, &z->raw_eof) < 0)
				return -1;
			z->pos = 0;
			continue;
		}
		if (z->pos == z->len && z->last == 0) {
			r->eof = true; /* every frame ended where the input did */
			return 0;
		}
		in = (ZSTD_inBuffer){z->in, z->len, z->pos};
		ret = ZSTD_decompressStream(z->dctx, &out, &in);
		z->pos = in.pos;
		if (ZSTD_isError(ret))
			return scx_fail("%s: corrupt zstd data (%s)", r->path, ZSTD_getErrorName(ret));
		z->last = ret;
		r->end += out.pos;
		if (out.pos)
			return 0;
		if (z->pos == z->len && z->raw_eof && ret != 0)
			return scx_fail("%s: truncated zstd data (the input ends inside a frame)", r->path);
	}
}

/* The first bytes of the input: zstd's magic switches to decompressing. */
static int start(struct line_reader *r)
{
	struct line_reader_zstd *z;

	while (r->end < 4 && !r->eof && r->end + 1 < r->cap)
		if (fill_plain(r) < 0)
			return -1;
	r->started = true;
	if (r->end < 4 || memcmp(r->buf, ZSTD_MAGIC, 4) != 0)
		return 0;
	if (!(z = calloc(1, sizeof(*z))) || !(z->dctx = ZSTD_createDCtx()) ||
	    !(z->in = malloc(z->cap = ZSTD_DStreamInSize() > r->end ? ZSTD_DStreamInSize() : r->end))) {
		if (z)
			ZSTD_freeDCtx(z->dctx);
		free(z);
		return scx_fail("%s: out of memory (zstd decompression)", r->path);
	}
	memcpy(z->in, r->buf, r->end);
	z->len = r->end;
	z->raw_eof = r->eof;
	z->last = 1; /* inside a frame until one ends */
	r->z = z;
	r->start = r->end = r->scanned = 0;
	r->eof = false;
	return fill_zstd(r);
}

/* Read more bytes into the buffer; sets r->eof at the end of the input. */
static int fill(struct line_reader *r)
{
	if (r->end + 1 >= r->cap && make_room(r) < 0)
		return -1;
	if (!r->started)
		return start(r);
	return r->z ? fill_zstd(r) : fill_plain(r);
}

/* The line buf[start..end_of_line); end_of_line is its '\n' or, at the end
 * of the input, r->end (the spare byte takes the NUL). */
static int hand_out(struct line_reader *r, size_t end_of_line, char **line, size_t *len)
{
	*line = r->buf + r->start;
	*len = end_of_line - r->start;
	r->buf[end_of_line] = '\0';
	r->lineno++;
	r->start = r->scanned = end_of_line < r->end ? end_of_line + 1 : r->end;
	return 1;
}

int line_reader_next(struct line_reader *r, char **line, size_t *len)
{
	for (;;) {
		char *nl = NULL;

		if (r->scanned < r->end)
			nl = memchr(r->buf + r->scanned, '\n', r->end - r->scanned);
		if (nl)
			return hand_out(r, (size_t)(nl - r->buf), line, len);
		r->scanned = r->end;
		if (r->end - r->start > r->max)
			return scx_fail("%s:%llu: line longer than %zu bytes", r->path,
					(unsigned long long)r->lineno + 1, r->max);
		if (r->eof) {
			if (r->start == r->end)
				return 0;
			return hand_out(r, r->end, line, len);
		}
		if (fill(r) < 0)
			return -1;
	}
}
