/*
 * sym_load.c - an ELF symbol table into a symbol tree, the way perf 6.1's
 * dso__load_sym keeps symbols: named defined STT_FUNC/STT_GNU_IFUNC/
 * STT_OBJECT, plus visible STT_NOTYPE labels in sections whose name contains
 * "text" or "data"; addresses are moved to file offsets through the PT_LOAD
 * program header holding them; C++ names are demangled (demangle.h). Then
 * perf's fixups (sym_tree.c). Also the table of data objects alone, for
 * perf mem's "Data Symbol".
 */
#include "process/sym/sym_internal.h"

#include <stdlib.h>
#include <string.h>

#include "process/sym/demangle.h"

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
static int symbol_section(const struct sym_src *syms, const struct sym_src *rt, size_t ndx,
		       GElf_Shdr *sh, const char **secname)
{
	Elf_Scn *scn = elf_getscn(syms->elf, ndx);
	const struct sym_src *src = syms;

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

/* Adds a symbol under its demangled name (perf's demangling, demangle.h). */
static int add_demangled(struct sym_tree *t, uint64_t start, uint64_t len, uint8_t bind,
			 const char *name)
{
	char *dm = sym_demangle(name);
	int ret;

	if (dm)
		name = dm;
	ret = sym_tree_add(t, start, len, bind, name, strlen(name), NULL, 0);
	free(dm);
	return ret;
}

/* Adds one kept symbol; 1 added, 0 skipped, -1 abort (perf: out_elf_end). */
static int load_one(struct sym_tree *t, const struct sym_src *syms, const struct sym_src *rt,
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
	if (symbol_section(syms, rt, sym.st_shndx, &sh, &secname))
		return -1;
	if (!(sh.sh_flags & SHF_ALLOC))
		return 0;
	if (label && !strstr(secname, "text") && !strstr(secname, "data"))
		return 0;
	if (syms->ehdr.e_machine == EM_ARM && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
	    (sym.st_value & 1))
		sym.st_value--;
	sym.st_value = to_file_offset(rt->elf, sym.st_value, &sh);
	if (add_demangled(t, sym.st_value, sym.st_size, GELF_ST_BIND(sym.st_info), name))
		return -1;
	return 1;
}

/* The symbol table perf reads (.symtab, else .dynsym): its entries, its
 * strings and its size; false when there is none or it cannot be read. */
static bool symbol_table(const struct sym_src *syms, Elf_Data **data, Elf_Data **strs,
			 size_t *nsyms)
{
	Elf_Scn *scn = syms->symtab ? syms->symtab : syms->dynsym;
	const GElf_Shdr *sh = syms->symtab ? &syms->symshdr : &syms->dynshdr;

	if (!scn || !sh->sh_entsize)
		return false;
	*data = elf_getdata(scn, NULL);
	*strs = elf_getdata(elf_getscn(syms->elf, sh->sh_link), NULL);
	*nsyms = sh->sh_size / sh->sh_entsize;
	return *data && *strs;
}

int sym_load_funcs(struct sym_tree *t, const struct sym_src *syms, const struct sym_src *rt)
{
	Elf_Data *data, *strs;
	size_t nsyms;
	int nr = 0;

	if (!symbol_table(syms, &data, &strs, &nsyms))
		return -1;
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
		sym_tree_fixup_end(t, false);
		sym_tree_fixup_duplicate(t);
	}
	return nr;
}

/* With perf's choice among aliases (fixup_duplicate). */
void sym_load_objects(struct sym_tree *t, const struct sym_src *syms, const struct sym_src *rt)
{
	Elf_Data *data, *strs;
	size_t nsyms;

	if (!symbol_table(syms, &data, &strs, &nsyms))
		return;
	for (size_t i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Shdr shdr;
		const char *secname;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_name >= strs->d_size || !is_object(&sym) ||
		    !sym.st_size || sym.st_shndx == SHN_ABS || sym.st_shndx >= SHN_LORESERVE ||
		    symbol_section(syms, rt, sym.st_shndx, &shdr, &secname) || !(shdr.sh_flags & SHF_ALLOC))
			continue;
		if (add_demangled(t, to_file_offset(rt->elf, sym.st_value, &shdr), sym.st_size,
				  GELF_ST_BIND(sym.st_info), (const char *)strs->d_buf + sym.st_name))
			return;
	}
	sym_tree_fixup_duplicate(t);
}
