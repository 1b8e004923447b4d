/*
 * direct_out.c - append-only writer with O_DIRECT where the file system
 * allows it, ordinary writes where not (contract: direct_out.h).
 */
#include "record/streams/direct_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Turn O_DIRECT on or off; d->direct follows only when fcntl succeeded. */
static int set_direct(struct direct_out *d, bool on)
{
	int fl = fcntl(d->fd, F_GETFL);

	if (fl < 0 || fcntl(d->fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) < 0)
		return -1;
	d->direct = on;
	return 0;
}

int direct_out_init(struct direct_out *d, int fd, size_t cap)
{
	void *p = NULL;

	memset(d, 0, sizeof(*d));
	d->fd = fd;
	d->cap = (cap + DIRECT_OUT_ALIGN - 1) / DIRECT_OUT_ALIGN * DIRECT_OUT_ALIGN;
	if (!d->cap)
		d->cap = DIRECT_OUT_ALIGN;
	if (posix_memalign(&p, DIRECT_OUT_ALIGN, d->cap)) {
		errno = ENOMEM;
		return -1;
	}
	d->buf = p;
	(void)set_direct(d, true); /* refused: ordinary writes */
	return 0;
}

/* write(2) all of n bytes; with O_DIRECT, n is whole blocks */
static void write_all(struct direct_out *d, const unsigned char *p, size_t n)
{
	while (n && !d->err) {
		ssize_t w = write(d->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EINVAL && d->direct) {
			/* the file system refuses O_DIRECT (or this alignment) */
			if (set_direct(d, false) < 0)
				d->err = EINVAL;
			continue;
		}
		if (w <= 0) {
			d->err = w < 0 ? errno : EIO;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

void direct_out_sync(struct direct_out *d)
{
	size_t whole = d->len / DIRECT_OUT_ALIGN * DIRECT_OUT_ALIGN;

	if (!whole || d->err)
		return;
	write_all(d, d->buf, whole);
	memmove(d->buf, d->buf + whole, d->len - whole);
	d->len -= whole;
}

void direct_out_put(struct direct_out *d, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n && !d->err) {
		size_t k = d->cap - d->len < n ? d->cap - d->len : n;

		memcpy(d->buf + d->len, c, k);
		d->len += k;
		c += k;
		n -= k;
		if (d->len == d->cap)
			direct_out_sync(d);
	}
}

int direct_out_finish(struct direct_out *d)
{
	direct_out_sync(d);
	if (d->len && !d->err) {
		if (d->direct && set_direct(d, false) < 0)
			d->err = errno ? errno : EINVAL;
		else
			write_all(d, d->buf, d->len);
		d->len = 0;
	}
	return d->err ? -1 : 0;
}

void direct_out_free(struct direct_out *d)
{
	free(d->buf);
	d->buf = NULL;
}
