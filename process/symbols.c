/*
 * symbols.c - address -> symbol name resolution matching perf 6.1.
 *
 * User DSOs: the symbol source is chosen like perf's dso__load() (debuglink
 * file, /usr/lib/debug/<path>[.debug], /usr/lib/debug/.build-id/xx/y.debug,
 * the file itself, <dir>/.debug/<base>): the first candidate with .symtab
 * gives the symbols, the first with .dynsym is the "runtime" image used for
 * section headers and PLT synthesis. Every candidate must carry the expected
 * build-id when one is known.
 *
 * Symbols are kept the way perf 6.1 keeps them (dso__load_sym): named defined
 * STT_FUNC/STT_GNU_IFUNC/STT_OBJECT, plus visible STT_NOTYPE labels in
 * sections whose name contains "text" or "data"; addresses are moved to file
 * offsets through the PT_LOAD program header holding them. Then symbols__fixup_end
 * (zero-sized symbols reach the next one), symbols__fixup_duplicate (same
 * start: choose_best_symbol) and the "<name>@plt" entries of .plt from
 * .rela.plt / .rel.plt.
 *
 * perf stores symbols in a red-black tree and its lookup returns the first
 * node on the search path whose range contains the address. Ranges can
 * overlap (e.g. a zero-sized _init extended over .plt, then the PLT entries),
 * so the answer depends on the tree's shape. To give the same answer we build
 * the same tree: a textbook red-black tree (which is what lib/rbtree.c is),
 * same insertion order, equal keys to the right, same erasures.
 *
 * Kernel: kallsyms lines "ADDR TYPE NAME[\t[module]]", types T/W/D/B in either
 * case (symbol_type__filter), names starting with '$' skipped, zero sizes
 * fixed up with the kallsyms rules (page rounding at kernel/module borders and
 * for the last symbol).
 *
 * C++ names are demangled like perf (libiberty cplus_demangle, no parameters;
 * see demangle.h).
 *
 * All names of one DSO live in one string arena.
 */
#include "process/symbols.h"

#include "lib/error.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/vdso.h"
#include "process/demangle.h"

#define BID_MAX 20
#define NIL 0u

/* ------------------------------------------------------------------ */
/* String arena                                                        */
/* ------------------------------------------------------------------ */

struct arena {
	char *buf;
	size_t len, cap;
};

/* Append s[0..n) plus NUL; returns the offset or -1 on allocation failure. */
static int64_t arena_add(struct arena *a, const char *s, size_t n)
{
	size_t off = a->len;

	if (a->len + n + 1 > a->cap) {
		size_t cap = a->cap ? a->cap : 4096;
		char *p;

		while (cap < a->len + n + 1)
			cap *= 2;
		p = realloc(a->buf, cap);
		if (!p)
			return -1;
		a->buf = p;
		a->cap = cap;
	}
	memcpy(a->buf + off, s, n);
	a->buf[off + n] = '\0';
	a->len += n + 1;
	return (int64_t)off;
}

/* ------------------------------------------------------------------ */
/* Symbol red-black tree (index based, node 0 is the NIL sentinel)     */
/* ------------------------------------------------------------------ */

struct snode {
	uint64_t start, end;
	uint32_t name, module;          /* arena offsets; module 0 = none */
	uint32_t left, right, parent;
	uint8_t bind, red, dead;
};

struct stree {
	struct snode *n;
	uint32_t count, cap, root;
	struct arena str;
};

static int stree_init(struct stree *t)
{
	memset(t, 0, sizeof(*t));
	t->cap = 64;
	t->n = calloc(t->cap, sizeof(*t->n));
	if (!t->n)
		return -1;
	t->count = 1;                   /* sentinel */
	t->root = NIL;
	if (arena_add(&t->str, "", 0) < 0)  /* offset 0 = "" */
		return -1;
	return 0;
}

static void stree_free(struct stree *t)
{
	free(t->n);
	free(t->str.buf);
	memset(t, 0, sizeof(*t));
}

static void rb_rotate_left(struct stree *t, uint32_t x)
{
	struct snode *n = t->n;
	uint32_t y = n[x].right;

	n[x].right = n[y].left;
	if (n[y].left != NIL)
		n[n[y].left].parent = x;
	n[y].parent = n[x].parent;
	if (n[x].parent == NIL)
		t->root = y;
	else if (x == n[n[x].parent].left)
		n[n[x].parent].left = y;
	else
		n[n[x].parent].right = y;
	n[y].left = x;
	n[x].parent = y;
}

static void rb_rotate_right(struct stree *t, uint32_t x)
{
	struct snode *n = t->n;
	uint32_t y = n[x].left;

	n[x].left = n[y].right;
	if (n[y].right != NIL)
		n[n[y].right].parent = x;
	n[y].parent = n[x].parent;
	if (n[x].parent == NIL)
		t->root = y;
	else if (x == n[n[x].parent].right)
		n[n[x].parent].right = y;
	else
		n[n[x].parent].left = y;
	n[y].right = x;
	n[x].parent = y;
}

static void rb_insert_fixup(struct stree *t, uint32_t z)
{
	struct snode *n = t->n;

	while (n[n[z].parent].red) {
		uint32_t p = n[z].parent, g = n[p].parent;
		bool left = p == n[g].left;
		uint32_t y = left ? n[g].right : n[g].left;

		if (n[y].red) {
			n[p].red = 0;
			n[y].red = 0;
			n[g].red = 1;
			z = g;
			continue;
		}
		if (left && z == n[p].right) {
			z = p;
			rb_rotate_left(t, z);
		} else if (!left && z == n[p].left) {
			z = p;
			rb_rotate_right(t, z);
		}
		p = n[z].parent;
		g = n[p].parent;
		n[p].red = 0;
		n[g].red = 1;
		if (left)
			rb_rotate_right(t, g);
		else
			rb_rotate_left(t, g);
	}
	n[t->root].red = 0;
}

/* Insert node z by start; equal starts go right (perf's __symbols__insert). */
static void rb_insert(struct stree *t, uint32_t z)
{
	struct snode *n = t->n;
	uint32_t x = t->root, y = NIL;

	while (x != NIL) {
		y = x;
		x = n[z].start < n[x].start ? n[x].left : n[x].right;
	}
	n[z].parent = y;
	if (y == NIL)
		t->root = z;
	else if (n[z].start < n[y].start)
		n[y].left = z;
	else
		n[y].right = z;
	n[z].left = n[z].right = NIL;
	n[z].red = 1;
	rb_insert_fixup(t, z);
}

static void rb_transplant(struct stree *t, uint32_t u, uint32_t v)
{
	struct snode *n = t->n;

	if (n[u].parent == NIL)
		t->root = v;
	else if (u == n[n[u].parent].left)
		n[n[u].parent].left = v;
	else
		n[n[u].parent].right = v;
	n[v].parent = n[u].parent;
}

static uint32_t rb_minimum(const struct stree *t, uint32_t x)
{
	while (x != NIL && t->n[x].left != NIL)
		x = t->n[x].left;
	return x;
}

static void rb_erase_fixup(struct stree *t, uint32_t x)
{
	struct snode *n = t->n;

	while (x != t->root && !n[x].red) {
		uint32_t p = n[x].parent;
		bool left = x == n[p].left;
		uint32_t w = left ? n[p].right : n[p].left;

		if (n[w].red) {
			n[w].red = 0;
			n[p].red = 1;
			if (left)
				rb_rotate_left(t, p);
			else
				rb_rotate_right(t, p);
			w = left ? n[p].right : n[p].left;
		}
		if (!n[n[w].left].red && !n[n[w].right].red) {
			n[w].red = 1;
			x = p;
			continue;
		}
		if (left && !n[n[w].right].red) {
			n[n[w].left].red = 0;
			n[w].red = 1;
			rb_rotate_right(t, w);
			w = n[p].right;
		} else if (!left && !n[n[w].left].red) {
			n[n[w].right].red = 0;
			n[w].red = 1;
			rb_rotate_left(t, w);
			w = n[p].left;
		}
		n[w].red = n[p].red;
		n[p].red = 0;
		if (left) {
			n[n[w].right].red = 0;
			rb_rotate_left(t, p);
		} else {
			n[n[w].left].red = 0;
			rb_rotate_right(t, p);
		}
		x = t->root;
	}
	n[x].red = 0;
}

/* Remove z; the successor replaces a node with two children (as rbtree.c). */
static void rb_erase(struct stree *t, uint32_t z)
{
	struct snode *n = t->n;
	uint32_t x, y = z;
	uint8_t y_red = n[y].red;

	if (n[z].left == NIL) {
		x = n[z].right;
		rb_transplant(t, z, n[z].right);
	} else if (n[z].right == NIL) {
		x = n[z].left;
		rb_transplant(t, z, n[z].left);
	} else {
		y = rb_minimum(t, n[z].right);
		y_red = n[y].red;
		x = n[y].right;
		if (n[y].parent == z) {
			n[x].parent = y;
		} else {
			rb_transplant(t, y, n[y].right);
			n[y].right = n[z].right;
			n[n[y].right].parent = y;
		}
		rb_transplant(t, z, y);
		n[y].left = n[z].left;
		n[n[y].left].parent = y;
		n[y].red = n[z].red;
	}
	if (!y_red)
		rb_erase_fixup(t, x);
	n[NIL].parent = NIL;
	n[z].dead = 1;
}

static uint32_t rb_next(const struct stree *t, uint32_t x)
{
	const struct snode *n = t->n;
	uint32_t p;

	if (n[x].right != NIL)
		return rb_minimum(t, n[x].right);
	p = n[x].parent;
	while (p != NIL && x == n[p].right) {
		x = p;
		p = n[p].parent;
	}
	return p;
}

/* Append a symbol and insert it into the tree; -1 on allocation failure. */
static int stree_add(struct stree *t, uint64_t start, uint64_t len, uint8_t bind,
		     const char *name, size_t name_len, const char *module, size_t mod_len)
{
	struct snode *s;
	int64_t off, moff = 0;

	if (t->count == t->cap) {
		struct snode *p = realloc(t->n, (size_t)t->cap * 2 * sizeof(*p));

		if (!p)
			return -1;
		t->n = p;
		t->cap *= 2;
	}
	off = arena_add(&t->str, name, name_len);
	if (off < 0 || off > UINT32_MAX)
		return -1;
	if (module) {
		moff = arena_add(&t->str, module, mod_len);
		if (moff < 0 || moff > UINT32_MAX)
			return -1;
	}
	s = &t->n[t->count];
	memset(s, 0, sizeof(*s));
	s->start = start;
	s->end = len ? start + len : start;
	s->bind = bind;
	s->name = (uint32_t)off;
	s->module = (uint32_t)moff;
	rb_insert(t, t->count++);
	return 0;
}

static const char *snode_name(const struct stree *t, uint32_t i)
{
	return t->str.buf + t->n[i].name;
}

/* ------------------------------------------------------------------ */
/* perf's symbols__fixup_end / symbols__fixup_duplicate                */
/* ------------------------------------------------------------------ */

static uint64_t round_page_up(uint64_t x)
{
	return (x + 4095) & ~(uint64_t)4095;
}

static void fixup_end(struct stree *t, bool is_kallsyms)
{
	uint32_t prev, curr = rb_minimum(t, t->root);

	if (curr == NIL)
		return;
	for (uint32_t nd = rb_next(t, curr); nd != NIL; nd = rb_next(t, nd)) {
		prev = curr;
		curr = nd;
		if (t->n[prev].end != t->n[prev].start)
			continue;
		/* kallsyms: a kernel/module border ends on the next page */
		if (is_kallsyms && !t->n[prev].module != !t->n[curr].module)
			t->n[prev].end = round_page_up(t->n[prev].end + 4096);
		else
			t->n[prev].end = t->n[curr].start;
	}
	if (t->n[curr].end == t->n[curr].start)
		t->n[curr].end = round_page_up(t->n[curr].start) + 4096;
}

static size_t prefix_underscores(const char *s)
{
	size_t k = 0;

	while (s[k] == '_')
		k++;
	return k;
}

/* Name length as perf sees it (kallsyms names still carry "\t[mod]"). */
static size_t perf_name_len(const struct stree *t, uint32_t i)
{
	size_t len = strlen(snode_name(t, i));

	if (t->n[i].module)
		len += strlen(t->str.buf + t->n[i].module) + 3;
	return len;
}

/* true: keep a, false: keep b (perf's choose_best_symbol). */
static bool choose_a(const struct stree *t, uint32_t a, uint32_t b)
{
	const struct snode *sa = &t->n[a], *sb = &t->n[b];
	uint64_t la = sa->end - sa->start, lb = sb->end - sb->start;
	int wa, wb;
	size_t ua, ub, na, nb;

	if (lb == 0 && la > 0)
		return true;
	if (la == 0 && lb > 0)
		return false;
	wa = sa->bind == STB_WEAK;
	wb = sb->bind == STB_WEAK;
	if (wa != wb)
		return wb;
	wa = sa->bind == STB_GLOBAL;
	wb = sb->bind == STB_GLOBAL;
	if (wa != wb)
		return wa;
	ua = prefix_underscores(snode_name(t, a));
	ub = prefix_underscores(snode_name(t, b));
	if (ua != ub)
		return ub > ua;
	na = perf_name_len(t, a);
	nb = perf_name_len(t, b);
	if (na != nb)
		return na > nb;
	return true;
}

static void fixup_duplicate(struct stree *t)
{
	uint32_t curr = rb_minimum(t, t->root);

	while (curr != NIL) {
		uint32_t next = rb_next(t, curr);

		if (next == NIL)
			break;
		if (t->n[curr].start != t->n[next].start) {
			curr = next;
			continue;
		}
		if (choose_a(t, curr, next)) {
			rb_erase(t, next);
		} else {
			rb_erase(t, curr);
			curr = next;
		}
	}
}

/* perf's symbols__find: first node on the search path that holds addr. */
static uint32_t stree_find(const struct stree *t, uint64_t addr)
{
	uint32_t x = t->root;

	while (x != NIL) {
		const struct snode *s = &t->n[x];

		if (addr < s->start)
			x = s->left;
		else if (addr > s->end || (addr == s->end && addr != s->start))
			x = s->right;
		else
			return x;
	}
	return NIL;
}

/* ------------------------------------------------------------------ */
/* Cache and DSO objects                                               */
/* ------------------------------------------------------------------ */

struct sym_dso {
	struct sym_dso *next;           /* hash chain */
	struct sym_cache *cache;
	char *filename;
	char *real_path;                /* read this file instead (vdso image), no symfs */
	uint8_t bid[BID_MAX];
	size_t bid_size;
	bool has_bid;
	bool loaded;
	char *note;
	struct stree t;
	uint64_t last_off;
	const char *last_name;
	bool last_valid;
	bool data_loaded;
	struct stree dt;                /* data objects only (sym_dso_lookup_data) */
};

struct sym_cache {
	char *symfs;
	char *kallsyms_path;
	char *vdso_path;
	int vdso_fd;                    /* memfd holding this process's vdso, or -1 */
	uint8_t vdso_bid[BID_MAX];
	size_t vdso_bid_size;
	bool allow_proc_kallsyms;
	struct sym_dso **buckets;
	size_t nbuckets, ndsos;
	size_t loaded, without_symbols;
	bool kernel_tried;
	bool kernel_ok;
	bool kernel_loading;            /* a prefetch thread is building kt */
	pthread_t kernel_thread;
	int kernel_rc;
	struct stree kt;
	uint64_t klast_addr;
	uint32_t klast_node;
	bool klast_valid;
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void kernel_join(struct sym_cache *c);

struct sym_cache *sym_cache_new(const struct sym_cache_opts *opts)
{
	struct sym_cache *c = calloc(1, sizeof(*c));

	if (!c) {
		scx_fail("symbols: out of memory");
		return NULL;
	}
	c->nbuckets = 256;
	c->buckets = calloc(c->nbuckets, sizeof(*c->buckets));
	if (opts) {
		c->symfs = dup_or_null(opts->symfs && *opts->symfs ? opts->symfs : NULL);
		c->kallsyms_path = dup_or_null(opts->kallsyms_path);
		c->vdso_path = dup_or_null(opts->vdso_path);
		if (opts->vdso_build_id && opts->vdso_build_id_size) {
			c->vdso_bid_size = opts->vdso_build_id_size > BID_MAX ? BID_MAX : opts->vdso_build_id_size;
			memcpy(c->vdso_bid, opts->vdso_build_id, c->vdso_bid_size);
		}
		c->allow_proc_kallsyms = opts->allow_proc_kallsyms;
	}
	c->vdso_fd = -1;
	if (!c->buckets || (opts && opts->symfs && *opts->symfs && !c->symfs) ||
	    (opts && opts->kallsyms_path && !c->kallsyms_path)) {
		sym_cache_free(c);
		scx_fail("symbols: out of memory");
		return NULL;
	}
	return c;
}

static void dso_free(struct sym_dso *d)
{
	stree_free(&d->t);
	stree_free(&d->dt);
	free(d->filename);
	free(d->real_path);
	free(d->note);
	free(d);
}

void sym_cache_free(struct sym_cache *c)
{
	if (!c)
		return;
	kernel_join(c);
	for (size_t i = 0; c->buckets && i < c->nbuckets; i++) {
		struct sym_dso *d = c->buckets[i], *nx;

		for (; d; d = nx) {
			nx = d->next;
			dso_free(d);
		}
	}
	free(c->buckets);
	stree_free(&c->kt);
	free(c->symfs);
	free(c->kallsyms_path);
	free(c->vdso_path);
	if (c->vdso_fd >= 0)
		close(c->vdso_fd);
	free(c);
}

static uint64_t hash_key(const char *s, const uint8_t *bid, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ bid[i]) * 1099511628211ull;
	return h;
}

static bool dso_matches(const struct sym_dso *d, const char *filename,
			const uint8_t *bid, size_t n)
{
	if (strcmp(d->filename, filename))
		return false;
	if (d->has_bid != (bid != NULL && n > 0))
		return false;
	return !d->has_bid || (d->bid_size == n && !memcmp(d->bid, bid, n));
}

static int cache_grow(struct sym_cache *c)
{
	size_t nb = c->nbuckets * 2;
	struct sym_dso **b = calloc(nb, sizeof(*b));

	if (!b)
		return -1;
	for (size_t i = 0; i < c->nbuckets; i++) {
		struct sym_dso *d = c->buckets[i], *nx;

		for (; d; d = nx) {
			uint64_t h = hash_key(d->filename, d->bid, d->has_bid ? d->bid_size : 0);

			nx = d->next;
			d->next = b[h % nb];
			b[h % nb] = d;
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->nbuckets = nb;
	return 0;
}

/* A DSO that failed to allocate: shared, never loaded, no symbols. */
static struct sym_dso oom_dso = { .loaded = true, .note = "out of memory" };

struct sym_dso *sym_dso_get(struct sym_cache *c, const char *filename,
			    const uint8_t *build_id, size_t build_id_size)
{
	size_t n = build_id ? (build_id_size > BID_MAX ? BID_MAX : build_id_size) : 0;
	uint64_t h = filename ? hash_key(filename, build_id, n) : 0;
	struct sym_dso *d;

	if (!c || !filename)
		return &oom_dso;
	for (d = c->buckets[h % c->nbuckets]; d; d = d->next)
		if (dso_matches(d, filename, build_id, n))
			return d;
	if (c->ndsos >= c->nbuckets * 2)
		(void)cache_grow(c);       /* on failure the chains just get longer */
	d = calloc(1, sizeof(*d));
	if (!d || !(d->filename = strdup(filename))) {
		free(d);
		return &oom_dso;
	}
	d->cache = c;
	d->has_bid = n > 0;
	d->bid_size = n;
	if (n)
		memcpy(d->bid, build_id, n);
	d->next = c->buckets[h % c->nbuckets];
	c->buckets[h % c->nbuckets] = d;
	c->ndsos++;
	return d;
}

static void dso_set_note(struct sym_dso *d, const char *fmt, const char *arg)
{
	char buf[512];

	if (d->note)
		return;
	snprintf(buf, sizeof(buf), fmt, arg);
	d->note = strdup(buf);
}

/* ------------------------------------------------------------------ */
/* ELF symbol sources (perf's struct symsrc)                           */
/* ------------------------------------------------------------------ */

struct symsrc {
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t shstrndx;
	Elf_Scn *symtab, *dynsym;
	GElf_Shdr symshdr, dynshdr;
	size_t dynsym_idx;
};

enum load_err { LE_NONE, LE_NOT_ELF, LE_BID_MISMATCH, LE_NO_BID };

static Elf_Scn *section_by_name(Elf *elf, size_t shstrndx, const char *name,
				GElf_Shdr *shdr, size_t *idx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *s;

		if (!gelf_getshdr(scn, shdr))
			continue;
		s = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (s && !strcmp(s, name)) {
			if (idx)
				*idx = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

/* Build-id from the first of .note.gnu.build-id/.notes/.note; size or -1. */
static int elf_build_id(Elf *elf, size_t shstrndx, uint8_t *out)
{
	static const char *const secs[] = { ".note.gnu.build-id", ".notes", ".note" };
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;

	for (size_t i = 0; i < 3 && !scn; i++)
		scn = section_by_name(elf, shstrndx, secs[i], &sh, NULL);
	if (!scn || !(data = elf_getdata(scn, NULL)))
		return -1;
	while (off < data->d_size &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4)) {
			size_t sz = nh.n_descsz < BID_MAX ? nh.n_descsz : BID_MAX;

			memcpy(out, (char *)data->d_buf + desc_off, sz);
			return (int)sz;
		}
	}
	return -1;
}

/* perf's dso__build_id_equal (a 20-byte id may carry trailing zeros). */
static bool bid_equal(const struct sym_dso *d, const uint8_t *bid, size_t n)
{
	if (d->bid_size > n && d->bid_size == BID_MAX) {
		for (size_t i = n; i < d->bid_size; i++)
			if (d->bid[i])
				return false;
		return !memcmp(d->bid, bid, n);
	}
	return d->bid_size == n && !memcmp(d->bid, bid, n);
}

static void symsrc_close(struct symsrc *ss)
{
	if (ss->elf)
		elf_end(ss->elf);
	if (ss->fd >= 0)
		close(ss->fd);
	ss->elf = NULL;
	ss->fd = -1;
}

static Elf *elf_open(const char *path, int *fd)
{
	Elf *elf;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(*fd);
		*fd = -1;
		errno = 0;
		return NULL;
	}
	return elf;
}

/* perf's symsrc__init: open, check the build-id, find .symtab/.dynsym. */
static int symsrc_init(struct symsrc *ss, const struct sym_dso *d, const char *path,
		       int *err)
{
	memset(ss, 0, sizeof(*ss));
	ss->elf = elf_open(path, &ss->fd);
	if (!ss->elf) {
		*err = errno ? errno : -LE_NOT_ELF;
		return -1;
	}
	if (!gelf_getehdr(ss->elf, &ss->ehdr) || elf_getshdrstrndx(ss->elf, &ss->shstrndx)) {
		*err = -LE_NOT_ELF;
		goto fail;
	}
	if (d->has_bid) {
		uint8_t bid[BID_MAX];
		int n = elf_build_id(ss->elf, ss->shstrndx, bid);

		if (n <= 0 || !bid_equal(d, bid, (size_t)n)) {
			*err = n <= 0 ? -LE_NO_BID : -LE_BID_MISMATCH;
			goto fail;
		}
	}
	ss->symtab = section_by_name(ss->elf, ss->shstrndx, ".symtab", &ss->symshdr, NULL);
	if (ss->symtab && ss->symshdr.sh_type != SHT_SYMTAB)
		ss->symtab = NULL;
	ss->dynsym = section_by_name(ss->elf, ss->shstrndx, ".dynsym", &ss->dynshdr,
				     &ss->dynsym_idx);
	if (ss->dynsym && ss->dynshdr.sh_type != SHT_DYNSYM)
		ss->dynsym = NULL;
	return 0;
fail:
	symsrc_close(ss);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Candidate files (perf's dso__read_binary_type_filename)             */
/* ------------------------------------------------------------------ */

enum cand { C_DEBUGLINK, C_FEDORA, C_UBUNTU, C_BUILDID, C_SYSTEM, C_PERF_CACHE, C_OPENEMBEDDED,
	    C_MIXEDUP_UBUNTU, C_COUNT };

static bool is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void join_symfs(const struct sym_cache *c, char *buf, size_t sz, const char *path);

/* The file to read for d: its real path (vdso image) or symfs + name. */
static void dso_path(const struct sym_dso *d, char *buf, size_t sz)
{
	if (d->real_path)
		snprintf(buf, sz, "%s", d->real_path);
	else
		join_symfs(d->cache, buf, sz, d->filename);
}

static void join_symfs(const struct sym_cache *c, char *buf, size_t sz, const char *path)
{
	snprintf(buf, sz, "%s%s", c->symfs ? c->symfs : "", path);
}

/* The .gnu_debuglink file name of path, or -1. */
static int read_debuglink(const char *path, char *out, size_t sz)
{
	GElf_Shdr sh;
	GElf_Ehdr eh;
	size_t shstrndx;
	Elf_Scn *scn;
	Elf_Data *data;
	int fd, ret = -1;
	Elf *elf = elf_open(path, &fd);

	if (!elf)
		return -1;
	if (gelf_getehdr(elf, &eh) && !elf_getshdrstrndx(elf, &shstrndx) &&
	    (scn = section_by_name(elf, shstrndx, ".gnu_debuglink", &sh, NULL)) &&
	    (data = elf_getdata(scn, NULL)) && data->d_size > 0) {
		size_t n = strnlen(data->d_buf, data->d_size);

		if (n < sz) {
			memcpy(out, data->d_buf, n);
			out[n] = '\0';
			ret = 0;
		}
	}
	elf_end(elf);
	close(fd);
	return ret;
}

/* snprintf into a path buffer; false when it does not fit. */
static bool __attribute__((format(printf, 3, 4)))
path_fmt(char *buf, size_t sz, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sz, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < sz;
}

static int debuglink_path(const struct sym_dso *d, char *buf, size_t sz)
{
	char dir[PATH_MAX], link[PATH_MAX];
	const char *slash;

	dso_path(d, buf, sz);
	slash = strrchr(buf, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - buf) : 0, buf);
	if (!is_regular(buf) || read_debuglink(buf, link, sizeof(link)))
		return -1;
	/* perf's debuglink_paths: bare name, <dir>/, <dir>/.debug/, /usr/lib/debug<dir>/ */
	if (path_fmt(buf, sz, "%s", link) && is_regular(buf))
		return 0;
	if (path_fmt(buf, sz, "%s/%s", dir, link) && is_regular(buf))
		return 0;
	if (path_fmt(buf, sz, "%s/.debug/%s", dir, link) && is_regular(buf))
		return 0;
	if (path_fmt(buf, sz, "/usr/lib/debug%s/%s", dir, link) && is_regular(buf))
		return 0;
	return -1;
}

static int candidate_path(const struct sym_dso *d, enum cand type, char *buf, size_t sz)
{
	const struct sym_cache *c = d->cache;
	char tmp[PATH_MAX];
	const char *slash;

	switch (type) {
	case C_DEBUGLINK:
		return debuglink_path(d, buf, sz);
	case C_FEDORA:
		snprintf(tmp, sizeof(tmp), "/usr/lib/debug%s.debug", d->filename);
		break;
	case C_UBUNTU:
		snprintf(tmp, sizeof(tmp), "/usr/lib/debug%s", d->filename);
		break;
	case C_BUILDID: {
		char hex[2 * BID_MAX + 1];

		if (!d->has_bid)
			return -1;
		for (size_t i = 0; i < d->bid_size; i++)
			snprintf(hex + 2 * i, 3, "%02x", d->bid[i]);
		snprintf(tmp, sizeof(tmp), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		break;
	}
	case C_PERF_CACHE: {
		/* perf record keeps a copy of every binary it saw here, by
		 * build-id: the right one when the file was replaced since */
		char hex[2 * BID_MAX + 1];
		const char *home = getenv("HOME");

		if (!d->has_bid || !home || !*home)
			return -1;
		for (size_t i = 0; i < d->bid_size; i++)
			snprintf(hex + 2 * i, 3, "%02x", d->bid[i]);
		snprintf(buf, sz, "%s/.debug/.build-id/%.2s/%s/elf", home, hex, hex + 2);
		return 0;
	}
	case C_SYSTEM:
		if (d->real_path) {
			snprintf(buf, sz, "%s", d->real_path);
			return 0;
		}
		snprintf(tmp, sizeof(tmp), "%s", d->filename);
		break;
	case C_OPENEMBEDDED:
		slash = strrchr(d->filename, '/');
		if (!slash)
			return -1;
		snprintf(tmp, sizeof(tmp), "%.*s/.debug%s", (int)(slash - d->filename),
			 d->filename, slash);
		break;
	case C_MIXEDUP_UBUNTU:
		if (strncmp(d->filename, "/usr/lib/", 9))
			return -1;
		snprintf(tmp, sizeof(tmp), "/usr/lib/debug%s", d->filename + 4);
		break;
	default:
		return -1;
	}
	join_symfs(c, buf, sz, tmp);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Reading the symbol table (perf's dso__load_sym)                     */
/* ------------------------------------------------------------------ */

static bool is_function(const GElf_Sym *s)
{
	int ty = GELF_ST_TYPE(s->st_info);

	return (ty == STT_FUNC || ty == STT_GNU_IFUNC) && s->st_name && s->st_shndx != SHN_UNDEF;
}

static bool is_object(const GElf_Sym *s)
{
	return GELF_ST_TYPE(s->st_info) == STT_OBJECT && s->st_name &&
	       s->st_shndx != SHN_UNDEF;
}

static bool is_label(const GElf_Sym *s)
{
	int vis = GELF_ST_VISIBILITY(s->st_other);

	return GELF_ST_TYPE(s->st_info) == STT_NOTYPE && s->st_name &&
	       s->st_shndx != SHN_UNDEF && s->st_shndx != SHN_ABS &&
	       vis != STV_HIDDEN && vis != STV_INTERNAL;
}

static bool is_arm_mapping_symbol(const GElf_Ehdr *eh, const char *name)
{
	if (eh->e_machine != EM_ARM && eh->e_machine != EM_AARCH64)
		return false;
	return name[0] == '$' && strchr("adtx", name[1]) && name[1] &&
	       (name[2] == '\0' || name[2] == '.');
}

/* Section header of index ndx for a symbol; NOBITS falls back to runtime. */
static int sym_section(const struct symsrc *syms, const struct symsrc *rt, size_t ndx,
		       GElf_Shdr *sh, const char **secname)
{
	Elf_Scn *scn = elf_getscn(syms->elf, ndx);
	const struct symsrc *src = syms;

	if (!scn || !gelf_getshdr(scn, sh))
		return -1;
	if (sh->sh_type == SHT_NOBITS) {
		scn = elf_getscn(rt->elf, ndx);
		if (!scn || !gelf_getshdr(scn, sh))
			return -1;
		src = rt;
	}
	*secname = elf_strptr(src->elf, src->shstrndx, sh->sh_name);
	if (!*secname)
		*secname = "";
	return 0;
}

/*
 * ELF address -> file offset through the runtime image's PT_LOAD holding it
 * (size max(p_memsz, p_filesz), as perf's elf_read_program_header); outside
 * every PT_LOAD the section header gives the delta. This is what the
 * installed perf 6.1.y does (checked: .bss objects of libc).
 */
static uint64_t to_file_offset(Elf *elf, uint64_t vaddr, const GElf_Shdr *sh)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			uint64_t sz;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			sz = ph.p_memsz > ph.p_filesz ? ph.p_memsz : ph.p_filesz;
			if (sz && vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + sz)
				return vaddr - (ph.p_vaddr - ph.p_offset);
		}
	}
	return vaddr - (sh->sh_addr - sh->sh_offset);
}

/* perf's demangling of ELF names (demangle.h). Malloc'ed name or NULL. */
static char *demangle(const char *name)
{
	return sym_demangle(name);
}

static int stree_add_demangled(struct stree *t, uint64_t start, uint64_t len, uint8_t bind,
			       const char *name)
{
	char *dm = demangle(name);
	int ret;

	if (dm)
		name = dm;
	ret = stree_add(t, start, len, bind, name, strlen(name), NULL, 0);
	free(dm);
	return ret;
}

/* Adds one kept symbol; 1 added, 0 skipped, -1 abort (perf: out_elf_end). */
static int load_one(struct stree *t, const struct symsrc *syms, const struct symsrc *rt,
		    const GElf_Sym *in, const char *name)
{
	GElf_Sym sym = *in;
	GElf_Shdr sh;
	const char *secname;
	bool label = is_label(&sym);

	if (!label && !is_function(&sym) && !is_object(&sym))
		return 0;
	if (is_arm_mapping_symbol(&syms->ehdr, name))
		return 0;
	if (sym.st_shndx == SHN_ABS)
		return 0;
	if (sym.st_shndx >= SHN_LORESERVE)
		return -1;
	if (sym_section(syms, rt, sym.st_shndx, &sh, &secname))
		return -1;
	if (!(sh.sh_flags & SHF_ALLOC))
		return 0;
	if (label && !strstr(secname, "text") && !strstr(secname, "data"))
		return 0;
	if (syms->ehdr.e_machine == EM_ARM && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
	    (sym.st_value & 1))
		sym.st_value--;
	sym.st_value = to_file_offset(rt->elf, sym.st_value, &sh);
	if (stree_add_demangled(t, sym.st_value, sym.st_size, GELF_ST_BIND(sym.st_info), name))
		return -1;
	return 1;
}

/* Number of symbols loaded (fixed up), or -1 when perf would fail. */
static int load_sym(struct stree *t, const struct symsrc *syms, const struct symsrc *rt)
{
	Elf_Scn *scn = syms->symtab ? syms->symtab : syms->dynsym;
	const GElf_Shdr *sh = syms->symtab ? &syms->symshdr : &syms->dynshdr;
	Elf_Data *data, *strs;
	size_t nsyms;
	int nr = 0;

	if (!scn || !sh->sh_entsize)
		return -1;
	data = elf_getdata(scn, NULL);
	strs = elf_getdata(elf_getscn(syms->elf, sh->sh_link), NULL);
	if (!data || !strs)
		return -1;
	nsyms = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		int r;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_name >= strs->d_size)
			continue;
		r = load_one(t, syms, rt, &sym, (const char *)strs->d_buf + sym.st_name);
		if (r < 0)
			return -1;
		nr += r;
	}
	if (nr > 0) {
		fixup_end(t, false);
		fixup_duplicate(t);
	}
	return nr;
}

/* ------------------------------------------------------------------ */
/* PLT (perf 6.1's dso__synthesize_plt_symbols)                        */
/* ------------------------------------------------------------------ */

static void plt_sizes(const GElf_Ehdr *eh, const GElf_Shdr *plt, uint64_t *hdr, uint64_t *ent)
{
	switch (eh->e_machine) {
	case EM_ARM:
		*hdr = 20, *ent = 12;
		break;
	case EM_AARCH64:
		*hdr = 32, *ent = 16;
		break;
	case EM_SPARC:
		*hdr = 48, *ent = 12;
		break;
	case EM_SPARCV9:
		*hdr = 128, *ent = 32;
		break;
	default:
		*hdr = *ent = plt->sh_entsize;
		break;
	}
}

/* Dynamic symbol index of relocation i. */
static bool rel_sym(Elf_Data *rel, bool rela, size_t i, size_t *symidx)
{
	GElf_Rela ra;
	GElf_Rel r;

	if (rela) {
		if (!gelf_getrela(rel, (int)i, &ra))
			return false;
		*symidx = GELF_R_SYM(ra.r_info);
	} else {
		if (!gelf_getrel(rel, (int)i, &r))
			return false;
		*symidx = GELF_R_SYM(r.r_info);
	}
	return true;
}

static void synthesize_plt(struct stree *t, const struct symsrc *ss)
{
	GElf_Shdr rsh, psh;
	Elf_Scn *rscn;
	Elf_Data *rel, *syms, *strs;
	uint64_t off, hdr, ent;
	char name[1024];

	if (!ss->dynsym)
		return;
	rscn = section_by_name(ss->elf, ss->shstrndx, ".rela.plt", &rsh, NULL);
	if (!rscn)
		rscn = section_by_name(ss->elf, ss->shstrndx, ".rel.plt", &rsh, NULL);
	if (!rscn || rsh.sh_link != ss->dynsym_idx || !rsh.sh_entsize ||
	    (rsh.sh_type != SHT_RELA && rsh.sh_type != SHT_REL) ||
	    !section_by_name(ss->elf, ss->shstrndx, ".plt", &psh, NULL))
		return;
	rel = elf_getdata(rscn, NULL);
	syms = elf_getdata(ss->dynsym, NULL);
	strs = elf_getdata(elf_getscn(ss->elf, ss->dynshdr.sh_link), NULL);
	if (!rel || !syms || !strs || !strs->d_size)
		return;
	plt_sizes(&ss->ehdr, &psh, &hdr, &ent);
	off = psh.sh_offset + hdr;
	for (size_t i = 0; i < rsh.sh_size / rsh.sh_entsize; i++, off += ent) {
		GElf_Sym sym;
		size_t si;
		const char *s = "";

		if (!rel_sym(rel, rsh.sh_type == SHT_RELA, i, &si))
			return;
		char *dm = NULL;

		if (gelf_getsym(syms, (int)si, &sym) && sym.st_name < strs->d_size)
			s = (const char *)strs->d_buf + sym.st_name;
		dm = demangle(s);
		snprintf(name, sizeof(name), "%s@plt", dm ? dm : s);
		free(dm);
		if (stree_add(t, off, ent, STB_GLOBAL, name, strlen(name), NULL, 0))
			return;
	}
}

/* ------------------------------------------------------------------ */
/* Loading a DSO (perf's dso__load for user space)                     */
/* ------------------------------------------------------------------ */

/* perf reads the file's own build-id when the caller gave none. */
static void dso_read_own_bid(struct sym_dso *d)
{
	char path[PATH_MAX];
	size_t shstrndx;
	uint8_t bid[BID_MAX];
	int fd, n;
	Elf *elf;

	if (d->has_bid || (!d->real_path && !is_regular(d->filename)))
		return;
	dso_path(d, path, sizeof(path));
	elf = elf_open(path, &fd);
	if (!elf)
		return;
	if (!elf_getshdrstrndx(elf, &shstrndx) && (n = elf_build_id(elf, shstrndx, bid)) > 0) {
		memcpy(d->bid, bid, (size_t)n);
		d->bid_size = (size_t)n;
		d->has_bid = true;
	}
	elf_end(elf);
	close(fd);
}

static void note_load_error(struct sym_dso *d, int err)
{
	if (err == -LE_BID_MISMATCH)
		dso_set_note(d, "%sbuild-id mismatch", "");
	else if (err == -LE_NO_BID)
		dso_set_note(d, "%sbuild-id mismatch (no build-id in file)", "");
	else if (err == -LE_NOT_ELF)
		dso_set_note(d, "not an ELF file: %s", d->filename);
	else if (err > 0)
		dso_set_note(d, "cannot open: %s", strerror(err));
	else
		dso_set_note(d, "cannot open: %s", strerror(ENOENT));
}

/* Picks syms/runtime sources; returns how many of ss[] are open. */
static int pick_sources(struct sym_dso *d, struct symsrc ss[2], struct symsrc **syms,
			struct symsrc **rt, int *err)
{
	char path[PATH_MAX];
	int used = 0;

	*syms = *rt = NULL;
	for (int type = 0; type < C_COUNT && used < 2; type++) {
		struct symsrc *s = &ss[used];
		bool keep = false;
		int e = 0;

		if (candidate_path(d, (enum cand)type, path, sizeof(path)))
			continue;
		if (!is_regular(path)) {
			if (type == C_SYSTEM)
				*err = errno ? errno : EINVAL;
			continue;
		}
		if (symsrc_init(s, d, path, &e)) {
			if (type == C_SYSTEM || !*err || e == -LE_BID_MISMATCH)
				*err = e;
			continue;
		}
		if (!*syms && s->symtab)
			*syms = s, keep = true;
		if (!*rt && s->dynsym)
			*rt = s, keep = true;
		if (keep)
			used++;
		else
			symsrc_close(s);
		if (*syms && *rt)
			break;
	}
	return used;
}

static void dso_load(struct sym_dso *d)
{
	struct symsrc ss[2] = { { .fd = -1 }, { .fd = -1 } }, *syms, *rt;
	int used, err = 0, nr;

	d->loaded = true;
	d->cache->loaded++;
	if (stree_init(&d->t)) {
		dso_set_note(d, "%sout of memory", "");
		d->cache->without_symbols++;
		return;
	}
	dso_read_own_bid(d);
	used = pick_sources(d, ss, &syms, &rt, &err);
	if (!syms)
		syms = rt;
	if (!rt)
		rt = syms;
	if (!syms) {
		note_load_error(d, err);
	} else {
		nr = load_sym(&d->t, syms, rt);
		if (nr > 0)
			synthesize_plt(&d->t, rt);
	}
	for (int i = 0; i < used; i++)
		symsrc_close(&ss[i]);
	if (d->t.count <= 1) {
		d->cache->without_symbols++;
		if (!d->note)
			dso_set_note(d, "%sno symbols", "");
	}
}

static void dso_ensure_loaded(struct sym_dso *d)
{
	static bool elf_ready;

	if (d->loaded)
		return;
	if (!elf_ready) {
		elf_version(EV_CURRENT);
		elf_ready = true;
	}
	dso_load(d);
}

const char *sym_dso_lookup(struct sym_dso *d, uint64_t file_offset)
{
	uint32_t i;

	if (!d)
		return NULL;
	dso_ensure_loaded(d);
	if (d->last_valid && d->last_off == file_offset)
		return d->last_name;
	if (!d->t.n)
		return NULL;
	i = stree_find(&d->t, file_offset);
	d->last_off = file_offset;
	d->last_name = i == NIL ? NULL : snode_name(&d->t, i);
	d->last_valid = true;
	return d->last_name;
}

/* Data objects (STT_OBJECT with a size in an allocated section) of one
 * symbol table into t, with perf's choice among aliases. */
static void load_objects(struct stree *t, const struct symsrc *syms, const struct symsrc *rt)
{
	Elf_Scn *scn = syms->symtab ? syms->symtab : syms->dynsym;
	const GElf_Shdr *sh = syms->symtab ? &syms->symshdr : &syms->dynshdr;
	Elf_Data *data, *strs;
	size_t nsyms;

	if (!scn || !sh->sh_entsize)
		return;
	data = elf_getdata(scn, NULL);
	strs = elf_getdata(elf_getscn(syms->elf, sh->sh_link), NULL);
	if (!data || !strs)
		return;
	nsyms = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Shdr shdr;
		const char *secname;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_name >= strs->d_size || !is_object(&sym) ||
		    !sym.st_size || sym.st_shndx == SHN_ABS || sym.st_shndx >= SHN_LORESERVE ||
		    sym_section(syms, rt, sym.st_shndx, &shdr, &secname) || !(shdr.sh_flags & SHF_ALLOC))
			continue;
		if (stree_add_demangled(t, to_file_offset(rt->elf, sym.st_value, &shdr), sym.st_size,
					GELF_ST_BIND(sym.st_info), (const char *)strs->d_buf + sym.st_name))
			return;
	}
	fixup_duplicate(t);
}

/* The data-object table, apart from the full one: a file whose code no
 * sample ran costs one pass over its symbols, no function demangled. */
static void dso_load_data(struct sym_dso *d)
{
	struct symsrc ss[2] = { { .fd = -1 }, { .fd = -1 } }, *syms, *rt;
	int used, err = 0;

	d->data_loaded = true;
	if (stree_init(&d->dt)) {
		stree_free(&d->dt);
		return;
	}
	dso_read_own_bid(d);
	used = pick_sources(d, ss, &syms, &rt, &err);
	if (!syms)
		syms = rt;
	if (!rt)
		rt = syms;
	if (syms)
		load_objects(&d->dt, syms, rt);
	for (int i = 0; i < used; i++)
		symsrc_close(&ss[i]);
}

const char *sym_dso_lookup_data(struct sym_dso *d, uint64_t file_offset)
{
	uint32_t i;

	if (!d)
		return NULL;
	if (!d->data_loaded) {
		static bool elf_ready;

		if (!elf_ready) {
			elf_version(EV_CURRENT);
			elf_ready = true;
		}
		dso_load_data(d);
	}
	if (d->dt.count <= 1)
		return NULL;
	i = stree_find(&d->dt, file_offset);
	return i == NIL ? NULL : snode_name(&d->dt, i);
}

const char *sym_dso_note(const struct sym_dso *d)
{
	if (!d)
		return NULL;
	/* Loading is lazy; the DSO object itself is never const memory. */
	dso_ensure_loaded((struct sym_dso *)d);
	return d->note;
}

/* ------------------------------------------------------------------ */
/* Kernel (kallsyms)                                                   */
/* ------------------------------------------------------------------ */

static bool kallsyms_type_kept(char type)
{
	type = (char)toupper((unsigned char)type);
	return type == 'T' || type == 'W' || type == 'D' || type == 'B';
}

static uint8_t kallsyms_bind(char type)
{
	if (type == 'W')
		return STB_WEAK;
	return isupper((unsigned char)type) ? STB_GLOBAL : STB_LOCAL;
}

/* One "ADDR TYPE NAME[\t[module]]" line; 1 kept, 0 skipped, -1 OOM. */
/* Append a node without linking it into the tree (see stree_build). */
static int stree_append(struct stree *t, uint64_t start, uint8_t bind, const char *name,
			size_t name_len, const char *module, size_t mod_len)
{
	struct snode *s;
	int64_t off, moff = 0;

	if (t->count == t->cap) {
		struct snode *p = realloc(t->n, (size_t)t->cap * 2 * sizeof(*p));

		if (!p)
			return -1;
		t->n = p;
		t->cap *= 2;
	}
	off = arena_add(&t->str, name, name_len);
	if (off < 0 || off > UINT32_MAX)
		return -1;
	if (module) {
		moff = arena_add(&t->str, module, mod_len);
		if (moff < 0 || moff > UINT32_MAX)
			return -1;
	}
	s = &t->n[t->count++];
	memset(s, 0, sizeof(*s));
	s->start = s->end = start;
	s->bind = bind;
	s->name = (uint32_t)off;
	s->module = (uint32_t)moff;
	return 0;
}

static const struct snode *sort_nodes;

/* By start, then by index: the order perf's tree gives equal starts
 * (an equal start goes right, after the ones inserted before it). */
static int cmp_node_index(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_nodes[x].start != sort_nodes[y].start)
		return sort_nodes[x].start < sort_nodes[y].start ? -1 : 1;
	return x < y ? -1 : x > y;
}

static uint32_t build_range(struct stree *t, const uint32_t *idx, size_t lo, size_t hi,
			    uint32_t parent, unsigned depth, unsigned red_depth)
{
	size_t mid;
	uint32_t x;

	if (lo >= hi)
		return NIL;
	mid = lo + (hi - lo) / 2;
	x = idx[mid];
	t->n[x].parent = parent;
	t->n[x].red = depth == red_depth && depth > 0;
	t->n[x].left = build_range(t, idx, lo, mid, x, depth + 1, red_depth);
	t->n[x].right = build_range(t, idx, mid + 1, hi, x, depth + 1, red_depth);
	return x;
}

/*
 * Link every appended node into a balanced red-black tree in sorted order,
 * in O(n log n) for the sort and O(n) for the links. Splitting at the middle
 * fills every level but the deepest, so colouring the deepest level red
 * gives every path the same black height. For symbols that do not overlap
 * (kallsyms after fixup_end) lookups give the same answers as perf's
 * one-by-one inserts.
 */
static int stree_build(struct stree *t)
{
	size_t n = t->count - 1, i;
	unsigned height = 0;
	uint32_t *idx;

	if (!n)
		return 0;
	idx = malloc(n * sizeof(*idx));
	if (!idx)
		return -1;
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)(i + 1);
	for (i = 1; i < n && t->n[idx[i - 1]].start <= t->n[idx[i]].start; i++)
		;
	if (i < n) {
		sort_nodes = t->n;
		qsort(idx, n, sizeof(*idx), cmp_node_index);
	}
	while (((size_t)2 << height) <= n)
		height++;
	t->root = build_range(t, idx, 0, n, NIL, 0, height);
	free(idx);
	return 0;
}

static uint64_t parse_hex(const char **pp, const char *end, bool *ok)
{
	const char *p = *pp;
	uint64_t v = 0;
	int digits = 0;

	for (; p < end && digits < 17; p++, digits++) {
		unsigned c = (unsigned char)*p, d;

		if (c - '0' < 10)
			d = c - '0';
		else if ((c | 0x20) - 'a' < 6)
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		v = v << 4 | d;
	}
	*ok = digits > 0 && digits <= 16;
	*pp = p;
	return v;
}

/* One "ADDR TYPE NAME[\tMODULE]" line in [p, end). 1 kept, 0 skipped, -1 OOM. */
static int kallsyms_line(struct stree *t, const char *p, const char *end, bool *nonzero)
{
	const char *name, *tab, *mod = NULL;
	size_t mlen = 0;
	uint64_t addr;
	bool ok;
	char type;

	addr = parse_hex(&p, end, &ok);
	if (!ok || end - p < 3 || p[0] != ' ' || p[2] != ' ')
		return 0;
	type = p[1];
	name = p + 3;
	if (!kallsyms_type_kept(type) || name >= end || name[0] == '$')
		return 0;
	tab = memchr(name, '\t', (size_t)(end - name));
	if (tab) {
		mod = tab + 1;
		while (mod < end && (*mod == ' ' || *mod == '\t' || *mod == '['))
			mod++;
		while (mod + mlen < end && mod[mlen] != ']' && mod[mlen] != ' ' && mod[mlen] != '\t')
			mlen++;
	}
	if (addr)
		*nonzero = true;
	return stree_append(t, addr, kallsyms_bind(type), name, (size_t)((tab ? tab : end) - name),
			    mod, mlen) ? -1 : 1;
}

/* The whole file in one buffer (kallsyms is a few MB; /proc's is not seekable). */
static char *read_whole(const char *path, size_t *len)
{
	size_t cap = 4 << 20, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			if (cap > (1u << 30) || !(nb = realloc(buf, cap * 2)))
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

static int kallsyms_load(struct sym_cache *c, const char *path)
{
	size_t len = 0;
	char *buf = read_whole(path, &len);
	const char *p, *end, *nl;
	bool nonzero = false;
	int ret = 0;

	if (!buf)
		return scx_fail_errno("%s", path);
	if (stree_init(&c->kt)) {
		free(buf);
		return scx_fail("symbols: out of memory");
	}
	for (p = buf, end = buf + len; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (kallsyms_line(&c->kt, p, nl, &nonzero) < 0) {
			ret = scx_fail("symbols: out of memory reading %s", path);
			break;
		}
	}
	free(buf);
	if (!ret && !nonzero)
		ret = scx_fail("%s: all addresses are zero (kptr_restrict)", path);
	if (!ret && stree_build(&c->kt) < 0)
		ret = scx_fail("symbols: out of memory reading %s", path);
	if (ret) {
		stree_free(&c->kt);
		return ret;
	}
	fixup_end(&c->kt, true);
	fixup_duplicate(&c->kt);
	return 0;
}

static const char *kernel_source(const struct sym_cache *c)
{
	if (c->kallsyms_path)
		return c->kallsyms_path;
	return c->allow_proc_kallsyms ? "/proc/kallsyms" : NULL;
}

static void *kernel_prefetch_main(void *arg)
{
	struct sym_cache *c = arg;

	c->kernel_rc = kallsyms_load(c, kernel_source(c));
	return NULL;
}

void sym_cache_prefetch_kernel(struct sym_cache *c)
{
	if (!c || c->kernel_tried || c->kernel_loading || !kernel_source(c))
		return;
	if (pthread_create(&c->kernel_thread, NULL, kernel_prefetch_main, c) == 0)
		c->kernel_loading = true;
}

/* Wait for a prefetch thread; its result becomes kernel_ok. */
static void kernel_join(struct sym_cache *c)
{
	if (!c->kernel_loading)
		return;
	pthread_join(c->kernel_thread, NULL);
	c->kernel_loading = false;
	c->kernel_tried = true;
	c->kernel_ok = c->kernel_rc == 0;
}

static bool kernel_ready(struct sym_cache *c)
{
	kernel_join(c);
	if (!c->kernel_tried) {
		const char *path = c->kallsyms_path;

		c->kernel_tried = true;
		if (!path && c->allow_proc_kallsyms)
			path = "/proc/kallsyms";
		c->kernel_ok = path && kallsyms_load(c, path) == 0;
	}
	return c->kernel_ok;
}

const char *sym_kernel_lookup(struct sym_cache *c, uint64_t addr, const char **module)
{
	uint32_t i;

	if (module)
		*module = NULL;
	if (!c || !kernel_ready(c))
		return NULL;
	if (c->klast_valid && c->klast_addr == addr) {
		i = c->klast_node;
	} else {
		i = stree_find(&c->kt, addr);
		c->klast_addr = addr;
		c->klast_node = i;
		c->klast_valid = true;
	}
	if (i == NIL)
		return NULL;
	if (module && c->kt.n[i].module)
		*module = c->kt.str.buf + c->kt.n[i].module;
	return snode_name(&c->kt, i);
}

uint64_t sym_kernel_symbol_addr(struct sym_cache *c, const char *name)
{
	if (!c || !kernel_ready(c))
		return 0;
	/* Scan every parsed symbol, also those fixup_duplicate dropped. */
	for (uint32_t i = 1; i < c->kt.count; i++)
		if (!c->kt.n[i].module && !strcmp(snode_name(&c->kt, i), name))
			return c->kt.n[i].start;
	return 0;
}

void sym_cache_stats(struct sym_cache *c, struct sym_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!c)
		return;
	kernel_join(c);
	st->dsos_loaded = c->loaded;
	st->dsos_without_symbols = c->without_symbols;
	if (c->kernel_ok) {
		for (uint32_t i = 1; i < c->kt.count; i++)
			st->kernel_symbols += !c->kt.n[i].dead;
	}
}

/* ------------------------------------------------------------------ */
/* [vdso]                                                              */
/* ------------------------------------------------------------------ */

/* Copy this process's vdso image into a memfd; "/proc/self/fd/N" in path. */
static int dump_own_vdso(struct sym_cache *c, char *path, size_t size)
{
	const void *start;
	size_t len;
	int fd;

	if (vdso_image(&start, &len) < 0)
		return -1;
	fd = memfd_create("scxprof-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, start, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	c->vdso_fd = fd;
	snprintf(path, size, "/proc/self/fd/%d", fd);
	return 0;
}

struct sym_dso *sym_dso_get_vdso(struct sym_cache *c)
{
	struct sym_dso *d;
	char path[64];

	if (!c)
		return &oom_dso;
	/* with a recorded build-id the loader checks the image against it */
	d = sym_dso_get(c, "[vdso]", c->vdso_bid_size ? c->vdso_bid : NULL, c->vdso_bid_size);
	if (d->real_path || d->loaded || d == &oom_dso)
		return d;
	if (c->vdso_path)
		d->real_path = strdup(c->vdso_path);
	else if ((c->allow_proc_kallsyms || c->vdso_bid_size) && dump_own_vdso(c, path, sizeof(path)) == 0)
		d->real_path = strdup(path);
	return d;
}
