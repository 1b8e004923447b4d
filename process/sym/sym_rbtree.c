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

static void rb_rotate_left(struct sym_tree *t, uint32_t x)
{
	struct sym_node *n = t->n;
	uint32_t y = n[x].right;

	n[x].right = n[y].left;
	if (n[y].left != SYM_NIL)
		n[n[y].left].parent = x;
	n[y].parent = n[x].parent;
	if (n[x].parent == SYM_NIL)
		t->root = y;
	else if (x == n[n[x].parent].left)
		n[n[x].parent].left = y;
	else
		n[n[x].parent].right = y;
	n[y].left = x;
	n[x].parent = y;
}

static void rb_rotate_right(struct sym_tree *t, uint32_t x)
{
	struct sym_node *n = t->n;
	uint32_t y = n[x].left;

	n[x].left = n[y].right;
	if (n[y].right != SYM_NIL)
		n[n[y].right].parent = x;
	n[y].parent = n[x].parent;
	if (n[x].parent == SYM_NIL)
		t->root = y;
	else if (x == n[n[x].parent].right)
		n[n[x].parent].right = y;
	else
		n[n[x].parent].left = y;
	n[y].right = x;
	n[x].parent = y;
}

static void rb_insert_fixup(struct sym_tree *t, uint32_t z)
{
	struct sym_node *n = t->n;

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
void sym_rb_insert(struct sym_tree *t, uint32_t z)
{
	struct sym_node *n = t->n;
	uint32_t x = t->root, y = SYM_NIL;

	while (x != SYM_NIL) {
		y = x;
		x = n[z].start < n[x].start ? n[x].left : n[x].right;
	}
	n[z].parent = y;
	if (y == SYM_NIL)
		t->root = z;
	else if (n[z].start < n[y].start)
		n[y].left = z;
	else
		n[y].right = z;
	n[z].left = n[z].right = SYM_NIL;
	n[z].red = 1;
	rb_insert_fixup(t, z);
}

static void rb_transplant(struct sym_tree *t, uint32_t u, uint32_t v)
{
	struct sym_node *n = t->n;

	if (n[u].parent == SYM_NIL)
		t->root = v;
	else if (u == n[n[u].parent].left)
		n[n[u].parent].left = v;
	else
		n[n[u].parent].right = v;
	n[v].parent = n[u].parent;
}

uint32_t sym_rb_minimum(const struct sym_tree *t, uint32_t x)
{
	while (x != SYM_NIL && t->n[x].left != SYM_NIL)
		x = t->n[x].left;
	return x;
}

static void rb_erase_fixup(struct sym_tree *t, uint32_t x)
{
	struct sym_node *n = t->n;

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
void sym_rb_erase(struct sym_tree *t, uint32_t z)
{
	struct sym_node *n = t->n;
	uint32_t x, y = z;
	uint8_t y_red = n[y].red;

	if (n[z].left == SYM_NIL) {
		x = n[z].right;
		rb_transplant(t, z, n[z].right);
	} else if (n[z].right == SYM_NIL) {
		x = n[z].left;
		rb_transplant(t, z, n[z].left);
	} else {
		y = sym_rb_minimum(t, n[z].right);
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
	n[SYM_NIL].parent = SYM_NIL;
	n[z].dead = 1;
}

uint32_t sym_rb_next(const struct sym_tree *t, uint32_t x)
{
	const struct sym_node *n = t->n;
	uint32_t p;

	if (n[x].right != SYM_NIL)
		return sym_rb_minimum(t, n[x].right);
	p = n[x].parent;
	while (p != SYM_NIL && x == n[p].right) {
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
			x = s->left;
		else if (addr > s->end || (addr == s->end && addr != s->start))
			x = s->right;
		else
			return x;
	}
	return SYM_NIL;
}
