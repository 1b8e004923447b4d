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

#include "lib/sched_vals.h"

enum sched_kind sched_trace_kind_of(const char *system, const char *name);
/* Write the trace text; returns its length (truncated to size - 1). */
size_t sched_trace_format(enum sched_kind k, const struct sched_vals *v, char *out, size_t size);
/*
 * Does the text of v (kind k) parse back to v, field for field, by
 * sched.jsonl's rules (process/sched/sched_jsonl.h: sched_switch's fields, the
 * key=value tokens of the others)? True for the kinds sched_trace_format
 * prints as key=value pairs (not nmi_handler nor an unknown event) when
 * every string it prints is ASCII without '=' (no key can hide in it) and,
 * but in a sched_switch (whose comms end at the next key), without ' '.
 * Then the text need not be made to know its fields (sched_jsonl_fields_of,
 * sched_jsonl_switch_of).
 */
bool sched_trace_plain(enum sched_kind k, const struct sched_vals *v);
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
