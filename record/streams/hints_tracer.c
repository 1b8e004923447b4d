/*
 * hints_tracer.c - userspace side of hint tracing (see streams.h for the
 * contract, bpf/hints.bpf.c for the kernel side).
 *
 * Start: open the pinned map and check it (bpffs object, a map, a task-storage
 * map with values of at least 8 bytes); then try fentry (pick the attach point
 * kernel BTF has, load it with the iter/task program, take an initial
 * snapshot, attach fentry) and, if the kernel says no, reload the skeleton
 * with only the iter/task program. The object's task-storage map is pointed
 * at the pinned map with bpf_map__reuse_fd. Poll: fentry mode consumes the ring
 * buffer; snapshot mode reads the task iterator and keeps a per-tid table of
 * the last value seen to write only changes. libbpf's own messages are
 * captured (not printed) and the last one is quoted in errors.
 */
#include "record/streams/streams.h"
#include "record/streams/libbpf_quiet.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "bpf/hints_event.h"
#include "hints.skel.h"
#include "lib/error.h"
#include "lib/monotime.h"
#include "lib/u64map.h"

#define MODE_FENTRY "fentry"
#define MODE_SNAPSHOT "iter-snapshot"
#define MAX_RING_MB 1024u

/* The last thing a tid was seen with in snapshot mode. */
struct tid_state {
	uint64_t hints;
	uint64_t gen; /* snapshot that last saw it */
	uint32_t tgid;
};

struct hints_tracer {
	struct hints_bpf *skel;
	struct bpf_link *iter;   /* iter/task link (owned by skel->links) */
	struct bpf_link *fentry; /* fentry link in fentry mode (owned by skel->links) */
	struct ring_buffer *rb;
	FILE *out;
	bool snapshot;
	uint64_t period_ns;
	uint64_t next_snap_ns;
	uint64_t last_snap_ns; /* start of the last snapshot, 0 before the first */
	uint64_t gen;
	struct u64map seen; /* tid -> struct tid_state (snapshot mode) */
	char *buf;          /* iterator read buffer */
	size_t buf_cap;
	int write_errno;
	struct hints_tracer_stats st;
};

/* snprintf for messages that may be cut to fit a fixed buffer */
static void msgf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void msgf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}



/* ---- output ---- */

static void write_event(struct hints_tracer *t, const struct hints_event *ev)
{
	if (t->write_errno)
		return;
	if (fprintf(t->out, "{\"pid\":%u,\"tgid\":%u,\"hints\":%llu,\"timestamp\":%llu}\n",
		    (unsigned)ev->pid, (unsigned)ev->tgid, (unsigned long long)ev->hints,
		    (unsigned long long)ev->timestamp) < 0) {
		t->write_errno = errno ? errno : EIO;
		return;
	}
	t->st.updates_written++;
}

static int flush_out(struct hints_tracer *t)
{
	if (!t->write_errno && fflush(t->out))
		t->write_errno = errno ? errno : EIO;
	if (t->write_errno)
		return scx_fail("hints.jsonl: write failed: %s", strerror(t->write_errno));
	return 0;
}

/* ---- the pinned map ---- */

/* Is fd a map? A pinned program or link opens too, but its info is not a map's:
 * the kernel says what it is in fdinfo. */
static int bpf_kind(int fd, char *kind, size_t len)
{
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	snprintf(kind, len, "unknown BPF object");
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "map_type:", 9)) {
			snprintf(kind, len, "map");
			break;
		}
		if (!strncmp(line, "prog_type:", 10)) {
			snprintf(kind, len, "program");
			break;
		}
		if (!strncmp(line, "link_type:", 10)) {
			snprintf(kind, len, "link");
			break;
		}
	}
	fclose(f);
	return 0;
}

static int open_hints_map(const char *path, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);
	struct stat sb;
	struct statfs fs;
	char kind[32];
	const char *type;
	int fd;

	if (stat(path, &sb)) {
		if (errno == ENOENT)
			return scx_fail("--hints-map %s: no such file (is bpffs mounted and the map pinned?)",
					path);
		return scx_fail_errno("--hints-map %s", path);
	}
	if (statfs(path, &fs) == 0 && (unsigned long)fs.f_type != BPF_FS_MAGIC)
		return scx_fail("--hints-map %s: not a pinned BPF object (the file is not on a bpffs mount)",
				path);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return scx_fail_errno("--hints-map %s: not a pinned BPF object? bpf_obj_get", path);
	if (bpf_kind(fd, kind, sizeof(kind)) == 0 && strcmp(kind, "map")) {
		close(fd);
		return scx_fail("--hints-map %s: is a pinned BPF %s, not a map", path, kind);
	}
	memset(info, 0, sizeof(*info));
	if (bpf_obj_get_info_by_fd(fd, info, &len)) {
		scx_fail_errno("--hints-map %s: reading map info", path);
		close(fd);
		return -1;
	}
	if (info->type != BPF_MAP_TYPE_TASK_STORAGE) {
		type = libbpf_bpf_map_type_str(info->type);
		scx_fail("--hints-map %s: is a %s map (type %u), not a task-storage map", path,
			 type ? type : "unknown", info->type);
		close(fd);
		return -1;
	}
	if (info->value_size < sizeof(__u64)) {
		scx_fail("--hints-map %s: values are %u bytes, a hint needs at least 8", path,
			 info->value_size);
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- choosing and loading a mode ---- */

/* Does kernel BTF have FUNC name whose argument `ptr_arg` (0-based) is a
 * pointer and that takes at least nargs arguments? */
static bool btf_func_fits(const struct btf *btf, const char *name, int nargs, int ptr_arg)
{
	const struct btf_type *fn, *proto, *arg;
	const struct btf_param *params;
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);

	if (id <= 0)
		return false;
	fn = btf__type_by_id(btf, id);
	proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto) || btf_vlen(proto) < nargs)
		return false;
	params = btf_params(proto);
	id = btf__resolve_type(btf, params[ptr_arg].type);
	arg = id > 0 ? btf__type_by_id(btf, id) : NULL;
	return arg && btf_is_ptr(arg);
}

enum prog_choice { USE_UPDATE_VALUE, USE_STORAGE_UPDATE, USE_SNAPSHOT };

static const char *attach_name(enum prog_choice c)
{
	return c == USE_UPDATE_VALUE ? "fentry/bpf_map_update_value"
	       : c == USE_STORAGE_UPDATE ? "fentry/bpf_pid_task_storage_update_elem"
					 : "iter/task";
}

/* Which fentry attach point the running kernel has, or -1 with why. */
static int pick_fentry(char *why, size_t len)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int c = -1;

	if (!btf) {
		snprintf(why, len, "no kernel BTF (/sys/kernel/btf/vmlinux): %s", strerror(errno));
		return -1;
	}
	/* bpf_map_update_value(map, map_file, key, value, flags) since 6.12; before,
	 * the second argument was a struct fd by value: use the task-storage one */
	if (btf_func_fits(btf, "bpf_map_update_value", 5, 1))
		c = USE_UPDATE_VALUE;
	else if (btf_func_fits(btf, "bpf_pid_task_storage_update_elem", 4, 2))
		c = USE_STORAGE_UPDATE;
	else
		snprintf(why, len, "kernel BTF has neither bpf_map_update_value(map, file *, key, "
				   "value, flags) nor bpf_pid_task_storage_update_elem");
	btf__free(btf);
	return c;
}

static int on_ring_event(void *ctx, void *data, size_t size)
{
	struct hints_tracer *t = ctx;

	if (size < sizeof(struct hints_event))
		return 0;
	write_event(t, data);
	return 0;
}

static void unload(struct hints_tracer *t)
{
	ring_buffer__free(t->rb);
	t->rb = NULL;
	hints_bpf__destroy(t->skel);
	t->skel = NULL;
	t->iter = NULL;
	t->fentry = NULL;
}

static int take_snapshot(struct hints_tracer *t);

/* Free what unload() does not: the tid table, the buffer, t itself. */
static void free_tracer(struct hints_tracer *t)
{
	uint64_t key;
	void *val;

	for (size_t i = 0; u64map_next(&t->seen, &i, &key, &val);)
		free(val);
	u64map_free(&t->seen);
	free(t->buf);
	free(t);
}

/* Open, load and attach the skeleton for mode `c`: the iter/task program
 * always, plus the fentry program `c` names. In fentry mode one snapshot is
 * taken before fentry is attached, so hints.jsonl starts with the values
 * threads already had (upstream has only the updates made while recording).
 * On failure, unloads and writes "ATTACH POINT: STEP failed: reason" to why;
 * returns -1. */
static int load_mode(struct hints_tracer *t, enum prog_choice c, int map_fd,
		     const struct bpf_map_info *info, unsigned ring_mb, char *why, size_t len)
{
	struct bpf_program *prog;
	char said[LIBBPF_QUIET_MSG_MAX + 16];
	const char *step;
	int err;

	libbpf_quiet_reset();
	step = "open";
	t->skel = hints_bpf__open();
	if (!t->skel) {
		err = -errno;
		goto fail;
	}
	step = "reuse the pinned map";
	err = bpf_map__reuse_fd(t->skel->maps.hints_map, map_fd);
	if (err)
		goto fail;
	step = "size the ring buffer";
	/* snapshot mode does not use the ring: one page */
	err = bpf_map__set_max_entries(t->skel->maps.hints_ring,
				       c == USE_SNAPSHOT ? (unsigned)getpagesize() : ring_mb << 20);
	if (err)
		goto fail;
	t->skel->rodata->target_map_id = info->id;
	bpf_program__set_autoload(t->skel->progs.hints_update_value, c == USE_UPDATE_VALUE);
	bpf_program__set_autoload(t->skel->progs.hints_storage_update, c == USE_STORAGE_UPDATE);
	step = "load";
	err = hints_bpf__load(t->skel);
	if (err)
		goto fail;
	step = "attach iter/task";
	t->skel->links.hints_snapshot = bpf_program__attach_iter(t->skel->progs.hints_snapshot, NULL);
	if (!t->skel->links.hints_snapshot) {
		err = -errno;
		goto fail;
	}
	t->iter = t->skel->links.hints_snapshot;
	if (c == USE_SNAPSHOT)
		return 0;

	step = "open the ring buffer";
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.hints_ring), on_ring_event, t, NULL);
	if (!t->rb) {
		err = -errno;
		goto fail;
	}
	if (take_snapshot(t)) {
		msgf(why, len, "%s: initial snapshot failed: %s", attach_name(c), scx_errmsg());
		unload(t);
		return -1;
	}
	step = "attach";
	prog = c == USE_UPDATE_VALUE ? t->skel->progs.hints_update_value
				     : t->skel->progs.hints_storage_update;
	t->fentry = bpf_program__attach(prog);
	if (!t->fentry) {
		err = -errno;
		goto fail;
	}
	if (c == USE_UPDATE_VALUE)
		t->skel->links.hints_update_value = t->fentry;
	else
		t->skel->links.hints_storage_update = t->fentry;
	return 0;
fail:
	msgf(why, len, "%s: %s failed: %s%s", attach_name(c), step,
	     strerror(err < 0 ? -err : EINVAL), libbpf_quiet_said(said, sizeof(said)));
	unload(t);
	return -1;
}

int hints_tracer_start(struct hints_tracer **out, const struct hints_tracer_opts *o)
{
	struct hints_tracer *t;
	struct bpf_map_info info;
	char why[sizeof(t->st.why_not_fentry)] = "";
	char err[256];
	unsigned ring_mb = o->ring_mb ? o->ring_mb : HINTS_DEFAULT_RING_MB;
	unsigned poll_ms = o->poll_ms ? o->poll_ms : HINTS_DEFAULT_POLL_MS;
	int map_fd, c = -1;

	*out = NULL;
	if (!o->map_path || !o->map_path[0])
		return scx_fail("--hints-map: no path given");
	if (!o->out)
		return scx_fail("hints tracer: no output file");
	if (ring_mb > MAX_RING_MB || (ring_mb & (ring_mb - 1)))
		return scx_fail("--hints-map-ring-sz %u: must be a power of two of at most %u (MB)",
				ring_mb, MAX_RING_MB);
	map_fd = open_hints_map(o->map_path, &info);
	if (map_fd < 0)
		return -1;
	t = calloc(1, sizeof(*t));
	if (!t) {
		close(map_fd);
		return scx_fail("hints tracer: out of memory");
	}
	t->out = o->out;
	t->period_ns = (uint64_t)poll_ms * 1000000ull;
	u64map_init(&t->seen);

	libbpf_quiet_begin();
	if (o->force_snapshot)
		snprintf(why, sizeof(why), "snapshot mode forced");
	else
		c = pick_fentry(why, sizeof(why));
	if (c >= 0 && load_mode(t, c, map_fd, &info, ring_mb, why, sizeof(why)) == 0) {
		snprintf(t->st.mode, sizeof(t->st.mode), MODE_FENTRY);
	} else if (load_mode(t, USE_SNAPSHOT, map_fd, &info, ring_mb, err, sizeof(err)) == 0) {
		t->snapshot = true;
		snprintf(t->st.mode, sizeof(t->st.mode), MODE_SNAPSHOT);
		msgf(t->st.why_not_fentry, sizeof(t->st.why_not_fentry), "%s", why);
	} else {
		libbpf_quiet_end();
		close(map_fd);
		free_tracer(t);
		if (why[0])
			return scx_fail("--hints-map %s: cannot trace: %s; fallback %s", o->map_path,
					why, err);
		return scx_fail("--hints-map %s: cannot trace: %s", o->map_path, err);
	}
	libbpf_quiet_end();
	close(map_fd); /* the skeleton holds its own duplicate */
	t->next_snap_ns = monotime_ns();
	*out = t;
	return 0;
}

int hints_tracer_fd(const struct hints_tracer *t)
{
	return t->rb ? ring_buffer__epoll_fd(t->rb) : -1;
}

void hints_tracer_counts(const struct hints_tracer *t, struct hints_tracer_stats *st)
{
	*st = t->st;
}

const char *hints_tracer_mode(const struct hints_tracer *t)
{
	return t->st.mode;
}

int hints_tracer_timeout_ms(const struct hints_tracer *t)
{
	uint64_t now;

	if (!t->snapshot)
		return -1;
	now = monotime_ns();
	if (now >= t->next_snap_ns)
		return 0;
	return (int)((t->next_snap_ns - now + 999999) / 1000000);
}

/* ---- snapshot mode ---- */

static int note_snapshot_event(struct hints_tracer *t, const struct hints_event *ev)
{
	struct tid_state *s = u64map_get(&t->seen, ev->pid);
	bool changed;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return scx_fail("hints tracer: out of memory");
		if (u64map_put(&t->seen, ev->pid, s)) {
			free(s);
			return -1;
		}
		changed = true;
	} else {
		/* not seen in the previous snapshot: the thread (or its value)
		 * went away and is back, maybe as another thread with the same tid */
		changed = s->gen + 1 != t->gen || s->hints != ev->hints || s->tgid != ev->tgid;
	}
	if (changed)
		write_event(t, ev);
	s->hints = ev->hints;
	s->tgid = ev->tgid;
	s->gen = t->gen;
	return 0;
}

static int take_snapshot(struct hints_tracer *t)
{
	size_t have = 0, off;
	ssize_t n;
	int fd, rc = 0;

	if (!t->buf) {
		t->buf_cap = 64 * 1024;
		t->buf = malloc(t->buf_cap);
		if (!t->buf)
			return scx_fail("hints tracer: out of memory");
	}
	fd = bpf_iter_create(bpf_link__fd(t->iter));
	if (fd < 0)
		return scx_fail_errno("hints tracer: creating the task iterator");
	t->gen++;
	if (t->snapshot) { /* how late a loaded host let us be */
		uint64_t now = monotime_ns();

		if (t->last_snap_ns && now - t->last_snap_ns > t->st.max_snapshot_gap_ns)
			t->st.max_snapshot_gap_ns = now - t->last_snap_ns;
		t->last_snap_ns = now;
	}
	for (;;) {
		n = read(fd, t->buf + have, t->buf_cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = scx_fail_errno("hints tracer: reading the task iterator");
			break;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		for (off = 0; have - off >= sizeof(struct hints_event); off += sizeof(struct hints_event)) {
			struct hints_event ev;

			memcpy(&ev, t->buf + off, sizeof(ev));
			if (note_snapshot_event(t, &ev)) {
				rc = -1;
				goto out;
			}
		}
		memmove(t->buf, t->buf + off, have - off);
		have -= off;
	}
out:
	close(fd);
	t->st.snapshots++;
	return rc;
}

int hints_tracer_poll(struct hints_tracer *t)
{
	uint64_t now;
	int rc;

	if (!t->snapshot) {
		rc = ring_buffer__consume(t->rb);
		if (rc < 0 && rc != -EINTR)
			return scx_fail("hints tracer: reading the ring buffer: %s", strerror(-rc));
		return flush_out(t);
	}
	now = monotime_ns();
	if (now < t->next_snap_ns)
		return 0;
	if (take_snapshot(t))
		return -1;
	/* keep the cadence, but never catch up with a burst */
	t->next_snap_ns += t->period_ns;
	now = monotime_ns();
	if (t->next_snap_ns <= now)
		t->next_snap_ns = now + t->period_ns;
	return flush_out(t);
}

int hints_tracer_stop(struct hints_tracer *t, struct hints_tracer_stats *st)
{
	int rc = 0;

	if (!t)
		return 0;
	libbpf_quiet_begin();
	if (t->snapshot) {
		rc = take_snapshot(t);
	} else {
		/* detach first: nothing is emitted after this, then drain */
		bpf_link__destroy(t->fentry);
		if (t->skel->links.hints_update_value == t->fentry)
			t->skel->links.hints_update_value = NULL;
		if (t->skel->links.hints_storage_update == t->fentry)
			t->skel->links.hints_storage_update = NULL;
		t->fentry = NULL;
		int n = ring_buffer__consume(t->rb);

		if (n < 0)
			rc = scx_fail("hints tracer: draining the ring buffer: %s", strerror(-n));
		t->st.drops = t->skel->bss->dropped;
		t->st.unresolved = t->skel->bss->unresolved;
	}
	if (flush_out(t))
		rc = -1;
	if (st)
		*st = t->st;
	unload(t);
	libbpf_quiet_end();
	free_tracer(t);
	return rc;
}
