/*
 * sym_internal.h - what the pieces of process/sym/ share, and nothing that
 * callers outside it may use (their API is symbols.h):
 *
 *   sym_tree.c      the symbol table of one DSO or of the kernel: nodes, names,
 *                   perf's fixups (symbols__fixup_end / _duplicate)
 *   sym_rbtree.c    the red-black tree under it, shaped exactly like perf's
 *   sym_cache.c     the cache, its DSO objects, statistics, [vdso]
 *   sym_elf.c       one opened ELF file (perf's struct symsrc), build-ids
 *   sym_paths.c     which files may hold a DSO's symbols, in perf's order
 *   sym_load.c      an ELF symbol table into a tree (perf's dso__load_sym)
 *   sym_plt.c       "name@plt" entries from .rela.plt / .rel.plt
 *   sym_dso.c       loading a DSO lazily and looking addresses up in it
 *   sym_kallsyms.c  the kernel's symbols from a kallsyms file
 *   sym_blocks.c    a file read ahead in blocks on a second thread (kallsyms)
 *   demangle.c      C++ names the way perf prints them
 */
#ifndef SCX_SYM_INTERNAL_H
#define SCX_SYM_INTERNAL_H

#include <gelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "process/sym/symbols.h"

#define SYM_BID_MAX 20
#define SYM_NIL 0u                      /* node 0: the tree's sentinel */

/* ---- sym_tree.c / sym_rbtree.c ---------------------------------------- */

/* All names of one tree live in one string arena. */
struct sym_arena {
	char *buf;
	size_t len, cap;
};

struct sym_node {
	uint64_t start, end;
	uint32_t name, module;          /* arena offsets; module 0 = none */
	uint32_t child[2], parent;      /* child[0] left, child[1] right */
	uint8_t bind, red, dead;
};

/* Index based red-black tree of symbols by start; node 0 is SYM_NIL. */
struct sym_tree {
	struct sym_node *n;
	uint32_t count, cap, root;
	uint32_t last;  /* the node with the largest start (in-order last); SYM_NIL: not known */
	struct sym_arena str;
};

int sym_tree_init(struct sym_tree *t);
void sym_tree_free(struct sym_tree *t);

/* Append a symbol and insert it into the tree; -1 on allocation failure. */
int sym_tree_add(struct sym_tree *t, uint64_t start, uint64_t len, uint8_t bind,
		 const char *name, size_t name_len, const char *module, size_t mod_len);

/* Append a zero-sized node without linking it in (see sym_tree_build_kallsyms),
 * its name and module (0: none) given as offsets into the arena (t->str),
 * which the caller fills; -1 on allocation failure. */
int sym_tree_append_at(struct sym_tree *t, uint64_t start, uint8_t bind, uint32_t name,
		       uint32_t module);

/* Sort the appended nodes, apply perf's symbols__fixup_end (kallsyms rules)
 * and symbols__fixup_duplicate (the dropped ones marked dead) and link the
 * rest into a balanced tree; -1 OOM. */
int sym_tree_build_kallsyms(struct sym_tree *t);

/* perf's symbols__fixup_end and symbols__fixup_duplicate on a linked tree. */
void sym_tree_fixup_end(struct sym_tree *t, bool is_kallsyms);
void sym_tree_fixup_duplicate(struct sym_tree *t);

static inline const char *sym_tree_name(const struct sym_tree *t, uint32_t i)
{
	return t->str.buf + t->n[i].name;
}

void sym_rb_insert(struct sym_tree *t, uint32_t z);
void sym_rb_erase(struct sym_tree *t, uint32_t z);
uint32_t sym_rb_minimum(const struct sym_tree *t, uint32_t x);
uint32_t sym_rb_next(const struct sym_tree *t, uint32_t x);

/* perf's symbols__find: first node on the search path that holds addr. */
uint32_t sym_tree_find(const struct sym_tree *t, uint64_t addr);

/* The name of the symbol sym_tree_find gives, or NULL (also for a tree that
 * failed to allocate). */
const char *sym_tree_lookup(const struct sym_tree *t, uint64_t addr);

/* ---- sym_cache.c -------------------------------------------------------- */

struct sym_dso {
	struct sym_dso *next;           /* the cache's list of its DSOs */
	struct sym_cache *cache;
	char *filename;
	char *real_path;                /* read this file instead (vdso image), no symfs */
	uint8_t bid[SYM_BID_MAX];
	size_t bid_size;
	bool has_bid;
	bool loaded;
	char *note;
	struct sym_tree t;
	uint64_t last_off;
	const char *last_name;
	bool last_valid;
	bool data_loaded;
	struct sym_tree dt;             /* data objects only (sym_dso_lookup_data) */
};

struct sym_cache {
	char *symfs;
	char *kallsyms_path;
	char *vdso_path;
	int vdso_fd;                    /* memfd holding this process's vdso, or -1 */
	uint8_t vdso_bid[SYM_BID_MAX];
	size_t vdso_bid_size;
	bool allow_proc_kallsyms;
	struct sym_dso *dsos;           /* every DSO handed out, to free them */
	struct sym_dso *vdso;           /* sym_dso_get_vdso's, once made */
	size_t loaded, without_symbols;
	bool kernel_tried;
	bool kernel_ok;
	bool kernel_loading;            /* a prefetch thread is building kt */
	pthread_t kernel_thread;
	int kernel_rc;
	struct sym_tree kt;
	uint64_t klast_addr;
	uint32_t klast_node;
	bool klast_valid;
};

/* ---- sym_kallsyms.c ------------------------------------------------------ */

/* Wait for a prefetch thread; its result becomes kernel_ok. */
void sym_kernel_join(struct sym_cache *c);

/* ---- sym_elf.c ----------------------------------------------------------- */

/* One opened ELF file and its symbol tables (perf's struct symsrc). */
struct sym_src {
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t shstrndx;
	Elf_Scn *symtab, *dynsym;
	GElf_Shdr symshdr, dynshdr;
	size_t dynsym_idx;
};

/* Why no source could be opened (negated in the err out-parameters). */
enum sym_load_err { SYM_LE_NONE, SYM_LE_NOT_ELF, SYM_LE_BID_MISMATCH, SYM_LE_NO_BID };

/* An ELF file opened read-only, or NULL (errno 0 when it is not ELF). */
Elf *sym_elf_open(const char *path, int *fd);

/* The section called name (its header in *shdr, its index in *idx), or NULL. */
Elf_Scn *sym_elf_section(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *shdr,
			 size_t *idx);

/* Build-id from the first of .note.gnu.build-id/.notes/.note; size or -1. */
int sym_elf_build_id(Elf *elf, size_t shstrndx, uint8_t *out);

/* perf's symsrc__init: open, check d's build-id, find .symtab/.dynsym.
 * 0, or -1 with *err an errno or a negated enum sym_load_err. */
int sym_src_init(struct sym_src *ss, const struct sym_dso *d, const char *path, int *err);
void sym_src_close(struct sym_src *ss);

/* ---- sym_paths.c --------------------------------------------------------- */

/* Where a DSO's symbols may be, in the order perf tries them. */
enum sym_cand { SYM_C_DEBUGLINK, SYM_C_FEDORA, SYM_C_UBUNTU, SYM_C_BUILDID, SYM_C_SYSTEM,
		SYM_C_PERF_CACHE, SYM_C_OPENEMBEDDED, SYM_C_MIXEDUP_UBUNTU, SYM_C_COUNT };

bool sym_is_regular(const char *path);

/* The file to read for d: its real path (vdso image) or symfs + name. */
void sym_dso_path(const struct sym_dso *d, char *buf, size_t sz);

/* The file of candidate type for d in buf; -1 when that type has none. */
int sym_candidate_path(const struct sym_dso *d, enum sym_cand type, char *buf, size_t sz);

/* ---- sym_load.c / sym_plt.c ---------------------------------------------- */

/* Functions (and what perf keeps with them) of syms into t, section headers
 * and program headers from rt; fixed up. Number loaded, or -1 when perf fails. */
int sym_load_funcs(struct sym_tree *t, const struct sym_src *syms, const struct sym_src *rt);

/* Data objects (STT_OBJECT with a size in an allocated section) into t. */
void sym_load_objects(struct sym_tree *t, const struct sym_src *syms, const struct sym_src *rt);

/* perf 6.1's dso__synthesize_plt_symbols: "name@plt" for each PLT slot. */
void sym_plt_synthesize(struct sym_tree *t, const struct sym_src *ss);

/* ---- sym_blocks.c ------------------------------------------------------- */

/* A reader of fd (not closed) on a second thread; NULL on OOM. */
struct sym_blocks *sym_blocks_open(int fd);

/* The next block of the file, valid until the next call: 1, 0 at the end,
 * -1 on a read error (errno). */
int sym_blocks_next(struct sym_blocks *b, const char **p, size_t *len);

void sym_blocks_close(struct sym_blocks *b);

#endif
