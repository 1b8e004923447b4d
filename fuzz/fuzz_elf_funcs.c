/*
 * fuzz_elf_funcs.c - libFuzzer target for record/decode/elf_funcs.c, which reads
 * the symbol tables of whatever ELF files the sampled processes mapped.
 * Each input is an ELF image. Besides sanitizer findings it aborts when an
 * invariant breaks: a function extent outside the image or empty, the
 * table unsorted or with a repeated start, or elf_funcs_find() answering
 * with a function that does not hold the offset asked about.
 * Seeds: any ELF file (e.g. build/scxprof, /bin/true).
 */
#include "record/decode/elf_funcs.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_funcs fs;

	if (elf_funcs_load(data, size, &fs) < 0)
		return 0;
	for (size_t i = 0; i < fs.n; i++) {
		if (fs.f[i].start >= fs.f[i].end || fs.f[i].end > size)
			abort();
		if (i && fs.f[i - 1].start >= fs.f[i].start)
			abort();
	}
	for (uint64_t off = 0; off < size + 16; off += 1 + size / 64) {
		const struct elf_func *f = elf_funcs_find(&fs, off);

		if (f && (off < f->start || off > f->end))
			abort();
	}
	elf_funcs_free(&fs);
	return 0;
}
