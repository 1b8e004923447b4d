/*
 * spe_replay.c - SPE records delivered as perf 6.1 delivers them (spe.h), from
 * tools/perf/util/arm-spe.c: before each of the file's records with a
 * time, every queued record whose queue time (the largest record time of
 * its queue so far) is below it, the queue with the earliest head first
 * and the running queue winning ties; at the end, the rest. Each sample's
 * thread: its CONTEXT packet's pid once any record carried one (from then
 * on switch records no longer count, and a queue keeps its last context),
 * else the tid the CPU's last switch-out record named as next, else the
 * AUXTRACE record's tid. Times go through TIME_CONV.
 */
#include "process/spe/spe.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

uint64_t spe_tsc_to_perf_time(const struct spe_time_conv *tc, uint64_t cyc)
{
	unsigned shift = tc->shift > 63 ? 63 : (unsigned)tc->shift;
	uint64_t quot, rem;

	if (tc->cap_short)
		cyc = tc->cycles + ((cyc - tc->cycles) & tc->mask);
	quot = cyc >> shift;
	rem = cyc & ((1ULL << shift) - 1);
	return tc->zero + quot * tc->mult + ((rem * tc->mult) >> shift);
}

uint64_t spe_perf_time_to_tsc(const struct spe_time_conv *tc, uint64_t ns)
{
	unsigned shift = tc->shift > 63 ? 63 : (unsigned)tc->shift;
	uint64_t t = ns - tc->zero, quot, rem;

	if (!tc->mult)
		return 0;
	quot = t / tc->mult;
	rem = t % tc->mult;
	return (quot << shift) + (rem << shift) / tc->mult;
}

static int32_t cpu_tid(const struct spe_trace *t, int32_t cpu)
{
	if (cpu < 0 || (size_t)cpu >= t->nr_cpu_tid)
		return -1;
	return t->cpu_tid[cpu];
}

static int set_cpu_tid(struct spe_trace *t, int32_t cpu, int32_t tid)
{
	if (cpu < 0 || cpu >= 1 << 20)
		return 0;
	if ((size_t)cpu >= t->nr_cpu_tid) {
		size_t n = (size_t)cpu + 64, i;
		int32_t *v = realloc(t->cpu_tid, n * sizeof(*v));

		if (!v)
			return scx_fail("out of memory");
		for (i = t->nr_cpu_tid; i < n; i++)
			v[i] = -1;
		t->cpu_tid = v;
		t->nr_cpu_tid = n;
	}
	t->cpu_tid[cpu] = tid;
	return 0;
}

static int deliver_item(struct spe_trace *t, struct spe_queue *q, const struct spe_record *r)
{
	struct spe_sample s;
	uint64_t ds;

	if (!t->timeless && r->has_context) {
		q->cur_tid = (int32_t)r->context;
		if (set_cpu_tid(t, q->cpu, q->cur_tid) < 0)
			return -1;
		q->cur_pid = t->thread_pid(t->ctx, -1, q->cur_tid);
		t->use_context = true;
	} else if (!t->use_context) {
		int32_t tid = cpu_tid(t, q->cpu);

		q->cur_tid = tid != -1 ? tid : q->tid;
		if (q->cur_tid != -1)
			q->cur_pid = t->thread_pid(t->ctx, -1, q->cur_tid);
	}
	ds = spe_data_src(r, q->midr);
	if (!ds) {
		t->counts.not_memory++;
		return 0;
	}
	if (t->use_context)
		t->counts.context_samples++;
	else if (cpu_tid(t, q->cpu) != -1)
		t->counts.switch_samples++;
	else
		t->counts.unknown_thread++;
	t->counts.samples++;
	memset(&s, 0, sizeof(s));
	s.pid = q->cur_pid;
	s.tid = q->cur_tid;
	s.cpu = q->cpu;
	s.time = t->timeless ? 0 : spe_tsc_to_perf_time(&t->tc, r->timestamp);
	s.ip = r->pc;
	s.addr = r->va;
	s.phys_addr = r->pa;
	s.data_src = ds;
	s.weight = r->lat;
	s.kernel = r->pc >> 63;
	return t->deliver(t->ctx, &s);
}

/* The queue whose head comes next: the earliest queue time, the last
 * queue on a tie (it is still running in perf), else the lowest index. */
static struct spe_queue *next_queue(struct spe_trace *t, struct spe_queue *last)
{
	struct spe_queue *best = NULL;
	size_t i;

	for (i = 0; i < t->nr_queues; i++) {
		struct spe_queue *q = &t->queues[i];

		if (!q->has_head)
			continue;
		if (!best || q->head_order < best->head_order ||
		    (q->head_order == best->head_order && (q == last || (best != last && q->idx < best->idx))))
			best = q;
	}
	return best;
}

/* Deliver q's head and decode its next record. */
static int deliver_head(struct spe_trace *t, struct spe_queue *q)
{
	struct spe_record r = q->head;

	spe_queue_advance(t, q);
	return deliver_item(t, q, &r);
}

static int deliver_before(struct spe_trace *t, uint64_t bound, bool all)
{
	struct spe_queue *q;

	while ((q = next_queue(t, t->last)) && (all || q->head_order < bound)) {
		t->last = q;
		if (deliver_head(t, q) < 0)
			return -1;
	}
	return 0;
}

int spe_trace_before(struct spe_trace *t, const struct pd_file *f, const struct perf_event_header *h)
{
	struct pd_sample s;
	uint64_t time, tsc;
	const uint8_t *b = (const uint8_t *)(h + 1);
	int32_t pid, tid;

	if (!t->present || t->timeless)
		return 0;
	if (pd_record_time(f, h, &time) <= 0 || time == 0 || time == UINT64_MAX)
		return 0;
	tsc = spe_perf_time_to_tsc(&t->tc, time);
	if (!tsc)
		return 0;
	if (deliver_before(t, tsc, false) < 0)
		return -1;
	if (t->use_context || !(h->misc & PERF_RECORD_MISC_SWITCH_OUT) ||
	    (h->type != PERF_RECORD_SWITCH_CPU_WIDE && h->type != PERF_RECORD_SWITCH) || h->size < 16)
		return 0;
	if (pd_parse_sample_id(f, h, &s) < 0 || !(s.present & PERF_SAMPLE_CPU))
		return 0;
	/* next_prev_pid/tid (for a SWITCH record perf reads the same bytes) */
	memcpy(&pid, b, 4);
	memcpy(&tid, b + 4, 4);
	if (set_cpu_tid(t, (int32_t)s.cpu, tid) < 0)
		return -1;
	t->thread_pid(t->ctx, pid, tid);
	return 0;
}

int spe_trace_finish(struct spe_trace *t)
{
	size_t i;

	if (!t->present)
		return 0;
	if (!t->timeless)
		return deliver_before(t, 0, true);
	/* no times: queue by queue (perf's timeless flush), tid from AUXTRACE */
	for (i = 0; i < t->nr_queues; i++) {
		struct spe_queue *q = &t->queues[i];

		while (q->has_head)
			if (deliver_head(t, q) < 0)
				return -1;
	}
	return 0;
}
