/*
 * linereader.h - the one way library code reads text input line by line.
 *
 * getline() grows its buffer without limit (an endless line, /dev/zero, eats
 * all memory) and returns -1 both at the end of the file and when it cannot
 * allocate, so a failed allocation passes for a short, valid input. This
 * reader bounds a line's length and tells the three endings apart:
 *
 *   struct line_reader r;
 *   char *line; size_t len; int rc;
 *   line_reader_init(&r, f, path);
 *   while ((rc = line_reader_next(&r, &line, &len)) > 0)
 *       ... line[0..len) without its '\n', NUL-terminated, writable ...
 *   line_reader_free(&r);
 *   rc: 0 at the end of the input, -1 on error with scx_fail() set:
 *       "PATH:LINE: line longer than N bytes", "PATH:LINE: out of memory",
 *       "PATH: read error: ..." or "interrupted" (see stop).
 *
 * A last line without a newline is returned like the others. A line stays
 * valid until the next call. The FILE is read with fread() only, so a
 * caller may have read (or ungetc'd) from it before.
 *
 * Input that starts with zstd's magic bytes (28 b5 2f fd), whatever its
 * name, is decompressed on the fly (one or more frames, as `zstd` writes
 * them) and its lines handed out as above, with the same limits. Corrupt
 * or truncated compressed input fails: "PATH: corrupt zstd data (...)",
 * "PATH: truncated zstd data (the input ends inside a frame)".
 */
#ifndef SCX_LINEREADER_H
#define SCX_LINEREADER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Longest line accepted by default, in bytes, without the newline. */
#define LINE_READER_MAX (1u << 20)

struct line_reader {
	FILE *f;
	const char *path;      /* for messages */
	size_t max;            /* longest line accepted (LINE_READER_MAX after init) */
	volatile sig_atomic_t *stop; /* a read a signal interrupts fails "interrupted" when stop is
				      * NULL or *stop is set; otherwise it goes on */
	uint64_t lineno;       /* of the line last returned */
	char *buf;
	size_t cap, start, end, scanned; /* unread bytes: buf[start..end); no '\n' in buf[start..scanned) */
	bool eof;
	bool started;          /* the first bytes were looked at (zstd or not) */
	struct line_reader_zstd *z; /* zstd input: its state, else NULL */
};

void line_reader_init(struct line_reader *r, FILE *f, const char *path);

/* 1: *line, *len hold the next line; 0: end of input; -1: error (see above). */
int line_reader_next(struct line_reader *r, char **line, size_t *len);

void line_reader_free(struct line_reader *r);

/*
 * For unit tests only: the next `after` buffer allocations of any line
 * reader succeed, the ones after fail as if memory were exhausted. A
 * negative value (the default) never fails.
 */
void line_reader_fail_allocs_after(long after);

#endif
