/*
 * elf_funcs.h - function extents of an ELF64 image in memory, as file
 * offsets: the known instruction boundaries the decode backend starts from
 * to find the instruction just before a sampled IP. From .symtab and
 * .dynsym (STT_FUNC with a size), mapped to file offsets through the
 * executable PT_LOAD segments. Every offset and count read from the image
 * is checked against its size: the files are whatever a process mapped.
 */
#ifndef SCX_RECORD_ELF_FUNCS_H
#define SCX_RECORD_ELF_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_func {
	uint64_t start, end; /* file offsets, end exclusive */
};

struct elf_funcs {
	struct elf_func *f; /* sorted by start */
	size_t n;
};

/* 0 (n may be 0: not ELF64, no symbols), -1 when out of memory. */
int elf_funcs_load(const uint8_t *img, size_t size, struct elf_funcs *out);
/* The function whose [start, end] holds off (end included: an IP just past
 * a function's last instruction). */
const struct elf_func *elf_funcs_find(const struct elf_funcs *fs, uint64_t off);
void elf_funcs_free(struct elf_funcs *fs);

#endif
