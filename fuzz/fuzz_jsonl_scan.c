/*
 * fuzz_jsonl_scan.c - libFuzzer target for extract's perf.jsonl line
 * scanner (extract/jsonl_scan.c) and the evidence it feeds
 * (extract/mem_agg.c: data_id, data_map, data_sym, data_src, time).
 *
 * Each input is one line (the scanner decodes strings in place, so it gets
 * a private copy). A line the scanner accepts is added to one aggregation
 * with evidence on and a small key budget (so memory stays bounded over a
 * run and the sampling path is exercised). A refusal must come with a
 * message. Anything else (a crash, a sanitizer report) is a bug.
 */
#include "extract/jsonl_scan.h"
#include "extract/mem_agg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct mem_agg agg;
static int ready;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem_sample s;
	char err[256], *line = malloc(size ? size : 1);
	uint64_t key;
	unsigned scale;

	if (!line)
		return 0;
	if (!ready) {
		struct mem_agg_opts o = {.workload = "workload.slice",
					 .allotment_re = "workload-tw-[^/]+\\.allotment\\.slice",
					 .evidence = true,
					 .objects = true,
					 .max_keys = 1024};

		if (mem_agg_init(&agg, &o) < 0)
			abort();
		ready = 1;
	}
	memcpy(line, data, size);
	if (jsonl_scan_mem(line, size, &s, err, sizeof(err)) == 0) {
		(void)mem_sample_key(&s, false, &key, &scale);
		if (mem_agg_add(&agg, &s) < 0)
			abort();
	} else if (!err[0]) {
		abort(); /* a refusal without a reason */
	}
	free(line);
	return 0;
}
