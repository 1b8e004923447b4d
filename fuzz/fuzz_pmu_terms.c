/*
 * fuzz_pmu_terms.c - libFuzzer target for the PMU format and term parsers
 * of record/backend/pmu_sysfs.c: the input's first line is parsed as a
 * format file ("config2:0-11", "config:0-7,32-35"), the rest as a term list
 * ("ts_enable=1,min_latency=20", "period=4096") applied to an Arm SPE-like
 * PMU whose formats are built in memory (with a config3 one).
 *
 * Invariants, besides no crash (UBSan: no shift or overflow):
 *  - pmu_parse_format(): success means a word 0..3 and a non-empty mask;
 *  - pmu_apply_terms(): a failure says why (a message naming the PMU or the
 *    term); on success, config1/config2 hold bits only inside the formats
 *    of those words unless the terms name the raw word (config3 terms are
 *    refused: there is no attr field to hold them).
 * Seeds: fuzz/corpus/pmu_terms/.
 */
#include "record/backend/pmu_sysfs.h"
#include "fuzz/fuzz_util.h"
#include "lib/error.h"

static void spe_pmu(struct pmu_desc *p)
{
	static const struct { const char *name, *fmt; } f[] = {
		{ "ts_enable", "config:0" },	  { "pa_enable", "config:1" },
		{ "jitter", "config:16" },	  { "load_filter", "config:33" },
		{ "store_filter", "config:34" },  { "event_filter", "config1:0-63" },
		{ "min_latency", "config2:0-11" }, { "inv_event_filter", "config3:0-63" },
		{ "split", "config2:20-23,40" },
	};

	memset(p, 0, sizeof(*p));
	strcpy(p->name, "arm_spe_0");
	strcpy(p->dir, "/nonexistent/arm_spe_0");
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct pmu_format *pf = &p->formats[p->nr_formats++];

		strcpy(pf->name, f[i].name);
		if (pmu_parse_format(f[i].fmt, &pf->word, &pf->mask) < 0)
			abort();
	}
}

static uint64_t word_mask(const struct pmu_desc *p, int word)
{
	uint64_t m = 0;

	for (size_t i = 0; i < p->nr_formats; i++)
		if (p->formats[i].word == word)
			m |= p->formats[i].mask;
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *nl;
	struct perf_event_attr attr;
	struct pmu_desc p;
	uint64_t mask;
	int word;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	scx_clear_error();
	if (pmu_parse_format(text, &word, &mask) == 0)
		FUZZ_CHECK(word >= 0 && word <= 3 && mask != 0, "\"%s\": word %d mask %#llx", text, word,
			   (unsigned long long)mask);
	else
		FUZZ_CHECK(*scx_errmsg(), "no message for \"%s\"", text);
	if (nl) {
		const char *terms = nl + 1;

		spe_pmu(&p);
		memset(&attr, 0, sizeof(attr));
		scx_clear_error();
		if (pmu_apply_terms(&p, &attr, terms) < 0) {
			FUZZ_CHECK(*scx_errmsg(), "no message for terms \"%s\"", terms);
		} else {
			FUZZ_CHECK(!strstr(terms, "inv_event_filter"), "config3 term accepted: \"%s\"",
				   terms);
			if (!strstr(terms, "config1"))
				FUZZ_CHECK(!(attr.config1 & ~word_mask(&p, 1)), "config1 %#llx",
					   (unsigned long long)attr.config1);
			if (!strstr(terms, "config2"))
				FUZZ_CHECK(!(attr.config2 & ~word_mask(&p, 2)), "config2 %#llx",
					   (unsigned long long)attr.config2);
		}
	}
	free(text);
	return 0;
}
