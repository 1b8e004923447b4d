/*
 * fuzz_check_config.c - libFuzzer target for `scxprof check`'s rules
 * (extract/sharing/cell_config_check.c) on hostile configs.
 *
 * Invariants, besides no crash or leak:
 *  - a file that is not JSON (or not UTF-8) is one message naming the file,
 *    and no problem is reported for it;
 *  - the count returned is the number of problems reported, each a known
 *    rule, a "where" and a "what" of one printable line;
 *  - the same input gives the same count twice;
 *  - a config that is JSON and that place's reader accepts, printed as
 *    extract prints configs (cell_config_write), is JSON and breaks no rule
 *    of form (type, name, term, unknown-key): the writer and the checker
 *    agree on the format;
 *  - place's reader refuses, with the same message, the text the checker
 *    refuses as not UTF-8 or a lone surrogate (cell_config_reader_text).
 * Seeds: fuzz/corpus/check_config/.
 */
#include "extract/sharing/sharing.h"
#include "fuzz/fuzz_util.h"
#include "lib/error.h"

static struct fuzz_file in_file;

struct seen {
	long n, form; /* problems; of them, rules of form */
};

static void one_line(const char *s, const char *what)
{
	for (; *s; s++)
		FUZZ_CHECK((unsigned char)*s >= 0x20 && *s != 0x7f, "%s holds a control character", what);
}

static int on_problem(void *ctx, const char *where, const char *rule, const char *what)
{
	static const char *const rules[] = {"cell-matches", "catch-all-cell", "subcells", "or-groups", "and-terms",
					    "term", "hint-term", "prefix-nul", "prefix-length", "regex", "name",
					    "unknown-key", "catch-all-subcell", "no-match", "specs", "type", NULL};
	struct seen *s = ctx;
	size_t i;

	for (i = 0; rules[i] && strcmp(rules[i], rule); i++)
		;
	FUZZ_CHECK(rules[i], "unknown rule \"%s\"", rule);
	one_line(where, "where");
	one_line(what, "what");
	FUZZ_CHECK(*what, "an empty problem of rule %s", rule);
	s->n++;
	if (!strcmp(rule, "type") || !strcmp(rule, "name") || !strcmp(rule, "term") || !strcmp(rule, "unknown-key"))
		s->form++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen a = {0}, b = {0};
	struct cell_config c;
	long n, m;

	scx_clear_error();
	n = cell_config_check_buf("config.json", (const char *)data, size, NULL, on_problem, &a, NULL);
	if (n < 0) {
		FUZZ_CHECK(!strncmp(scx_errmsg(), "config.json: ", 13), "message \"%s\"", scx_errmsg());
		FUZZ_CHECK(!strchr(scx_errmsg(), '\n'), "message of two lines \"%s\"", scx_errmsg());
		FUZZ_CHECK(a.n == 0, "%ld problems reported, then a refusal", a.n);
	} else {
		FUZZ_CHECK(n == a.n, "returned %ld, reported %ld", n, a.n);
	}
	m = cell_config_check_buf("config.json", (const char *)data, size, NULL, on_problem, &b, NULL);
	FUZZ_CHECK(m == n, "twice: %ld then %ld", n, m);

	fuzz_file_set(&in_file, data, size);
	if (n < 0 && (strstr(scx_errmsg(), ": not UTF-8 at byte ") || strstr(scx_errmsg(), ": a lone surrogate "))) {
		FUZZ_CHECK(cell_config_read(in_file.path, &c) < 0, "place's reader takes text the checker refuses");
		FUZZ_CHECK(strstr(scx_errmsg(), ": not UTF-8 at byte ") || strstr(scx_errmsg(), ": a lone surrogate "),
			   "place's reader refuses the text otherwise: %s", scx_errmsg());
	}
	if (n >= 0 && cell_config_read(in_file.path, &c) == 0) {
		struct seen p = {0};
		char *s = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&s, &len);

		if (!f || cell_config_write(&c, f) < 0)
			abort();
		fclose(f);
		n = cell_config_check_buf("back.json", s, len, NULL, on_problem, &p, NULL);
		FUZZ_CHECK(n >= 0, "its print is not JSON: %s", scx_errmsg());
		FUZZ_CHECK(p.form == 0, "the printed config breaks %ld rules of form:\n%s", p.form, s);
		free(s);
		cell_config_free(&c);
	}
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init(&in_file, "config.json");
	return 0;
}
