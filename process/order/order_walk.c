/*
 * order_walk.c - the ordered walk over a perf.data file's records (see
 * order.h): one loop for both perf.data input paths.
 */
#include "process/order/order.h"

#include <string.h>

#include "lib/error.h"

void order_walk_init(struct order_walk *w, struct pd_file *f,
		     int (*deliver)(void *ctx, const struct perf_event_header *h), void *ctx)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	w->f = f;
	w->deliver = deliver;
	w->ctx = ctx;
	order_init(&w->q);
	/* every record needs a time to be ordered: samples by PERF_SAMPLE_TIME,
	 * the others by their sample_id trailer */
	w->ordered = f->sample_id_all && f->nr_attrs > 0;
	for (i = 0; i < f->nr_attrs; i++)
		if (!(f->attrs[i].attr.sample_type & PERF_SAMPLE_TIME))
			w->ordered = false;
}

void order_walk_free(struct order_walk *w)
{
	order_free(&w->q);
}

uint64_t order_walk_peak_queued(const struct order_walk *w)
{
	return w->q.peak;
}

uint64_t order_walk_late_records(const struct order_walk *w)
{
	return w->q.late;
}

static bool stopped(const struct order_walk *w)
{
	return w->stop && *w->stop;
}

static int deliver(struct order_walk *w, const struct perf_event_header *h)
{
	/* checked here too: the final flush delivers without reading */
	if ((++w->delivered & 0xfff) == 0 && stopped(w))
		return scx_fail("interrupted");
	return w->deliver(w->ctx, h);
}

static int flush(struct order_walk *w)
{
	struct order_item it;

	while (order_pop(&w->q, &it))
		if (deliver(w, it.rec) < 0)
			return -1;
	return 0;
}

/* Give back file pages nothing queued still points into. */
static void release_pages(struct order_walk *w, uint64_t cursor_pos)
{
	const void *low = order_lowest_rec(&w->q);

	pd_release_before(w->f, low ? pd_offset_of(w->f, low) : cursor_pos);
}

static int finished_round(struct order_walk *w, uint64_t pos)
{
	w->rounds++;
	if (!w->ordered)
		return 0;
	if (order_round(&w->q) < 0 || flush(w) < 0)
		return -1;
	if (++w->since_release >= 16) {
		w->since_release = 0;
		release_pages(w, pos);
	}
	return 0;
}

static int on_record(struct order_walk *w, const struct perf_event_header *h, uint64_t pos)
{
	uint64_t time;
	int r;

	if (h->type < w->nr_type_counts)
		w->type_counts[h->type]++;
	if (h->type == PD_RECORD_FINISHED_ROUND)
		return finished_round(w, pos);
	if (h->type >= PD_RECORD_HEADER_ATTR)
		return 0; /* perf tool records: nothing to deliver */
	if (pd_id_is_unknown(w->f, h)) {
		w->unknown_id_records++; /* as perf: skipped, counted */
		return 0;
	}
	if (w->first_kernel_sample && h->type == PERF_RECORD_SAMPLE &&
	    (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
		w->first_kernel_sample(w->ctx);
		w->first_kernel_sample = NULL;
	}
	if (!w->ordered)
		return deliver(w, h);
	r = pd_record_time(w->f, h, &time);
	if (r < 0)
		return -1;
	if (r == 0)
		return deliver(w, h);
	return order_push(&w->q, time, h);
}

int order_walk_run(struct order_walk *w)
{
	struct pd_cursor c;
	const struct perf_event_header *h;
	uint64_t n = 0;
	int r;

	if (!w->ordered && w->log)
		fprintf(w->log, "%s: no sample_id_all/time on every event: samples in file order\n", w->f->path);
	pd_cursor_init(&c, w->f);
	while ((r = pd_next(&c, &h)) > 0) {
		if ((++n & 0xfff) == 0 && stopped(w))
			return scx_fail("interrupted");
		if (on_record(w, h, c.pos) < 0)
			return -1;
		if (!w->ordered && (n & 0xffff) == 0)
			pd_release_before(w->f, c.pos);
	}
	if (r < 0)
		return -1;
	if (w->ordered && !w->rounds && w->log)
		fprintf(w->log, "%s: no FINISHED_ROUND records: all %zu records were held "
			"until the end to sort them\n", w->f->path, w->q.n - w->q.head);
	if (order_finish(&w->q) < 0)
		return -1;
	return flush(w);
}
