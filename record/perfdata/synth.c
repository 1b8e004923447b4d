/*
 * synth.c - synthesized side-band records for tasks, mappings, the kernel
 * image and cgroups that existed before recording (see record_perfdata.h).
 */
#include "record/perfdata/record_perfdata.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/host/host.h"
#include "lib/kernel_id.h"
#include "lib/linereader.h"
#include "record/perfdata/inode_gen.h"

#define REC_MAX 8192

/* A record under construction: header, body, zero trailer. */
struct rec {
	uint8_t buf[REC_MAX];
	size_t len;
};

static void rec_begin(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {.type = type, .misc = misc};

	memcpy(r->buf, &h, sizeof(h));
	r->len = sizeof(h);
}

static void rec_put(struct rec *r, const void *p, size_t n)
{
	memcpy(r->buf + r->len, p, n);
	r->len += n;
}

/* NUL-terminated string padded with zeros to 8 bytes. */
static void rec_put_string(struct rec *r, const char *s, size_t max)
{
	size_t n = strnlen(s, max), padded = (n + 1 + 7) & ~(size_t)7;

	memcpy(r->buf + r->len, s, n);
	memset(r->buf + r->len + n, 0, padded - n);
	r->len += padded;
}

static int rec_end(struct pd_writer *w, struct rec *r, size_t trailer)
{
	uint16_t size;

	memset(r->buf + r->len, 0, trailer);
	r->len += trailer;
	size = (uint16_t)r->len;
	memcpy(r->buf + 6, &size, sizeof(size));
	return pd_writer_add_record(w, r->buf, r->len);
}

/* ---- tasks -------------------------------------------------------------- */

static int read_small_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

/* Tgid and name from /proc/PID/task/TID/status. */
static int task_status(const char *dir, int *tgid, char *comm, size_t comm_size)
{
	char path[512], buf[4096], *p;

	snprintf(path, sizeof(path), "%s/status", dir);
	if (read_small_file(path, buf, sizeof(buf)) < 0)
		return -1;
	*tgid = -1;
	comm[0] = '\0';
	if ((p = strstr(buf, "Name:\t"))) {
		p += 6;
		snprintf(comm, comm_size, "%.*s", (int)strcspn(p, "\n"), p);
	}
	if ((p = strstr(buf, "\nTgid:\t")))
		*tgid = atoi(p + 7);
	return *tgid < 0 ? -1 : 0;
}

static int emit_comm(struct pd_writer *w, int pid, int tid, const char *comm, size_t trailer)
{
	struct rec r;
	uint32_t ids[2] = {(uint32_t)pid, (uint32_t)tid};

	rec_begin(&r, PERF_RECORD_COMM, 0);
	rec_put(&r, ids, sizeof(ids));
	rec_put_string(&r, comm, 16);
	return rec_end(w, &r, trailer);
}

static int emit_fork(struct pd_writer *w, int pid, int tid, size_t trailer)
{
	struct rec r;
	struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } f = {
		(uint32_t)pid, (uint32_t)pid, (uint32_t)tid, (uint32_t)pid, 0};

	rec_begin(&r, PERF_RECORD_FORK, 0);
	rec_put(&r, &f, sizeof(f));
	return rec_end(w, &r, trailer);
}

static uint32_t prot_bits(const char *perms)
{
	return (perms[0] == 'r' ? 1 : 0) | (perms[1] == 'w' ? 2 : 0) | (perms[2] == 'x' ? 4 : 0);
}

/* One /proc/PID/maps line -> MMAP2. Anonymous mappings are named "//anon" like perf. */
static int emit_map_line(struct pd_writer *w, const char *proc_root, int pid, const char *line, size_t trailer,
			 struct inode_gen_cache *gens)
{
	unsigned long long start, end, pgoff, ino;
	unsigned maj, min;
	char perms[8];
	int off = 0;
	const char *name;
	struct rec r;
	struct {
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
	} m;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &maj, &min, &ino,
		   &off) < 7)
		return 0;
	name = line + off;
	if (!*name)
		name = "//anon";
	m = (typeof(m)){(uint32_t)pid, (uint32_t)pid, start, end - start, pgoff, maj, min, ino, 0,
			prot_bits(perms), perms[3] == 's' ? 1 /* MAP_SHARED */ : 2 /* MAP_PRIVATE */};
	if (ino) /* the generation the kernel would put in its own MMAP2 */
		m.ino_generation = inode_gen_of_map(gens, proc_root, pid, start, end, maj, min, ino);
	rec_begin(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | (perms[2] == 'x' ? 0 : PERF_RECORD_MISC_MMAP_DATA));
	rec_put(&r, &m, sizeof(m));
	rec_put_string(&r, name, 4096);
	return rec_end(w, &r, trailer);
}

/* One MMAP2 per line of /proc/PID/maps. A process that exits while being
 * read ends its list (the read fails ESRCH); any other read error, or a
 * line longer than SYNTH_MAPS_LINE_MAX, fails naming the file and line. */
static int emit_maps(struct pd_writer *w, const char *proc_root, int pid, size_t trailer, struct synth_stats *st,
		     struct inode_gen_cache *gens)
{
	char path[512], *line;
	struct line_reader r;
	size_t len;
	FILE *f;
	int rc = 0, n = 0;

	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, pid);
	if (!(f = fopen(path, "re")))
		return 0; /* exited, or a kernel thread */
	line_reader_init(&r, f, path);
	r.max = SYNTH_MAPS_LINE_MAX;
	while (rc == 0 && (n = line_reader_next(&r, &line, &len)) > 0) {
		rc = emit_map_line(w, proc_root, pid, line, trailer, gens);
		st->mmaps += rc == 0;
	}
	if (rc == 0 && n < 0) {
		if (ferror(f) && errno == ESRCH)
			scx_clear_error(); /* exited after the open */
		else
			rc = -1;
	}
	line_reader_free(&r);
	fclose(f);
	return rc;
}

static int synth_process(struct pd_writer *w, const char *proc_root, int pid, size_t trailer,
			 struct synth_stats *st, struct inode_gen_cache *gens)
{
	char dir[512], tdir[600];
	struct dirent *e;
	DIR *d;
	int rc = 0, tgid;
	char comm[64];

	snprintf(dir, sizeof(dir), "%s/%d/task", proc_root, pid);
	if (!(d = opendir(dir))) {
		st->vanished++;
		return 0;
	}
	/* the leader first, so its threads find it */
	snprintf(tdir, sizeof(tdir), "%s/%d", dir, pid);
	if (task_status(tdir, &tgid, comm, sizeof(comm)) == 0) {
		rc = emit_comm(w, pid, pid, comm, trailer);
		st->tasks++;
	}
	if (rc == 0)
		rc = emit_maps(w, proc_root, pid, trailer, st, gens);
	while (rc == 0 && (e = readdir(d))) {
		int tid = atoi(e->d_name);

		if (tid <= 0 || tid == pid)
			continue;
		snprintf(tdir, sizeof(tdir), "%s/%d", dir, tid);
		if (task_status(tdir, &tgid, comm, sizeof(comm)) < 0)
			continue;
		rc = emit_fork(w, pid, tid, trailer);
		if (rc == 0)
			rc = emit_comm(w, pid, tid, comm, trailer);
		st->threads++;
	}
	closedir(d);
	return rc;
}

int synth_tasks(struct pd_writer *w, const char *proc_root, size_t trailer, struct synth_stats *st)
{
	struct dirent *e;
	DIR *d = opendir(proc_root);
	struct inode_gen_cache *gens = calloc(1, sizeof(*gens)); /* NULL: uncached */
	int rc = 0;

	if (!d) {
		free(gens);
		return scx_fail_errno("%s", proc_root);
	}
	while (rc == 0 && (e = readdir(d))) {
		int pid = atoi(e->d_name);

		if (pid > 0)
			rc = synth_process(w, proc_root, pid, trailer, st, gens);
	}
	closedir(d);
	free(gens);
	return rc;
}

/* ---- kernel ---------------------------------------------------------------- */

int synth_kernel_map(struct pd_writer *w, const char *kallsyms_path, size_t trailer)
{
	uint64_t text, etext;
	struct rec r;
	struct { uint32_t pid, tid; uint64_t start, len, pgoff; } m;

	if (kid_kallsyms_text(kallsyms_path, &text, &etext) < 0)
		return -1;
	if (!text || etext <= text)
		return scx_fail("%s: no _text/_etext (kptr_restrict hides kernel addresses?)", kallsyms_path);
	m = (typeof(m)){(uint32_t)-1, 0, text, etext - text, text};
	rec_begin(&r, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	rec_put(&r, &m, sizeof(m));
	rec_put_string(&r, "[kernel.kallsyms]_text", 64);
	return rec_end(w, &r, trailer);
}

/* ---- cgroups ----------------------------------------------------------------- */

/* The cgroup id the kernel reports in samples: the directory's file handle. */
static int cgroup_id(const char *path, uint64_t *id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = {.fh.handle_bytes = sizeof(uint64_t)};
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) < 0)
		return -1;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

static int emit_cgroup(struct pd_writer *w, uint64_t id, const char *rel, size_t trailer)
{
	struct rec r;

	if (strlen(rel) > REC_MAX - 64 - trailer)
		return 0;
	rec_begin(&r, PERF_RECORD_CGROUP, 0);
	rec_put(&r, &id, sizeof(id));
	rec_put_string(&r, rel, REC_MAX - 64 - trailer);
	return rec_end(w, &r, trailer);
}

struct cgroup_walk {
	struct pd_writer *w;
	size_t trailer;
	struct synth_stats *st;
};

/* One cgroup of the walk (lib/host's): its record, when it has an id. */
static int walk_cgroup(const char *dir, const char *rel, void *ctx)
{
	struct cgroup_walk *cw = ctx;
	uint64_t id;
	int rc;

	if (cgroup_id(dir, &id) < 0)
		return 0;
	rc = emit_cgroup(cw->w, id, rel, cw->trailer);
	cw->st->cgroups += rc == 0;
	return rc;
}

int synth_cgroups(struct pd_writer *w, size_t trailer, struct synth_stats *st)
{
	struct cgroup_walk cw = {w, trailer, st};
	char root[4096];

	if (host_cgroup2_mount(root, sizeof(root)) < 0)
		return 0; /* no cgroup2: no CGROUP records */
	return host_cgroup_walk(root, walk_cgroup, &cw);
}
