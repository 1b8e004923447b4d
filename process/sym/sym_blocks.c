/*
 * sym_blocks.c - a file read ahead on a second thread into a small ring of
 * blocks that its one consumer takes in order (sym_kallsyms.c). /proc/kallsyms
 * costs the kernel ~30 ms of formatting for 5.4 MB handed out 4 KiB a read();
 * with the reading on its own thread, parsing overlaps it instead of
 * following it, and a process waiting for the kernel's symbols waits for the
 * longer of the two, not their sum. Without a thread (pthread_create
 * failed) the consumer reads each block itself.
 */
#include "process/sym/sym_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define BLOCK (64u << 10)
#define NBLOCKS 4u

struct sym_blocks {
	int fd;
	pthread_t thread;
	bool threaded;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* produced, consumed, stop changed */
	uint64_t produced, consumed;
	bool held;           /* the consumer holds block consumed % NBLOCKS */
	bool done, stop;     /* done: the block produced last was the file's end */
	int err;             /* errno of a failed read, 0 */
	size_t len[NBLOCKS];
	char *data;          /* NBLOCKS * BLOCK */
};

/* Fill one block (up to BLOCK bytes: /proc gives a page a call). */
static size_t fill(struct sym_blocks *b, char *p, int *err, bool *eof)
{
	size_t len = 0;

	while (len < BLOCK) {
		ssize_t n = read(b->fd, p + len, BLOCK - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = errno;
			break;
		}
		if (n == 0) {
			*eof = true;
			break;
		}
		len += (size_t)n;
	}
	return len;
}

static void *reader_main(void *arg)
{
	struct sym_blocks *b = arg;

	pthread_mutex_lock(&b->lock);
	while (!b->done) {
		uint64_t slot;
		size_t len;
		bool eof = false;
		int err = 0;

		while (!b->stop && b->produced - b->consumed == NBLOCKS)
			pthread_cond_wait(&b->cond, &b->lock);
		if (b->stop)
			break;
		slot = b->produced % NBLOCKS;
		pthread_mutex_unlock(&b->lock);
		len = fill(b, b->data + slot * BLOCK, &err, &eof);
		pthread_mutex_lock(&b->lock);
		b->len[slot] = len;
		b->produced++;
		b->err = err;
		b->done = eof || err;
		pthread_cond_broadcast(&b->cond);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

struct sym_blocks *sym_blocks_open(int fd)
{
	struct sym_blocks *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	if (!(b->data = malloc((size_t)NBLOCKS * BLOCK))) {
		free(b);
		return NULL;
	}
	b->fd = fd;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
	b->threaded = pthread_create(&b->thread, NULL, reader_main, b) == 0;
	return b;
}

int sym_blocks_next(struct sym_blocks *b, const char **p, size_t *len)
{
	uint64_t slot;

	if (!b->threaded) {
		bool eof = false;
		int err = 0;

		if (b->done)
			return 0;
		*len = fill(b, b->data, &err, &eof);
		*p = b->data;
		b->done = eof || err;
		if (err) {
			errno = err;
			return -1;
		}
		return *len || !eof ? 1 : 0;
	}
	pthread_mutex_lock(&b->lock);
	if (b->held) {
		b->held = false;
		b->consumed++;
		pthread_cond_broadcast(&b->cond);
	}
	while (b->produced == b->consumed && !b->done)
		pthread_cond_wait(&b->cond, &b->lock);
	if (b->produced == b->consumed) { /* done, every block taken */
		int err = b->err;

		pthread_mutex_unlock(&b->lock);
		if (err) {
			errno = err;
			return -1;
		}
		return 0;
	}
	slot = b->consumed % NBLOCKS;
	b->held = true;
	*p = b->data + slot * BLOCK;
	*len = b->len[slot];
	pthread_mutex_unlock(&b->lock);
	return 1;
}

void sym_blocks_close(struct sym_blocks *b)
{
	if (!b)
		return;
	if (b->threaded) {
		pthread_mutex_lock(&b->lock);
		b->stop = true;
		pthread_cond_broadcast(&b->cond);
		pthread_mutex_unlock(&b->lock);
		pthread_join(b->thread, NULL);
	}
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->cond);
	free(b->data);
	free(b);
}
