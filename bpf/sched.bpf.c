// SPDX-License-Identifier: GPL-2.0
/*
 * sched.bpf.c - kernel side of the scheduling stream (userspace:
 * record/sched_stream.c; record layout: bpf/sched.h; file format:
 * schemas/sched-data.md).
 *
 * One tp_btf program per tracepoint: scheduler (switch, wakeups, migration,
 * process exit/exec/fork), hardware irqs, softirqs, NMI handlers and the
 * local APIC timer. Each hit becomes one fixed-size struct sched_record,
 * gathered in a per-CPU batch and handed SCHED_BATCH at a time to a BPF ring
 * buffer shared by all CPUs (size set by userspace from --sched-ring-sz);
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
#include "bpf/sched.h"

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
 * Records are gathered per CPU and handed to the shared ring SCHED_BATCH at
 * a time: one ring reservation (a lock shared by every CPU) per batch instead
 * of per record. A program that interrupts another one on the same CPU (an
 * NMI, or an irq during a wakeup of current) finds the batch busy and writes
 * its record straight to the ring. Userspace reads the partial batches left
 * at the end from this map (after detaching), so nothing is lost; the file is
 * therefore ordered per batch, not by time (schemas/sched-data.md).
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

/* Where a record of `type` is being built: a slot of this CPU's batch, or
 * (nested) a ring reservation. */
struct rec_slot {
	struct sched_record *r;
	struct sched_batch *b; /* NULL: r is a ring reservation */
};

/* A zeroed record of `type`, stamped, with the cpu set; r NULL (counted)
 * when the ring is full. */
static __always_inline struct rec_slot rec_new(__u16 type)
{
	struct rec_slot s = {};
	__u32 zero = 0, n;
	struct sched_batch *b = bpf_map_lookup_elem(&sched_batches, &zero);

	if (b && !b->busy) {
		b->busy = 1;
		asm volatile("" ::: "memory");
		n = b->n;
		if (n < SCHED_BATCH) {
			s.b = b;
			s.r = &b->rec[n];
		} else {
			b->busy = 0;
		}
	}
	if (!s.r) {
		s.r = bpf_ringbuf_reserve(&sched_ring, sizeof(*s.r), 0);
		if (!s.r) {
			count_drops(1, type);
			return s;
		}
	}
	__builtin_memset(s.r, 0, sizeof(*s.r));
	s.r->timestamp = bpf_ktime_get_ns();
	s.r->cpu = bpf_get_smp_processor_id();
	s.r->type = type;
	return s;
}

static __always_inline void submit(struct rec_slot s)
{
	struct sched_batch *b = s.b;
	__u32 n;

	if (!b) {
		bpf_ringbuf_submit(s.r, wake_flag());
		return;
	}
	n = b->n + 1;
	if (n >= SCHED_BATCH) {
		if (bpf_ringbuf_output(&sched_ring, b->rec, sizeof(b->rec), wake_flag()))
			count_drops(SCHED_BATCH, 0);
		n = 0;
	}
	b->n = n;
	asm volatile("" ::: "memory");
	b->busy = 0;
}

static __always_inline void task1(struct sched_record *r, struct task_struct *t)
{
	r->pid = t->pid;
	r->tgid = t->tgid;
	r->prio = t->prio;
	__builtin_memcpy(r->comm, t->comm, sizeof(r->comm));
}

static __always_inline void task2(struct sched_record *r, struct task_struct *t)
{
	r->pid2 = t->pid;
	r->tgid2 = t->tgid;
	r->prio2 = t->prio;
	__builtin_memcpy(r->comm2, t->comm, sizeof(r->comm2));
}

/* the task running on this cpu (interrupted by an irq) */
static __always_inline void current1(struct sched_record *r)
{
	task1(r, bpf_get_current_task_btf());
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
	s.r->arg1 = preempt;
	submit(s);
	return 0;
}

static __always_inline int on_wake(__u16 type, struct task_struct *p)
{
	struct rec_slot s = rec_new(type);

	if (!s.r)
		return 0;
	task1(s.r, p);
	task2(s.r, bpf_get_current_task_btf()); /* perf's sample task */
	s.r->arg0 = p->thread_info.cpu; /* task_cpu(p), as the tracepoint's target_cpu */
	submit(s);
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
	struct rec_slot s = rec_new(SCHED_MIGRATE_TASK);

	if (!s.r)
		return 0;
	task1(s.r, p);
	task2(s.r, bpf_get_current_task_btf());
	s.r->arg0 = (__u32)dest_cpu;
	s.r->arg1 = BPF_CORE_READ(p, thread_info.cpu);
	submit(s);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_process_exit, struct task_struct *p, bool group_dead)
{
	struct rec_slot s = rec_new(SCHED_PROCESS_EXIT);

	if (!s.r)
		return 0;
	task1(s.r, p);
	s.r->arg0 = group_dead;
	submit(s);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_process_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct rec_slot s = rec_new(SCHED_PROCESS_EXEC);

	if (!s.r)
		return 0;
	task1(s.r, p);
	s.r->pid2 = old_pid;
	submit(s);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	struct rec_slot s = rec_new(SCHED_PROCESS_FORK);

	if (!s.r)
		return 0;
	task1(s.r, parent);
	task2(s.r, child);
	submit(s);
	return 0;
}

static __always_inline int on_irq(__u16 type, int irq, struct irqaction *action, __u64 arg1)
{
	struct rec_slot s = rec_new(type);

	if (!s.r)
		return 0;
	current1(s.r);
	s.r->arg0 = (__u32)irq;
	s.r->arg1 = arg1;
	if (action)
		bpf_probe_read_kernel_str(s.r->comm2, sizeof(s.r->comm2), BPF_CORE_READ(action, name));
	submit(s);
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(irq_handler_entry, int irq, struct irqaction *action)
{
	return on_irq(IRQ_HANDLER_ENTRY, irq, action, (__u64)BPF_CORE_READ(action, handler));
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(irq_handler_exit, int irq, struct irqaction *action, int ret)
{
	return on_irq(IRQ_HANDLER_EXIT, irq, action, (__u32)ret);
}

static __always_inline int on_vec(__u16 type, __u64 vec, __u64 arg1)
{
	struct rec_slot s = rec_new(type);

	if (!s.r)
		return 0;
	current1(s.r);
	s.r->arg0 = vec;
	s.r->arg1 = arg1;
	submit(s);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(softirq_entry, unsigned int vec)
{
	return on_vec(SOFTIRQ_ENTRY, vec, 0);
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(softirq_exit, unsigned int vec)
{
	return on_vec(SOFTIRQ_EXIT, vec, 0);
}

SEC("tp_btf/nmi_handler")
int BPF_PROG(nmi_handler, void *handler, s64 delta_ns, int handled)
{
	return on_vec(NMI_HANDLER, (__u64)delta_ns, (__u64)handler);
}

SEC("tp_btf/local_timer_entry")
int BPF_PROG(local_timer_entry, int vector)
{
	return on_vec(LOCAL_TIMER_ENTRY, (__u32)vector, 0);
}

SEC("tp_btf/local_timer_exit")
int BPF_PROG(local_timer_exit, int vector)
{
	return on_vec(LOCAL_TIMER_EXIT, (__u32)vector, 0);
}
