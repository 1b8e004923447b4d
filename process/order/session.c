/*
 * session.c - replays perf.data side-band records into threads, maps and
 * cgroups, and resolves instruction addresses to (dso, symbol) names.
 * See order.h (its session.c section) for the rules and where they come from.
 */
#include "process/order/order.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/error.h"
#include "lib/hash.h"
#include "lib/upper_bound.h"

#define UNKNOWN "[unknown]"

/* ---- dsos -------------------------------------------------------------- */

static uint64_t name_hash(const char *s, const uint8_t *bid, size_t bid_size)
{
	return hash_fnv1a(hash_fnv1a_str(s), bid, bid_size);
}

static bool dso_has_no_file(const char *name);

static struct session_dso *intern_dso(struct session *s, const char *name,
				      const uint8_t *bid, size_t bid_size)
{
	uint64_t key = name_hash(name, bid, bid_size);
	struct session_dso *d;

	if (bid_size > sizeof(d->build_id))
		bid_size = sizeof(d->build_id);
	for (;; key++) {
		d = u64map_get(&s->dsos, key);
		if (!d)
			break;
		if (!strcmp(d->name, name) && d->build_id_size == bid_size &&
		    (!bid_size || !memcmp(d->build_id, bid, bid_size)))
			return d;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->name = strdup(name))) {
		free(d);
		scx_fail("out of memory (dso %s)", name);
		return NULL;
	}
	if (bid_size)
		memcpy(d->build_id, bid, bid_size);
	d->build_id_size = (uint8_t)bid_size;
	d->no_file = dso_has_no_file(d->name);
	if (u64map_put(&s->dsos, key, d) < 0) {
		free(d->name);
		free(d);
		return NULL;
	}
	s->stats.dsos++;
	return d;
}

/* Names perf never opens as files: anonymous memory, [stack], [vdso], ...
 * A JIT's /tmp/perf-PID.map (jit_named) holds text, not ELF: its symbols are
 * not read ([unknown]; perf reads them when the file is there). */
static bool dso_has_no_file(const char *name)
{
	return name[0] == '[' || !strncmp(name, "/tmp/perf-", 10) || !strncmp(name, "//anon", 6) || !strncmp(name, "anon_inode:", 11) ||
	       !strncmp(name, "/dev/zero", 9) || !strncmp(name, "/SYSV", 5) ||
	       !strncmp(name, "/memfd:", 7) || !strncmp(name, "/anon_hugepage", 14) ||
	       strstr(name, " (deleted)") != NULL;
}

/* ---- maps -------------------------------------------------------------- */

static int maps_reserve(struct session_maps *m, size_t extra)
{
	size_t cap;
	struct session_map *v;

	if (m->n + extra <= m->cap)
		return 0;
	cap = m->cap ? m->cap * 2 : 16;
	while (cap < m->n + extra)
		cap *= 2;
	v = realloc(m->v, cap * sizeof(*v));
	if (!v)
		return scx_fail("out of memory (%zu maps)", cap);
	m->v = v;
	m->cap = cap;
	return 0;
}

/* Index of the first map whose end is above addr. */
static size_t maps_lower(const struct session_maps *m, uint64_t addr)
{
	return UPPER_BOUND(m->v, m->n, end, addr);
}

/* The map holding addr, or NULL; *hint: where the last lookup of its kind
 * was found, tried first and updated. */
static const struct session_map *maps_find(const struct session_maps *m, size_t *hint, uint64_t addr)
{
	size_t i = *hint;

	if (i < m->n && m->v[i].start <= addr && addr < m->v[i].end)
		return &m->v[i];
	i = maps_lower(m, addr);
	if (i < m->n && m->v[i].start <= addr) {
		*hint = i;
		return &m->v[i];
	}
	return NULL;
}

/* Insert [start, end) replacing whatever it overlaps (old maps are clipped). */
static int maps_insert(struct session_maps *m, const struct session_map *nm)
{
	size_t first = maps_lower(m, nm->start), last = first, keep = 0;
	struct session_map head = {0}, tail = {0};
	bool has_head = false, has_tail = false;

	while (last < m->n && m->v[last].start < nm->end)
		last++;
	/* maps [first, last) overlap the new one */
	if (first < last && m->v[first].start < nm->start) {
		head = m->v[first];
		head.end = nm->start;
		has_head = true;
	}
	if (first < last && m->v[last - 1].end > nm->end) {
		tail = m->v[last - 1];
		tail.pgoff += nm->end - tail.start;
		tail.start = nm->end;
		has_tail = true;
	}
	keep = (size_t)has_head + 1 + (size_t)has_tail;
	if (keep > last - first && maps_reserve(m, keep - (last - first)) < 0)
		return -1;
	memmove(&m->v[first + keep], &m->v[last], (m->n - last) * sizeof(*m->v));
	m->n = m->n - (last - first) + keep;
	if (has_head)
		m->v[first++] = head;
	m->v[first++] = *nm;
	if (has_tail)
		m->v[first] = tail;
	return 0;
}

static struct session_maps *maps_new(void)
{
	struct session_maps *m = calloc(1, sizeof(*m));

	if (!m)
		scx_fail("out of memory (maps)");
	else
		m->refs = 1;
	return m;
}

static struct session_maps *maps_clone(const struct session_maps *src)
{
	struct session_maps *m = maps_new();

	if (!m)
		return NULL;
	if (src->n && maps_reserve(m, src->n) < 0) {
		free(m);
		return NULL;
	}
	if (src->n)
		memcpy(m->v, src->v, src->n * sizeof(*m->v));
	m->n = src->n;
	return m;
}

static void maps_put(struct session_maps *m)
{
	if (m && --m->refs == 0) {
		free(m->v);
		free(m);
	}
}

/* ---- threads ----------------------------------------------------------- */

static struct session_thread *thread_new(struct session *s, int32_t pid, int32_t tid)
{
	struct session_thread *t = calloc(1, sizeof(*t));

	if (!t) {
		scx_fail("out of memory (thread %d)", tid);
		return NULL;
	}
	t->pid = pid;
	t->tid = tid;
	snprintf(t->comm, sizeof(t->comm), ":%d", tid);
	if (u64map_put(&s->threads, (uint32_t)tid, t) < 0) {
		free(t);
		return NULL;
	}
	s->stats.threads++;
	return t;
}

/* Give t its maps: its own for a group leader, else the leader's. */
static int thread_init_maps(struct session *s, struct session_thread *t)
{
	struct session_thread *leader;

	if (t->pid == t->tid || t->pid < 0) {
		t->maps = maps_new();
		s->stats.processes++;
		return t->maps ? 0 : -1;
	}
	leader = session_thread(s, t->pid, t->pid);
	if (!leader)
		return -1;
	t->maps = leader->maps;
	t->maps->refs++;
	return 0;
}

struct session_thread *session_thread(struct session *s, int32_t pid, int32_t tid)
{
	struct session_thread *t = s->last_thread;

	if (!t || t->tid != tid)
		t = u64map_get(&s->threads, (uint32_t)tid);
	if (t) {
		if (t->pid < 0 && pid >= 0)
			t->pid = pid;
		s->last_thread = t;
		return t;
	}
	t = thread_new(s, pid, tid);
	if (t && thread_init_maps(s, t) < 0)
		return NULL;
	return t;
}

/* ---- records ----------------------------------------------------------- */

struct rec_ids {
	uint32_t pid, tid;
};

/* Copy a NUL-terminated string of at most max bytes from a record. */
static int rec_string(const char *p, size_t max, char *out, size_t size, const char *what)
{
	size_t n = strnlen(p, max);

	if (n == max)
		return scx_fail("%s record: string not terminated", what);
	snprintf(out, size, "%s", p);
	return 0;
}

static int apply_comm(struct session *s, const struct perf_event_header *h, const uint8_t *b, size_t len)
{
	struct rec_ids ids;
	struct session_thread *t;
	char comm[256];

	if (len < 9)
		return scx_fail("COMM record too short (%zu bytes)", len);
	memcpy(&ids, b, sizeof(ids));
	if (rec_string((const char *)b + 8, len - 8, comm, sizeof(comm), "COMM") < 0)
		return -1;
	t = session_thread(s, (int32_t)ids.pid, (int32_t)ids.tid);
	if (!t)
		return -1;
	snprintf(t->comm, sizeof(t->comm), "%.*s", (int)sizeof(t->comm) - 1, comm);
	t->comm_set = true;
	if ((h->misc & PERF_RECORD_MISC_COMM_EXEC) && t->maps && t->maps != &s->kernel) {
		/* exec: a new address space; the image's maps follow */
		struct session_maps *fresh = maps_new();

		if (!fresh)
			return -1;
		maps_put(t->maps);
		t->maps = fresh;
	}
	return 0;
}

struct fork_body {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

static int apply_fork(struct session *s, const uint8_t *b, size_t len)
{
	struct fork_body f;
	struct session_thread *parent, *child, *old;

	if (len < sizeof(f))
		return scx_fail("FORK record too short (%zu bytes)", len);
	memcpy(&f, b, sizeof(f));
	parent = session_thread(s, (int32_t)f.ppid, (int32_t)f.ptid);
	if (!parent)
		return -1;
	old = u64map_get(&s->threads, f.tid);
	if (old && old != parent) {
		/* tid reuse: the new thread replaces the old one */
		if (s->last_thread == old)
			s->last_thread = NULL;
		maps_put(old->maps);
		free(old);
		if (u64map_put(&s->threads, f.tid, NULL) < 0)
			return -1;
		s->stats.threads--;
	}
	if (old == parent) /* fork of a thread onto itself: nothing to do */
		return 0;
	child = thread_new(s, (int32_t)f.pid, (int32_t)f.tid);
	if (!child)
		return -1;
	/* as perf's thread__fork: only a real name is inherited */
	if (parent->comm_set) {
		memcpy(child->comm, parent->comm, sizeof(child->comm));
		child->comm_set = true;
	}
	if ((int32_t)f.pid == parent->pid) {
		child->maps = parent->maps;
		child->maps->refs++;
	} else {
		child->maps = maps_clone(parent->maps);
		if (!child->maps)
			return -1;
		s->stats.processes++;
	}
	return 0;
}

static int apply_exit(struct session *s, const uint8_t *b, size_t len)
{
	struct fork_body f;
	struct session_thread *t;

	if (len < sizeof(f))
		return scx_fail("EXIT record too short (%zu bytes)", len);
	memcpy(&f, b, sizeof(f));
	t = u64map_get(&s->threads, f.tid);
	if (t)
		t->exited = true;
	return 0;
}

/* Module file name -> "[name]" the way perf names kernel modules. */
static void module_dso_name(const char *path, char *out, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strcspn(base, ".");
	snprintf(out, size, "[%.*s]", (int)n, base);
	for (char *p = out; *p; p++)
		if (*p == '-')
			*p = '_';
}

/*
 * As perf 6.1 (map__new): executable memory of no file (//anon, /dev/zero,
 * /anon_hugepage or MAP_HUGETLB, [stack*, [heap], /SYSV*) is a JIT's code,
 * named /tmp/perf-PID.map, where a JIT lists its symbols. An MMAP record
 * (no prot) is executable unless its misc says data.
 */
static bool jit_named(const struct data_id_map *dm, uint16_t misc)
{
	const char *n = dm->name;
	bool exec = dm->has_prot ? (dm->prot & PROT_EXEC) != 0 : !(misc & PERF_RECORD_MISC_MMAP_DATA);
	bool anon = !strcmp(n, "//anon") || !strncmp(n, "/dev/zero", 9) || !strncmp(n, "/anon_hugepage", 14) ||
		    (dm->has_prot && (dm->flags & MAP_HUGETLB));
	bool no_dso = !strncmp(n, "[stack", 6) || !strncmp(n, "/SYSV", 5) || !strcmp(n, "[heap]");

	return exec && (anon || no_dso);
}

static int add_map(struct session *s, uint32_t pid, uint32_t tid, uint16_t misc,
		   uint64_t start, uint64_t len, uint64_t pgoff, const struct data_id_map *dm,
		   const uint8_t *bid, size_t bid_size)
{
	struct session_map m = {.start = start, .end = start + len, .pgoff = pgoff};
	const char *filename = dm->name;
	struct session_maps *maps;
	struct session_thread *t;
	char modname[256], jitname[32];
	uint16_t cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || (int32_t)pid == -1;

	if (!len || m.end < start)
		return 0; /* empty or wrapping map: ignore, as perf does */
	if (kernel) {
		maps = &s->kernel;
		if (!strncmp(filename, "[kernel.kallsyms]", 17)) {
			m.dso = intern_dso(s, "[kernel.kallsyms]", bid, bid_size);
			if (m.dso)
				m.dso->is_kernel = true;
		} else if (filename[0] == '/') {
			module_dso_name(filename, modname, sizeof(modname));
			m.dso = intern_dso(s, modname, bid, bid_size);
			if (m.dso)
				m.dso->is_kernel = true;
		} else {
			m.dso = intern_dso(s, filename, bid, bid_size);
		}
	} else {
		uint8_t noted[20];
		size_t noted_size = 0;

		t = session_thread(s, (int32_t)pid, (int32_t)tid);
		if (!t)
			return -1;
		maps = t->maps;
		if (jit_named(dm, misc)) {
			snprintf(jitname, sizeof(jitname), "/tmp/perf-%d.map", (int32_t)pid);
			filename = jitname;
			m.mapped = intern_dso(s, dm->name, NULL, 0);
			if (!m.mapped)
				return -1;
		}
		if (!bid_size && s->build_id_of && filename[0] == '/' &&
		    s->build_id_of(s->build_id_ctx, filename, noted, &noted_size) > 0) {
			bid = noted;
			bid_size = noted_size;
		}
		m.dso = intern_dso(s, filename, bid, bid_size);
	}
	if (!m.dso)
		return -1;
	m.data_kind = (uint8_t)data_id_map_kind(dm, &m.maj, &m.min, &m.ino, &m.ino_gen);
	s->stats.maps++;
	return maps_insert(maps, &m);
}

struct mmap_head {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
};

static int apply_mmap(struct session *s, const struct perf_event_header *h, const uint8_t *b, size_t len)
{
	struct mmap_head m;
	char name[4096];

	if (len < sizeof(m) + 1)
		return scx_fail("MMAP record too short (%zu bytes)", len);
	memcpy(&m, b, sizeof(m));
	if (rec_string((const char *)b + sizeof(m), len - sizeof(m), name, sizeof(name), "MMAP") < 0)
		return -1;
	return add_map(s, m.pid, m.tid, h->misc, m.start, m.len,
		       m.pgoff, &(struct data_id_map){.name = name}, NULL, 0);
}

static int apply_mmap2(struct session *s, const struct perf_event_header *h, const uint8_t *b, size_t len)
{
	struct mmap_head m;
	const size_t fixed = sizeof(m) + 24 + 8; /* ids/build-id union, prot+flags */
	uint8_t bid_size = 0;
	const uint8_t *bid = NULL;
	char name[4096];
	struct data_id_map dm = {.name = name, .has_prot = true};

	if (len < fixed + 1)
		return scx_fail("MMAP2 record too short (%zu bytes)", len);
	memcpy(&m, b, sizeof(m));
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		bid_size = b[sizeof(m)];
		if (bid_size > 20)
			return scx_fail("MMAP2 record: build-id size %u > 20", bid_size);
		bid = b + sizeof(m) + 4;
	} else {
		dm.has_ino = true;
		memcpy(&dm.maj, b + sizeof(m), 4);
		memcpy(&dm.min, b + sizeof(m) + 4, 4);
		memcpy(&dm.ino, b + sizeof(m) + 8, 8);
		memcpy(&dm.ino_gen, b + sizeof(m) + 16, 8);
	}
	memcpy(&dm.prot, b + sizeof(m) + 24, 4);
	memcpy(&dm.flags, b + sizeof(m) + 28, 4);
	if (rec_string((const char *)b + fixed, len - fixed, name, sizeof(name), "MMAP2") < 0)
		return -1;
	return add_map(s, m.pid, m.tid, h->misc, m.start, m.len,
		       m.pgoff, &dm, bid, bid_size);
}

/*
 * KSYMBOL: kernel code that appears and goes while the kernel runs (a BPF
 * program's JIT image, a BPF trampoline or dispatcher, out-of-line code).
 * As perf 6.1 (machine__process_ksymbol_*): a new symbol where no kernel
 * map is gets its own map and dso, both named by the symbol; unregistering
 * removes the map holding the address unless it is the kernel image's. A
 * symbol inside an existing map (perf adds it to that map's symbols) is
 * left to the map's own symbols here.
 */
static int apply_ksymbol(struct session *s, const uint8_t *b, size_t len)
{
	struct {
		uint64_t addr;
		uint32_t len;
		uint16_t ksym_type, flags;
	} k;
	char name[512];
	size_t hint = SIZE_MAX, i;
	const struct session_map *found;
	struct session_map m = {0};

	if (len < sizeof(k) + 1)
		return scx_fail("KSYMBOL record too short (%zu bytes)", len);
	memcpy(&k, b, sizeof(k));
	if (rec_string((const char *)b + sizeof(k), len - sizeof(k), name, sizeof(name), "KSYMBOL") < 0)
		return -1;
	found = maps_find(&s->kernel, &hint, k.addr);
	if (k.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) {
		if (!found || (found->dso->is_kernel && !strcmp(found->dso->name, "[kernel.kallsyms]")))
			return 0;
		i = (size_t)(found - s->kernel.v);
		memmove(&s->kernel.v[i], &s->kernel.v[i + 1], (s->kernel.n - i - 1) * sizeof(*s->kernel.v));
		s->kernel.n--;
		return 0;
	}
	if (found || !k.len || k.addr + k.len < k.addr)
		return 0;
	m.start = k.addr;
	m.end = k.addr + k.len;
	m.dso = intern_dso(s, name, NULL, 0);
	if (!m.dso)
		return -1;
	m.dso->is_ksymbol = true;
	m.dso->no_file = true;
	s->stats.maps++;
	return maps_insert(&s->kernel, &m);
}

static int apply_cgroup(struct session *s, const uint8_t *b, size_t len)
{
	uint64_t id;
	char path[4096], *copy, *old;

	if (len < 9)
		return scx_fail("CGROUP record too short (%zu bytes)", len);
	memcpy(&id, b, sizeof(id));
	if (rec_string((const char *)b + 8, len - 8, path, sizeof(path), "CGROUP") < 0)
		return -1;
	copy = strdup(path);
	if (!copy)
		return scx_fail("out of memory (cgroup path)");
	old = u64map_get(&s->cgroups, id);
	if (old && !strcmp(old, copy)) { /* named again, the same */
		free(copy);
		return 0;
	}
	if (old && s->nr_retired_cgroups == s->cap_retired_cgroups) {
		size_t cap = s->cap_retired_cgroups ? 2 * s->cap_retired_cgroups : 8;
		char **v = realloc(s->retired_cgroups, cap * sizeof(*v));

		if (!v) {
			free(copy);
			return scx_fail("out of memory (cgroup path)");
		}
		s->retired_cgroups = v;
		s->cap_retired_cgroups = cap;
	}
	if (u64map_put(&s->cgroups, id, copy) < 0) {
		free(copy);
		return -1;
	}
	/* the old path may still be in a record being formatted (process -j):
	 * kept until the end */
	if (old)
		s->retired_cgroups[s->nr_retired_cgroups++] = old;
	else
		s->stats.cgroups++;
	return 0;
}

int session_apply(struct session *s, const struct perf_event_header *h, size_t body_size)
{
	const uint8_t *b = (const uint8_t *)(h + 1);

	switch (h->type) {
	case PERF_RECORD_COMM:
		return apply_comm(s, h, b, body_size);
	case PERF_RECORD_FORK:
		return apply_fork(s, b, body_size);
	case PERF_RECORD_EXIT:
		return apply_exit(s, b, body_size);
	case PERF_RECORD_MMAP:
		return apply_mmap(s, h, b, body_size);
	case PERF_RECORD_MMAP2:
		return apply_mmap2(s, h, b, body_size);
	case PERF_RECORD_CGROUP:
		return apply_cgroup(s, b, body_size);
	case PERF_RECORD_KSYMBOL:
		return apply_ksymbol(s, b, body_size);
	default:
		return 0;
	}
}

/* ---- lookups ----------------------------------------------------------- */

/* The dso's symbol table, made once: the dso table above is the only place
 * a DSO is interned; NULL for names with no file. */
static struct sym_dso *dso_syms(struct session *s, struct session_dso *d)
{
	if (!d->looked_up) {
		d->looked_up = true;
		if (!strcmp(d->name, "[vdso]"))
			d->syms = sym_dso_get_vdso(s->syms);
		else if (!d->no_file)
			d->syms = sym_dso_new(s->syms, d->name, d->build_id_size ? d->build_id : NULL,
					      d->build_id_size);
	}
	return d->syms;
}

static const char *dso_symbol(struct session *s, struct session_dso *d, uint64_t addr, uint64_t file_off)
{
	const char *module = NULL;
	struct sym_dso *syms;

	if (d->is_ksymbol)
		return d->name;
	if (d->is_kernel)
		return sym_kernel_lookup(s->syms, addr, &module);
	syms = dso_syms(s, d);
	return syms ? sym_dso_lookup(syms, file_off) : NULL;
}

void session_resolve_ip(struct session *s, struct session_thread *t, uint16_t cpumode,
			uint64_t ip, struct session_resolved *out)
{
	const struct session_map *m = NULL;
	const char *sym;

	out->dso = UNKNOWN;
	out->sym = UNKNOWN;
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		m = maps_find(&s->kernel, &s->kernel.hint_ip, ip);
	else if (cpumode == PERF_RECORD_MISC_USER) {
		if (t && t->maps)
			m = maps_find(t->maps, &t->maps->hint_ip, ip);
		if (!m && (int64_t)ip < 0)
			m = maps_find(&s->kernel, &s->kernel.hint_ip, ip);
	}
	if (!m)
		return;
	out->dso = m->dso->name;
	sym = dso_symbol(s, m->dso, ip, ip - m->start + m->pgoff);
	if (sym)
		out->sym = sym;
}

void session_resolve_data(struct session *s, struct session_thread *t, int32_t pid, uint64_t addr,
			  uint64_t phys_addr, struct session_data *out)
{
	const struct session_map *m;

	memset(out, 0, sizeof(*out));
	if ((int64_t)addr < 0) {
		out->map = "[kernel]";
		if (phys_addr) {
			out->id.kind = DATA_ID_KERNEL;
			out->id.page = phys_addr >> 12;
		}
		return;
	}
	m = t && t->maps ? maps_find(t->maps, &t->maps->hint_data, addr) : NULL;
	if (!m)
		return;
	out->map = (m->mapped ? m->mapped : m->dso)->name;
	out->id.kind = (enum data_id_kind)m->data_kind;
	if (!s->no_data_syms && !m->dso->is_kernel && !m->dso->no_file) {
		struct sym_dso *syms = dso_syms(s, m->dso);

		if (syms)
			out->sym = sym_dso_lookup_data(syms, m->pgoff + (addr - m->start));
	}
	switch (out->id.kind) {
	case DATA_ID_ANON:
		out->id.pid = pid;
		out->id.page = addr >> 12;
		break;
	case DATA_ID_FILE:
	case DATA_ID_RO:
		out->id.maj = m->maj;
		out->id.min = m->min;
		out->id.ino = m->ino;
		out->id.ino_gen = m->ino_gen;
		out->id.page = (m->pgoff + (addr - m->start)) >> 12;
		break;
	default:
		break;
	}
}

const char *session_cgroup(const struct session *s, uint64_t id)
{
	return u64map_get(&s->cgroups, id);
}

/* ---- lifetime ---------------------------------------------------------- */

int session_init(struct session *s, struct sym_cache *syms)
{
	struct session_thread *idle;

	memset(s, 0, sizeof(*s));
	u64map_init(&s->threads);
	u64map_init(&s->cgroups);
	u64map_init(&s->dsos);
	s->kernel.refs = 1;
	s->syms = syms;
	/* perf registers the idle task as pid 0 / tid 0 named "swapper" */
	idle = session_thread(s, 0, 0);
	if (!idle)
		return -1;
	snprintf(idle->comm, sizeof(idle->comm), "swapper");
	idle->comm_set = true;
	return 0;
}

void session_free(struct session *s)
{
	size_t pos = 0;
	uint64_t key;
	void *val;

	while (u64map_next(&s->threads, &pos, &key, &val)) {
		struct session_thread *t = val;

		if (t) {
			maps_put(t->maps);
			free(t);
		}
	}
	for (pos = 0; u64map_next(&s->cgroups, &pos, &key, &val);)
		free(val);
	for (size_t i = 0; i < s->nr_retired_cgroups; i++)
		free(s->retired_cgroups[i]);
	free(s->retired_cgroups);
	for (pos = 0; u64map_next(&s->dsos, &pos, &key, &val);) {
		struct session_dso *d = val;

		free(d->name);
		free(d);
	}
	free(s->kernel.v);
	u64map_free(&s->threads);
	u64map_free(&s->cgroups);
	u64map_free(&s->dsos);
}
