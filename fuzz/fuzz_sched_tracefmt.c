/*
 * fuzz_sched_tracefmt.c - libFuzzer target for the tracing data parser of
 * perf.sched.data (process/sched/sched_tracefmt.c): the whole blob (tf_parse)
 * and, with the first byte odd, one format file (tf_parse_format), then the
 * decoding of raw records with the fields parsed.
 *
 * Invariants, besides no crash (ASan checks every read of blob and record):
 *  - a refusal says why;
 *  - events: a name, terminated names and types, each field found again by
 *    name, each id found again by tf_event_by_id();
 *  - kallsyms sorted by address, each named; tf_ksym() of a symbol's
 *    address gives a symbol at that address, below the first none;
 *  - decoding a record (the input bytes themselves, at several sizes):
 *    tf_get_int() answers only for 1/2/4/8-byte fields inside the record;
 *    tf_get_str() and tf_field_text() always terminate their buffer.
 * Seeds: fuzz/corpus/sched_tracefmt/.
 */
#include "fuzz/fuzz_util.h"
#include "lib/error.h"
#include "process/sched/sched_tracefmt.h"

static void check_event(const struct tf_data *d, const struct tf_event *ev)
{
	FUZZ_CHECK(memchr(ev->name, 0, sizeof(ev->name)) && memchr(ev->system, 0, sizeof(ev->system)),
		   "unterminated event name");
	FUZZ_CHECK(ev->name[0], "an event without a name");
	for (size_t i = 0; i < ev->nr_fields; i++) {
		const struct tf_field *f = &ev->fields[i], *g;

		FUZZ_CHECK(memchr(f->name, 0, sizeof(f->name)) && memchr(f->type, 0, sizeof(f->type)),
			   "unterminated field name or type");
		g = tf_find_field(ev, f->name);
		FUZZ_CHECK(g && !strcmp(g->name, f->name), "field %s not found by name", f->name);
	}
	if (d)
		FUZZ_CHECK(tf_event_by_id(d, ev->id) && tf_event_by_id(d, ev->id)->id == ev->id, "id %u not found",
			   ev->id);
}

static void decode(const struct tf_event *ev, const uint8_t *raw, size_t size)
{
	static const size_t cuts[] = {0, 1, 8, 16, 64, 4096};

	for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
		size_t n = cuts[c] < size ? cuts[c] : size;
		uint8_t *rec = malloc(n ? n : 1); /* exactly n bytes: ASan sees any read past them */

		if (!rec)
			abort();
		memcpy(rec, raw, n);
		for (size_t i = 0; i < ev->nr_fields; i++) {
			const struct tf_field *f = tf_find_field(ev, ev->fields[i].name); /* the first of a name */
			char buf[40];
			int64_t v;

			if (tf_get_int(ev, f->name, rec, n, &v))
				FUZZ_CHECK((f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) &&
						   (uint64_t)f->offset + f->size <= n,
					   "tf_get_int answered for %s (offset %u size %u) in %zu bytes", f->name,
					   f->offset, f->size, n);
			memset(buf, 'x', sizeof(buf));
			tf_get_str(ev, f->name, rec, n, buf, sizeof(buf));
			FUZZ_CHECK(memchr(buf, 0, sizeof(buf)), "tf_get_str left the buffer unterminated");
			memset(buf, 'x', sizeof(buf));
			tf_field_text(f, rec, n, buf, sizeof(buf));
			FUZZ_CHECK(memchr(buf, 0, sizeof(buf)), "tf_field_text left the buffer unterminated");
		}
		free(rec);
	}
}

static void check_ksyms(const struct tf_data *d)
{
	for (size_t i = 0; i < d->nr_ksyms; i++) {
		const char *name;

		FUZZ_CHECK(d->ksyms[i].name, "a symbol without a name");
		FUZZ_CHECK(i == 0 || d->ksyms[i - 1].addr <= d->ksyms[i].addr, "kallsyms not sorted");
		name = tf_ksym(d, d->ksyms[i].addr);
		FUZZ_CHECK(name, "no symbol at a symbol's address");
	}
	if (d->nr_ksyms && d->ksyms[0].addr > 0)
		FUZZ_CHECK(!tf_ksym(d, d->ksyms[0].addr - 1), "a symbol below the first");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (size < 1)
		return 0;
	copy = malloc(size - 1 ? size - 1 : 1); /* exactly the input: ASan sees reads past it */
	if (!copy)
		abort();
	memcpy(copy, data + 1, size - 1);
	scx_clear_error();
	if (data[0] & 1) {
		struct tf_event ev;

		if (tf_parse_format(&ev, "sched", (const char *)copy, size - 1) == 0) {
			check_event(NULL, &ev);
			decode(&ev, data, size);
			tf_event_free(&ev);
		} else {
			FUZZ_CHECK(scx_errmsg()[0], "a refusal without a reason");
		}
	} else {
		struct tf_data d;

		if (tf_parse(&d, copy, size - 1) == 0) {
			for (size_t i = 0; i < d.nr_events; i++) {
				check_event(&d, &d.events[i]);
				decode(&d.events[i], data, size);
			}
			check_ksyms(&d);
			tf_free(&d);
		} else {
			FUZZ_CHECK(!strncmp(scx_errmsg(), "tracing data: ", 14), "message \"%s\"", scx_errmsg());
		}
	}
	free(copy);
	return 0;
}
