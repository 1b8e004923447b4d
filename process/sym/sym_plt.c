/*
 * sym_plt.c - PLT entries as symbols, the way perf 6.1's
 * dso__synthesize_plt_symbols makes them: one "<name>@plt" per relocation
 * of .rela.plt (or .rel.plt), slot i at .plt + header + i * entry size, the
 * sizes by architecture.
 */
#include "process/sym/sym_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "process/sym/demangle.h"

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

void sym_plt_synthesize(struct sym_tree *t, const struct sym_src *ss)
{
	GElf_Shdr rsh, psh;
	Elf_Scn *rscn;
	Elf_Data *rel, *syms, *strs;
	uint64_t off, hdr, ent;
	char name[1024];

	if (!ss->dynsym)
		return;
	rscn = sym_elf_section(ss->elf, ss->shstrndx, ".rela.plt", &rsh, NULL);
	if (!rscn)
		rscn = sym_elf_section(ss->elf, ss->shstrndx, ".rel.plt", &rsh, NULL);
	if (!rscn || rsh.sh_link != ss->dynsym_idx || !rsh.sh_entsize ||
	    (rsh.sh_type != SHT_RELA && rsh.sh_type != SHT_REL) ||
	    !sym_elf_section(ss->elf, ss->shstrndx, ".plt", &psh, NULL))
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
		char *dm;

		if (!rel_sym(rel, rsh.sh_type == SHT_RELA, i, &si))
			return;
		if (gelf_getsym(syms, (int)si, &sym) && sym.st_name < strs->d_size)
			s = (const char *)strs->d_buf + sym.st_name;
		dm = sym_demangle(s);
		snprintf(name, sizeof(name), "%s@plt", dm ? dm : s);
		free(dm);
		if (sym_tree_add(t, off, ent, STB_GLOBAL, name, strlen(name), NULL, 0))
			return;
	}
}
