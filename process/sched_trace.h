/*
 * sched_trace.h - perf's trace text of the scheduling tracepoints, made from
 * decoded values, shared by the perf.sched.data and sched.data input paths.
 * The formats are the tracefs print fmts of Linux 6.x, e.g. sched_switch:
 *   prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s
 *   next_pid=%d next_prio=%d
 * Task states print as the kernel's tracepoint does ("R", "S", "D", "I",
 * "R+" when preempted, "S|D" if several report bits are set).
 */
#ifndef SCX_SCHED_TRACE_H
#define SCX_SCHED_TRACE_H

#include <stdbool.h>
#include <stddef.h>
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

enum sched_kind sched_trace_kind_of(const char *system, const char *name);
/* Write the trace text; returns its length (truncated to size - 1). */
size_t sched_trace_format(enum sched_kind k, const struct sched_vals *v, char *out, size_t size);
/* "HI", "TIMER", ... "RCU"; NULL for other vectors. */
const char *sched_trace_softirq_name(uint64_t vec);
/* The values of trace text of kind k (the kinds of a Perfetto trace:
 * switch, waking, wakeup_new, irq/softirq/local-timer entry and exit);
 * false for other kinds or text that does not parse. */
bool sched_trace_vals_from_text(enum sched_kind k, const char *trace, size_t len, struct sched_vals *v);
/* prev_state as the tracepoint reports it (TASK_REPORT bits, 0x100 = preempted). */
void sched_trace_state_from_report(uint64_t report, char *buf, size_t size);
/* prev_state from the raw task->__state bits and the preempt flag (sched.data). */
void sched_trace_state_from_raw(uint64_t raw, bool preempt, char *buf, size_t size);

#endif
