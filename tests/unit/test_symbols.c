/*
 * test_symbols.c - process/sym/ against real tools: fixtures compiled at
 * test time (PIE, -no-pie), addresses from nm/objdump/readelf, libc from
 * nm -D, a fake kallsyms, and an end-to-end comparison with `perf script`.
 */
#include "process/sym/symbols.h"

#include "lib/error.h"
#include "lib/kernel_id.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char fixture_src[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"char gbuf[64] = \"hello\";\n"
	"static int __attribute__((noinline)) local_fn(int x) { gbuf[x & 31]++; return x * 3; }\n"
	"int __attribute__((noinline)) global_fn(int x) { return local_fn(x) + 1; }\n"
	"__asm__(\".text\\n.globl asm_label\\nasm_label:\\n nop\\n nop\\n nop\\n ret\\n\");\n"
	"void asm_label(void);\n"
	"int main(int argc, char **argv) {\n"
	"	int s = 0;\n"
	"	for (int i = 0; i < 16; i++) s += global_fn(i);\n"
	"	asm_label();\n"
	"	puts(gbuf);\n"
	"	printf(\"%d %s\\n\", s, getenv(\"HOME\") ? \"h\" : \"\");\n"
	"	return argc > 5 && argv[0][0] == 'x';\n"
	"}\n";

static char tmpdir[256];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/scx-symtest-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char cmd[512];

	if (!tmpdir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	(void)!system(cmd);
}

/* First line of a shell command's output (trailing newline removed). */
static bool sh_line(char *out, size_t sz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool sh_line(char *out, size_t sz, const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	FILE *p;
	bool ok;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	if (!p)
		return false;
	ok = fgets(out, (int)sz, p) != NULL;
	pclose(p);
	if (ok)
		out[strcspn(out, "\n")] = '\0';
	return ok && out[0];
}

/* Compiles the fixture with extra flags into tmpdir/name; returns the path. */
static const char *build_fixture(const char *name, const char *flags)
{
	static char bin[512];
	char src[512], cmd[2048];
	FILE *f;

	snprintf(src, sizeof(src), "%s/fixture.c", tmpdir);
	f = fopen(src, "w");
	cr_assert_not_null(f);
	fputs(fixture_src, f);
	fclose(f);
	snprintf(bin, sizeof(bin), "%s/%s", tmpdir, name);
	snprintf(cmd, sizeof(cmd), "gcc -O1 -fno-builtin -fcf-protection=none %s -o '%s' '%s'",
		 flags, bin, src);
	cr_assert_eq(system(cmd), 0, "cannot compile fixture: %s", cmd);
	return bin;
}

/* ELF address of symbol from `nm` (nm -D when dynamic). */
static uint64_t nm_addr(const char *bin, const char *sym, bool dynamic)
{
	char line[256];

	cr_assert(sh_line(line, sizeof(line),
			  "nm %s '%s' | awk '$3 == \"%s\" || $3 ~ /^%s@@/ {print $1; exit}'",
			  dynamic ? "-D" : "", bin, sym, sym),
		  "%s not found in %s", sym, bin);
	return strtoull(line, NULL, 16);
}

/* File offset of an ELF address from the PT_LOAD headers (readelf -lW). */
static uint64_t file_offset(const char *bin, uint64_t vaddr)
{
	char cmd[1024], line[512];
	FILE *p;
	uint64_t res = UINT64_MAX;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s' | awk '$1 == \"LOAD\" {print $2, $3, $6}'", bin);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		uint64_t off, va, memsz;

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %" SCNx64, &off, &va, &memsz) == 3 &&
		    vaddr >= va && vaddr < va + memsz && res == UINT64_MAX)
			res = vaddr - va + off;
	}
	pclose(p);
	cr_assert_neq(res, UINT64_MAX, "no PT_LOAD for %#" PRIx64, vaddr);
	return res;
}

static void expect_sym(struct sym_dso *d, const char *bin, uint64_t vaddr, const char *want)
{
	const char *got = sym_dso_lookup(d, file_offset(bin, vaddr));

	cr_assert(got && !strcmp(got, want), "%#" PRIx64 " in %s: want %s, got %s", vaddr, bin,
		  want, got ? got : "(null)");
}

static void check_fixture(const char *bin)
{
	struct sym_cache *c = sym_cache_new(&(struct sym_cache_opts){ 0 });
	struct sym_dso *d = sym_dso_new(c, bin, NULL, 0);
	uint64_t g = nm_addr(bin, "global_fn", false);
	uint64_t l = nm_addr(bin, "local_fn", false);
	uint64_t a = nm_addr(bin, "asm_label", false);
	uint64_t m = nm_addr(bin, "main", false);

	expect_sym(d, bin, g, "global_fn");
	expect_sym(d, bin, g + 3, "global_fn");
	expect_sym(d, bin, l, "local_fn");
	expect_sym(d, bin, l + 1, "local_fn");
	expect_sym(d, bin, a, "asm_label");
	expect_sym(d, bin, a + 2, "asm_label");   /* zero-sized: extended */
	expect_sym(d, bin, m + 3, "main");
	expect_sym(d, bin, nm_addr(bin, "gbuf", false) + 5, "gbuf");
	cr_assert_null(sym_dso_note(d));
	sym_cache_free(c);
}

TestSuite(symbols, .init = make_tmpdir, .fini = remove_tmpdir);

Test(symbols, pie_executable)
{
	check_fixture(build_fixture("fix_pie", "-pie -fPIE"));
}

Test(symbols, non_pie_executable)
{
	const char *bin = build_fixture("fix_nopie", "-no-pie -fno-PIE");
	char type[64];

	cr_assert(sh_line(type, sizeof(type), "readelf -h '%s' | awk '/Type:/ {print $2}'", bin));
	cr_assert_str_eq(type, "EXEC");
	check_fixture(bin);
}

Test(symbols, plt_entry)
{
	const char *bin = build_fixture("fix_plt", "-pie -fPIE");
	struct sym_cache *c = sym_cache_new(NULL);
	struct sym_dso *d = sym_dso_new(c, bin, NULL, 0);
	char line[128];
	uint64_t plt;

	cr_assert(sh_line(line, sizeof(line),
			  "objdump -d -j .plt '%s' | awk '/<puts@plt>:/ {print $1; exit}'", bin),
		  "no puts@plt in objdump output");
	plt = strtoull(line, NULL, 16);
	expect_sym(d, bin, plt, "puts@plt");
	expect_sym(d, bin, plt + 6, "puts@plt");
	sym_cache_free(c);
}

static const char *libc_path(void)
{
	static char path[512];
	const char *bin = build_fixture("fix_libc", "");

	cr_assert(sh_line(path, sizeof(path), "ldd '%s' | awk '$1 ~ /^libc\\.so/ {print $3}'", bin));
	return path;
}

Test(symbols, libc_exports)
{
	const char *libc = libc_path();
	static const char *const names[] = { "getenv", "malloc", "printf" };
	struct sym_cache *c = sym_cache_new(NULL);
	struct sym_dso *d = sym_dso_new(c, libc, NULL, 0);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t a = nm_addr(libc, names[i], true);

		expect_sym(d, libc, a, names[i]);
		expect_sym(d, libc, a + 1, names[i]);
	}
	sym_cache_free(c);
}

Test(symbols, build_id)
{
	const char *bin = build_fixture("fix_bid", "");
	struct sym_cache *c = sym_cache_new(NULL);
	uint8_t bid[20] = { 0 }, bad[20] = { 1, 2, 3 };
	char hex[64];
	struct sym_dso *ok, *wrong;
	uint64_t g = nm_addr(bin, "global_fn", false);

	cr_assert(sh_line(hex, sizeof(hex), "readelf -n '%s' | awk '/Build ID/ {print $3}'", bin));
	cr_assert_eq(strlen(hex), 40);
	for (int i = 0; i < 20; i++)
		sscanf(hex + 2 * i, "%2hhx", &bid[i]);
	ok = sym_dso_new(c, bin, bid, sizeof(bid));
	wrong = sym_dso_new(c, bin, bad, sizeof(bad));
	cr_assert_neq(ok, wrong);
	expect_sym(ok, bin, g, "global_fn");
	cr_assert_null(sym_dso_lookup(wrong, file_offset(bin, g)));
	cr_assert_not_null(sym_dso_note(wrong));
	cr_assert(strstr(sym_dso_note(wrong), "build-id mismatch"), "%s", sym_dso_note(wrong));
	cr_assert_neq(sym_dso_new(c, bin, bid, sizeof(bid)), ok, "the caller interns DSOs (session.c)");
	cr_assert_eq(sym_dso_get_vdso(c), sym_dso_get_vdso(c), "one [vdso] DSO");
	sym_cache_free(c);
}

struct named {
	char file[4][512], why[4][512];
	size_t n;
};

static void name_one(void *ctx, const char *file, const char *why)
{
	struct named *g = ctx;

	snprintf(g->file[g->n], sizeof(g->file[0]), "%s", file);
	snprintf(g->why[g->n], sizeof(g->why[0]), "%s", why);
	g->n++;
}

Test(symbols, missing_and_not_elf)
{
	struct sym_cache *c = sym_cache_new(NULL);
	struct sym_dso *d = sym_dso_new(c, "/nonexistent/libnothing.so", NULL, 0);
	char path[512];
	FILE *f;
	struct sym_stats st;

	cr_assert_null(sym_dso_lookup(d, 0x1000));
	cr_assert_not_null(sym_dso_note(d));
	cr_assert(strstr(sym_dso_note(d), "cannot open"), "%s", sym_dso_note(d));
	snprintf(path, sizeof(path), "%s/text.so", tmpdir);
	f = fopen(path, "w");
	fputs("not an elf file\n", f);
	fclose(f);
	d = sym_dso_new(c, path, NULL, 0);
	cr_assert_null(sym_dso_lookup(d, 0));
	cr_assert_not_null(sym_dso_note(d));
	cr_assert_null(sym_dso_lookup(sym_dso_new(c, "[vdso]", NULL, 0), 0x100));
	sym_cache_stats(c, &st);
	cr_assert_eq(st.dsos_loaded, 3);
	cr_assert_eq(st.dsos_without_symbols, 3);
	/* process's warnings: the loaded ones without symbols, by name, with why;
	 * a DSO no lookup loaded is not among them */
	sym_dso_new(c, "/nonexistent/never-looked-up.so", NULL, 0);
	struct named got = {0};
	cr_assert_eq(sym_cache_without_symbols(c, 2, name_one, &got), 3);
	cr_assert_eq(got.n, 2, "at most max of them");
	cr_assert_str_eq(got.file[0], "/nonexistent/libnothing.so");
	cr_assert(strstr(got.why[0], "cannot open"), "%s", got.why[0]);
	cr_assert_str_eq(got.file[1], path);
	cr_assert(strstr(got.why[1], "not an ELF file"), "%s", got.why[1]);
	sym_cache_free(c);
}

Test(symbols, symfs_prefix)
{
	const char *bin = build_fixture("fix_symfs", "");
	char cmd[2048], root[512];
	struct sym_cache *c;
	struct sym_dso *d;

	snprintf(root, sizeof(root), "%s/root", tmpdir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/opt/app' && cp '%s' '%s/opt/app/prog'", root, bin,
		 root);
	cr_assert_eq(system(cmd), 0);
	c = sym_cache_new(&(struct sym_cache_opts){ .symfs = root });
	d = sym_dso_new(c, "/opt/app/prog", NULL, 0);
	expect_sym(d, bin, nm_addr(bin, "global_fn", false) + 1, "global_fn");
	sym_cache_free(c);
	c = sym_cache_new(NULL);
	cr_assert_null(sym_dso_lookup(sym_dso_new(c, "/opt/app/prog", NULL, 0), 0x1000));
	sym_cache_free(c);
}

static const char fake_kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t local_func\n"
	"ffffffff81000200 W weak_func\n"
	"ffffffff81000300 r some_rodata\n"
	"ffffffff81000400 D some_data\n"
	"ffffffff81000500 T last_kernel_func\n"
	"ffffffffc0001000 t mod_func\t[ext4]\n"
	"ffffffffc0001080 T mod_func2\t[ext4]\n";

static struct sym_cache *kallsyms_cache(const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms", tmpdir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return sym_cache_new(&(struct sym_cache_opts){ .kallsyms_path = path });
}

/* The _text the product reads from the snapshot kallsyms_cache wrote
 * (process's relocation check, lib/kernel_id.h). */
static void kallsyms_text(uint64_t want)
{
	char path[512];
	uint64_t text = 1;

	snprintf(path, sizeof(path), "%s/kallsyms", tmpdir);
	cr_assert_eq(kid_kallsyms_text(path, &text, NULL), 0, "%s", scx_errmsg());
	cr_assert_eq(text, want, "_text %#" PRIx64 ", want %#" PRIx64, text, want);
}

static void expect_k(struct sym_cache *c, uint64_t addr, const char *want, const char *mod)
{
	const char *m = "junk", *got = sym_kernel_lookup(c, addr, &m);

	if (!want) {
		cr_assert_null(got, "%#" PRIx64 ": got %s", addr, got);
		return;
	}
	cr_assert(got && !strcmp(got, want), "%#" PRIx64 ": want %s, got %s", addr, want,
		  got ? got : "(null)");
	if (mod)
		cr_assert(m && !strcmp(m, mod), "module %s, got %s", mod, m ? m : "(null)");
	else
		cr_assert_null(m);
}

Test(symbols, kallsyms)
{
	struct sym_cache *c = kallsyms_cache(fake_kallsyms);
	struct sym_stats st;

	expect_k(c, 0xffffffff81000000, "startup_64", NULL);  /* dup: last one wins */
	expect_k(c, 0xffffffff810000ff, "startup_64", NULL);
	expect_k(c, 0xffffffff81000100, "local_func", NULL);
	expect_k(c, 0xffffffff81000250, "weak_func", NULL);
	expect_k(c, 0xffffffff81000300, "weak_func", NULL);  /* 'r' is not kept */
	expect_k(c, 0xffffffff81000404, "some_data", NULL);
	/* last kernel symbol before modules: next page boundary (+4096) */
	expect_k(c, 0xffffffff81001fff, "last_kernel_func", NULL);
	expect_k(c, 0xffffffff81002000, NULL, NULL);
	expect_k(c, 0xffffffff80ffffff, NULL, NULL);
	expect_k(c, 0xffffffffc0001000, "mod_func", "ext4");
	expect_k(c, 0xffffffffc000107f, "mod_func", "ext4");
	expect_k(c, 0xffffffffc0001080, "mod_func2", "ext4");
	expect_k(c, 0xffffffffc0002fff, "mod_func2", "ext4");  /* last: page + 4096 */
	expect_k(c, 0xffffffffc0003000, NULL, NULL);
	kallsyms_text(0xffffffff81000000);
	sym_cache_stats(c, &st);
	cr_assert_eq(st.kernel_symbols, 7);
	sym_cache_free(c);
}

/* Address forms the parser meets: 16 digits in either case (the fast path),
 * fewer digits, 17 digits or a bad digit (not an address: the line is
 * skipped), and type letters in either case. */
Test(symbols, kallsyms_address_forms)
{
	struct sym_cache *c = kallsyms_cache("FFFFFFFF81000000 T upper_text\n"
					     "ffffffff81000100 t lower_local\n"
					     "1ffffffff81000200 T seventeen_digits\n"
					     "ffffffff8100g300 T bad_digit\n"
					     "ffffffff81000400 b bss_local\n"
					     "ffffffff81000500 w weak_lower\n"
					     "81000600 T short_addr\n"
					     "ffffffff81000700 ? odd_type\n");

	expect_k(c, 0xffffffff81000000, "upper_text", NULL);
	expect_k(c, 0xffffffff81000100, "lower_local", NULL);
	expect_k(c, 0xffffffff81000200, "lower_local", NULL); /* 17 digits: skipped */
	expect_k(c, 0xffffffff81000300, "lower_local", NULL); /* bad digit: skipped */
	expect_k(c, 0xffffffff81000400, "bss_local", NULL);
	expect_k(c, 0xffffffff81000500, "weak_lower", NULL);
	expect_k(c, 0xffffffff81000700, "weak_lower", NULL); /* '?' not kept */
	expect_k(c, 0x81000600, "short_addr", NULL);
	sym_cache_free(c);
}

/* A file of many chunks (the reader parses 64 KiB at a time and moves names
 * down into its buffer): names of every length from 2 to 100 bytes put line
 * ends at every offset of a chunk; skipped types, duplicates (the later line
 * wins, as perf's choose_best_symbol picks the sized one), modules and a last
 * line without its newline. Every symbol is looked up. */
Test(symbols, kallsyms_many_chunks)
{
	enum { NK = 30000, NM = 3000 };
	const uint64_t kbase = 0xffffffff81000000ull, mbase = 0xffffffffc0000000ull;
	char path[512], name[160], want[160];
	struct sym_cache *c;
	struct sym_stats st;
	size_t kept = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms.big", tmpdir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	for (int i = 0; i < NK; i++) {
		if (i % 13 == 0 && i % 11 != 5)
			fprintf(f, "%016" PRIx64 " t dup%d\n", kbase + (uint64_t)i * 0x40, i);
		fprintf(f, "%016" PRIx64 " %c f%d_%.*s\n", kbase + (uint64_t)i * 0x40,
			i % 11 == 5 ? 'r' : i % 2 ? 't' : 'T', i, i % 97,
			"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		kept += i % 11 != 5;
	}
	for (int i = 0; i < NM; i++)
		fprintf(f, "%016" PRIx64 " t m%d\t[mod%d]%s", mbase + (uint64_t)i * 0x40, i, i % 3,
			i + 1 < NM ? "\n" : "");
	fclose(f);
	kept += NM;
	c = sym_cache_new(&(struct sym_cache_opts){ .kallsyms_path = path });
	for (int i = 0, last = -1; i < NK; i++) {
		if (i % 11 != 5)
			last = i;
		snprintf(want, sizeof(want), "f%d_%.*s", last, last % 97,
			 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		expect_k(c, kbase + (uint64_t)i * 0x40, want, NULL);
		expect_k(c, kbase + (uint64_t)i * 0x40 + 0x3f, want, NULL);
	}
	/* the last kernel symbol before the modules (0xffffffff811d4bc0): up to
	 * the page after start + 4096 */
	expect_k(c, kbase + (uint64_t)(NK - 1) * 0x40 + 0x143f, want, NULL);
	expect_k(c, kbase + (uint64_t)(NK - 1) * 0x40 + 0x1440, NULL, NULL);
	for (int i = 0; i < NM; i++) {
		char mod[16];

		snprintf(name, sizeof(name), "m%d", i);
		snprintf(mod, sizeof(mod), "mod%d", i % 3);
		expect_k(c, mbase + (uint64_t)i * 0x40 + 0x10, name, mod);
	}
	sym_cache_stats(c, &st);
	cr_assert_eq(st.kernel_symbols, kept);
	sym_cache_free(c);
}

Test(symbols, kallsyms_restricted)
{
	struct sym_cache *c = kallsyms_cache("0000000000000000 T _text\n"
					     "0000000000000000 T startup_64\n"
					     "0000000000000000 t foo\t[mod]\n");

	expect_k(c, 0, NULL, NULL);
	expect_k(c, 0x1000, NULL, NULL);
	kallsyms_text(0); /* restricted: _text listed at 0 */
	sym_cache_free(c);
	c = sym_cache_new(NULL);                /* no snapshot, /proc not allowed */
	expect_k(c, 0xffffffff81000000, NULL, NULL);
	sym_cache_free(c);
}

/* ------------------------------------------------------------------ */
/* End-to-end: the names `perf script` prints for a recorded fixture   */
/* ------------------------------------------------------------------ */

struct pmap {
	int pid;
	uint64_t start, len, pgoff;
	char path[256];
	struct sym_dso *dso;    /* made on the first sample in it */
};

static bool parse_mmap(const char *line, struct pmap *m)
{
	const char *r = strstr(line, "PERF_RECORD_MMAP"), *p;

	/* "[PID] PERF_RECORD_MMAP2 PID/TID: [START(LEN) @ PGOFF ...]: PROT PATH" */
	if (!r || sscanf(r, "PERF_RECORD_MMAP%*[2] %d/%*d: [%" SCNx64 "(%" SCNx64 ") @ %" SCNx64,
			 &m->pid, &m->start, &m->len, &m->pgoff) != 4)
		return false;
	p = strstr(r, "]: ");
	if (!p || !(p = strchr(p + 3, ' ')))
		return false;
	snprintf(m->path, sizeof(m->path), "%s", p + 1);
	m->path[strcspn(m->path, "\n")] = '\0';
	return true;
}

/* "PID IP SYM (DSO)" -> fields; false for other lines. */
static bool parse_sample(char *line, int *pid, uint64_t *ip, char **sym, char **dso)
{
	char *open, *close;
	int n = 0;

	if (sscanf(line, " %d %" SCNx64 " %n", pid, ip, &n) != 2 || !n)
		return false;
	open = strrchr(line, '(');
	close = strrchr(line, ')');
	if (!open || !close || close < open || open == line + n)
		return false;
	*close = '\0';
	open[-1] = '\0';
	*sym = line + n;
	*dso = open + 1;
	return true;
}

static int compare_with_perf(const char *data, const char *bin, int *total)
{
	struct sym_cache *c = sym_cache_new(&(struct sym_cache_opts){ .allow_proc_kallsyms = false });
	struct pmap maps[512];
	size_t nmaps = 0;
	char cmd[1024], line[4096];
	int bad = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "perf script -F pid,ip,sym,dso --show-mmap-events -i '%s' 2>/dev/null",
		 data);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		struct pmap m;
		int pid;
		uint64_t ip;
		char *sym, *dso;

		if (parse_mmap(line, &m)) {
			m.dso = NULL;
			if (nmaps < sizeof(maps) / sizeof(maps[0]))
				maps[nmaps++] = m;
			continue;
		}
		if (!parse_sample(line, &pid, &ip, &sym, &dso) || dso[0] != '/')
			continue;
		for (size_t i = nmaps; i-- > 0;) {
			const char *got;

			if (maps[i].pid != pid || ip < maps[i].start ||
			    ip >= maps[i].start + maps[i].len || strcmp(maps[i].path, dso))
				continue;
			if (!maps[i].dso)
				maps[i].dso = sym_dso_new(c, dso, NULL, 0);
			got = sym_dso_lookup(maps[i].dso, ip - maps[i].start + maps[i].pgoff);
			if (!got)
				got = "[unknown]";
			(*total)++;
			if (strcmp(got, sym)) {
				bad++;
				cr_log_warn("%s %#" PRIx64 ": perf %s, scxprof %s", dso, ip, sym, got);
			}
			break;
		}
	}
	pclose(p);
	sym_cache_free(c);
	(void)bin;
	return bad;
}

Test(symbols, agrees_with_perf_script, .timeout = 120)
{
	static char bins[2][512];
	char data[512], cmd[2048], line[64];
	int total = 0, bad;

	if (!sh_line(line, sizeof(line), "command -v perf"))
		cr_skip_test("SKIP: perf not installed");
	snprintf(bins[0], sizeof(bins[0]), "%s", build_fixture("perf_pie", "-pie -fPIE"));
	snprintf(bins[1], sizeof(bins[1]), "%s", build_fixture("perf_nopie", "-no-pie -fno-PIE"));
	for (int i = 0; i < 2; i++) {
		snprintf(data, sizeof(data), "%s/perf%d.data", tmpdir, i);
		snprintf(cmd, sizeof(cmd),
			 "perf record -q -e page-faults -c 1 -o '%s' -- '%s' >/dev/null 2>&1", data,
			 bins[i]);
		if (system(cmd) != 0)
			cr_skip_test("SKIP: perf record cannot record page-faults here");
		bad = compare_with_perf(data, bins[i], &total);
		cr_expect_eq(bad, 0, "%d lookups differ from perf script (%s)", bad, bins[i]);
	}
	cr_log_info("%d user-space samples compared with perf script", total);
	cr_assert_gt(total, 20, "too few user-space samples (%d)", total);
}
