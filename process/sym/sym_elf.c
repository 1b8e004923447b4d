/*
 * sym_elf.c - one opened ELF file as a source of symbols (perf's struct
 * symsrc): open it with libelf, find sections by name, read its GNU
 * build-id note and check it against the one the recording gave, and find
 * its .symtab and .dynsym.
 */
#include "process/sym/sym_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

Elf_Scn *sym_elf_section(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *shdr,
			 size_t *idx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *s;

		if (!gelf_getshdr(scn, shdr))
			continue;
		s = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (s && !strcmp(s, name)) {
			if (idx)
				*idx = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

/* Build-id from the first of .note.gnu.build-id/.notes/.note; size or -1. */
int sym_elf_build_id(Elf *elf, size_t shstrndx, uint8_t *out)
{
	static const char *const secs[] = { ".note.gnu.build-id", ".notes", ".note" };
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;

	for (size_t i = 0; i < 3 && !scn; i++)
		scn = sym_elf_section(elf, shstrndx, secs[i], &sh, NULL);
	if (!scn || !(data = elf_getdata(scn, NULL)))
		return -1;
	while (off < data->d_size &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4)) {
			size_t sz = nh.n_descsz < SYM_BID_MAX ? nh.n_descsz : SYM_BID_MAX;

			memcpy(out, (char *)data->d_buf + desc_off, sz);
			return (int)sz;
		}
	}
	return -1;
}

/* perf's dso__build_id_equal (a 20-byte id may carry trailing zeros). */
static bool bid_equal(const struct sym_dso *d, const uint8_t *bid, size_t n)
{
	if (d->bid_size > n && d->bid_size == SYM_BID_MAX) {
		for (size_t i = n; i < d->bid_size; i++)
			if (d->bid[i])
				return false;
		return !memcmp(d->bid, bid, n);
	}
	return d->bid_size == n && !memcmp(d->bid, bid, n);
}

void sym_src_close(struct sym_src *ss)
{
	if (ss->elf)
		elf_end(ss->elf);
	if (ss->fd >= 0)
		close(ss->fd);
	ss->elf = NULL;
	ss->fd = -1;
}

Elf *sym_elf_open(const char *path, int *fd)
{
	Elf *elf;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(*fd);
		*fd = -1;
		errno = 0;
		return NULL;
	}
	return elf;
}

/* perf's symsrc__init: open, check the build-id, find .symtab/.dynsym. */
int sym_src_init(struct sym_src *ss, const struct sym_dso *d, const char *path, int *err)
{
	memset(ss, 0, sizeof(*ss));
	ss->elf = sym_elf_open(path, &ss->fd);
	if (!ss->elf) {
		*err = errno ? errno : -SYM_LE_NOT_ELF;
		return -1;
	}
	if (!gelf_getehdr(ss->elf, &ss->ehdr) || elf_getshdrstrndx(ss->elf, &ss->shstrndx)) {
		*err = -SYM_LE_NOT_ELF;
		goto fail;
	}
	if (d->has_bid) {
		uint8_t bid[SYM_BID_MAX];
		int n = sym_elf_build_id(ss->elf, ss->shstrndx, bid);

		if (n <= 0 || !bid_equal(d, bid, (size_t)n)) {
			*err = n <= 0 ? -SYM_LE_NO_BID : -SYM_LE_BID_MISMATCH;
			goto fail;
		}
	}
	ss->symtab = sym_elf_section(ss->elf, ss->shstrndx, ".symtab", &ss->symshdr, NULL);
	if (ss->symtab && ss->symshdr.sh_type != SHT_SYMTAB)
		ss->symtab = NULL;
	ss->dynsym = sym_elf_section(ss->elf, ss->shstrndx, ".dynsym", &ss->dynshdr,
				     &ss->dynsym_idx);
	if (ss->dynsym && ss->dynshdr.sh_type != SHT_DYNSYM)
		ss->dynsym = NULL;
	return 0;
fail:
	sym_src_close(ss);
	return -1;
}
