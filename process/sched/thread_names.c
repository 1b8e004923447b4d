/*
 * thread_names.c - names of threads from the scheduling stream, for threads
 * perf.data never named (see sched_decode.h).
 */
#include "process/sched/sched_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/grow.h"

void thread_names_init(struct thread_names *t)
{
	memset(t, 0, sizeof(*t));
	u64map_init(&t->last);
}

void thread_names_free(struct thread_names *t)
{
	free(t->v);
	u64map_free(&t->last);
	memset(t, 0, sizeof(*t));
}

/* perf's name for a thread it has no COMM for */
static int is_placeholder(const char *comm, int64_t tid)
{
	char ph[32];

	snprintf(ph, sizeof(ph), ":%lld", (long long)tid);
	return !strcmp(comm, ph);
}

int thread_names_note(struct thread_names *t, int64_t tid, uint64_t time_ns, const char *comm, bool exec)
{
	uint64_t *last;
	struct thread_name *e;

	if (tid <= 0 || tid > INT32_MAX || !comm || !comm[0] || is_placeholder(comm, tid))
		return 0;
	last = u64map_slot(&t->last, (uint64_t)tid);
	if (!last)
		return scx_fail("out of memory (thread names)");
	/* a name the thread already had last: nothing new */
	if (*last && !strncmp(t->v[*last - 1].comm, comm, sizeof(e->comm) - 1)) {
		e = &t->v[*last - 1];
		if (time_ns > e->last_ns)
			e->last_ns = time_ns;
		if (time_ns < e->time_ns || (time_ns == e->time_ns && exec)) {
			e->time_ns = time_ns; /* the run began here, by what this record is */
			e->exec = exec;
		}
		return 0;
	}
	if (t->n == t->cap && !GROW(t->v, t->cap, 256))
		return scx_fail("out of memory (thread names)");
	e = &t->v[t->n];
	e->tid = (uint32_t)tid;
	e->seq = (uint32_t)t->n;
	e->time_ns = e->last_ns = time_ns;
	e->exec = exec;
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
	*last = ++t->n;
	t->sorted = 0;
	return 0;
}

int thread_names_note_record(struct thread_names *t, const char *comm, int64_t tid, uint64_t time_ns,
			     enum sched_kind kind, const struct sched_vals *v)
{
	if (thread_names_note(t, tid, time_ns, comm, kind == SK_EXEC) < 0)
		return -1;
	if (!v)
		return 0;
	switch (kind) {
	case SK_SWITCH:
	case SK_FORK: /* prev and next; parent and child */
		if (thread_names_note(t, v->pid2, time_ns, v->comm2, false) < 0)
			return -1;
		/* fall through */
	case SK_WAKEUP:
	case SK_WAKEUP_NEW:
	case SK_WAKING:
	case SK_MIGRATE:
	case SK_EXIT:
	case SK_STAT_RUNTIME:
		return thread_names_note(t, v->pid, time_ns, v->comm, false);
	default:
		return 0;
	}
}

static int by_tid_time(const void *a, const void *b)
{
	const struct thread_name *x = a, *y = b;

	return CMP3(x->tid, y->tid) ?: CMP3(x->time_ns, y->time_ns) ?: CMP3(x->seq, y->seq);
}

void thread_names_finish(struct thread_names *t)
{
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), by_tid_time);
	u64map_free(&t->last);
	u64map_init(&t->last);
	t->sorted = 1;
}

const char *thread_names_lookup(const struct thread_names *t, int64_t tid, uint64_t time_ns)
{
	size_t lo = 0, hi = t->n, first, best;

	if (!t->sorted || tid <= 0 || tid > INT32_MAX)
		return NULL;
	while (lo < hi) { /* the tid's first entry */
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].tid < (uint32_t)tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->n || t->v[lo].tid != (uint32_t)tid)
		return NULL;
	first = lo;
	/* the first run of a name still seen at or after time_ns: the name then,
	 * unless time_ns falls before that run began; then a name an exec gave
	 * was not there yet (the exec record has the exact time), while a
	 * rename (prctl) shows only in the next record, so it already was */
	for (best = lo; lo < t->n && t->v[lo].tid == (uint32_t)tid; lo++) {
		best = lo;
		if (t->v[lo].last_ns >= time_ns)
			break;
	}
	if (best > first && t->v[best].time_ns > time_ns && t->v[best].exec)
		best--;
	return t->v[best].comm;
}
