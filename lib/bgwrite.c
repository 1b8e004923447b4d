/*
 * bgwrite.c - the background output writer declared in bgwrite.h.
 */
#include "bgwrite.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/fsutil.h"

/* A FILE without a descriptor (a compressing one, lib/zwrite.h): fwrite. */
static int write_stdio(FILE *f, const char *p, size_t len)
{
	errno = 0;
	if (fwrite(p, 1, len, f) == len)
		return 0;
	return errno ? errno : EIO;
}

/* Wake the other side to the change just made, and let go of the lock */
static void wake_unlock(struct bgwriter *bw)
{
	pthread_cond_broadcast(&bw->cond);
	pthread_mutex_unlock(&bw->lock);
}

static void *writer_main(void *arg)
{
	struct bgwriter *bw = arg;

	pthread_mutex_lock(&bw->lock);
	for (;;) {
		while (!bw->busy && !bw->stopping)
			pthread_cond_wait(&bw->cond, &bw->lock);
		if (!bw->busy && bw->stopping)
			break;
		pthread_mutex_unlock(&bw->lock);
		/* with a descriptor, write(2) the whole buffer: stdio would copy it once more */
		int err = bw->fd >= 0 ? (fs_write_all(bw->fd, bw->buf, bw->len) < 0 ? errno : 0)
				     : write_stdio(bw->f, bw->buf, bw->len);
		pthread_mutex_lock(&bw->lock);
		if (err && !bw->err)
			bw->err = err;
		bw->busy = false;
		pthread_cond_broadcast(&bw->cond);
	}
	pthread_mutex_unlock(&bw->lock);
	return NULL;
}

int bgwriter_start(struct bgwriter *bw, FILE *f, const char *what)
{
	memset(bw, 0, sizeof(*bw));
	bw->f = f;
	/* whatever stdio holds goes first; from here on the fd is written directly */
	if (fflush(f) != 0)
		return scx_fail_errno("%s: write failed", what);
	bw->fd = fileno(f);
	snprintf(bw->what, sizeof(bw->what), "%s", what);
	pthread_mutex_init(&bw->lock, NULL);
	pthread_cond_init(&bw->cond, NULL);
	if (pthread_create(&bw->thread, NULL, writer_main, bw) != 0) {
		pthread_mutex_destroy(&bw->lock);
		pthread_cond_destroy(&bw->cond);
		return scx_fail("%s: cannot start the writer thread", what);
	}
	bw->started = true;
	return 0;
}

/* Wait until nothing is in flight; the lock is held on return. */
static void wait_idle(struct bgwriter *bw)
{
	pthread_mutex_lock(&bw->lock);
	while (bw->busy)
		pthread_cond_wait(&bw->cond, &bw->lock);
}

int bgwriter_submit(struct bgwriter *bw, struct jsonw *w)
{
	char *tmp;
	size_t cap;

	if (w->oom)
		return scx_fail("%s: out of memory while formatting", bw->what);
	if (!w->len)
		return 0;
	wait_idle(bw);
	if (bw->err) {
		errno = bw->err;
		pthread_mutex_unlock(&bw->lock);
		return scx_fail_errno("%s: write failed", bw->what);
	}
	/* swap: the thread gets w's full buffer, w gets the spare one */
	tmp = bw->buf, cap = bw->cap;
	bw->buf = w->buf, bw->cap = w->cap, bw->len = w->len;
	w->buf = tmp, w->cap = cap, w->len = 0;
	bw->busy = true;
	wake_unlock(bw);
	return 0;
}

int bgwriter_finish(struct bgwriter *bw)
{
	int err;

	if (!bw->started)
		return 0;
	wait_idle(bw);
	bw->stopping = true;
	wake_unlock(bw);
	pthread_join(bw->thread, NULL);
	pthread_mutex_destroy(&bw->lock);
	pthread_cond_destroy(&bw->cond);
	free(bw->buf);
	bw->buf = NULL;
	bw->started = false;
	err = bw->err;
	if (err) {
		errno = err;
		return scx_fail_errno("%s: write failed", bw->what);
	}
	return 0;
}
