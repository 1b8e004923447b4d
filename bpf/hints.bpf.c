// SPDX-License-Identifier: GPL-2.0
/*
 * hints.bpf.c - kernel side of hint tracing (userspace: record/streams/hints_tracer.c).
 *
 * A sched_ext scheduler keeps a per-thread "hint" in a BPF task-storage map
 * pinned in bpffs; the first u64 of a map value is the hint. Two ways to see
 * its changes:
 *
 * - fentry (preferred, exact): a program on the kernel's map-update path
 *   keeps only updates of the map whose id is target_map_id and emits one
 *   struct hints_event per update to the ring buffer. Two attach points, the
 *   userspace picks the one kernel BTF has:
 *     hints_update_value   fentry/bpf_map_update_value (map, map_file, key, value, flags)
 *     hints_storage_update fentry/bpf_pid_task_storage_update_elem (map, key, value, flags)
 *   Both run for updates made with the bpf(2) syscall, where the key is a
 *   pidfd in the caller's fd table. The hint belongs to the task that pidfd
 *   names, which need not be the caller, so the program resolves the pidfd
 *   (fd table -> file -> struct pid -> task) instead of reporting the current
 *   task as upstream does. Updates it cannot resolve (the key is not a pidfd,
 *   the task is gone: the kernel rejects those updates too) are counted in
 *   `unresolved` and not emitted. Ring-buffer drops are counted in `dropped`.
 *
 * - iter/task (always loaded: the fallback where fentry is refused, and the
 *   initial state in fentry mode): hints_snapshot visits every
 *   task, looks it up in the scheduler's map (hints_map, which userspace
 *   points at the pinned map with bpf_map__reuse_fd) and writes one event per
 *   task that has a value into the iterator's seq_file. Userspace reads the
 *   iterator every poll period and keeps the events whose value changed.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf/hints_event.h"

char LICENSE[] SEC("license") = "GPL";

#define PIDFS_MAGIC 0x50494446UL         /* pidfds on kernels >= 6.9 */
#define ANON_INODE_FS_MAGIC 0x09041934UL /* pidfds before pidfs */

/* Set by userspace before load: the id of the pinned map to trace. */
const volatile __u32 target_map_id = 0;

/* Counters read by userspace at the end. */
__u64 dropped = 0;    /* ring buffer full */
__u64 unresolved = 0; /* update of the map whose key did not name a task */

/* Value layout of the scheduler's map: only the first u64 is ours. Its real
 * size is taken from the pinned map (bpf_map__reuse_fd). */
struct hint_value {
	__u64 hints;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct hint_value);
} hints_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20); /* userspace sets --hints-map-ring-sz */
} hints_ring SEC(".maps");

/* Does the file's dentry carry the anon-inode name "[pidfd]"? */
static __always_inline bool is_anon_pidfd(struct file *f)
{
	char name[8] = {};

	bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(f, f_path.dentry, d_name.name));
	return name[0] == '[' && name[1] == 'p' && name[2] == 'i' && name[3] == 'd' &&
	       name[4] == 'f' && name[5] == 'd' && name[6] == ']';
}

/* Resolve a pidfd of the current task's fd table to the tid and tgid of the
 * task it names. 0 on success. */
static __always_inline int pidfd_task(int fd, __u32 *tid, __u32 *tgid)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(cur, files, fdt);
	struct file **fds;
	struct file *f = NULL;
	struct inode *inode;
	struct pid *pid;
	struct hlist_node *first;
	struct task_struct *task;
	unsigned long magic;

	if (!fdt || fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return -1;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]) || !f)
		return -1;
	inode = BPF_CORE_READ(f, f_inode);
	magic = BPF_CORE_READ(inode, i_sb, s_magic);
	if (magic == PIDFS_MAGIC)
		pid = BPF_CORE_READ(inode, i_private);
	else if (magic == ANON_INODE_FS_MAGIC && is_anon_pidfd(f))
		pid = BPF_CORE_READ(f, private_data);
	else
		return -1;
	if (!pid)
		return -1;
	/* the task is pid->tasks[PIDTYPE_PID].first, linked by task->pid_links[PIDTYPE_PID] */
	first = BPF_CORE_READ(pid, tasks[PIDTYPE_PID].first);
	if (!first)
		return -1;
	task = (void *)first - bpf_core_field_offset(struct task_struct, pid_links);
	*tid = BPF_CORE_READ(task, pid);
	*tgid = BPF_CORE_READ(task, tgid);
	return 0;
}

static __always_inline int on_update(struct bpf_map *map, void *key, void *value)
{
	struct hints_event *ev;
	__u32 tid, tgid;
	__u64 hints;
	int fd;

	if (BPF_CORE_READ(map, id) != target_map_id)
		return 0;
	if (bpf_probe_read_kernel(&fd, sizeof(fd), key) ||
	    bpf_probe_read_kernel(&hints, sizeof(hints), value) ||
	    pidfd_task(fd, &tid, &tgid)) {
		__sync_fetch_and_add(&unresolved, 1);
		return 0;
	}
	ev = bpf_ringbuf_reserve(&hints_ring, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	ev->pid = tid;
	ev->tgid = tgid;
	ev->hints = hints;
	ev->timestamp = bpf_ktime_get_ns();
	bpf_ringbuf_submit(ev, 0);
	return 0;
}

SEC("fentry/bpf_map_update_value")
int BPF_PROG(hints_update_value, struct bpf_map *map, struct file *map_file, void *key,
	     void *value, __u64 flags)
{
	return on_update(map, key, value);
}

SEC("fentry/bpf_pid_task_storage_update_elem")
int BPF_PROG(hints_storage_update, struct bpf_map *map, void *key, void *value, __u64 flags)
{
	return on_update(map, key, value);
}

SEC("iter/task")
int hints_snapshot(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct hint_value *v;
	struct hints_event ev;

	if (!task)
		return 0;
	v = bpf_task_storage_get(&hints_map, task, 0, 0);
	if (!v)
		return 0;
	ev.pid = task->pid;
	ev.tgid = task->tgid;
	ev.hints = v->hints;
	ev.timestamp = bpf_ktime_get_ns(); /* read after the value was: never early */
	bpf_seq_write(ctx->meta->seq, &ev, sizeof(ev));
	return 0;
}
