/*
 * sched_trace_parse.c - the values back from a tracepoint's trace text, for
 * inputs that only have the text (perf.sched.script): the inverse of
 * sched_trace_format() for the kinds the Perfetto trace shows (switch,
 * waking, wakeup_new, irq, softirq and local-timer entry/exit).
 */
#include "process/sched/sched_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The integer after the last " key=" (or "key=" at the start) of t. */
static bool int_of(const char *t, size_t len, const char *key, int64_t *v)
{
	size_t kl = strlen(key);
	char num[24], *e;
	size_t i, n;

	for (i = len >= kl ? len - kl + 1 : 0; i-- > 0;) {
		if (memcmp(t + i, key, kl) || (i > 0 && t[i - 1] != ' ' && t[i - 1] != '['))
			continue;
		for (n = 0; i + kl + n < len && t[i + kl + n] != ' ' && t[i + kl + n] != ']' && n < sizeof(num) - 1; n++)
			num[n] = t[i + kl + n];
		num[n] = '\0';
		if (!n)
			return false;
		*v = strtoll(num, &e, 10);
		return *e == '\0';
	}
	return false;
}

/* "comm=C pid=P prio=N target_cpu=T": the comm may hold spaces */
static bool task_line(const char *t, size_t len, struct sched_vals *v)
{
	const char *pid = NULL;
	size_t i;

	if (len < 5 || memcmp(t, "comm=", 5))
		return false;
	for (i = 5; i + 5 <= len; i++)
		if (!memcmp(t + i, " pid=", 5))
			pid = t + i;
	if (!pid || (size_t)(pid - t - 5) >= sizeof(v->comm))
		return false;
	snprintf(v->comm, sizeof(v->comm), "%.*s", (int)(pid - t - 5), t + 5);
	return int_of(t, len, "pid=", &v->pid) && int_of(t, len, "prio=", &v->prio) &&
	       int_of(t, len, "target_cpu=", &v->a0);
}

bool sched_trace_vals_from_text(enum sched_kind k, const char *t, size_t len, struct sched_vals *v)
{
	struct sched_switch_info sw;
	const char *name;

	memset(v, 0, sizeof(*v));
	switch (k) {
	case SK_SWITCH:
		if (!sched_jsonl_parse_switch(t, len, &sw))
			return false;
		snprintf(v->comm, sizeof(v->comm), "%s", sw.prev_comm);
		snprintf(v->comm2, sizeof(v->comm2), "%s", sw.next_comm);
		snprintf(v->state, sizeof(v->state), "%s", sw.prev_state);
		v->pid = sw.prev_pid;
		v->prio = sw.prev_prio;
		v->pid2 = sw.next_pid;
		v->prio2 = sw.next_prio;
		return true;
	case SK_WAKING: case SK_WAKEUP_NEW:
		return task_line(t, len, v);
	case SK_IRQ_ENTRY:
		name = len > 4 ? memmem(t, len, " name=", 6) : NULL;
		if (name)
			snprintf(v->str, sizeof(v->str), "%.*s", (int)(t + len - name - 6), name + 6);
		return int_of(t, len, "irq=", &v->a0);
	case SK_IRQ_EXIT:
		v->a1 = len >= 8 && !memcmp(t + len - 8, "=handled", 8);
		return int_of(t, len, "irq=", &v->a0);
	case SK_SOFTIRQ_ENTRY: case SK_SOFTIRQ_EXIT:
		return int_of(t, len, "vec=", &v->a0);
	case SK_TIMER_ENTRY: case SK_TIMER_EXIT:
		return int_of(t, len, "vector=", &v->a0);
	default:
		return false;
	}
}
