/*
 * direct_out.h - an append-only file writer that bypasses the page cache
 * (O_DIRECT) where the file system allows it, for record's high-rate streams.
 *
 * Why: the scheduling stream writes tens of MB/s during a context-switch
 * storm; through the page cache every byte is copied once more, dirtied and
 * later written back by kernel threads, all on the CPUs of the host being
 * measured. With O_DIRECT the data goes from our buffer to the device.
 * Writes are whole DIRECT_OUT_ALIGN blocks at aligned offsets from an
 * aligned buffer; the tail (< one block) is written with O_DIRECT cleared at
 * finish. Where O_DIRECT is refused (tmpfs, some FUSE or network file
 * systems: EINVAL at fcntl or at the first write) it falls back to ordinary
 * writes, so callers never see the difference.
 *
 * Usage: direct_out_init(&d, fd, cap); direct_out_put(...)...;
 * direct_out_sync(&d) (write whole blocks now); direct_out_finish(&d);
 * direct_out_free(&d). d.err holds the first errno.
 */
#ifndef SCX_RECORD_DIRECT_OUT_H
#define SCX_RECORD_DIRECT_OUT_H

#include <stdbool.h>
#include <stddef.h>

#define DIRECT_OUT_ALIGN 4096

struct direct_out {
	int fd;
	bool direct;        /* O_DIRECT is on */
	unsigned char *buf; /* DIRECT_OUT_ALIGN aligned */
	size_t len, cap;    /* cap: a multiple of DIRECT_OUT_ALIGN */
	int err;            /* first write error (errno), 0 if none */
};

/* fd: open for writing, positioned at offset 0 of an empty file (nothing
 * written through any other handle). cap: buffer size, rounded up to whole
 * blocks. -1 (errno ENOMEM) when the buffer cannot be allocated. */
int direct_out_init(struct direct_out *d, int fd, size_t cap);
/* Append n bytes; writes whole blocks as the buffer fills. */
void direct_out_put(struct direct_out *d, const void *p, size_t n);
/* Write the buffer's whole blocks now (keeps the partial last one). */
void direct_out_sync(struct direct_out *d);
/* Write everything, the tail without O_DIRECT. 0, or -1 with d->err. */
int direct_out_finish(struct direct_out *d);
void direct_out_free(struct direct_out *d);

#endif
