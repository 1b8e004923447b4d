/*
 * sym_dso.c - loading a user-space DSO's symbols on first lookup, the way
 * perf's dso__load chooses its files: of the candidates (sym_paths.c), the
 * first with .symtab gives the symbols, the first with .dynsym is the
 * "runtime" image used for section headers and PLT synthesis. Every candidate
 * must carry the expected build-id when one is known. Then the lookups:
 * functions (sym_dso_lookup), data objects (sym_dso_lookup_data, a table of
 * its own loaded apart), and why a DSO has no symbols (sym_dso_note).
 */
#include "process/sym/sym_internal.h"

#include <errno.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The opened files a DSO's symbols come from. */
struct dso_sources {
	struct sym_src ss[2];
	struct sym_src *syms, *rt;      /* .symtab and .dynsym images; may be the same */
	int used;                       /* how many of ss[] are open */
	int err;                        /* with no source: why (see sym_src_init) */
};

static void elf_init_once(void)
{
	static bool elf_ready;

	if (!elf_ready) {
		elf_version(EV_CURRENT);
		elf_ready = true;
	}
}

static void dso_set_note(struct sym_dso *d, const char *fmt, const char *arg)
{
	char buf[512];

	if (d->note)
		return;
	snprintf(buf, sizeof(buf), fmt, arg);
	d->note = strdup(buf);
}

/* perf reads the file's own build-id when the caller gave none. */
static void dso_read_own_bid(struct sym_dso *d)
{
	char path[PATH_MAX];
	size_t shstrndx;
	uint8_t bid[SYM_BID_MAX];
	int fd, n;
	Elf *elf;

	if (d->has_bid || (!d->real_path && !sym_is_regular(d->filename)))
		return;
	sym_dso_path(d, path, sizeof(path));
	elf = sym_elf_open(path, &fd);
	if (!elf)
		return;
	if (!elf_getshdrstrndx(elf, &shstrndx) && (n = sym_elf_build_id(elf, shstrndx, bid)) > 0) {
		memcpy(d->bid, bid, (size_t)n);
		d->bid_size = (size_t)n;
		d->has_bid = true;
	}
	elf_end(elf);
	close(fd);
}

static void note_load_error(struct sym_dso *d, int err)
{
	if (err == -SYM_LE_BID_MISMATCH)
		dso_set_note(d, "%sbuild-id mismatch", "");
	else if (err == -SYM_LE_NO_BID)
		dso_set_note(d, "%sbuild-id mismatch (no build-id in file)", "");
	else if (err == -SYM_LE_NOT_ELF)
		dso_set_note(d, "not an ELF file: %s", d->filename);
	else if (err > 0)
		dso_set_note(d, "cannot open: %s", strerror(err));
	else
		dso_set_note(d, "cannot open: %s", strerror(ENOENT));
}

/* Picks the syms/runtime sources among the candidate files. */
static void pick_sources(struct sym_dso *d, struct dso_sources *src)
{
	char path[PATH_MAX];

	for (int type = 0; type < SYM_C_COUNT && src->used < 2; type++) {
		struct sym_src *s = &src->ss[src->used];
		bool keep = false;
		int e = 0;

		if (sym_candidate_path(d, (enum sym_cand)type, path, sizeof(path)))
			continue;
		if (!sym_is_regular(path)) {
			if (type == SYM_C_SYSTEM)
				src->err = errno ? errno : EINVAL;
			continue;
		}
		if (sym_src_init(s, d, path, &e)) {
			if (type == SYM_C_SYSTEM || !src->err || e == -SYM_LE_BID_MISMATCH)
				src->err = e;
			continue;
		}
		if (!src->syms && s->symtab)
			src->syms = s, keep = true;
		if (!src->rt && s->dynsym)
			src->rt = s, keep = true;
		if (keep)
			src->used++;
		else
			sym_src_close(s);
		if (src->syms && src->rt)
			break;
	}
}

/* Opens d's sources; with only one kind found, it serves as both. */
static void open_sources(struct sym_dso *d, struct dso_sources *src)
{
	memset(src, 0, sizeof(*src));
	src->ss[0].fd = src->ss[1].fd = -1;
	elf_init_once();
	dso_read_own_bid(d);
	pick_sources(d, src);
	if (!src->syms)
		src->syms = src->rt;
	if (!src->rt)
		src->rt = src->syms;
}

static void close_sources(struct dso_sources *src)
{
	for (int i = 0; i < src->used; i++)
		sym_src_close(&src->ss[i]);
}

static void dso_load(struct sym_dso *d)
{
	struct dso_sources src;

	d->loaded = true;
	d->cache->loaded++;
	if (sym_tree_init(&d->t)) {
		dso_set_note(d, "%sout of memory", "");
		d->cache->without_symbols++;
		return;
	}
	open_sources(d, &src);
	if (!src.syms)
		note_load_error(d, src.err);
	else if (sym_load_funcs(&d->t, src.syms, src.rt) > 0)
		sym_plt_synthesize(&d->t, src.rt);
	close_sources(&src);
	if (d->t.count <= 1) {
		d->cache->without_symbols++;
		if (!d->note)
			dso_set_note(d, "%sno symbols", "");
	}
}

const char *sym_dso_lookup(struct sym_dso *d, uint64_t file_offset)
{
	if (!d)
		return NULL;
	if (!d->loaded)
		dso_load(d);
	if (d->last_valid && d->last_off == file_offset)
		return d->last_name;
	d->last_off = file_offset;
	d->last_name = sym_tree_lookup(&d->t, file_offset);
	d->last_valid = true;
	return d->last_name;
}

/* The data-object table, apart from the full one: a file whose code no
 * sample ran costs one pass over its symbols, no function demangled. */
static void dso_load_data(struct sym_dso *d)
{
	struct dso_sources src;

	d->data_loaded = true;
	if (sym_tree_init(&d->dt)) {
		sym_tree_free(&d->dt);
		return;
	}
	open_sources(d, &src);
	if (src.syms)
		sym_load_objects(&d->dt, src.syms, src.rt);
	close_sources(&src);
}

const char *sym_dso_lookup_data(struct sym_dso *d, uint64_t file_offset)
{
	if (!d)
		return NULL;
	if (!d->data_loaded)
		dso_load_data(d);
	return sym_tree_lookup(&d->dt, file_offset);
}

const char *sym_dso_note(const struct sym_dso *d)
{
	if (!d)
		return NULL;
	/* Loading is lazy; the DSO object itself is never const memory. */
	if (!d->loaded)
		dso_load((struct sym_dso *)d);
	return d->note;
}
