/*
 * bgwrite.h - writes finished output buffers on a second thread, so that
 * formatting the next buffer and write(2) of the previous one overlap.
 *
 *   struct bgwriter bw;
 *   bgwriter_start(&bw, file, "perf.jsonl");
 *   ... fill a jsonw; when it is large: bgwriter_submit(&bw, &w);
 *   bgwriter_finish(&bw);   // waits, reports the first write error
 *
 * The FILE is flushed at start and then written with write(2) on its fd
 * (or, a FILE without one such as lib/zwrite.h's, with fwrite on the
 * thread: compression runs there too): do not use the FILE for writing
 * until bgwriter_finish().
 * submit hands w's buffer to the thread and gives w an empty one back
 * (the buffers are swapped, never copied). One buffer is in flight at a
 * time; submit waits for the previous write first.
 */
#ifndef SCX_BGWRITE_H
#define SCX_BGWRITE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/jsonw.h"

struct bgwriter {
	FILE *f;            /* flushed at start, then written through its fd (-1: fwrite) */
	int fd;
	char what[64];
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started, busy, stopping;
	char *buf;          /* in flight (busy) or spare */
	size_t len, cap;
	int err;            /* errno of the first failed write, 0 if none */
};

int bgwriter_start(struct bgwriter *bw, FILE *f, const char *what);
/* -1 (scx_fail naming what) if an earlier write failed or memory ran out. */
int bgwriter_submit(struct bgwriter *bw, struct jsonw *w);
/* Wait for the last write, stop the thread. -1 on any write error. Safe to
 * call on a writer that was never started or is already finished. */
int bgwriter_finish(struct bgwriter *bw);

#endif
