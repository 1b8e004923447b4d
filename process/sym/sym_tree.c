/*
 * sym_tree.c - the symbol table of one DSO (or of the kernel): nodes with
 * their names in one string arena, linked into the red-black tree of
 * sym_rbtree.c, and the fixups perf applies after loading (symbols__fixup_end:
 * zero-sized symbols reach the next one; symbols__fixup_duplicate: of two
 * symbols with the same start, choose_best_symbol keeps one).
 *
 * Tables from ELF files are built by inserting one symbol at a time, as perf
 * does, so that overlapping ranges resolve the way perf's do. kallsyms (which
 * does not overlap once fixed up) is appended unlinked and built in one go
 * (sym_tree_build), which is much faster for its ~200k symbols.
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

/* A new node [start, end) at the end of the array, not linked; -1 on OOM. */
static int node_append(struct sym_tree *t, uint64_t start, uint64_t end, uint8_t bind,
		       const char *name, size_t name_len, const char *module, size_t mod_len)
{
	struct sym_node *s;
	int64_t off, moff = 0;

	if (t->count == t->cap) {
		struct sym_node *p = realloc(t->n, (size_t)t->cap * 2 * sizeof(*p));

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
	s->start = start;
	s->end = end;
	s->bind = bind;
	s->name = (uint32_t)off;
	s->module = (uint32_t)moff;
	return 0;
}

int sym_tree_add(struct sym_tree *t, uint64_t start, uint64_t len, uint8_t bind,
		 const char *name, size_t name_len, const char *module, size_t mod_len)
{
	if (node_append(t, start, start + len, bind, name, name_len, module, mod_len))
		return -1;
	sym_rb_insert(t, t->count - 1);
	return 0;
}

int sym_tree_append(struct sym_tree *t, uint64_t start, uint8_t bind, const char *name,
		    size_t name_len, const char *module, size_t mod_len)
{
	return node_append(t, start, start, bind, name, name_len, module, mod_len);
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
	size_t mid;
	uint32_t x;

	if (lo >= hi)
		return SYM_NIL;
	mid = lo + (hi - lo) / 2;
	x = idx[mid];
	t->n[x].parent = parent;
	t->n[x].red = depth == red_depth && depth > 0;
	t->n[x].child[0] = build_range(t, idx, lo, mid, x, depth + 1, red_depth);
	t->n[x].child[1] = build_range(t, idx, mid + 1, hi, x, depth + 1, red_depth);
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
int sym_tree_build(struct sym_tree *t)
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
	while (((size_t)2 << height) <= n)
		height++;
	t->root = build_range(t, idx, 0, n, SYM_NIL, 0, height);
	t->last = SYM_NIL;
	free(idx);
	return 0;
}

static uint64_t round_page_up(uint64_t x)
{
	return (x + 4095) & ~(uint64_t)4095;
}

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
