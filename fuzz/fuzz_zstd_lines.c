/*
 * fuzz_zstd_lines.c - libFuzzer target for the line reader's zstd input
 * (lib/linereader.c): hostile compressed files.
 *
 * The first byte picks how the rest becomes the file:
 *   even: the bytes as they are (zstd's magic prepended when they lack it);
 *   odd:  the bytes compressed (level 1, checksum on), then cut at the
 *         offset in the second byte or one byte of it flipped (third byte).
 * Invariants, besides no crash:
 *  - an independent decode (ZSTD_decompressStream over the whole file into
 *    memory, up to 8 MiB) that succeeds and ends on a frame boundary: the
 *    reader succeeds, unless a line is longer than the bound, and its
 *    lines joined with '\n' are exactly that decoded text (the last line's
 *    newline aside);
 *  - a decode that fails or stops inside a frame: the reader fails;
 *  - every failure message starts with the file's path.
 * The reader runs with a 4 KiB line bound so that long lines are reached.
 * Seeds: fuzz/corpus/zstd_lines/.
 */
#include "fuzz/fuzz_util.h"
#include "lib/error.h"
#include "lib/linereader.h"

#include <zstd.h>

#define REF_MAX (8u << 20)
#define LINE_MAX_FUZZ 4096

static struct fuzz_file file;
static uint8_t *ref, *got, *scratch;

/* Decode data as zstd frames: 1 complete, 0 stops inside a frame or too
 * big to compare, -1 corrupt. */
static int reference(const uint8_t *data, size_t size, size_t *len)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	ZSTD_inBuffer in = {data, size, 0};
	size_t last = 1;
	int rc = 1;

	*len = 0;
	while (in.pos < in.size || last != 0) {
		ZSTD_outBuffer out = {ref + *len, REF_MAX - *len, 0};
		size_t before = in.pos;

		last = ZSTD_decompressStream(d, &out, &in);
		if (ZSTD_isError(last)) {
			rc = -1;
			break;
		}
		*len += out.pos;
		if (*len == REF_MAX) {
			rc = 0;
			break;
		}
		if (in.pos == before && out.pos == 0) {
			rc = last == 0 ? 1 : 0; /* input used up inside a frame */
			break;
		}
	}
	ZSTD_freeDCtx(d);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct line_reader r;
	char *line;
	size_t len, file_len, ref_len, got_len = 0;
	const uint8_t *content;
	int want, rc;
	FILE *f;

	if (!ref) {
		ref = malloc(REF_MAX);
		got = malloc(REF_MAX + LINE_MAX_FUZZ + 2);
		scratch = malloc(ZSTD_compressBound(1u << 16) + 4);
		fuzz_file_init(&file, "input.zst");
		if (!ref || !got || !scratch)
			abort();
	}
	if (size < 3 || size > (1u << 16))
		return 0;
	if (data[0] & 1) {
		ZSTD_CCtx *c = ZSTD_createCCtx();

		ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
		file_len = ZSTD_compress2(c, scratch, ZSTD_compressBound(size - 3), data + 3, size - 3);
		ZSTD_freeCCtx(c);
		FUZZ_CHECK(!ZSTD_isError(file_len), "compress: %s", ZSTD_getErrorName(file_len));
		if (data[2] && file_len)
			scratch[data[1] % file_len] ^= data[2];
		else if (data[1] < file_len)
			file_len = data[1];
	} else {
		memcpy(scratch, "\x28\xb5\x2f\xfd", 4);
		file_len = 4;
		if (size - 1 >= 4 && !memcmp(data + 1, scratch, 4))
			file_len = 0;
		memcpy(scratch + file_len, data + 1, size - 1);
		file_len += size - 1;
	}
	content = scratch;
	fuzz_file_set(&file, content, file_len);
	if (file_len < 4 || memcmp(content, "\x28\xb5\x2f\xfd", 4)) {
		want = 1; /* not zstd (a cut or flip hit the magic): plain text */
		memcpy(ref, content, file_len);
		ref_len = file_len;
	} else {
		want = reference(content, file_len, &ref_len);
	}

	f = fopen(file.path, "r");
	FUZZ_CHECK(f != NULL, "cannot open the memfd");
	line_reader_init(&r, f, file.path);
	r.max = LINE_MAX_FUZZ;
	while ((rc = line_reader_next(&r, &line, &len)) > 0) {
		FUZZ_CHECK(len <= LINE_MAX_FUZZ, "line of %zu bytes past the bound", len);
		if (got_len + len + 1 <= REF_MAX) {
			memcpy(got + got_len, line, len);
			got[got_len + len] = '\n';
		}
		got_len += len + 1;
	}
	line_reader_free(&r);
	fclose(f);
	if (rc < 0) {
		const char *msg = scx_errmsg();
		bool too_long = strstr(msg, "line longer than") != NULL;

		FUZZ_CHECK(!strncmp(msg, file.path, strlen(file.path)), "message without the path: %s", msg);
		FUZZ_CHECK(want != 1 || too_long, "a good file failed: %s", msg);
		return 0;
	}
	FUZZ_CHECK(want != -1, "corrupt data read without error");
	FUZZ_CHECK(want != 0 || ref_len == REF_MAX, "data ending inside a frame read without error");
	if (want == 1) {
		/* the reader ends every line with '\n'; the text may lack the last one */
		bool nl = ref_len && ref[ref_len - 1] == '\n';

		FUZZ_CHECK(got_len == ref_len + !nl || (!ref_len && !got_len), "%zu bytes read, %zu decoded", got_len,
			   ref_len);
		FUZZ_CHECK(!memcmp(got, ref, ref_len), "lines differ from the decoded text");
	}
	return 0;
}
