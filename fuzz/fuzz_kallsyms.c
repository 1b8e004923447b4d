/*
 * fuzz_kallsyms.c - libFuzzer target for the kernel symbol reader
 * (process/sym/sym_kallsyms.c, sym_blocks.c) and the _text / _etext
 * reader process's relocation check and record's kernel map take
 * (lib/kernel_id.c, kid_kallsyms_text): the input is a kallsyms
 * snapshot, as a profile archive may carry one.
 *
 * Invariants, besides no crash or leak (ASan, UBSan):
 *  - a name or module a lookup returns occurs in the input (names are kept
 *    as offsets into one arena: a wrong offset gives another string);
 *  - the address at the start of a line that names a kept symbol (16 hex
 *    digits, type T/W/D/B in either case, a name not starting with '$',
 *    not all addresses zero) always finds a symbol;
 *  - kid_kallsyms_text() reads the file, and finds _text (_etext) only
 *    in an input that names it.
 * Addresses looked up: each line's, and one past it.
 * Seeds: fuzz/corpus/kallsyms/.
 */
#include "fuzz/fuzz_util.h"
#include "lib/error.h"
#include "lib/kernel_id.h"
#include "process/sym/symbols.h"

#include <ctype.h>
#include <inttypes.h>

static struct fuzz_file in_file;

static bool in_input(const uint8_t *data, size_t size, const char *s)
{
	return memmem(data, size, s, strlen(s)) != NULL;
}

/* A line "XXXXXXXXXXXXXXXX T name..." the reader keeps (see the invariant). */
static bool kept_line(const char *p, const char *end, uint64_t *addr)
{
	char hex[17];
	char t;

	if (end - p < 20)
		return false;
	for (int i = 0; i < 16; i++) {
		if (!isxdigit((unsigned char)p[i]))
			return false;
		hex[i] = p[i];
	}
	hex[16] = '\0';
	t = (char)toupper((unsigned char)p[17]);
	if (p[16] != ' ' || p[18] != ' ' || !strchr("TWDB", t) || !t || p[19] == '$')
		return false;
	*addr = strtoull(hex, NULL, 16);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct sym_cache *c;
	bool any_nonzero = false;
	uint64_t text, etext;
	int lines = 0;

	fuzz_file_set(&in_file, data, size);
	scx_clear_error();
	c = sym_cache_new(&(struct sym_cache_opts){ .kallsyms_path = in_file.path });
	if (!c)
		abort();
	/* the reader's rule: no line with a nonzero address, no table */
	for (const char *q = p; q < end && !any_nonzero;) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		uint64_t a;

		if (!nl)
			nl = end;
		if (kept_line(q, nl, &a) && a)
			any_nonzero = true;
		q = nl + 1;
	}
	for (; p < end && lines < 64; lines++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *name, *mod;
		uint64_t a;

		if (!nl)
			nl = end;
		if (kept_line(p, nl, &a)) {
			for (int d = 0; d < 2; d++) {
				name = sym_kernel_lookup(c, a + (uint64_t)d, &mod);
				if (name)
					FUZZ_CHECK(in_input(data, size, name), "name \"%s\" not in the input", name);
				if (mod)
					FUZZ_CHECK(in_input(data, size, mod), "module \"%s\" not in the input", mod);
				if (!d && any_nonzero)
					FUZZ_CHECK(name, "no symbol at %#" PRIx64 ", the start of a kept line", a);
			}
		}
		p = nl + 1;
	}
	sym_cache_free(c);
	FUZZ_CHECK(kid_kallsyms_text(in_file.path, &text, &etext) == 0, "%s", scx_errmsg());
	FUZZ_CHECK(!text || in_input(data, size, "_text"), "_text at %#" PRIx64 " in an input without it", text);
	FUZZ_CHECK(!etext || in_input(data, size, "_etext"), "_etext at %#" PRIx64 " in an input without it", etext);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init(&in_file, "kallsyms");
	return 0;
}
