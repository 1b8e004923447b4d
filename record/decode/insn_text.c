/*
 * insn_text.c - instruction bytes of live processes (see insn_text.h).
 */
#include "record/decode/insn_text.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/u64map.h"
#include "record/decode/elf_funcs.h"

#define PROC_SLOTS 256    /* processes whose maps are cached (direct-mapped by pid) */
#define MAX_XMAPS 512     /* executable mappings kept per process */
#define DSO_SLOTS 128     /* files kept mapped */
#define MAX_WALK 65536    /* instructions decoded from a function's start, at most */

#define DSO_GONE (-2)    /* xmap.dso: the file was unmapped to make room; mapped again when read */

struct xmap {
	uint64_t start, end, pgoff;
	dev_t dev;            /* the file's, for mapping it again */
	ino_t ino;
	int dso;              /* index in dsos, -1: read the process's memory, or DSO_GONE */
};

struct proc_maps {
	int pid;              /* 0: empty */
	size_t nr;
	struct xmap *maps;
};

struct dso {
	dev_t dev;
	ino_t ino;
	const uint8_t *base;  /* NULL: empty slot */
	size_t size;
	uint64_t used;
	bool funcs_loaded;
	struct elf_funcs funcs;
	struct u64map prev;   /* offset of an instruction boundary -> 1 + offset of the instruction before */
	struct u64map walked; /* starts of the functions decoded into prev */
};

struct insn_text {
	char proc_root[256];
	struct proc_maps procs[PROC_SLOTS];
	struct dso dsos[DSO_SLOTS];
	uint64_t clock;
	struct insn_text_stats st;
};

struct insn_text *insn_text_new(const char *proc_root)
{
	struct insn_text *t = calloc(1, sizeof(*t));

	if (t)
		snprintf(t->proc_root, sizeof(t->proc_root), "%s", proc_root ? proc_root : "/proc");
	return t;
}

static struct proc_maps *slot_of(struct insn_text *t, int pid)
{
	return &t->procs[(unsigned)pid % PROC_SLOTS];
}

void insn_text_forget(struct insn_text *t, int pid)
{
	struct proc_maps *p = slot_of(t, pid);

	if (p->pid == pid) {
		free(p->maps);
		memset(p, 0, sizeof(*p));
	}
}

/* The slot of the file (dev, ino) mapped by pid at start-end, mapping it
 * on first use (in the slot of the file least recently read, when all are
 * taken); -1 when it cannot be opened. */
static int dso_get(struct insn_text *t, int pid, uint64_t start, uint64_t end, const char *path, dev_t dev,
		   ino_t ino)
{
	char name[4400];
	struct stat sb;
	size_t i, victim = 0;
	void *base;
	int fd;

	t->clock++;
	for (i = 0; i < DSO_SLOTS; i++) {
		if (t->dsos[i].base && t->dsos[i].dev == dev && t->dsos[i].ino == ino) {
			t->dsos[i].used = t->clock;
			return (int)i;
		}
		if (t->dsos[i].used < t->dsos[victim].used)
			victim = i;
	}
	/* map_files names exactly the mapped file (even deleted or in another
	 * mount namespace); the path through the process's root otherwise */
	snprintf(name, sizeof(name), "%s/%d/map_files/%" PRIx64 "-%" PRIx64, t->proc_root, pid, start, end);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && path[0] == '/') {
		snprintf(name, sizeof(name), "%s/%d/root%s", t->proc_root, pid, path);
		fd = open(name, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) < 0 || sb.st_ino != ino || sb.st_dev != dev || sb.st_size <= 0) {
		close(fd);
		return -1;
	}
	base = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (base == MAP_FAILED)
		return -1;
	if (t->dsos[victim].base) {
		munmap((void *)t->dsos[victim].base, t->dsos[victim].size);
		elf_funcs_free(&t->dsos[victim].funcs);
		u64map_free(&t->dsos[victim].prev);
		u64map_free(&t->dsos[victim].walked);
		/* cached maps naming the slot map the file again when they are
		 * next read (from process memory the instruction before an IP
		 * cannot be found); those never read again cost nothing */
		for (size_t p = 0; p < PROC_SLOTS; p++)
			for (size_t m = 0; m < t->procs[p].nr; m++)
				if (t->procs[p].maps[m].dso == (int)victim)
					t->procs[p].maps[m].dso = DSO_GONE;
		t->st.dsos_evicted++;
	}
	t->dsos[victim] = (struct dso){ .dev = dev, .ino = ino, .base = base, .size = (size_t)sb.st_size,
					.used = t->clock };
	u64map_init(&t->dsos[victim].prev);
	u64map_init(&t->dsos[victim].walked);
	t->st.dsos_opened++;
	return (int)victim;
}

/* Parse pid's executable mappings into its slot. */
static struct proc_maps *load_maps(struct insn_text *t, int pid)
{
	struct proc_maps *p = slot_of(t, pid);
	char path[300], line[4400];
	FILE *f;

	insn_text_forget(t, p->pid);
	snprintf(path, sizeof(path), "%s/%d/maps", t->proc_root, pid);
	if (!(f = fopen(path, "re")))
		return NULL;
	t->st.maps_reads++;
	p->maps = malloc(MAX_XMAPS * sizeof(*p->maps));
	if (!p->maps) {
		fclose(f);
		return NULL;
	}
	p->pid = pid;
	while (fgets(line, sizeof(line), f) && p->nr < MAX_XMAPS) {
		uint64_t start, end, pgoff, inode;
		unsigned maj, min;
		char perms[8];
		int name_at = 0;
		char *name;
		struct xmap *m;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &start, &end, perms,
			   &pgoff, &maj, &min, &inode, &name_at) < 7 || strlen(perms) < 3 || perms[2] != 'x')
			continue;
		name = line + name_at;
		name[strcspn(name, "\n")] = '\0';
		m = &p->maps[p->nr++];
		m->start = start;
		m->end = end;
		m->pgoff = pgoff;
		m->dev = makedev(maj, min);
		m->ino = (ino_t)inode;
		m->dso = inode && name[0] == '/' ? dso_get(t, pid, start, end, name, makedev(maj, min), (ino_t)inode)
						 : -1;
	}
	fclose(f);
	return p;
}

void insn_text_add_map(struct insn_text *t, int pid, uint64_t start, uint64_t len, uint64_t pgoff,
		       unsigned maj, unsigned min, uint64_t ino, const char *path)
{
	struct proc_maps *p = slot_of(t, pid);
	uint64_t end = start + len;
	size_t w = 0;

	if (p->pid != pid || !len || end < start)
		return;
	for (size_t r = 0; r < p->nr; r++) /* the new mapping replaces what it overlaps */
		if (p->maps[r].end <= start || p->maps[r].start >= end)
			p->maps[w++] = p->maps[r];
	p->nr = w;
	if (p->nr == MAX_XMAPS) {
		insn_text_forget(t, pid); /* reread on the next miss */
		return;
	}
	p->maps[p->nr++] = (struct xmap){
		.start = start, .end = end, .pgoff = pgoff, .dev = makedev(maj, min), .ino = (ino_t)ino,
		.dso = ino && path[0] == '/' ? dso_get(t, pid, start, end, path, makedev(maj, min), (ino_t)ino) : -1,
	};
}

static struct xmap *find_map(const struct proc_maps *p, uint64_t addr)
{
	for (size_t i = 0; i < p->nr; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

size_t insn_text_read(struct insn_text *t, int pid, uint64_t addr, uint8_t *buf, size_t want)
{
	struct proc_maps *p = slot_of(t, pid);
	bool reloaded = false;
	size_t got = 0;

	if (pid <= 0)
		return 0;
	if (p->pid != pid) {
		if (!(p = load_maps(t, pid)))
			return 0;
		reloaded = true;
	}
	while (got < want) {
		uint64_t at = addr + got;
		struct xmap *m = find_map(p, at);
		size_t n;

		if (m && m->dso == DSO_GONE) { /* its file left the cache: map it again */
			m->dso = dso_get(t, pid, m->start, m->end, "", m->dev, m->ino);
			if (m->dso < 0 && !reloaded)
				m = NULL; /* no map_files: the maps again, opened by path */
		}
		if (!m && !reloaded) { /* mapped since we looked */
			if (!(p = load_maps(t, pid)))
				return got;
			reloaded = true;
			m = find_map(p, at);
		}
		if (!m)
			break;
		n = want - got;
		if (m->end - at < n)
			n = (size_t)(m->end - at);
		if (m->dso >= 0) {
			struct dso *d = &t->dsos[m->dso];
			uint64_t off = at - m->start + m->pgoff;

			d->used = ++t->clock; /* the least recently read file leaves the cache first */
			if (off >= d->size)
				break;
			if (d->size - off < n)
				n = (size_t)(d->size - off);
			memcpy(buf + got, d->base + off, n);
			t->st.from_file++;
		} else {
			struct iovec local = { buf + got, n }, remote = { (void *)(uintptr_t)at, n };
			ssize_t r = process_vm_readv(pid, &local, 1, &remote, 1, 0);

			if (r <= 0)
				break;
			n = (size_t)r;
			t->st.from_memory++;
		}
		got += n;
	}
	return got;
}

/* Decode the function holding off from its start, once, remembering for
 * every instruction boundary the instruction before it (d->prev: offset ->
 * 1 + offset of the previous instruction); the function's start is
 * remembered too (d->walked), so IPs that are no boundary are known. */
static int walk_function(struct insn_text *t, struct dso *d, uint64_t off, const struct insn_decoder *dec)
{
	const struct elf_func *f;
	uint64_t pos, end;

	if (!d->funcs_loaded) {
		d->funcs_loaded = true;
		if (elf_funcs_load(d->base, d->size, &d->funcs) < 0)
			return -1;
	}
	f = elf_funcs_find(&d->funcs, off);
	if (!f || off <= f->start || f->start >= d->size)
		return -1;
	if (u64map_get(&d->walked, f->start))
		return 0;
	t->st.prev_walks++;
	end = f->end < d->size ? f->end : d->size;
	pos = f->start;
	for (unsigned n = 0; pos < end && n < MAX_WALK; n++) {
		size_t avail = d->size - pos < INSN_MAX_BYTES ? d->size - pos : INSN_MAX_BYTES;
		unsigned len = dec->length(d->base + pos, avail);

		if (!len || u64map_put(&d->prev, pos + len, (void *)(uintptr_t)(pos + 1)) < 0)
			break;
		pos += len;
	}
	return u64map_put(&d->walked, f->start, (void *)1);
}

bool insn_text_prev(struct insn_text *t, int pid, uint64_t ip, const struct insn_decoder *dec, uint64_t *prev)
{
	struct proc_maps *p = slot_of(t, pid);
	const struct xmap *m;
	struct dso *d;
	uint64_t off, at;
	void *v;

	if (pid <= 0 || p->pid != pid || !(m = find_map(p, ip)) || m->dso < 0)
		return false;
	d = &t->dsos[m->dso];
	off = ip - m->start + m->pgoff;
	if (!(v = u64map_get(&d->prev, off))) {
		if (walk_function(t, d, off, dec) < 0 || !(v = u64map_get(&d->prev, off)))
			return false;
	}
	at = (uint64_t)(uintptr_t)v - 1;
	if (off - at > ip - m->start)
		return false;
	*prev = ip - (off - at);
	return true;
}

const struct insn_text_stats *insn_text_stats(const struct insn_text *t)
{
	return &t->st;
}

void insn_text_free(struct insn_text *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < PROC_SLOTS; i++)
		free(t->procs[i].maps);
	for (size_t i = 0; i < DSO_SLOTS; i++)
		if (t->dsos[i].base) {
			munmap((void *)t->dsos[i].base, t->dsos[i].size);
			elf_funcs_free(&t->dsos[i].funcs);
			u64map_free(&t->dsos[i].prev);
			u64map_free(&t->dsos[i].walked);
		}
	free(t);
}
