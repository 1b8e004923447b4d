/*
 * hints_event.h - the hint-update event shared by bpf/hints.bpf.c (kernel side) and
 * record/streams/hints_tracer.c (userspace).
 *
 * One event is one observed hint value of one thread: the fentry program emits
 * it to the ring buffer for every update of the scheduler's task-storage map,
 * the iter/task program writes it with bpf_seq_write() for every task that has
 * a value in that map when a snapshot is taken. Userspace turns it into one
 * hints.jsonl line: {"pid":TID,"tgid":TGID,"hints":VALUE,"timestamp":NS}.
 */
#ifndef SCX_BPF_HINTS_H
#define SCX_BPF_HINTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

struct hints_event {
	__u32 pid;       /* thread id of the task whose hint this is */
	__u32 tgid;      /* its process id */
	__u64 hints;     /* first u64 of the task-storage value */
	__u64 timestamp; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC ns */
};

#endif
