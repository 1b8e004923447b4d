/*
 * sched.h - the scheduling-stream record shared by bpf/sched.bpf.c (kernel
 * side), record/sched_stream.c (writes sched.data) and the sched.data reader
 * in process/. The file format around it is in schemas/sched-data.md.
 *
 * One record is one tracepoint hit, fixed size (SCHED_RECORD_SIZE = 88 bytes),
 * naturally aligned with explicit padding, little endian, written to
 * sched.data byte for byte as the BPF program filled it. Fields a record type
 * does not use are 0 (comm fields: all NUL). Per type:
 *
 *   type                     pid/tgid/comm/prio    pid2/tgid2/comm2/prio2   arg0            arg1
 *   SCHED_SWITCH             prev task             next task                prev_state (1)  preempt (0/1)
 *   SCHED_WAKEUP             woken task            current task             target cpu      -
 *   SCHED_WAKEUP_NEW         woken (new) task      current task             target cpu      -
 *   SCHED_WAKING             task being woken      current task             target cpu      -
 *   SCHED_MIGRATE_TASK       migrating task        current task             dest cpu        orig cpu
 *   SCHED_PROCESS_EXIT       exiting task          -                        group_dead(0/1) -
 *   SCHED_PROCESS_EXEC       task after exec       - (pid2: old_pid)        -               -
 *   SCHED_PROCESS_FORK       parent                child                    -               -
 *   IRQ_HANDLER_ENTRY        interrupted task      - (comm2: action name)   irq number      handler address
 *   IRQ_HANDLER_EXIT         interrupted task      - (comm2: action name)   irq number      ret (IRQ_NONE 0, IRQ_HANDLED 1, ...)
 *   SOFTIRQ_ENTRY            interrupted task      -                        vector (0..9)   -
 *   SOFTIRQ_EXIT             interrupted task      -                        vector          -
 *   NMI_HANDLER              interrupted task      -                        duration ns     handler address
 *   LOCAL_TIMER_ENTRY        interrupted task      -                        vector          -
 *   LOCAL_TIMER_EXIT         interrupted task      -                        vector          -
 *
 * "Interrupted task" and "current task" are whatever ran on the cpu (pid 0 /
 * comm "swapper/N": the idle task): the task perf reports as the sample's.
 * Recordings before the current task was added have an empty comm2 there. prio is the kernel's task->prio (0..139, lower is more
 * important; 100..139 are the nice levels -20..19). (1) prev_state is the
 * previous task's state bits as __schedule read them, OR its exit_state (the
 * two the tracepoint's own prev_state is computed from: an exiting task
 * reports Z); 0: it was preempted while runnable. The NMI tracepoint (nmi_handler) fires once per handler after
 * it ran, with its duration: there is no separate entry/exit.
 */
#ifndef SCX_BPF_SCHED_H
#define SCX_BPF_SCHED_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define SCHED_COMM_LEN 16

/* Records per per-CPU batch (bpf/sched.bpf.c); not part of the file format. */
#define SCHED_BATCH 64

/* Record types: one per tracepoint. Values are part of the file format. */
enum sched_record_type {
	SCHED_SWITCH = 1,
	SCHED_WAKEUP = 2,
	SCHED_WAKEUP_NEW = 3,
	SCHED_WAKING = 4,
	SCHED_MIGRATE_TASK = 5,
	SCHED_PROCESS_EXIT = 6,
	SCHED_PROCESS_EXEC = 7,
	SCHED_PROCESS_FORK = 8,
	IRQ_HANDLER_ENTRY = 9,
	IRQ_HANDLER_EXIT = 10,
	SOFTIRQ_ENTRY = 11,
	SOFTIRQ_EXIT = 12,
	NMI_HANDLER = 13,
	LOCAL_TIMER_ENTRY = 14,
	LOCAL_TIMER_EXIT = 15,
	SCHED_RECORD_TYPE_MAX = 15,
};

struct sched_record {
	__u64 timestamp;            /*  0: bpf_ktime_get_ns(), CLOCK_MONOTONIC ns */
	__u32 cpu;                  /*  8: cpu the tracepoint fired on */
	__u16 type;                 /* 12: enum sched_record_type */
	__u16 pad;                  /* 14: 0 */
	__u32 pid;                  /* 16: thread id of the first task */
	__u32 tgid;                 /* 20: its process id */
	__u32 pid2;                 /* 24: thread id of the second task */
	__u32 tgid2;                /* 28: its process id */
	__s32 prio;                 /* 32: task->prio of the first task */
	__s32 prio2;                /* 36: task->prio of the second task */
	__u64 arg0;                 /* 40: per type, see above */
	__u64 arg1;                 /* 48: per type, see above */
	char comm[SCHED_COMM_LEN];  /* 56: first task's comm, NUL padded */
	char comm2[SCHED_COMM_LEN]; /* 72: second task's comm (irqs: action name) */
};                                  /* 88 bytes */

#define SCHED_RECORD_SIZE 88

/* One CPU's records not yet in the ring (bpf/sched.bpf.c, value of the
 * per-CPU map sched_batches; userspace reads what is left at the end). Not
 * part of the file format. */
struct sched_batch {
	__u32 busy; /* a program on this CPU is filling a record */
	__u32 n;    /* records filled, in rec[0..n) */
	__u64 pad;
	struct sched_record rec[SCHED_BATCH];
};

/* sched.data file header (schemas/sched-data.md). */
#define SCHED_DATA_MAGIC "SCXSCHED" /* 8 bytes, no NUL */
#define SCHED_DATA_VERSION 1
#define SCHED_DATA_HEADER_SIZE 64

struct sched_data_header {
	char magic[8];       /*  0: "SCXSCHED" */
	__u32 version;       /*  8: SCHED_DATA_VERSION */
	__u32 header_size;   /* 12: 64: records start at this offset */
	__u32 clock_id;      /* 16: 1 = CLOCK_MONOTONIC (timestamps) */
	__u32 record_size;   /* 20: 88 = sizeof(struct sched_record) */
	__u64 start_ns;      /* 24: CLOCK_MONOTONIC just before attaching: no record is older */
	__u32 nr_cpus;       /* 32: possible cpus of the recording host */
	__u32 type_max;      /* 36: highest record type this writer emits */
	__u8 reserved[24];   /* 40: 0 */
};                           /* 64 bytes */

#endif
