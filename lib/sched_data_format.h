/*
 * sched_data_format.h - the sched.data file format: its header, record
 * types and record layouts (versions 1 and 2), shared by the recorder's BPF
 * program (bpf/sched_batch.h, bpf/sched.bpf.c: the kernel side fills version 2
 * chunks), record/streams/sched_stream.c (writes sched.data) and the reader in
 * process/sched/sched_data.c. The prose around it is schemas/sched-data.md.
 *
 * Header only and BPF-safe: fixed-width kernel types (__u32, ...) from
 * <linux/types.h>, or from vmlinux.h when a BPF program included that first;
 * no libc header.
 *
 * One record is one tracepoint hit. struct sched_record (88 bytes, naturally
 * aligned, little endian) holds all of its fields: it is the record of
 * sched.data version 1 and what readers decode either version into; version
 * 2, what record writes, stores the same fields packed into chunks (struct
 * sched_packed_rec, below). Fields a record type does not use are 0 (comm fields:
 * all NUL). Per type:
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
#ifndef SCX_SCHED_DATA_FORMAT_H
#define SCX_SCHED_DATA_FORMAT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define SCHED_COMM_LEN 16

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

/*
 * sched.data version 2 (what record writes; version 1 files, a bare array of
 * struct sched_record, are still read): chunks, each a struct
 * sched_chunk_header and `nrec` variable-size records of one CPU. A record is
 * struct sched_packed_rec (the same fields as struct sched_record, narrower) and
 * then, in this order, only the optional fields its flags say are there:
 * arg0 as a u64 (SCHED_F_ARG0_64, else the u32 in the base is arg0), arg1
 * (SCHED_F_ARG1, else 0; SCHED_F_PREEMPT is arg1 = 1 of a sched_switch), comm
 * (SCHED_F_COMM) and comm2 (SCHED_F_COMM2), 16 bytes each. A comm that is not
 * there is either the 16 bytes at comm_ref (comm2_ref) from the start of the
 * same chunk, an earlier copy of the same name, or, when the ref is 0, empty.
 * Every record and every chunk is a multiple of 8 bytes long.
 */
struct sched_chunk_header {
	__u32 size; /* 0: bytes of the chunk, this header included */
	__u16 cpu;  /* 4: cpu all its records are from */
	__u16 nrec; /* 6: records in it */
};              /* 8 bytes */

#define SCHED_CHUNK_HEADER_SIZE 8

struct sched_packed_rec {
	__u64 timestamp; /*  0: as in struct sched_record */
	__u8 type;       /*  8: enum sched_record_type */
	__u8 flags;      /*  9: SCHED_F_* */
	__u16 cpu;       /* 10 */
	__u16 comm_ref;  /* 12: without SCHED_F_COMM: where in the chunk comm is, 0: empty */
	__u16 comm2_ref; /* 14: the same for comm2 */
	__u32 pid;       /* 16 */
	__u32 tgid;      /* 20 */
	__u32 pid2;      /* 24 */
	__u32 tgid2;     /* 28 */
	__s16 prio;      /* 32 */
	__s16 prio2;     /* 34 */
	__u32 arg0;      /* 36: arg0, unless SCHED_F_ARG0_64 */
};                       /* 40 bytes, then the optional fields */

#define SCHED_PACKED_BASE 40
#define SCHED_PACKED_MAX (SCHED_PACKED_BASE + 8 + 8 + 2 * SCHED_COMM_LEN) /* 88 */

#define SCHED_F_ARG0_64 0x01 /* a u64 arg0 follows (the base's arg0 is 0) */
#define SCHED_F_ARG1 0x02    /* a u64 arg1 follows */
#define SCHED_F_COMM 0x04    /* comm follows */
#define SCHED_F_COMM2 0x08   /* comm2 follows */
#define SCHED_F_PREEMPT 0x10 /* sched_switch: arg1 (preempt) = 1 */
#define SCHED_F_ALL 0x1f

/* sched.data file header (schemas/sched-data.md). */
#define SCHED_DATA_MAGIC "SCXSCHED" /* 8 bytes, no NUL */
#define SCHED_DATA_VERSION 2 /* written; 1 is still read */
#define SCHED_DATA_HEADER_SIZE 64

struct sched_data_header {
	char magic[8];       /*  0: "SCXSCHED" */
	__u32 version;       /*  8: SCHED_DATA_VERSION */
	__u32 header_size;   /* 12: 64: records start at this offset */
	__u32 clock_id;      /* 16: 1 = CLOCK_MONOTONIC (timestamps) */
	__u32 record_size;   /* 20: version 1: 88 = sizeof(struct sched_record); 2: 0 (chunks) */
	__u64 start_ns;      /* 24: CLOCK_MONOTONIC just before attaching: no record is older */
	__u32 nr_cpus;       /* 32: possible cpus of the recording host */
	__u32 type_max;      /* 36: highest record type this writer emits */
	__u8 reserved[24];   /* 40: 0 */
};                           /* 64 bytes */

_Static_assert(sizeof(struct sched_record) == SCHED_RECORD_SIZE, "sched_record layout");
_Static_assert(sizeof(struct sched_chunk_header) == SCHED_CHUNK_HEADER_SIZE, "sched_chunk_header layout");
_Static_assert(sizeof(struct sched_packed_rec) == SCHED_PACKED_BASE, "sched_packed_rec layout");
_Static_assert(sizeof(struct sched_data_header) == SCHED_DATA_HEADER_SIZE, "sched.data header layout");

#endif
