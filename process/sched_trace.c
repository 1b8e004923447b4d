/*
 * sched_trace.c - trace text of the scheduling tracepoints from decoded
 * values, as perf script prints it (see sched_trace.h).
 */
#include "sched_trace.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *system, *name;
	enum sched_kind kind;
} kinds[] = {
	{"sched", "sched_switch", SK_SWITCH},
	{"sched", "sched_wakeup", SK_WAKEUP},
	{"sched", "sched_wakeup_new", SK_WAKEUP_NEW},
	{"sched", "sched_waking", SK_WAKING},
	{"sched", "sched_migrate_task", SK_MIGRATE},
	{"sched", "sched_process_exit", SK_EXIT},
	{"sched", "sched_process_exec", SK_EXEC},
	{"sched", "sched_process_fork", SK_FORK},
	{"sched", "sched_stat_runtime", SK_STAT_RUNTIME},
	{"irq", "irq_handler_entry", SK_IRQ_ENTRY},
	{"irq", "irq_handler_exit", SK_IRQ_EXIT},
	{"irq", "softirq_entry", SK_SOFTIRQ_ENTRY},
	{"irq", "softirq_exit", SK_SOFTIRQ_EXIT},
	{"irq", "softirq_raise", SK_SOFTIRQ_RAISE},
	{"nmi", "nmi_handler", SK_NMI},
	{"irq_vectors", "local_timer_entry", SK_TIMER_ENTRY},
	{"irq_vectors", "local_timer_exit", SK_TIMER_EXIT},
	{"irq_vectors", "reschedule_entry", SK_RESCHED_ENTRY},
	{"irq_vectors", "reschedule_exit", SK_RESCHED_EXIT},
};

enum sched_kind sched_trace_kind_of(const char *system, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].system, system) && !strcmp(kinds[i].name, name))
			return kinds[i].kind;
	return SK_UNKNOWN;
}

const char *sched_trace_softirq_name(uint64_t vec)
{
	static const char *const names[] = {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					    "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};

	return vec < sizeof(names) / sizeof(names[0]) ? names[vec] : NULL;
}

/* ASCII, no '=', and no ' ' unless spaces are allowed */
static bool plain_str(const char *s, bool spaces)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80 || *s == '=' || (*s == ' ' && !spaces))
			return false;
	return true;
}

bool sched_trace_plain(enum sched_kind k, const struct sched_vals *v)
{
	switch (k) {
	case SK_SWITCH:
		return plain_str(v->comm, true) && plain_str(v->comm2, true) && plain_str(v->state, true);
	case SK_WAKEUP: case SK_WAKEUP_NEW: case SK_WAKING: case SK_MIGRATE: case SK_EXIT: case SK_STAT_RUNTIME:
		return plain_str(v->comm, false);
	case SK_FORK:
		return plain_str(v->comm, false) && plain_str(v->comm2, false);
	case SK_EXEC: case SK_IRQ_ENTRY:
		return plain_str(v->str, false);
	case SK_IRQ_EXIT: case SK_SOFTIRQ_ENTRY: case SK_SOFTIRQ_EXIT: case SK_SOFTIRQ_RAISE:
	case SK_TIMER_ENTRY: case SK_TIMER_EXIT: case SK_RESCHED_ENTRY: case SK_RESCHED_EXIT:
		return true;
	default: /* nmi_handler (fields of its own), unknown events (generic text) */
		return false;
	}
}

void sched_trace_state_from_report(uint64_t report, char *buf, size_t size)
{
	static const char flags[] = "SDTtXZPI";
	size_t len = 0;
	int bit;

	buf[0] = '\0';
	if (size < 24)
		return;
	if (!(report & 0xff))
		buf[len++] = 'R';
	for (bit = 0; bit < 8; bit++)
		if (report & (1ULL << bit)) {
			if (len)
				buf[len++] = '|';
			buf[len++] = flags[bit];
		}
	if (report & 0x100)
		buf[len++] = '+';
	buf[len] = '\0';
}

void sched_trace_state_from_raw(uint64_t raw, bool preempt, char *buf, size_t size)
{
	static const char idx[] = "RSDTtXZP";
	uint64_t st = raw & 0x7f;
	int i = 0;

	if (preempt) {
		snprintf(buf, size, "R+");
		return;
	}
	if ((raw & 0x402) == 0x402) { /* TASK_IDLE */
		snprintf(buf, size, "I");
		return;
	}
	if (raw & 0x1000) /* TASK_RTLOCK_WAIT reports as uninterruptible */
		st |= 0x2;
	while (st) {
		i++;
		st >>= 1;
	}
	snprintf(buf, size, "%c", idx[i]);
}

size_t sched_trace_format(enum sched_kind k, const struct sched_vals *v, char *out, size_t size)
{
	const char *sirq;
	int n;

	switch (k) {
	case SK_SWITCH:
		n = snprintf(out, size, "prev_comm=%s prev_pid=%lld prev_prio=%lld prev_state=%s ==> "
			     "next_comm=%s next_pid=%lld next_prio=%lld", v->comm, (long long)v->pid,
			     (long long)v->prio, v->state, v->comm2, (long long)v->pid2, (long long)v->prio2);
		break;
	case SK_WAKEUP: case SK_WAKEUP_NEW: case SK_WAKING:
		n = snprintf(out, size, "comm=%s pid=%lld prio=%lld target_cpu=%03lld", v->comm,
			     (long long)v->pid, (long long)v->prio, (long long)v->a0);
		break;
	case SK_MIGRATE:
		n = snprintf(out, size, "comm=%s pid=%lld prio=%lld orig_cpu=%lld dest_cpu=%lld", v->comm,
			     (long long)v->pid, (long long)v->prio, (long long)v->a0, (long long)v->a1);
		break;
	case SK_EXIT:
		n = snprintf(out, size, "comm=%s pid=%lld prio=%lld%s%s", v->comm, (long long)v->pid,
			     (long long)v->prio, v->has_a0 ? " group_dead=" : "",
			     v->has_a0 ? (v->a0 ? "true" : "false") : "");
		break;
	case SK_EXEC:
		n = snprintf(out, size, "filename=%s pid=%lld old_pid=%lld", v->str, (long long)v->pid,
			     (long long)v->pid2);
		break;
	case SK_FORK:
		n = snprintf(out, size, "comm=%s pid=%lld child_comm=%s child_pid=%lld", v->comm,
			     (long long)v->pid, v->comm2, (long long)v->pid2);
		break;
	case SK_STAT_RUNTIME:
		if (v->has_a1)
			n = snprintf(out, size, "comm=%s pid=%lld runtime=%llu [ns] vruntime=%llu [ns]", v->comm,
				     (long long)v->pid, (unsigned long long)v->a0, (unsigned long long)v->a1);
		else
			n = snprintf(out, size, "comm=%s pid=%lld runtime=%llu [ns]", v->comm, (long long)v->pid,
				     (unsigned long long)v->a0);
		break;
	case SK_IRQ_ENTRY:
		n = snprintf(out, size, "irq=%lld name=%s", (long long)v->a0, v->str);
		break;
	case SK_IRQ_EXIT:
		n = snprintf(out, size, "irq=%lld ret=%s", (long long)v->a0, v->a1 ? "handled" : "unhandled");
		break;
	case SK_SOFTIRQ_ENTRY: case SK_SOFTIRQ_EXIT: case SK_SOFTIRQ_RAISE:
		sirq = sched_trace_softirq_name((uint64_t)v->a0);
		if (sirq)
			n = snprintf(out, size, "vec=%u [action=%s]", (unsigned)v->a0, sirq);
		else
			n = snprintf(out, size, "vec=%u [action=%lld]", (unsigned)v->a0, (long long)v->a0);
		break;
	case SK_NMI:
		if (v->has_a1)
			n = snprintf(out, size, "%s() delta_ns: %lld handled: %lld", v->str, (long long)v->a0,
				     (long long)v->a1);
		else
			n = snprintf(out, size, "%s() delta_ns: %lld", v->str, (long long)v->a0);
		break;
	case SK_TIMER_ENTRY: case SK_TIMER_EXIT: case SK_RESCHED_ENTRY: case SK_RESCHED_EXIT:
		n = snprintf(out, size, "vector=%lld", (long long)v->a0);
		break;
	default:
		n = snprintf(out, size, "%s", v->str);
		break;
	}
	if (n < 0)
		n = 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}
