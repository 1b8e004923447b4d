// SPDX-License-Identifier: GPL-2.0
/*
 * sched.bpf.c - kernel side of the scheduling stream (userspace:
 * record/streams/sched_stream.c; record layout: lib/sched_data_format.h; batch:
 * bpf/sched_batch.h; file format: schemas/sched-data.md).
 *
 * One tp_btf program per tracepoint: scheduler (switch, wakeups, migration,
 * process exit/exec/fork), hardware irqs, softirqs, NMI handlers and the
 * local APIC timer. Each hit becomes one packed record (struct sched_packed_rec and
 * the optional fields it needs), gathered in a per-CPU chunk and handed
 * SCHED_BATCH at a time to a BPF ring buffer shared by all CPUs (size set by
 * userspace from --sched-ring-sz);
 * records that do not fit are counted in `dropped`. Task fields are direct
 * BTF loads (tp_btf arguments are trusted pointers), not probe reads: this
 * and the batching are what keep the cost per event low (bench/bench_sched).
 * Userspace disables autoload of programs whose tracepoint the kernel's BTF
 * lacks (btf_trace_NAME), so this object loads on kernels without e.g.
 * nmi_handler or local_timer_entry (non-x86).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf/sched_batch.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by userspace before load: wake the reader only once this many bytes
 * wait in the ring. Waking it on every record would feed back (each wakeup
 * is two context switches, i.e. two more records); userspace drains on a
 * short timer anyway. */
const volatile __u64 wakeup_bytes = 1 << 20;

/* Bytes waiting in the ring at the last batch handed over: read by
 * userspace while recording (record/yield_prio.c's watchdog). */
__u64 ring_avail = 0;

/* Read by userspace at the end. */
__u64 dropped = 0;     /* records lost to a full ring buffer */
__u64 dropped_nmi = 0; /* of those, NMI records: in NMI context a reservation
			* also fails when the interrupted code held the ring's lock */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20); /* userspace sets --sched-ring-sz */
} sched_ring SEC(".maps");

/*
 * Records are gathered per CPU into a chunk (schemas/sched-data.md, version
 * 2) and handed to the shared ring SCHED_BATCH at a time: one ring
 * reservation (a lock shared by every CPU) per batch instead of per record.
 * Records are packed: only the fields a type uses, and a task's comm is
 * written once per chunk; later records of the same task refer to that copy
 * (comm_at: per pid slot, checked against the bytes, so a stale or clashing
 * slot only costs a copy). Fewer bytes is most of what keeps this cheap: the
 * copy into the ring and the write to disk scale with them (bench/bench_sched).
 * A program that interrupts another one on the same CPU (an NMI, or an irq
 * during a wakeup of current) finds the batch busy and writes its record as
 * a chunk of its own straight to the ring. Userspace reads the partial
 * batches left at the end from this map (after detaching), so nothing is
 * lost; the file is therefore ordered per chunk, not by time.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sched_batch);
} sched_batches SEC(".maps");

static __always_inline void count_drops(__u64 n, __u16 type)
{
	__sync_fetch_and_add(&dropped, n);
	if (type == NMI_HANDLER)
		__sync_fetch_and_add(&dropped_nmi, 1);
}

static __always_inline __u64 wake_flag(void)
{
	__u64 avail = bpf_ringbuf_query(&sched_ring, BPF_RB_AVAIL_DATA);

	ring_avail = avail;
	return avail >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* A nested record: a chunk of one in a ring reservation of this size. */
#define SOLO_SIZE (SCHED_CHUNK_HEADER_SIZE + SCHED_PACKED_MAX)
/* Where a record may start in a batch's buf: all optional fields fit. */
#define BATCH_LAST_AT (SCHED_CHUNK_CAP - SCHED_PACKED_MAX)

/* Where a record of `type` is being built. */
struct rec_slot {
	struct sched_packed_rec *r;
	__u8 *chunk;           /* the chunk r is in */
	struct sched_batch *b; /* NULL: chunk is a ring reservation of SOLO_SIZE */
	__u64 at;              /* offset of r in chunk */
	__u64 len;             /* bytes of r so far (SCHED_PACKED_BASE + optional) */
};

/* A record of `type`, stamped, cpu set, other base fields 0; r NULL
 * (counted) when the ring is full. */
static __always_inline struct rec_slot rec_new(__u16 type)
{
	struct rec_slot s = {};
	__u32 zero = 0;
	__u64 at;
	struct sched_batch *b = bpf_map_lookup_elem(&sched_batches, &zero);

	/* no race on the slot: a program does not nest in itself (the kernel's
	 * recursion guard), and each type has one program */
	if (b)
		b->hits[type]++;
	if (b && !b->busy) {
		b->busy = 1;
		asm volatile("" ::: "memory");
		at = b->len;
		if (at < SCHED_CHUNK_HEADER_SIZE)
			at = SCHED_CHUNK_HEADER_SIZE;
		if (at <= BATCH_LAST_AT && b->n < SCHED_BATCH) {
			s.b = b;
			s.chunk = b->buf;
			s.at = at;
			s.r = (struct sched_packed_rec *)(b->buf + at);
		} else {
			b->busy = 0; /* cannot happen: full batches are handed over */
		}
	}
	if (!s.r) {
		s.chunk = bpf_ringbuf_reserve(&sched_ring, SOLO_SIZE, 0);
		if (!s.chunk) {
			count_drops(1, type);
			return s;
		}
		s.at = SCHED_CHUNK_HEADER_SIZE;
		s.r = (struct sched_packed_rec *)(s.chunk + SCHED_CHUNK_HEADER_SIZE);
	}
	__builtin_memset(s.r, 0, SCHED_PACKED_BASE);
	s.r->timestamp = bpf_ktime_get_ns();
	s.r->cpu = bpf_get_smp_processor_id();
	s.r->type = type;
	s.len = SCHED_PACKED_BASE;
	return s;
}

/* Append an optional u64 (arg0 or arg1, flag says which); before any comm. */
static __always_inline void put_u64(struct rec_slot *s, __u8 flag, __u64 v)
{
	__u64 off = s->len;

	if (off > SCHED_PACKED_BASE + 8)
		return;
	*(__u64 *)((__u8 *)s->r + off) = v;
	s->r->flags |= flag;
	s->len = off + 8;
}

/* The comm of task t: a reference to an equal copy earlier in this batch's
 * chunk, else appended. which: 1 comm, 2 comm2 (after comm). */
static __always_inline void put_comm(struct rec_slot *s, struct task_struct *t, int which)
{
	/* two 8-byte loads: comm is 8-aligned in task_struct, and read through
	 * t the compiler knows it (through a char pointer it loads bytes) */
	__u64 c0 = *(__u64 *)&t->comm[0], c1 = *(__u64 *)&t->comm[8], off = s->len, ref;
	__u32 pid = t->pid;
	__u8 *dst;

	if (s->b) {
		ref = s->b->comm_at[pid & (SCHED_COMM_SLOTS - 1)];
		if (ref >= SCHED_CHUNK_HEADER_SIZE && ref + SCHED_COMM_LEN <= s->at && ref <= BATCH_LAST_AT &&
		    *(__u64 *)(s->b->buf + ref) == c0 && *(__u64 *)(s->b->buf + ref + 8) == c1) {
			if (which == 1)
				s->r->comm_ref = ref;
			else
				s->r->comm2_ref = ref;
			return;
		}
	}
	if (off > SCHED_PACKED_MAX - SCHED_COMM_LEN)
		return;
	dst = (__u8 *)s->r + off;
	*(__u64 *)dst = c0;
	*(__u64 *)(dst + 8) = c1;
	s->r->flags |= which == 1 ? SCHED_F_COMM : SCHED_F_COMM2;
	if (s->b)
		s->b->comm_at[pid & (SCHED_COMM_SLOTS - 1)] = s->at + off;
	s->len = off + SCHED_COMM_LEN;
}

static __always_inline void submit(struct rec_slot *s)
{
	struct sched_batch *b = s->b;
	struct sched_chunk_header *h = (struct sched_chunk_header *)s->chunk;
	__u64 len;
	__u32 n;

	if (!b) {
		h->size = SCHED_CHUNK_HEADER_SIZE + s->len;
		h->cpu = s->r->cpu;
		h->nrec = 1;
		bpf_ringbuf_submit(s->chunk, wake_flag());
		return;
	}
	len = s->at + s->len;
	n = b->n + 1;
	if (n >= SCHED_BATCH || len > BATCH_LAST_AT) {
		if (len > SCHED_CHUNK_CAP)
			len = SCHED_CHUNK_CAP;
		h->size = len;
		h->cpu = s->r->cpu;
		h->nrec = n;
		if (bpf_ringbuf_output(&sched_ring, b->buf, len, wake_flag()))
			count_drops(n, 0);
		n = 0;
		len = SCHED_CHUNK_HEADER_SIZE;
	}
	b->n = n;
	b->len = len;
	asm volatile("" ::: "memory");
	b->busy = 0;
}

/* The first task: base fields now, comm with put_comm after any u64. */
static __always_inline void task1(struct sched_packed_rec *r, struct task_struct *t)
{
	r->pid = t->pid;
	r->tgid = t->tgid;
	r->prio = t->prio;
}

static __always_inline void task2(struct sched_packed_rec *r, struct task_struct *t)
{
	r->pid2 = t->pid;
	r->tgid2 = t->tgid;
	r->prio2 = t->prio;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct rec_slot s = rec_new(SCHED_SWITCH);

	if (!s.r)
		return 0;
	task1(s.r, prev);
	task2(s.r, next);
	/* the tracepoint reports (__state | exit_state): an exiting task is Z */
	s.r->arg0 = prev_state | prev->exit_state;
	if (preempt)
		s.r->flags |= SCHED_F_PREEMPT;
	put_comm(&s, prev, 1);
	put_comm(&s, next, 2);
	submit(&s);
	return 0;
}

static __always_inline int on_wake(__u16 type, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf(); /* perf's sample task */
	struct rec_slot s = rec_new(type);

	if (!s.r)
		return 0;
	task1(s.r, p);
	task2(s.r, cur);
	s.r->arg0 = p->thread_info.cpu; /* task_cpu(p), as the tracepoint's target_cpu */
	put_comm(&s, p, 1);
	put_comm(&s, cur, 2);
	submit(&s);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(sched_wakeup, struct task_struct *p)
{
	return on_wake(SCHED_WAKEUP, p);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(sched_wakeup_new, struct task_struct *p)
{
	return on_wake(SCHED_WAKEUP_NEW, p);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(sched_waking, struct task_struct *p)
{
	return on_wake(SCHED_WAKING, p);
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(sched_migrate_task, struct task_struct *p, int dest_cpu)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct rec_slot s = rec_new(SCHED_MIGRATE_TASK);

	if (!s.r)
		return 0;
	task1(s.r, p);
	task2(s.r, cur);
	s.r->arg0 = (__u32)dest_cpu;
	put_u64(&s, SCHED_F_ARG1, BPF_CORE_READ(p, thread_info.cpu));
	put_comm(&s, p, 1);
	put_comm(&s, cur, 2);
	submit(&s);
	return 0;
}

/* Records about one task p and numbers (exit: arg0, exec: pid2; 0 where unused, as the base is zeroed). */
static __always_inline int on_task(__u16 type, struct task_struct *p, __u32 arg0, __u32 pid2)
{
	struct rec_slot s = rec_new(type);

	if (!s.r)
		return 0;
	task1(s.r, p);
	s.r->arg0 = arg0;
	s.r->pid2 = pid2;
	put_comm(&s, p, 1);
	submit(&s);
	return 0;
}

/*
 * The tracepoint's group_dead argument exists only since Linux 6.16; the
 * verifier refuses a program that reads it on older kernels (Debian 12's
 * 6.1: "func 'sched_process_exit' doesn't have 2-th argument"). do_exit()
 * computes it as atomic_dec_and_test(&tsk->signal->live) before the
 * tracepoint on every kernel, so the count it leaves is the same answer.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_process_exit, struct task_struct *p)
{
	return on_task(SCHED_PROCESS_EXIT, p, BPF_CORE_READ(p, signal, live.counter) == 0, 0);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_process_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	return on_task(SCHED_PROCESS_EXEC, p, 0, (__u32)old_pid);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	struct rec_slot s = rec_new(SCHED_PROCESS_FORK);

	if (!s.r)
		return 0;
	task1(s.r, parent);
	task2(s.r, child);
	put_comm(&s, parent, 1);
	put_comm(&s, child, 2);
	submit(&s);
	return 0;
}

/* Records about the interrupted task: base fields, u64 arg1 when has_arg1;
 * the caller appends the rest and submits. */
static __always_inline struct rec_slot on_current(__u16 type, __u32 arg0, bool has_arg1, __u64 arg1)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct rec_slot s = rec_new(type);

	if (!s.r)
		return s;
	task1(s.r, cur);
	s.r->arg0 = arg0;
	if (has_arg1)
		put_u64(&s, SCHED_F_ARG1, arg1);
	put_comm(&s, cur, 1);
	return s;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(irq_handler_entry, int irq, struct irqaction *action)
{
	struct rec_slot s = on_current(IRQ_HANDLER_ENTRY, (__u32)irq, true, (__u64)BPF_CORE_READ(action, handler));
	__u64 off = s.len;

	if (!s.r)
		return 0;
	/* comm2: the action's name */
	if (action && off <= SCHED_PACKED_MAX - SCHED_COMM_LEN) {
		__u8 *dst = (__u8 *)s.r + off;

		*(__u64 *)dst = 0;
		*(__u64 *)(dst + 8) = 0;
		bpf_probe_read_kernel_str(dst, SCHED_COMM_LEN, BPF_CORE_READ(action, name));
		s.r->flags |= SCHED_F_COMM2;
		s.len = off + SCHED_COMM_LEN;
	}
	submit(&s);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(irq_handler_exit, int irq, struct irqaction *action, int ret)
{
	struct rec_slot s = on_current(IRQ_HANDLER_EXIT, (__u32)irq, ret != 0, (__u32)ret);

	if (s.r)
		submit(&s);
	return 0;
}

static __always_inline int on_vec(__u16 type, __u32 vec)
{
	struct rec_slot s = on_current(type, vec, false, 0);

	if (s.r)
		submit(&s);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(softirq_entry, unsigned int vec)
{
	return on_vec(SOFTIRQ_ENTRY, vec);
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(softirq_exit, unsigned int vec)
{
	return on_vec(SOFTIRQ_EXIT, vec);
}

SEC("tp_btf/nmi_handler")
int BPF_PROG(nmi_handler, void *handler, s64 delta_ns, int handled)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct rec_slot s = rec_new(NMI_HANDLER);

	if (!s.r)
		return 0;
	task1(s.r, cur);
	put_u64(&s, SCHED_F_ARG0_64, (__u64)delta_ns);
	put_u64(&s, SCHED_F_ARG1, (__u64)handler);
	put_comm(&s, cur, 1);
	submit(&s);
	return 0;
}

SEC("tp_btf/local_timer_entry")
int BPF_PROG(local_timer_entry, int vector)
{
	return on_vec(LOCAL_TIMER_ENTRY, (__u32)vector);
}

SEC("tp_btf/local_timer_exit")
int BPF_PROG(local_timer_exit, int vector)
{
	return on_vec(LOCAL_TIMER_EXIT, (__u32)vector);
}
