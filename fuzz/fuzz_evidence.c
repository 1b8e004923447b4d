/*
 * fuzz_evidence.c - libFuzzer target for the evidence file parser
 * (extract/evidence/evidence_file.c, `extract --evidence-in FILE`) and the combine
 * (extract/evidence/evidence_merge.c) on what it accepts.
 *
 * Invariants, besides no crash:
 *  - a refusal is one message naming the file;
 *  - what is accepted writes back to a document that parses again and
 *    writes back to the same bytes (nothing read is lost or altered);
 *  - accepted evidence, written and read back, combines with itself into a
 *    config without error.
 * Seeds: fuzz/corpus/evidence/.
 */
#include "extract/evidence/evidence.h"
#include "fuzz/fuzz_util.h"
#include "lib/error.h"

static char *write_mem(const struct evf_recording *r, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	if (!m)
		abort();
	FUZZ_CHECK(evf_write(r, m) == 0, "write failed: %s", scx_errmsg());
	fclose(m);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct evf_recording r[2], back;
	struct evidence_merge_opts mo = {.share_threshold = -1};
	char *a, *b, *cfg = NULL;
	size_t la, lb, lc;
	FILE *out;

	scx_clear_error();
	if (evf_parse((const char *)data, size, "fuzz.json", &r[0]) < 0) {
		FUZZ_CHECK(!strncmp(scx_errmsg(), "fuzz.json: ", 11) && !strchr(scx_errmsg(), '\n'), "message \"%s\"",
			   scx_errmsg());
		return 0;
	}
	a = write_mem(&r[0], &la);
	FUZZ_CHECK(evf_parse(a, la, "again.json", &back) == 0, "written evidence refused: %s", scx_errmsg());
	b = write_mem(&back, &lb);
	FUZZ_CHECK(la == lb && !memcmp(a, b, la), "evidence changed on a round trip");
	/* the written evidence twice (strings normalized to valid UTF-8 by the writer):
	 * alike by construction, so the combine must succeed */
	evf_free(&r[0]);
	FUZZ_CHECK(evf_parse(a, la, "again.json", &r[0]) == 0, "written evidence refused: %s", scx_errmsg());
	r[1] = back;
	out = open_memstream(&cfg, &lc);
	if (!out)
		abort();
	FUZZ_CHECK(evidence_merge_run(r, 2, &mo, out, NULL) == 0, "combine failed: %s", scx_errmsg());
	fclose(out);
	free(cfg);
	free(a);
	free(b);
	evf_free(&r[0]);
	evf_free(&r[1]);
	return 0;
}
