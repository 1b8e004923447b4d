/*
 * sym_tree.c - the symbol table of one DSO (or of the kernel): nodes with
 * their names in one string arena, linked into the red-black tree of
 * sym_rbtree.c, and the fixups perf applies after loading (symbols__fixup_end:
 * zero-sized symbols reach the next one; symbols__fixup_duplicate: of two
 * symbols with the same start, choose_best_symbol keeps one).
 *
 * Tables from ELF files are built by inserting one symbol at a time, as perf
 * does, so that overlapping ranges resolve the way perf's do. kallsyms (which
 * does not overlap once fixed up) is appended unlinked, with names its reader
 * put in the arena itself, and sorted, fixed up and linked in one go on an
 * array of indices (sym_tree_build_kallsyms), which is much faster for its
 * ~120k-200k symbols than inserting and walking the tree.
 */
#include "process/sym/sym_internal.h"

#include <stdlib.h>
#include <string.h>

/* Append s[0..n) plus NUL; returns the offset or -1 on allocation failure. */
static int64_t arena_add(struct sym_arena *a, const char *s, size_t n)
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

int sym_tree_init(struct sym_tree *t)
{
	memset(t, 0, sizeof(*t));
	t->cap = 64;
	t->n = calloc(t->cap, sizeof(*t->n));
	if (!t->n)
		return -1;
	t->count = 1;                   /* sentinel */
	t->root = SYM_NIL;
	if (arena_add(&t->str, "", 0) < 0)  /* offset 0 = "" */
		return -1;
	return 0;
}

void sym_tree_free(struct sym_tree *t)
{
	free(t->n);
	free(t->str.buf);
	memset(t, 0, sizeof(*t));
}

/* A new node [start, end) naming arena offsets, at the end of the array, not
 * linked; -1 on OOM. */
static int node_push(struct sym_tree *t, uint64_t start, uint64_t end, uint8_t bind,
		     uint32_t name, uint32_t module)
{
	struct sym_node *s;

	if (t->count == t->cap) {
		struct sym_node *p = realloc(t->n, (size_t)t->cap * 2 * sizeof(*p));

		if (!p)
			return -1;
		t->n = p;
		t->cap *= 2;
	}
	s = &t->n[t->count++];
	memset(s, 0, sizeof(*s));
	s->start = start;
	s->end = end;
	s->bind = bind;
	s->name = name;
	s->module = module;
	return 0;
}

/* A new node with its names copied into the arena; -1 on OOM. */
static int node_append(struct sym_tree *t, uint64_t start, uint64_t end, uint8_t bind,
		       const char *name, size_t name_len, const char *module, size_t mod_len)
{
	int64_t off, moff = 0;

	off = arena_add(&t->str, name, name_len);
	if (off < 0 || off > UINT32_MAX)
		return -1;
	if (module) {
		moff = arena_add(&t->str, module, mod_len);
		if (moff < 0 || moff > UINT32_MAX)
			return -1;
	}
	return node_push(t, start, end, bind, (uint32_t)off, (uint32_t)moff);
}

int sym_tree_add(struct sym_tree *t, uint64_t start, uint64_t len, uint8_t bind,
		 const char *name, size_t name_len, const char *module, size_t mod_len)
{
	if (node_append(t, start, start + len, bind, name, name_len, module, mod_len))
		return -1;
	sym_rb_insert(t, t->count - 1);
	return 0;
}

int sym_tree_append_at(struct sym_tree *t, uint64_t start, uint8_t bind, uint32_t name,
		       uint32_t module)
{
	return node_push(t, start, start, bind, name, module);
}

/* By start, then by index: the order perf's tree gives equal starts
 * (an equal start goes right, after the ones inserted before it). */
static int cmp_node_index(const void *a, const void *b, void *nodes)
{
	const struct sym_node *n = nodes;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (n[x].start != n[y].start)
		return n[x].start < n[y].start ? -1 : 1;
	return x < y ? -1 : x > y;
}

static uint32_t build_range(struct sym_tree *t, const uint32_t *idx, size_t lo, size_t hi,
			    uint32_t parent, unsigned depth, unsigned red_depth)
{
	size_t mid = lo + (hi - lo) / 2; /* lo < hi */
	uint32_t x = idx[mid];
	struct sym_node *s = &t->n[x];

	s->parent = parent;
	s->red = depth == red_depth && depth > 0;
	/* empty halves are not called: half of all calls would be */
	s->child[0] = lo < mid ? build_range(t, idx, lo, mid, x, depth + 1, red_depth) : SYM_NIL;
	s->child[1] = mid + 1 < hi ? build_range(t, idx, mid + 1, hi, x, depth + 1, red_depth) : SYM_NIL;
	return x;
}

/* The start of the page after the one x is in, rounded up as perf does
 * (roundup(x, 4096) + 4096), but not past the top of the address space: a
 * symbol in the last page ends at UINT64_MAX, where perf's sum wraps to a
 * low address and the symbol (end below start) is never found. */
static uint64_t page_after(uint64_t x)
{
	const uint64_t last_page = ~(uint64_t)4095;

	if (x > last_page - 4096)
		return UINT64_MAX;
	return ((x + 4095) & last_page) + 4096;
}

static size_t prefix_underscores(const char *s)
{
	size_t k = 0;

	while (s[k] == '_')
		k++;
	return k;
}

/* Name length as perf sees it (kallsyms names still carry "\t[mod]"). */
static size_t perf_name_len(const struct sym_tree *t, uint32_t i)
{
	size_t len = strlen(sym_tree_name(t, i));

	if (t->n[i].module)
		len += strlen(t->str.buf + t->n[i].module) + 3;
	return len;
}

/* true: keep a, false: keep b (perf's choose_best_symbol). */
static bool choose_a(const struct sym_tree *t, uint32_t a, uint32_t b)
{
	const struct sym_node *sa = &t->n[a], *sb = &t->n[b];
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
	ua = prefix_underscores(sym_tree_name(t, a));
	ub = prefix_underscores(sym_tree_name(t, b));
	if (ua != ub)
		return ub > ua;
	na = perf_name_len(t, a);
	nb = perf_name_len(t, b);
	if (na != nb)
		return na > nb;
	return true;
}

/* perf's symbols__fixup_end and symbols__fixup_duplicate on a linked tree (ELF
 * symbols, inserted one by one). */
void sym_tree_fixup_end(struct sym_tree *t, bool is_kallsyms)
{
	uint32_t prev, curr = sym_rb_minimum(t, t->root);

	if (curr == SYM_NIL)
		return;
	for (uint32_t nd = sym_rb_next(t, curr); nd != SYM_NIL; nd = sym_rb_next(t, nd)) {
		prev = curr;
		curr = nd;
		if (t->n[prev].end != t->n[prev].start)
			continue;
		/* kallsyms: a kernel/module border ends on the next page */
		if (is_kallsyms && !t->n[prev].module != !t->n[curr].module)
			t->n[prev].end = page_after(t->n[prev].end);
		else
			t->n[prev].end = t->n[curr].start;
	}
	if (t->n[curr].end == t->n[curr].start)
		t->n[curr].end = page_after(t->n[curr].start);
}

void sym_tree_fixup_duplicate(struct sym_tree *t)
{
	uint32_t curr = sym_rb_minimum(t, t->root);

	while (curr != SYM_NIL) {
		uint32_t next = sym_rb_next(t, curr);

		if (next == SYM_NIL)
			break;
		if (t->n[curr].start != t->n[next].start) {
			curr = next;
			continue;
		}
		if (choose_a(t, curr, next)) {
			sym_rb_erase(t, next);
		} else {
			sym_rb_erase(t, curr);
			curr = next;
		}
	}
}

/*
 * perf's symbols__fixup_end on the nodes in start order (idx, n of them):
 * a zero-sized symbol reaches the next one; at a kernel/module border and for
 * the last symbol, the next page after its start.
 */
static void fixup_end(struct sym_node *nd, const uint32_t *idx, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct sym_node *prev = &nd[idx[i - 1]], *curr = &nd[idx[i]];

		if (prev->end != prev->start)
			continue;
		if (!prev->module != !curr->module)
			prev->end = page_after(prev->end);
		else
			prev->end = curr->start;
	}
	if (nd[idx[n - 1]].end == nd[idx[n - 1]].start)
		nd[idx[n - 1]].end = page_after(nd[idx[n - 1]].start);
}

/*
 * perf's symbols__fixup_duplicate on the nodes in start order: of two with
 * the same start choose_a keeps one, the other is marked dead. Compacts idx
 * to the survivors (still in start order); returns how many there are.
 */
static size_t fixup_duplicate(struct sym_tree *t, uint32_t *idx, size_t n)
{
	uint32_t curr = idx[0];
	size_t kept = 0;

	for (size_t i = 1; i < n; i++) {
		uint32_t next = idx[i];

		if (t->n[curr].start != t->n[next].start) {
			idx[kept++] = curr;
			curr = next;
		} else if (choose_a(t, curr, next)) {
			t->n[next].dead = 1;
		} else {
			t->n[curr].dead = 1;
			curr = next;
		}
	}
	idx[kept++] = curr;
	return kept;
}

/*
 * kallsyms: sort the appended nodes by start (then by index, the order
 * perf's tree gives equal starts), fix their ends and drop duplicates as
 * perf does, and link the survivors into a balanced red-black tree. Splitting
 * at the middle fills every level but the deepest, so colouring the deepest
 * level red gives every path the same black height. The fixed-up symbols do
 * not overlap, so lookups give the same answers as perf's one-by-one inserts
 * whatever the tree's shape. -1 on OOM.
 */
int sym_tree_build_kallsyms(struct sym_tree *t)
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
	if (i < n)
		qsort_r(idx, n, sizeof(*idx), cmp_node_index, t->n);
	fixup_end(t->n, idx, n);
	n = fixup_duplicate(t, idx, n);
	while (((size_t)2 << height) <= n)
		height++;
	t->root = n ? build_range(t, idx, 0, n, SYM_NIL, 0, height) : SYM_NIL;
	t->last = SYM_NIL;
	free(idx);
	return 0;
}
