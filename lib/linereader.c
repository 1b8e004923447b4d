/*
 * linereader.c - bounded line reader (see linereader.h). One buffer that
 * grows by doubling up to the longest accepted line; lines are found with
 * memchr() and handed out in place, their '\n' replaced by a NUL.
 */
#include "linereader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#define FIRST_CAP (64u << 10)

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

/* Read more bytes into the buffer; sets r->eof at the end of the input. */
static int fill(struct line_reader *r)
{
	for (;;) {
		size_t n;

		if (r->end + 1 >= r->cap && make_room(r) < 0)
			return -1;
		errno = 0;
		n = fread(r->buf + r->end, 1, r->cap - 1 - r->end, r->f);
		r->end += n;
		if (!ferror(r->f)) {
			if (n == 0 && feof(r->f))
				r->eof = true;
			return 0;
		}
		if (errno != EINTR)
			return scx_fail_errno("%s: read error", r->path);
		if (!r->stop || *r->stop)
			return scx_fail("interrupted");
		clearerr(r->f); /* a signal we do not stop for: read on */
		if (n)
			return 0;
	}
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
