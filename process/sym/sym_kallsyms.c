/*
 * sym_kallsyms.c - the kernel's symbols from a kallsyms file (the snapshot
 * saved with the profile, or /proc/kallsyms for a recording of this boot):
 * lines "ADDR TYPE NAME[\t[module]]", types T/W/D/B in either case (perf's
 * symbol_type__filter), names starting with '$' skipped, zero sizes fixed up
 * with the kallsyms rules (page rounding at kernel/module borders and for the
 * last symbol). The file can be read on a second thread ahead of the first
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

/* Up to 16 hex digits at *pp (more is not an address: !ok). */
static uint64_t parse_hex(const char **pp, const char *end, bool *ok)
{
	const char *p = *pp;
	uint64_t v = 0;
	int digits = 0;

	/* a 64-bit kernel's addresses: exactly 16 digits and a non-digit, one table
	 * lookup each and one test at the end */
	if (end - p > 16 && !hex_value1[(unsigned char)p[16]]) {
		int bad = 0;

		for (int i = 0; i < 16; i++) {
			int d = hex_value1[(unsigned char)p[i]] - 1;

			bad |= d;
			v = v << 4 | (uint64_t)(d & 0xf);
		}
		if (bad >= 0) {
			*ok = true;
			*pp = p + 16;
			return v;
		}
		v = 0;
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

/* One "ADDR TYPE NAME[\tMODULE]" line in [p, end). 1 kept, 0 skipped, -1 OOM. */
static int kallsyms_line(struct sym_tree *t, const char *p, const char *end, bool *nonzero)
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
	return sym_tree_append(t, addr, kallsyms_bind(type), name, (size_t)((tab ? tab : end) - name),
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
	if (sym_tree_init(&c->kt)) {
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
	if (!ret && sym_tree_build(&c->kt) < 0)
		ret = scx_fail("symbols: out of memory reading %s", path);
	if (ret) {
		sym_tree_free(&c->kt);
		return ret;
	}
	sym_tree_fixup_end(&c->kt, true);
	sym_tree_fixup_duplicate(&c->kt);
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
