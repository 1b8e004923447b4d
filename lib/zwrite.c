/*
 * zwrite.c - the zstd-compressing FILE of zwrite.h, a fopencookie() stream
 * over ZSTD_compressStream2().
 */
#include "zwrite.h"

#include <errno.h>
#include <stdlib.h>

#include <zstd.h>
#include <zstd_errors.h>

struct zwrite {
	FILE *dst;
	ZSTD_CCtx *cctx;
	char *out;
	size_t out_cap;
};

/* Compress in (all of it) with directive d, writing what comes out to dst.
 * 0, or -1 with errno. */
static int pump(struct zwrite *z, const char *buf, size_t size, ZSTD_EndDirective d)
{
	ZSTD_inBuffer in = {buf, size, 0};

	for (;;) {
		ZSTD_outBuffer out = {z->out, z->out_cap, 0};
		size_t left = ZSTD_compressStream2(z->cctx, &out, &in, d);

		if (ZSTD_isError(left)) {
			errno = ZSTD_getErrorCode(left) == ZSTD_error_memory_allocation ? ENOMEM : EIO;
			return -1;
		}
		if (out.pos && fwrite(z->out, 1, out.pos, z->dst) != out.pos) {
			if (!errno)
				errno = EIO;
			return -1;
		}
		if (d == ZSTD_e_continue ? in.pos == in.size : left == 0)
			return 0;
	}
}

static ssize_t zw_write(void *cookie, const char *buf, size_t size)
{
	return pump(cookie, buf, size, ZSTD_e_continue) < 0 ? -1 : (ssize_t)size;
}

static void zw_free(struct zwrite *z)
{
	ZSTD_freeCCtx(z->cctx);
	free(z->out);
	free(z);
}

static int zw_close(void *cookie)
{
	struct zwrite *z = cookie;
	int rc = pump(z, NULL, 0, ZSTD_e_end), err = errno;

	if (fclose(z->dst) != 0 && !rc)
		rc = -1, err = errno;
	zw_free(z);
	errno = err;
	return rc;
}

FILE *zwrite_open(FILE *dst, int level)
{
	static const cookie_io_functions_t io = {.write = zw_write, .close = zw_close};
	struct zwrite *z = calloc(1, sizeof(*z));
	FILE *f;

	if (!z)
		return NULL;
	z->dst = dst;
	z->out_cap = ZSTD_CStreamOutSize();
	if (!(z->cctx = ZSTD_createCCtx()) || !(z->out = malloc(z->out_cap)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_checksumFlag, 1)) ||
	    !(f = fopencookie(z, "w", io))) {
		zw_free(z);
		errno = ENOMEM;
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1u << 20);
	return f;
}
