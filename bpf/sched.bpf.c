// SPDX-License-Identifier: GPL-2.0
/*
 * sched.bpf.c - kernel side of the scheduling stream (userspace:
 * record/sched_stream.c; record layout: bpf/sched.h; file format:
 * schemas/sched-data.md).
 *
 * One tp_btf program per tracepoint: scheduler (switch, wakeups, migration,
 * process exit/exec/fork), hardware irqs, softirqs, NMI handlers and the
 * local APIC timer. Each hit becomes one fixed-size struct sched_record in a
 * BPF ring buffer shared by all CPUs (size set by userspace from
 * --sched-ring-sz); records that do not fit are counted in `dropped`.
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

/* Read by userspace at the end. */
__u64 dropped = 0;     /* records lost to a full ring buffer */
__u64 dropped_nmi = 0; /* of those, NMI records: in NMI context a reservation
			* also fails when the interrupted code held the ring's lock */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20); /* userspace sets --sched-ring-sz */
} sched_ring SEC(".maps");

/* A zeroed record of `type`, stamped, with the cpu set; NULL (counted) when
 * the ring is full. */
static __always_inline struct sched_record *rec_new(__u16 type)
{
	struct sched_record *r = bpf_ringbuf_reserve(&sched_ring, sizeof(*r), 0);

	if (!r) {
		__sync_fetch_and_add(&dropped, 1);
		if (type == NMI_HANDLER)
			__sync_fetch_and_add(&dropped_nmi, 1);
		return NULL;
	}
	__builtin_memset(r, 0, sizeof(*r));
	r->timestamp = bpf_ktime_get_ns();
	r->cpu = bpf_get_smp_processor_id();
	r->type = type;
	return r;
}

static __always_inline void submit(struct sched_record *r)
{
	__u64 flags = bpf_ringbuf_query(&sched_ring, BPF_RB_AVAIL_DATA) >= wakeup_bytes
			      ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;

	bpf_ringbuf_submit(r, flags);
}

static __always_inline void task1(struct sched_record *r, struct task_struct *t)
{
	r->pid = BPF_CORE_READ(t, pid);
	r->tgid = BPF_CORE_READ(t, tgid);
	r->prio = BPF_CORE_READ(t, prio);
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), &t->comm);
}

static __always_inline void task2(struct sched_record *r, struct task_struct *t)
{
	r->pid2 = BPF_CORE_READ(t, pid);
	r->tgid2 = BPF_CORE_READ(t, tgid);
	r->prio2 = BPF_CORE_READ(t, prio);
	bpf_probe_read_kernel_str(r->comm2, sizeof(r->comm2), &t->comm);
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
	struct sched_record *r = rec_new(SCHED_SWITCH);

	if (!r)
		return 0;
	task1(r, prev);
	task2(r, next);
	r->arg0 = prev_state;
	r->arg1 = preempt;
	submit(r);
	return 0;
}

static __always_inline int on_wake(__u16 type, struct task_struct *p)
{
	struct sched_record *r = rec_new(type);

	if (!r)
		return 0;
	task1(r, p);
	r->arg0 = BPF_CORE_READ(p, thread_info.cpu); /* task_cpu(p), as the tracepoint's target_cpu */
	submit(r);
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
	struct sched_record *r = rec_new(SCHED_MIGRATE_TASK);

	if (!r)
		return 0;
	task1(r, p);
	r->arg0 = (__u32)dest_cpu;
	r->arg1 = BPF_CORE_READ(p, thread_info.cpu);
	submit(r);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_process_exit, struct task_struct *p, bool group_dead)
{
	struct sched_record *r = rec_new(SCHED_PROCESS_EXIT);

	if (!r)
		return 0;
	task1(r, p);
	r->arg0 = group_dead;
	submit(r);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_process_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct sched_record *r = rec_new(SCHED_PROCESS_EXEC);

	if (!r)
		return 0;
	task1(r, p);
	r->pid2 = old_pid;
	submit(r);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	struct sched_record *r = rec_new(SCHED_PROCESS_FORK);

	if (!r)
		return 0;
	task1(r, parent);
	task2(r, child);
	submit(r);
	return 0;
}

static __always_inline int on_irq(__u16 type, int irq, struct irqaction *action, __u64 arg1)
{
	struct sched_record *r = rec_new(type);

	if (!r)
		return 0;
	current1(r);
	r->arg0 = (__u32)irq;
	r->arg1 = arg1;
	if (action)
		bpf_probe_read_kernel_str(r->comm2, sizeof(r->comm2), BPF_CORE_READ(action, name));
	submit(r);
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
	struct sched_record *r = rec_new(type);

	if (!r)
		return 0;
	current1(r);
	r->arg0 = vec;
	r->arg1 = arg1;
	submit(r);
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
