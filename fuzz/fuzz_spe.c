/*
 * fuzz_spe.c - libFuzzer target for the Arm SPE decoder (process/spe).
 *
 * The first byte chooses what the rest is:
 *   even: raw AUX data, cut into up to three buffers at offsets taken from
 *         the next two bytes, queued as one AUX queue and decoded with
 *         spe_queue_advance() (what the replay calls); every record gets
 *         its data source for a Neoverse and a generic MIDR;
 *   odd:  a perf.data file (written to a memfd): spe_trace_load(), then
 *         spe_trace_before() on every record in file order and
 *         spe_trace_finish(), delivering into a counter.
 * Invariants: the queue delivers every record the decoder counted but
 * the cut ones before its first whole one, uses all its data, leaves at
 * most one record unfinished and skips no more bytes than it was given;
 * every record the trace decoded is delivered once, as a sample or as not
 * a memory access, or dropped as a cut record before its queue's first
 * whole one. Anything else (a crash, a sanitizer report) is a bug.
 *
 * Seeds: fuzz/corpus/spe/ holds the fixtures of tests/fixtures/spe with the
 * byte 0x01 in front (perf.data mode).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_util.h"
#include "lib/error.h"
#include "lib/perfdata.h"
#include "process/spe/spe.h"

static volatile uint64_t sink;
static struct fuzz_file file;
static bool file_ready;

static void raw(const uint8_t *d, size_t n)
{
	struct spe_trace t = {0};
	struct spe_queue q = {0};
	struct spe_aux_buf bufs[3];
	uint64_t emitted = 0;
	size_t a, b;

	if (n < 2)
		return;
	a = d[0];
	b = d[1];
	d += 2;
	n -= 2;
	a %= n + 1;                 /* 0 <= a <= n */
	b = a + b % (n - a + 1);    /* a <= b <= n */
	/* one queue of up to three buffers, as spe_trace_load queues AUXTRACE
	 * data (empty ones are not queued), decoded as the replay does */
	if (a)
		bufs[q.nbufs++] = (struct spe_aux_buf){d, a};
	if (b > a)
		bufs[q.nbufs++] = (struct spe_aux_buf){d + a, b - a};
	if (n > b)
		bufs[q.nbufs++] = (struct spe_aux_buf){d + b, n - b};
	q.bufs = bufs;
	spe_decoder_init(&q.dec, &t.counts);
	while (spe_queue_advance(&t, &q)) {
		const struct spe_record *r = &q.head;

		FUZZ_CHECK(q.has_head && q.started, "a record delivered before the queue's first whole one");
		emitted++;
		sink ^= spe_data_src(r, 0x410fd0c1ULL) ^ spe_data_src(r, 0x410fd4f0ULL) ^ r->pc ^ r->va ^ r->pa;
	}
	FUZZ_CHECK(!q.has_head && !q.dec.open && q.bi == q.nbufs, "the queue's data not used up");
	FUZZ_CHECK(t.counts.records == emitted + t.counts.dropped_first, "%llu records counted, %llu emitted + %llu dropped",
		   (unsigned long long)t.counts.records, (unsigned long long)emitted,
		   (unsigned long long)t.counts.dropped_first);
	FUZZ_CHECK(t.counts.bad_bytes <= n, "%llu bad bytes of %zu", (unsigned long long)t.counts.bad_bytes, n);
	FUZZ_CHECK(t.counts.cut_records <= t.counts.records, "more cut records than records");
	FUZZ_CHECK(t.counts.unfinished <= 1, "%llu records unfinished in one queue", (unsigned long long)t.counts.unfinished);
}

struct deliveries {
	uint64_t n;
};

static int32_t thread_pid(void *ctx, int32_t pid, int32_t tid)
{
	(void)ctx;
	return pid >= 0 ? pid : tid;
}

static int deliver(void *ctx, const struct spe_sample *s)
{
	struct deliveries *d = ctx;

	d->n++;
	sink ^= s->time ^ s->ip ^ s->addr ^ s->data_src ^ s->weight ^ (uint64_t)s->tid;
	return 0;
}

static void perfdata(const uint8_t *d, size_t n)
{
	struct pd_file f;
	struct spe_trace t;
	struct deliveries got = {0};
	struct pd_cursor c;
	const struct perf_event_header *h;

	if (!file_ready) {
		fuzz_file_init(&file, "fuzz_spe");
		file_ready = true;
	}
	fuzz_file_set(&file, d, n);
	if (pd_open(&f, file.path) < 0)
		return;
	if (spe_trace_load(&t, &f) < 0 || !t.present) {
		pd_close(&f);
		return;
	}
	t.thread_pid = thread_pid;
	t.deliver = deliver;
	t.ctx = &got;
	pd_cursor_init(&c, &f);
	while (pd_next(&c, &h) > 0)
		if (h->type < PD_RECORD_HEADER_ATTR && spe_trace_before(&t, &f, h) < 0)
			break;
	FUZZ_CHECK(spe_trace_finish(&t) == 0, "finish failed: %s", scx_errmsg());
	FUZZ_CHECK(got.n == t.counts.samples, "%llu delivered, %llu counted", (unsigned long long)got.n,
		   (unsigned long long)t.counts.samples);
	FUZZ_CHECK(t.counts.samples + t.counts.not_memory + t.counts.dropped_first == t.counts.records,
		   "%llu samples + %llu not memory + %llu dropped != %llu records", (unsigned long long)t.counts.samples,
		   (unsigned long long)t.counts.not_memory, (unsigned long long)t.counts.dropped_first,
		   (unsigned long long)t.counts.records);
	spe_trace_free(&t);
	pd_close(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		perfdata(data + 1, size - 1);
	else
		raw(data + 1, size - 1);
	scx_clear_error();
	return 0;
}
