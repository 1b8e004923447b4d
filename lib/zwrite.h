/*
 * zwrite.h - a FILE* that zstd-compresses what is written to it into
 * another FILE, streaming (one frame, with a content checksum, as the zstd
 * tool writes): for process's perf.jsonl.zst and sched.jsonl.zst.
 *
 *   FILE *z = zwrite_open(dst, 1);   // dst is now owned by z
 *   fwrite(..., z); ...
 *   if (fclose(z) != 0) ...          // ends the frame, closes dst; errno says why
 *
 * The FILE has no file descriptor (fileno() is -1). A failed compression
 * fails the write with EIO, a failed allocation with ENOMEM.
 */
#ifndef SCX_ZWRITE_H
#define SCX_ZWRITE_H

#include <stdio.h>

/* Levels as the zstd tool's (1 fastest of the usual ones, up to 19). */
#define ZWRITE_LEVEL_DEFAULT 1

/* NULL (errno set; dst left open) when memory runs out. */
FILE *zwrite_open(FILE *dst, int level);

#endif
