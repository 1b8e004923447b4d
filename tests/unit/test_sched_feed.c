/*
 * test_sched_feed.c - the sched stats feed's late filter
 * (sched_stats_feed_set_keep, behind one pass's sched thread): a feed
 * that keeps every thread and is given keep() after any number of events
 * ends with the same per-thread results, drops and dropped runtime as one
 * given keep() from the start, on a generated stream with switches,
 * wakeups, exits and a thread whose pid changes after its first record.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "extract/sched/sched_events.h"
#include "extract/sched/sched_stats.h"

#define NCPUS 4
#define NTIDS 40
#define NEVENTS 6000

struct stream {
	struct sched_event ev[NEVENTS];
	char comm[NEVENTS][3][16];
	size_t n;
};

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* pid of a tid: 4 threads a process; tid 7's process says 1 at first, then 2 (an exec's tid change) */
static int64_t pid_of(int64_t tid, size_t i)
{
	if (tid == 7)
		return i < NEVENTS / 3 ? 1 : 2;
	return 10 + tid / 4;
}

/* Keep processes with an even pid (so tid 7 is refused: its first record said 1). */
static bool keep_even(int64_t tid, int64_t pid, void *ctx)
{
	(void)tid;
	++*(int *)ctx;
	return pid % 2 == 0;
}

static void make_stream(struct stream *s)
{
	int64_t running[NCPUS] = {0};
	uint64_t t = 1000000;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < NEVENTS; i++) {
		struct sched_event *e = &s->ev[i];
		uint32_t cpu = (uint32_t)(rnd() % NCPUS);
		int64_t tid = 1 + (int64_t)(rnd() % NTIDS), r = rnd() % 10;

		t += 1000 + rnd() % 50000;
		e->cpu = cpu;
		e->time_ns = t;
		e->time_ok = true;
		e->prev_pid = -1;
		e->next_pid = INT64_MIN;
		e->f_pid = -1;
		e->target_cpu = e->dest_cpu = -1;
		e->action = "";
		if (r < 6) { /* a switch on cpu from what runs there to tid (or idle) */
			int64_t prev = running[cpu], next = r == 0 ? 0 : tid;

			e->kind = SEV_SWITCH;
			e->event = "sched:sched_switch";
			e->has_fields = true;
			e->tid = prev;
			e->pid = prev ? pid_of(prev, i) : 0;
			snprintf(s->comm[i][0], 16, "%s%lld", prev ? "w" : "swapper/", prev ? (long long)prev : (long long)cpu);
			snprintf(s->comm[i][1], 16, "%s%lld", next ? "w" : "swapper/", next ? (long long)next : (long long)cpu);
			e->comm = e->prev_comm = s->comm[i][0];
			e->next_comm = s->comm[i][1];
			e->prev_state = r == 1 ? "R" : "S";
			e->prev_pid = prev;
			e->next_pid = next;
			running[cpu] = next;
		} else if (r < 9) { /* tid wakes another thread */
			int64_t woken = 1 + (int64_t)(rnd() % NTIDS);

			e->kind = r == 8 ? SEV_WAKING : SEV_WAKEUP;
			e->event = r == 8 ? "sched:sched_waking" : "sched:sched_wakeup";
			e->tid = tid;
			e->pid = pid_of(tid, i);
			snprintf(s->comm[i][0], 16, "w%lld", (long long)tid);
			e->comm = s->comm[i][0];
			e->has_fields = true;
			e->f_pid = woken;
			e->target_cpu = (int64_t)(rnd() % NCPUS);
		} else {
			e->kind = SEV_EXIT;
			e->event = "sched:sched_process_exit";
			e->tid = tid;
			e->pid = pid_of(tid, i);
			snprintf(s->comm[i][0], 16, "w%lld", (long long)tid);
			e->comm = s->comm[i][0];
			e->has_fields = true;
			e->f_pid = tid;
		}
	}
	s->n = NEVENTS;
}

/* The stream through a feed; keep given from the start (late SIZE_MAX) or after late events. */
static void run_feed(const struct stream *s, size_t late, struct sched_threads *out, int *asked)
{
	struct sched_stats_feed *f = sched_stats_feed_new("gen", late == SIZE_MAX ? keep_even : NULL, asked);

	cr_assert(f);
	for (size_t i = 0; i < s->n; i++) {
		if (i == late)
			cr_assert_eq(sched_stats_feed_set_keep(f, keep_even, asked), 0);
		cr_assert_eq(sched_stats_feed_event(f, &s->ev[i]), 0);
	}
	if (late == s->n)
		cr_assert_eq(sched_stats_feed_set_keep(f, keep_even, asked), 0);
	cr_assert_eq(sched_stats_feed_end(f, out), 0);
}

static void assert_same(const struct sched_threads *a, const struct sched_threads *b, size_t late)
{
	cr_assert_eq(a->n, b->n, "late %zu: %zu threads, not %zu", late, b->n, a->n);
	cr_assert_eq(a->dropped, b->dropped, "late %zu: dropped %llu, not %llu", late,
		     (unsigned long long)b->dropped, (unsigned long long)a->dropped);
	cr_assert_eq(a->dropped_runtime_ns, b->dropped_runtime_ns, "late %zu: dropped runtime", late);
	cr_assert_eq(a->duration_ns, b->duration_ns);
	cr_assert_eq(a->cpu_count, b->cpu_count);
	cr_assert_eq(a->breaks.count, b->breaks.count);
	for (size_t i = 0; i < a->n; i++) {
		const struct sched_thread_stats *x = &a->v[i], *y = &b->v[i];

		cr_assert_eq(x->tid, y->tid, "late %zu: thread %zu is tid %lld, not %lld", late, i, (long long)y->tid,
			     (long long)x->tid);
		cr_assert_eq(x->pid, y->pid);
		cr_assert_str_eq(x->comm ? x->comm : "", y->comm ? y->comm : "");
		cr_assert_eq(x->runtime, y->runtime, "late %zu: tid %lld runtime", late, (long long)x->tid);
		cr_assert_eq(x->wakeups, y->wakeups);
		cr_assert_eq(x->migrations, y->migrations);
		cr_assert_eq(x->nlat, y->nlat, "late %zu: tid %lld latencies", late, (long long)x->tid);
		cr_assert(x->nlat == 0 || !memcmp(x->lat, y->lat, x->nlat * sizeof(*x->lat)));
	}
}

Test(sched_feed, late_filter_gives_the_same_results)
{
	static struct stream s;
	static const size_t lates[] = {0, 1, 57, NEVENTS / 3, NEVENTS / 3 + 1, NEVENTS / 2, NEVENTS - 1, NEVENTS};
	struct sched_threads want, got;
	int asked = 0;
	bool tid7 = false;

	make_stream(&s);
	run_feed(&s, SIZE_MAX, &want, &asked);
	/* the stream means something: some threads kept, some dropped with runtime, tid 7 among the dropped */
	cr_assert_gt(want.dropped, 0);
	cr_assert_gt(want.dropped_runtime_ns, 0);
	cr_assert_gt(want.n, 0);
	for (size_t i = 0; i < want.n; i++)
		tid7 |= want.v[i].tid == 7;
	cr_assert(!tid7, "tid 7's first record said pid 1: refused");
	for (size_t k = 0; k < sizeof(lates) / sizeof(lates[0]); k++) {
		run_feed(&s, lates[k], &got, &asked);
		assert_same(&want, &got, lates[k]);
		sched_stats_threads_free(&got);
	}
	sched_stats_threads_free(&want);
}
