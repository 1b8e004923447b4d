/*
 * sched_vals.h - one decoded scheduling record: its kind and values, as
 * process's sched readers (process/sched/sched_decode.h: the trace text made from
 * them) hand it to the sched sink and to the Perfetto trace
 * (lib/pftrace/perfetto_sched.h). Types only: they live in lib/ so that the
 * trace writer needs nothing from process/.
 */
#ifndef SCX_SCHED_VALS_H
#define SCX_SCHED_VALS_H

#include <stdbool.h>
#include <stdint.h>

enum sched_kind {
	SK_UNKNOWN = 0,
	SK_SWITCH, SK_WAKEUP, SK_WAKEUP_NEW, SK_WAKING, SK_MIGRATE,
	SK_EXIT, SK_EXEC, SK_FORK, SK_STAT_RUNTIME,
	SK_IRQ_ENTRY, SK_IRQ_EXIT, SK_SOFTIRQ_ENTRY, SK_SOFTIRQ_EXIT, SK_SOFTIRQ_RAISE,
	SK_NMI, SK_TIMER_ENTRY, SK_TIMER_EXIT, SK_RESCHED_ENTRY, SK_RESCHED_EXIT,
};

/*
 * Values by kind (comm/pid/prio = first task, comm2/pid2/prio2 = second):
 *   SWITCH: prev, next, state;  WAKEUP, WAKEUP_NEW, WAKING: task, a0 = target cpu;
 *   MIGRATE: task, a0 = orig cpu, a1 = dest cpu;  EXIT: task, a0 = group_dead (has_a0);
 *   EXEC: str = filename, pid, pid2 = old_pid;  FORK: parent, child;
 *   STAT_RUNTIME: task, a0 = runtime, a1 = vruntime (has_a1);
 *   IRQ_*: a0 = irq, str = name (entry), a1 = ret (exit);  SOFTIRQ_*: a0 = vec;
 *   NMI: str = handler, a0 = delta_ns, a1 = handled (has_a1);  TIMER/RESCHED: a0 = vector.
 */
struct sched_vals {
	char comm[64], comm2[64];
	char str[256];
	char state[32];
	int64_t pid, pid2, prio, prio2, a0, a1;
	bool has_a0, has_a1;
};

#endif
