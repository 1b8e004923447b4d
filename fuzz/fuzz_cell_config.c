/*
 * fuzz_cell_config.c - libFuzzer target for the cell config reader of
 * `scxprof place` (extract/sharing/cell_config_read.c).
 *
 * Invariants, besides no crash or leak:
 *  - a refusal is one message naming the file, and leaves no cells;
 *  - an accepted config, printed as extract prints configs
 *    (cell_config_write) and read back, prints the same bytes: the reader
 *    keeps every cell, subcell, clause, CommPrefix and Hint it accepted.
 * Seeds: fuzz/corpus/cell_config/.
 */
#include "extract/sharing/sharing.h"
#include "fuzz/fuzz_util.h"
#include "lib/error.h"

static struct fuzz_file in_file, back_file;

static char *print(const struct cell_config *c, size_t *n)
{
	char *s = NULL;
	FILE *m = open_memstream(&s, n);

	if (!m || cell_config_write(c, m) < 0)
		abort();
	fclose(m);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cell_config c, back;
	size_t na, nb;
	char *a, *b;

	fuzz_file_set(&in_file, data, size);
	scx_clear_error();
	if (cell_config_read(in_file.path, &c) < 0) {
		FUZZ_CHECK(!strncmp(scx_errmsg(), in_file.path, strlen(in_file.path)), "message \"%s\"", scx_errmsg());
		FUZZ_CHECK(!strchr(scx_errmsg(), '\n'), "message of two lines \"%s\"", scx_errmsg());
		FUZZ_CHECK(c.nr_cells == 0 && !c.cells, "cells left after a refusal");
		return 0;
	}
	a = print(&c, &na);
	fuzz_file_set(&back_file, (const uint8_t *)a, na);
	FUZZ_CHECK(cell_config_read(back_file.path, &back) == 0, "its own print refused: %s", scx_errmsg());
	b = print(&back, &nb);
	FUZZ_CHECK(na == nb && !memcmp(a, b, na), "read back differs:\n%s\n---\n%s", a, b);
	free(a);
	free(b);
	cell_config_free(&back);
	cell_config_free(&c);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init(&in_file, "config.json");
	fuzz_file_init(&back_file, "back.json");
	return 0;
}
