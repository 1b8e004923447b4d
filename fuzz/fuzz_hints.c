/*
 * fuzz_hints.c - libFuzzer target for the hints.jsonl loader and lookup
 * (process/hints.c).
 *
 * Invariants, besides no crash:
 *  - success: every non-blank line is one update (updates = non-blank
 *    lines, tids <= updates, first_timestamp <= last_timestamp), and the
 *    copy of hints.jsonl is the input line for line (a newline added to a
 *    last line without one); input starting with zstd's magic is
 *    decompressed by the line reader, so only tids <= updates, the
 *    timestamps and the lookups are checked for it;
 *  - failure: the message names the file ("hints.jsonl...");
 *  - lookups answer the same whatever their order: the forward cursor
 *    (times ascending) and the binary search (times descending, on a second
 *    index) give the same value for every (tid, time) asked.
 * Seeds: fuzz/corpus/hints/.
 */
#include "fuzz/fuzz_util.h"
#include "lib/error.h"
#include "process/hints.h"

#include <inttypes.h>

static struct fuzz_file in_file, copy_file;

static const uint64_t times[] = {0, 1, 99, 100, 101, 150, 300, 1000000000ull, INT64_MAX, UINT64_MAX};
#define NR_TIMES (sizeof(times) / sizeof(times[0]))
#define NR_TIDS 24

static void check_copy(const uint8_t *data, size_t size)
{
	off_t n = lseek(copy_file.fd, 0, SEEK_END);
	size_t want = size + (size && data[size - 1] != '\n');
	uint8_t *buf = malloc((size_t)n + 1);

	if (!buf || pread(copy_file.fd, buf, (size_t)n, 0) != n)
		abort();
	FUZZ_CHECK((size_t)n == want && !memcmp(buf, data, size) && (want == size || buf[size] == '\n'),
		   "the copy (%lld bytes) is not the input (%zu bytes)", (long long)n, size);
	free(buf);
}

static void check_lookup_orders(void)
{
	static uint64_t fwd[NR_TIDS][NR_TIMES];
	struct hints_index *a = NULL, *b = NULL;
	size_t t, i;

	if (hints_load(&a, in_file.path, NULL) < 0 || hints_load(&b, in_file.path, NULL) < 0)
		abort(); /* it loaded once */
	for (t = 0; t < NR_TIDS; t++)
		for (i = 0; i < NR_TIMES; i++)
			fwd[t][i] = hints_lookup(a, (uint32_t)t, times[i]);
	for (t = 0; t < NR_TIDS; t++)
		for (i = NR_TIMES; i-- > 0;) {
			uint64_t v = hints_lookup(b, (uint32_t)t, times[i]);

			FUZZ_CHECK(v == fwd[t][i], "tid %zu at %" PRIu64 ": cursor %" PRIu64 ", search %" PRIu64, t,
				   times[i], fwd[t][i], v);
		}
	hints_free(a);
	hints_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hints_index *h = NULL;
	struct hints_stats st;
	size_t lines, nonblank;
	FILE *copy;

	fuzz_file_set(&in_file, data, size);
	if (ftruncate(copy_file.fd, 0) < 0 || !(copy = fopen(copy_file.path, "w")))
		abort();
	scx_clear_error();
	if (hints_load(&h, in_file.path, copy) < 0) {
		fclose(copy);
		FUZZ_CHECK(h == NULL, "an index after a failure");
		FUZZ_CHECK(!strncmp(scx_errmsg(), in_file.path, strlen(in_file.path)), "message \"%s\"", scx_errmsg());
		return 0;
	}
	fclose(copy);
	hints_get_stats(h, &st);
	FUZZ_CHECK(st.tids <= st.updates, "more tids than updates");
	FUZZ_CHECK(!st.updates || st.first_timestamp <= st.last_timestamp, "first > last timestamp");
	if (fuzz_is_zstd(data, size)) { /* decompressed: its lines are not the input's */
		hints_free(h);
		check_lookup_orders();
		return 0;
	}
	fuzz_count_lines(data, size, " \t\r\f\v", &lines, &nonblank);
	FUZZ_CHECK(st.updates == nonblank, "%" PRIu64 " updates, %zu non-blank lines", st.updates, nonblank);
	hints_free(h);
	check_copy(data, size);
	check_lookup_orders();
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init(&in_file, "hints.jsonl");
	fuzz_file_init(&copy_file, "hints.copy");
	return 0;
}
