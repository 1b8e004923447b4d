/*
 * sym_kallsyms.c - the kernel's symbols from a kallsyms file (the snapshot
 * saved with the profile, or /proc/kallsyms for a recording of this boot):
 * lines "ADDR TYPE NAME[\t[module]]", types T/W/D/B in either case (perf's
 * symbol_type__filter), names starting with '$' skipped, zero sizes fixed up
 * with the kallsyms rules (page rounding at kernel/module borders and for the
 * last symbol). The file is parsed as another thread reads it (sym_blocks.c),
 * and the whole load can run on a thread of its own ahead of the first
 * kernel lookup (sym_cache_prefetch_kernel).
 */
#include "process/sym/sym_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"

/* Types are ASCII letters: compared without the locale's tables. */
static bool kallsyms_type_kept(char type)
{
	type = (char)(type & ~0x20); /* upper case (non-letters never match) */
	return type == 'T' || type == 'W' || type == 'D' || type == 'B';
}

static uint8_t kallsyms_bind(char type)
{
	if (type == 'W')
		return STB_WEAK;
	return type >= 'A' && type <= 'Z' ? STB_GLOBAL : STB_LOCAL;
}

/* Hex digit values + 1; 0 for other bytes. */
static const uint8_t hex_value1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* 0x80 in each byte of x (all bytes < 0x80) that lies in [lo, hi]. */
static uint64_t bytes_in(uint64_t x, unsigned lo, unsigned hi)
{
	return (x + ONES * (0x80 - lo)) & ~(x + ONES * (0x7f - hi)) & HIGHS;
}

/* Eight hex digits (p[0] the most significant) into *v; false if any byte is
 * not a hex digit. A word at a time: 'a'-'f' and 'A'-'F' are (c & 0xf) + 9,
 * the digits c & 0xf; then nibble pairs, byte pairs and halves are joined. */
static inline __attribute__((always_inline)) bool hex8(const char *p, uint64_t *v)
{
	uint64_t x, ok;

	memcpy(&x, p, 8);
	x = __builtin_bswap64(x); /* the last digit in the low byte */
	if (x & HIGHS)
		return false;
	ok = bytes_in(x, '0', '9') | bytes_in(x | ONES * 0x20, 'a', 'f');
	if (ok != HIGHS)
		return false;
	x = (x & ONES * 0x0f) + (x >> 6 & ONES) * 9;
	x = (x | x >> 4) & 0x00ff00ff00ff00ffull;
	x = (x | x >> 8) & 0x0000ffff0000ffffull;
	*v = (x | x >> 16) & 0xffffffffull;
	return true;
}

/* Up to 16 hex digits at *pp (more is not an address: !ok). */
static uint64_t parse_hex(const char **pp, const char *end, bool *ok)
{
	const char *p = *pp;
	uint64_t v = 0, hi, lo;
	int digits = 0;

	/* a 64-bit kernel's addresses: exactly 16 digits and a non-digit */
	if (end - p > 16 && !hex_value1[(unsigned char)p[16]] && hex8(p, &hi) && hex8(p + 8, &lo)) {
		*ok = true;
		*pp = p + 16;
		return hi << 32 | lo;
	}

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

/*
 * The file comes in blocks read on a second thread (sym_blocks.c) and is
 * parsed line by line as it comes; a line split between two blocks is put
 * together in `carry`. Each kept name (and module) is appended to the
 * tree's string arena, no allocation per symbol.
 */
struct kreader {
	struct sym_tree *t;
	char *arena;
	size_t cap, w;  /* arena[0, w) so far; arena[0] = "" */
	char *carry;
	size_t carry_len, carry_cap;
	bool nonzero;
};

/* Room for n more bytes in the arena; -1 OOM. */
static int arena_room(struct kreader *k, size_t n)
{
	size_t cap = k->cap;
	char *nb;

	if (k->w + n <= cap)
		return 0;
	while (k->w + n > cap)
		cap *= 2;
	if (cap > ((size_t)1 << 32) || !(nb = realloc(k->arena, cap)))
		return -1;
	k->arena = nb;
	k->cap = cap;
	return 0;
}

/* One "ADDR TYPE NAME[\tMODULE]" line in [p, end). 1 kept, 0 skipped, -1 OOM. */
static int kallsyms_line(struct kreader *k, const char *p, const char *end)
{
	const char *name, *tab, *mod = NULL;
	size_t nlen, mlen = 0, noff, moff = 0;
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
	nlen = (size_t)((tab ? tab : end) - name);
	if (arena_room(k, nlen + mlen + 2) < 0)
		return -1;
	noff = k->w;
	memcpy(k->arena + noff, name, nlen);
	k->arena[noff + nlen] = '\0';
	k->w = noff + nlen + 1;
	if (mod) {
		moff = k->w;
		memcpy(k->arena + moff, mod, mlen);
		k->arena[moff + mlen] = '\0';
		k->w = moff + mlen + 1;
	}
	if (k->w > UINT32_MAX)
		return -1;
	if (addr)
		k->nonzero = true;
	return sym_tree_append_at(k->t, addr, kallsyms_bind(type), (uint32_t)noff, (uint32_t)moff) ?
		       -1 : 1;
}

/* Append [p, p + n) to the carried partial line; -1 OOM. */
static int carry_add(struct kreader *k, const char *p, size_t n)
{
	if (k->carry_len + n > k->carry_cap) {
		size_t cap = k->carry_cap ? k->carry_cap : 256;
		char *nb;

		while (k->carry_len + n > cap)
			cap *= 2;
		if (!(nb = realloc(k->carry, cap)))
			return -1;
		k->carry = nb;
		k->carry_cap = cap;
	}
	memcpy(k->carry + k->carry_len, p, n);
	k->carry_len += n;
	return 0;
}

/* The lines of one block; the part after its last newline is carried. -1 OOM. */
static int kallsyms_block(struct kreader *k, const char *p, size_t len)
{
	const char *end = p + len, *nl;

	if (k->carry_len) {
		nl = memchr(p, '\n', len);
		if (carry_add(k, p, (size_t)((nl ? nl : end) - p)) < 0)
			return -1;
		if (!nl)
			return 0;
		if (kallsyms_line(k, k->carry, k->carry + k->carry_len) < 0)
			return -1;
		k->carry_len = 0;
		p = nl + 1;
	}
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return carry_add(k, p, (size_t)(end - p));
		if (kallsyms_line(k, p, nl) < 0)
			return -1;
	}
	return 0;
}

/* Read and parse the whole file: 0, or -1 with errno set (ENOMEM: no memory). */
static int kallsyms_read(struct kreader *k, int fd)
{
	struct sym_blocks *blocks;
	const char *p;
	size_t len;
	int rc;

	k->cap = 1u << 20;
	if (!(k->arena = malloc(k->cap)))
		return -1;
	k->arena[0] = '\0';
	k->w = 1;
	if (!(blocks = sym_blocks_open(fd))) {
		errno = ENOMEM;
		return -1;
	}
	while ((rc = sym_blocks_next(blocks, &p, &len)) > 0) {
		if (kallsyms_block(k, p, len) < 0) {
			rc = -1;
			errno = ENOMEM;
			break;
		}
	}
	sym_blocks_close(blocks);
	if (rc == 0 && k->carry_len && kallsyms_line(k, k->carry, k->carry + k->carry_len) < 0) {
		rc = -1; /* the last line, without its newline */
		errno = ENOMEM;
	}
	free(k->carry);
	return rc;
}

static int kallsyms_load(struct sym_cache *c, const char *path)
{
	struct kreader k = { .t = &c->kt };
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return scx_fail_errno("%s", path);
	if (sym_tree_init(&c->kt)) {
		close(fd);
		return scx_fail("symbols: out of memory");
	}
	if (kallsyms_read(&k, fd) < 0)
		ret = errno == ENOMEM ? scx_fail("symbols: out of memory reading %s", path)
				      : scx_fail_errno("%s", path);
	close(fd);
	/* the names are in k.arena: it becomes the tree's */
	if (k.arena) {
		free(c->kt.str.buf);
		c->kt.str.buf = k.arena;
		c->kt.str.len = k.w;
		c->kt.str.cap = k.cap;
	}
	if (!ret && !k.nonzero)
		ret = scx_fail("%s: all addresses are zero (kptr_restrict)", path);
	if (!ret && sym_tree_build_kallsyms(&c->kt) < 0)
		ret = scx_fail("symbols: out of memory reading %s", path);
	if (ret)
		sym_tree_free(&c->kt);
	return ret;
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

void sym_kernel_join(struct sym_cache *c)
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
	sym_kernel_join(c);
	if (!c->kernel_tried) {
		const char *path = kernel_source(c);

		c->kernel_tried = true;
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
		i = sym_tree_find(&c->kt, addr);
		c->klast_addr = addr;
		c->klast_node = i;
		c->klast_valid = true;
	}
	if (i == SYM_NIL)
		return NULL;
	if (module && c->kt.n[i].module)
		*module = c->kt.str.buf + c->kt.n[i].module;
	return sym_tree_name(&c->kt, i);
}
