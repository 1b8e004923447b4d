/*
 * elf_funcs.c - function extents from ELF symbol tables (see elf_funcs.h).
 */
#include "record/decode/elf_funcs.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "lib/upper_bound.h"

#define MAX_LOADS 16

struct load {
	uint64_t vaddr, offset, filesz;
};

static bool in_image(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

static int cmp_func(const void *a, const void *b)
{
	const struct elf_func *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static size_t exec_loads(const uint8_t *img, size_t size, const Elf64_Ehdr *eh, struct load *loads)
{
	size_t n = 0;

	if (eh->e_phentsize != sizeof(Elf64_Phdr) || !in_image(size, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))
		return 0;
	for (unsigned i = 0; i < eh->e_phnum && n < MAX_LOADS; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, img + eh->e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && in_image(size, ph.p_offset, ph.p_filesz))
			loads[n++] = (struct load){ ph.p_vaddr, ph.p_offset, ph.p_filesz };
	}
	return n;
}

/* vaddr -> file offset through an executable segment; false when outside. */
static bool to_offset(const struct load *loads, size_t nl, uint64_t vaddr, uint64_t len, uint64_t *off)
{
	for (size_t i = 0; i < nl; i++)
		if (vaddr >= loads[i].vaddr && vaddr - loads[i].vaddr < loads[i].filesz &&
		    len <= loads[i].filesz - (vaddr - loads[i].vaddr)) {
			*off = vaddr - loads[i].vaddr + loads[i].offset;
			return true;
		}
	return false;
}

static int add_symbols(const uint8_t *img, size_t size, const Elf64_Shdr *sh, const struct load *loads, size_t nl,
		       struct elf_funcs *out, size_t *cap)
{
	uint64_t count;

	if (sh->sh_entsize != sizeof(Elf64_Sym) || !in_image(size, sh->sh_offset, sh->sh_size))
		return 0;
	count = sh->sh_size / sizeof(Elf64_Sym);
	for (uint64_t i = 0; i < count; i++) {
		Elf64_Sym s;
		uint64_t off;

		memcpy(&s, img + sh->sh_offset + i * sizeof(s), sizeof(s));
		if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || !s.st_size || s.st_shndx == SHN_UNDEF ||
		    !to_offset(loads, nl, s.st_value, s.st_size, &off))
			continue;
		if (out->n == *cap) {
			size_t nc = *cap ? *cap * 2 : 256;
			struct elf_func *f = realloc(out->f, nc * sizeof(*f));

			if (!f)
				return -1;
			out->f = f;
			*cap = nc;
		}
		out->f[out->n++] = (struct elf_func){ off, off + s.st_size };
	}
	return 0;
}

int elf_funcs_load(const uint8_t *img, size_t size, struct elf_funcs *out)
{
	struct load loads[MAX_LOADS];
	Elf64_Ehdr eh;
	size_t nl, cap = 0, w = 0;

	memset(out, 0, sizeof(*out));
	if (size < sizeof(eh) || memcmp(img, ELFMAG, SELFMAG) != 0 || img[EI_CLASS] != ELFCLASS64)
		return 0;
	memcpy(&eh, img, sizeof(eh));
	if (!(nl = exec_loads(img, size, &eh, loads)))
		return 0;
	if (eh.e_shentsize != sizeof(Elf64_Shdr) || !in_image(size, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)))
		return 0;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;

		memcpy(&sh, img + eh.e_shoff + (uint64_t)i * sizeof(sh), sizeof(sh));
		if ((sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) &&
		    add_symbols(img, size, &sh, loads, nl, out, &cap) < 0) {
			elf_funcs_free(out);
			return -1;
		}
	}
	if (!out->n)
		return 0;
	qsort(out->f, out->n, sizeof(*out->f), cmp_func);
	/* .symtab and .dynsym repeat functions: keep one per start, the largest */
	for (size_t r = 0; r < out->n; r++) {
		if (w && out->f[w - 1].start == out->f[r].start) {
			if (out->f[r].end > out->f[w - 1].end)
				out->f[w - 1].end = out->f[r].end;
			continue;
		}
		out->f[w++] = out->f[r];
	}
	out->n = w;
	return 0;
}

const struct elf_func *elf_funcs_find(const struct elf_funcs *fs, uint64_t off)
{
	/* the last function starting at or before off */
	size_t lo = UPPER_BOUND(fs->f, fs->n, start, off);

	if (!lo || off > fs->f[lo - 1].end)
		return NULL;
	return &fs->f[lo - 1];
}

void elf_funcs_free(struct elf_funcs *fs)
{
	free(fs->f);
	memset(fs, 0, sizeof(*fs));
}
