/*
 * sched_cells_async.c - sched JSONL read beside perf.jsonl (see
 * extract_sched.h). The thread's error message is copied out, since
 * scx_fail's buffer is per thread.
 */
#include "extract/sched/extract_sched.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "extract/sched/sched_events.h"
#include "lib/error.h"

struct sched_cells_async {
	struct sched_cells *m;
	const char *path;
	pthread_t thread;
	atomic_int cancel;
	int rc;
	char err[1024];
};

static int read_all(struct sched_cells_async *t)
{
	struct sched_reader *r;
	struct sched_event ev;
	FILE *f;
	int n = 0;

	if (sched_cells_begin_early(t->m, t->path) < 0)
		return -1;
	if (!(f = fopen(t->path, "r")))
		return scx_fail_errno("%s: cannot open", t->path);
	if (!(r = sched_events_open(f, t->path))) {
		fclose(f);
		return -1;
	}
	while (!atomic_load_explicit(&t->cancel, memory_order_relaxed) && (n = sched_events_next(r, &ev)) > 0)
		if (sched_cells_event(t->m, &ev) < 0) {
			n = -1;
			break;
		}
	sched_events_close(r);
	fclose(f);
	if (atomic_load(&t->cancel))
		return scx_fail("%s: cancelled", t->path);
	return n < 0 ? -1 : 0;
}

static void *reader_main(void *arg)
{
	struct sched_cells_async *t = arg;

	if ((t->rc = read_all(t)) < 0)
		snprintf(t->err, sizeof(t->err), "%s", scx_errmsg());
	return NULL;
}

struct sched_cells_async *sched_cells_async_start(struct sched_cells *m, const char *path)
{
	struct sched_cells_async *t = calloc(1, sizeof(*t));
	int e;

	if (!t) {
		scx_fail("out of memory");
		return NULL;
	}
	t->m = m;
	t->path = path;
	atomic_init(&t->cancel, 0);
	if ((e = pthread_create(&t->thread, NULL, reader_main, t)) != 0) {
		free(t);
		scx_fail("cannot start a thread for %s (error %d)", path, e);
		return NULL;
	}
	return t;
}

int sched_cells_async_finish(struct sched_cells_async *t, const struct mem_agg *a)
{
	struct sched_cells *m = t->m;
	int rc;

	pthread_join(t->thread, NULL);
	rc = t->rc;
	if (rc < 0)
		scx_fail("%s", t->err);
	free(t);
	if (rc == 0 && (sched_cells_filter(m, a) < 0 || sched_cells_end(m) < 0))
		rc = -1;
	return rc;
}

void sched_cells_async_cancel(struct sched_cells_async *t)
{
	atomic_store(&t->cancel, 1);
	pthread_join(t->thread, NULL);
	free(t);
}
