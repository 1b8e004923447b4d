/*
 * sym_rbtree.c - the red-black tree under a symbol table (sym_tree.c).
 *
 * perf stores symbols in a red-black tree and its lookup returns the first
 * node on the search path whose range contains the address. Ranges can
 * overlap (e.g. a zero-sized _init extended over .plt, then the PLT entries),
 * so the answer depends on the tree's shape. To give the same answer we build
 * the same tree: a textbook red-black tree (which is what the kernel's
 * lib/rbtree.c is), same insertion order, equal keys to the right, same
 * erasures. Nodes live in one array and link by index; node 0 (SYM_NIL) is
 * the sentinel.
 */
#include "process/sym/sym_internal.h"

/*
 * Each operation is written once for both sides: dir 0 is left, 1 is right,
 * and !dir the other side, as in the mirrored halves of the textbook code.
 */
#define L 0
#define R 1

/* Rotate x down to side dir: its child on the other side takes its place. */
static void rb_rotate(struct sym_tree *t, uint32_t x, int dir)
{
	struct sym_node *n = t->n;
	uint32_t y = n[x].child[!dir], p = n[x].parent;

	n[x].child[!dir] = n[y].child[dir];
	if (n[y].child[dir] != SYM_NIL)
		n[n[y].child[dir]].parent = x;
	n[y].parent = p;
	if (p == SYM_NIL)
		t->root = y;
	else
		n[p].child[x != n[p].child[L]] = y;
	n[y].child[dir] = x;
	n[x].parent = y;
}

static void rb_insert_fixup(struct sym_tree *t, uint32_t z)
{
	struct sym_node *n = t->n;

	while (n[n[z].parent].red) {
		uint32_t p = n[z].parent, g = n[p].parent;
		int side = p != n[g].child[L];          /* p's side under g */
		uint32_t y = n[g].child[!side];

		if (n[y].red) {
			n[p].red = 0;
			n[y].red = 0;
			n[g].red = 1;
			z = g;
			continue;
		}
		if (z == n[p].child[!side]) {
			z = p;
			rb_rotate(t, z, side);
		}
		p = n[z].parent;
		g = n[p].parent;
		n[p].red = 0;
		n[g].red = 1;
		rb_rotate(t, g, !side);
	}
	n[t->root].red = 0;
}

/* Insert node z by start; equal starts go right (perf's __symbols__insert).
 * A start at or past the largest one (symbol tables are mostly sorted)
 * goes right at every node, so it is put under the last node directly:
 * the same place, without the walk down. */
void sym_rb_insert(struct sym_tree *t, uint32_t z)
{
	struct sym_node *n = t->n;
	uint32_t x = t->root, y = SYM_NIL, last = t->last;

	if (x != SYM_NIL && last == SYM_NIL)
		for (last = x; n[last].child[R] != SYM_NIL;)
			last = n[last].child[R];
	if (x != SYM_NIL && n[z].start >= n[last].start) {
		y = last;
	} else {
		while (x != SYM_NIL) {
			y = x;
			x = n[x].child[n[z].start >= n[x].start];
		}
	}
	n[z].parent = y;
	if (y == SYM_NIL)
		t->root = z;
	else
		n[y].child[n[z].start >= n[y].start] = z;
	n[z].child[L] = n[z].child[R] = SYM_NIL;
	n[z].red = 1;
	/* rotations keep the in-order sequence: the last node stays the last */
	t->last = y == SYM_NIL || n[z].start >= n[last].start ? z : last;
	rb_insert_fixup(t, z);
}

static void rb_transplant(struct sym_tree *t, uint32_t u, uint32_t v)
{
	struct sym_node *n = t->n;
	uint32_t p = n[u].parent;

	if (p == SYM_NIL)
		t->root = v;
	else
		n[p].child[u != n[p].child[L]] = v;
	n[v].parent = p;
}

uint32_t sym_rb_minimum(const struct sym_tree *t, uint32_t x)
{
	while (x != SYM_NIL && t->n[x].child[L] != SYM_NIL)
		x = t->n[x].child[L];
	return x;
}

static void rb_erase_fixup(struct sym_tree *t, uint32_t x)
{
	struct sym_node *n = t->n;

	while (x != t->root && !n[x].red) {
		uint32_t p = n[x].parent;
		int side = x != n[p].child[L];          /* x's side under p */
		uint32_t w = n[p].child[!side];

		if (n[w].red) {
			n[w].red = 0;
			n[p].red = 1;
			rb_rotate(t, p, side);
			w = n[p].child[!side];
		}
		if (!n[n[w].child[L]].red && !n[n[w].child[R]].red) {
			n[w].red = 1;
			x = p;
			continue;
		}
		if (!n[n[w].child[!side]].red) {
			n[n[w].child[side]].red = 0;
			n[w].red = 1;
			rb_rotate(t, w, !side);
			w = n[p].child[!side];
		}
		n[w].red = n[p].red;
		n[p].red = 0;
		n[n[w].child[!side]].red = 0;
		rb_rotate(t, p, side);
		x = t->root;
	}
	n[x].red = 0;
}

/* Remove z; the successor replaces a node with two children (as rbtree.c). */
void sym_rb_erase(struct sym_tree *t, uint32_t z)
{
	struct sym_node *n = t->n;
	uint32_t x, y = z;
	uint8_t y_red = n[y].red;

	if (n[z].child[L] == SYM_NIL) {
		x = n[z].child[R];
		rb_transplant(t, z, x);
	} else if (n[z].child[R] == SYM_NIL) {
		x = n[z].child[L];
		rb_transplant(t, z, x);
	} else {
		y = sym_rb_minimum(t, n[z].child[R]);
		y_red = n[y].red;
		x = n[y].child[R];
		if (n[y].parent == z) {
			n[x].parent = y;
		} else {
			rb_transplant(t, y, x);
			n[y].child[R] = n[z].child[R];
			n[n[y].child[R]].parent = y;
		}
		rb_transplant(t, z, y);
		n[y].child[L] = n[z].child[L];
		n[n[y].child[L]].parent = y;
		n[y].red = n[z].red;
	}
	if (!y_red)
		rb_erase_fixup(t, x);
	n[SYM_NIL].parent = SYM_NIL;
	n[z].dead = 1;
	if (t->last == z)
		t->last = SYM_NIL;
}

uint32_t sym_rb_next(const struct sym_tree *t, uint32_t x)
{
	const struct sym_node *n = t->n;
	uint32_t p;

	if (n[x].child[R] != SYM_NIL)
		return sym_rb_minimum(t, n[x].child[R]);
	p = n[x].parent;
	while (p != SYM_NIL && x == n[p].child[R]) {
		x = p;
		p = n[p].parent;
	}
	return p;
}

/* perf's symbols__find: first node on the search path that holds addr. */
uint32_t sym_tree_find(const struct sym_tree *t, uint64_t addr)
{
	uint32_t x = t->root;

	while (x != SYM_NIL) {
		const struct sym_node *s = &t->n[x];

		if (addr < s->start)
			x = s->child[L];
		else if (addr > s->end || (addr == s->end && addr != s->start))
			x = s->child[R];
		else
			return x;
	}
	return SYM_NIL;
}

const char *sym_tree_lookup(const struct sym_tree *t, uint64_t addr)
{
	uint32_t i;

	if (!t->n)
		return NULL;
	i = sym_tree_find(t, addr);
	return i == SYM_NIL ? NULL : sym_tree_name(t, i);
}
