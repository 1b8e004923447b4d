/*
 * sym_kallsyms.c - the kernel's symbols from a kallsyms file (the snapshot
 * saved with the profile, or /proc/kallsyms for a recording of this boot):
 * lines "ADDR TYPE NAME[\t[module]]", types T/W/D/B in either case (perf's
 * symbol_type__filter), names starting with '$' skipped, zero sizes fixed up
 * with the kallsyms rules (page rounding at kernel/module borders and for the
 * last symbol). The file is parsed as it is read, its names kept in the
 * read buffer itself (see kreader). It can be read on a second thread ahead
 * of the first kernel lookup (sym_cache_prefetch_kernel).
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
 * The file is read in chunks into one buffer that becomes the tree's string
 * arena: each kept line's name (and module) is moved down to the arena's end
 * (w), which never passes the line being parsed, and the unparsed rest of a
 * chunk is moved down behind it before the next read. So the buffer grows to
 * the names' size plus one chunk, not the file's (5.4 MB of /proc/kallsyms,
 * 122k symbols, ~3 MB of names), each name is copied once, and no symbol
 * costs an allocation.
 */
#define CHUNK (64u << 10)
#define PAD 8u /* zeroed bytes after the data: hex8 may read past a short line */

struct kreader {
	struct sym_tree *t;
	char *buf;
	size_t cap, w; /* buf[0, w): the arena so far (buf[0] = "") */
	bool nonzero;
};

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
	/* the name, then the module, go down to w: both only move left */
	noff = k->w;
	memmove(k->buf + noff, name, nlen);
	k->buf[noff + nlen] = '\0';
	k->w = noff + nlen + 1;
	if (mod) {
		moff = k->w;
		memmove(k->buf + moff, mod, mlen);
		k->buf[moff + mlen] = '\0';
		k->w = moff + mlen + 1;
	}
	if (k->w > UINT32_MAX)
		return -1;
	if (addr)
		k->nonzero = true;
	return sym_tree_append_at(k->t, addr, kallsyms_bind(type), (uint32_t)noff, (uint32_t)moff) ?
		       -1 : 1;
}

/* Lines of [*r, e) up to the last newline (all of them at the end of the
 * file); *r moves past them. */
static int kallsyms_lines(struct kreader *k, size_t *r, size_t e, bool eof)
{
	const char *p = k->buf + *r, *end = k->buf + e, *nl;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			if (!eof)
				break;
			nl = end;
		}
		if (kallsyms_line(k, p, nl) < 0)
			return -1;
	}
	*r = (size_t)(p - k->buf);
	if (*r > e)
		*r = e;
	return 0;
}

/* Read and parse the whole file: 0, or -1 with errno set (ENOMEM: no memory). */
static int kallsyms_read(struct kreader *k, int fd)
{
	size_t r = 1, e = 1; /* unparsed bytes: buf[r, e) */

	k->cap = 1u << 20;
	if (!(k->buf = malloc(k->cap)))
		return -1;
	k->buf[0] = '\0';
	k->w = 1;
	for (;;) {
		ssize_t n;

		if (e + CHUNK + PAD > k->cap) {
			size_t cap = k->cap * 2;
			char *nb;

			while (e + CHUNK + PAD > cap)
				cap *= 2;
			if (cap > ((size_t)1 << 33) || !(nb = realloc(k->buf, cap))) {
				errno = ENOMEM;
				return -1;
			}
			k->buf = nb;
			k->cap = cap;
		}
		n = read(fd, k->buf + e, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		e += (size_t)n;
		memset(k->buf + e, 0, PAD);
		if (kallsyms_lines(k, &r, e, n == 0) < 0) {
			errno = ENOMEM;
			return -1;
		}
		if (n == 0)
			return 0;
		/* the partial line goes down behind the arena */
		memmove(k->buf + k->w, k->buf + r, e - r);
		e = k->w + (e - r);
		r = k->w;
	}
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
	/* the names are in k.buf: it becomes the tree's arena */
	free(c->kt.str.buf);
	c->kt.str.buf = k.buf;
	c->kt.str.len = k.w;
	c->kt.str.cap = k.cap;
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

uint64_t sym_kernel_symbol_addr(struct sym_cache *c, const char *name)
{
	if (!c || !kernel_ready(c))
		return 0;
	/* Scan every parsed symbol, also those fixup_duplicate dropped. */
	for (uint32_t i = 1; i < c->kt.count; i++)
		if (!c->kt.n[i].module && !strcmp(sym_tree_name(&c->kt, i), name))
			return c->kt.n[i].start;
	return 0;
}
