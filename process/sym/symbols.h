/*
 * symbols.h - instruction address -> (dso, symbol) names, the way perf script
 * prints them, from ELF files (libelf) and a kallsyms snapshot.
 *
 * The cache owns the DSO objects and loads each one lazily, on its first
 * lookup, into a sorted symbol table. It does not intern them: the caller
 * asks once per (file name, build-id) and keeps the object (session.c does,
 * in the table where it interns its own DSOs). Lookups are by file offset inside the DSO, which the
 * caller computes from the mapping: ip - map_start + map_pgoff. The DSO code
 * turns that into an ELF virtual address through the PT_LOAD program headers,
 * so it is right for ET_EXEC, PIE and shared objects alike.
 *
 * Names match perf 6.1 (`perf script -F sym`): .symtab preferred over
 * .dynsym (and a .gnu_debuglink / build-id debug file under /usr/lib/debug
 * when present), STT_FUNC and STT_GNU_IFUNC symbols (plus STT_NOTYPE/OBJECT
 * as perf keeps them), zero-sized symbols extended to the next one, PLT
 * entries synthesized as "name@plt", no demangling for C names.
 */
#ifndef SCX_SYMBOLS_H
#define SCX_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym_cache;
struct sym_dso;

struct sym_cache_opts {
	const char *symfs;            /* prefix for every DSO path (perf --symfs), or NULL */
	const char *kallsyms_path;    /* kallsyms snapshot to use for kernel symbols, or NULL */
	bool allow_proc_kallsyms;     /* no snapshot: may fall back to /proc/kallsyms (same boot only);
				       * also allows symbolizing [vdso] from this process's own vdso */
	const char *vdso_path;        /* vdso image saved with the profile, or NULL */
	const uint8_t *vdso_build_id; /* the recording's [vdso] build-id (perf.data BUILD_ID), or NULL */
	size_t vdso_build_id_size;
};

struct sym_cache *sym_cache_new(const struct sym_cache_opts *opts);
void sym_cache_free(struct sym_cache *c);

/*
 * A new DSO for a mapping's file name (as in MMAP/MMAP2), owned by the cache;
 * each call makes another, so keep it. build_id may be NULL;
 * when given and the file's NT_GNU_BUILD_ID differs, the DSO has no symbols
 * (names resolve to NULL) and sym_dso_note() says why. Never NULL: a file that
 * cannot be read simply has no symbols.
 */
struct sym_dso *sym_dso_new(struct sym_cache *c, const char *filename,
			    const uint8_t *build_id, size_t build_id_size);

/*
 * The DSO for "[vdso]" mappings, the same one on every call: the profile's
 * vdso image (vdso_path) or this process's own vdso (the kernel maps the
 * same image into every process) when the recording's [vdso] build-id matches it, or, with no
 * build-id recorded, for a recording of this boot. Else it has no symbols.
 */
struct sym_dso *sym_dso_get_vdso(struct sym_cache *c);

/* Symbol covering file_offset in dso, or NULL ([unknown] in perf). */
const char *sym_dso_lookup(struct sym_dso *d, uint64_t file_offset);

/* The data object (STT_OBJECT with a size: .data, .bss, .rodata) covering
 * file_offset in dso, or NULL; perf mem's "Data Symbol". */
const char *sym_dso_lookup_data(struct sym_dso *d, uint64_t file_offset);

/* Why a DSO has no symbols ("build-id mismatch", "cannot open: ...") or NULL. */
const char *sym_dso_note(const struct sym_dso *d);

/*
 * Kernel address -> symbol from kallsyms (snapshot, or /proc/kallsyms when
 * allowed). *module receives the module name for module symbols ("ext4"),
 * else NULL. NULL when no kallsyms is available or the address is outside.
 */
const char *sym_kernel_lookup(struct sym_cache *c, uint64_t addr, const char **module);

/* Start reading kallsyms on a second thread now, so it is ready (or
 * nearly) at the first kernel lookup. No effect without a kallsyms source. */
void sym_cache_prefetch_kernel(struct sym_cache *c);

/* Statistics for process.json. */
struct sym_stats {
	size_t dsos_loaded;
	size_t dsos_without_symbols;
	size_t kernel_symbols;
};
void sym_cache_stats(struct sym_cache *c, struct sym_stats *st);

/*
 * Each DSO a lookup loaded that has no symbols, with sym_dso_note()'s
 * reason, by file name (perf's "Failed to open FILE, continuing without
 * symbols"): fn is called for the first max of them; returns how many
 * there are.
 */
size_t sym_cache_without_symbols(struct sym_cache *c, size_t max,
				 void (*fn)(void *ctx, const char *file, const char *why), void *ctx);

#endif
