/*
 * test_archive.c - unit tests for lib/archive.c: round trips through
 * archive_create/archive_extract, and hostile archives crafted here with
 * libarchive's writer (absolute paths, "..", escaping links, devices, caps,
 * corrupt input). Every failure case also checks that nothing was left in
 * the test's work directory besides what the test put there itself.
 */
#include "lib/archive.h"
#include "lib/error.h"

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char work[PATH_MAX];

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void setup(void)
{
	strcpy(work, "/tmp/scx-test-archive.XXXXXX");
	cr_assert_not_null(mkdtemp(work));
}

static void teardown(void)
{
	nftw(work, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(archive, .init = setup, .fini = teardown);

/* ------------------------------------------------------------- helpers */

/* work/name in a rotating static buffer. */
static const char *wpath(const char *name)
{
	static char bufs[8][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 8];

	if (snprintf(b, PATH_MAX, "%s/%s", work, name) >= PATH_MAX)
		abort();
	return b;
}

struct tent {
	const char *name;
	unsigned type; /* AE_IF*; 0 = regular file */
	const char *data;
	const char *symlink;
	const char *hardlink;
	unsigned perm; /* 0 = 0644 / 0755 */
};

enum { FMT_TGZ, FMT_TAR, FMT_GZ_RAW };

static void write_entry(struct archive *a, const struct tent *t)
{
	struct archive_entry *e = archive_entry_new();
	unsigned type = t->type ? t->type : AE_IFREG;
	size_t len = t->data ? strlen(t->data) : 0;

	archive_entry_set_pathname(e, t->name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, t->perm ? t->perm : type == AE_IFDIR ? 0755 : 0644);
	archive_entry_set_size(e, type == AE_IFREG && !t->hardlink ? (la_int64_t)len : 0);
	archive_entry_set_mtime(e, 1700000000, 0);
	if (t->symlink)
		archive_entry_set_symlink(e, t->symlink);
	if (t->hardlink)
		archive_entry_set_hardlink(e, t->hardlink);
	if (type == AE_IFCHR || type == AE_IFBLK) {
		archive_entry_set_rdevmajor(e, 1);
		archive_entry_set_rdevminor(e, 3);
	}
	cr_assert_geq(archive_write_header(a, e), ARCHIVE_WARN, "header %s: %s", t->name, archive_error_string(a));
	if (len && type == AE_IFREG && !t->hardlink)
		cr_assert_eq(archive_write_data(a, t->data, len), (la_ssize_t)len);
	archive_entry_free(e);
}

static void make_archive(const char *path, int fmt, const struct tent *ents, size_t n)
{
	struct archive *a = archive_write_new();
	size_t i;

	if (fmt != FMT_TAR)
		archive_write_add_filter_gzip(a);
	if (fmt == FMT_GZ_RAW)
		archive_write_set_format_raw(a);
	else
		archive_write_set_format_pax_restricted(a);
	cr_assert_eq(archive_write_open_filename(a, path), ARCHIVE_OK);
	for (i = 0; i < n; i++)
		write_entry(a, &ents[i]);
	cr_assert_eq(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
}

#define ENTS(...) (struct tent[]){__VA_ARGS__}, sizeof((struct tent[]){__VA_ARGS__}) / sizeof(struct tent)
#define TGZ(path, ...) make_archive(path, FMT_TGZ, ENTS(__VA_ARGS__))
#define D(n) {.name = (n), .type = AE_IFDIR}
#define F(n, d) {.name = (n), .data = (d)}
#define L(n, t) {.name = (n), .type = AE_IFLNK, .symlink = (t)}
#define H(n, t) {.name = (n), .hardlink = (t)}
#define X(n, ty) {.name = (n), .type = (ty)}

static void write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	cr_assert_geq(fd, 0, "open %s", path);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	chmod(path, mode);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	cr_assert_not_null(f, "fopen %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void assert_absent(const char *path)
{
	struct stat st;

	cr_assert_eq(lstat(path, &st), -1, "%s exists", path);
	cr_assert_eq(errno, ENOENT);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	cr_assert_eq(lstat(path, &st), 0, "%s missing", path);
	return st.st_mode;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The work directory holds exactly the given names (NULL-terminated). */
static void assert_only(const char *first, ...)
{
	char *found[64], *want[64];
	size_t nf = 0, nw = 0, i;
	DIR *d = opendir(work);
	struct dirent *de;
	va_list ap;

	va_start(ap, first);
	for (const char *s = first; s; s = va_arg(ap, const char *))
		want[nw++] = (char *)s;
	va_end(ap);
	while ((de = readdir(d)) && nf < 64)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			found[nf++] = strdup(de->d_name);
	closedir(d);
	qsort(found, nf, sizeof(char *), cmp_str);
	qsort(want, nw, sizeof(char *), cmp_str);
	for (i = 0; i < nf; i++)
		cr_log_info("work dir has %s", found[i]);
	cr_assert_eq(nf, nw, "work dir has %zu entries, expected %zu", nf, nw);
	for (i = 0; i < nf; i++) {
		cr_assert_str_eq(found[i], want[i]);
		free(found[i]);
	}
}

static void assert_msg(const char *a, const char *b)
{
	const char *msg = scx_errmsg();

	cr_log_info("message: %s", msg);
	cr_assert_not_null(strstr(msg, a), "message '%s' lacks '%s'", msg, a);
	if (b)
		cr_assert_not_null(strstr(msg, b), "message '%s' lacks '%s'", msg, b);
	cr_assert_null(strchr(msg, '\n'), "message has a newline: %s", msg);
}

/* Extraction of work/a.tgz into work/dest fails with keyword (and entry). */
static void expect_extract_fail(const struct archive_limits *lim, const char *keyword, const char *entry)
{
	const char *arch = wpath("a.tgz"), *dest = wpath("dest");

	scx_clear_error();
	cr_assert_eq(archive_extract(arch, dest, lim), -1);
	assert_msg(arch, keyword);
	if (entry)
		assert_msg(entry, NULL);
	assert_absent(dest);
	assert_only("a.tgz", NULL);
}

static void expect_top_fail(const char *keyword)
{
	const char *arch = wpath("a.tgz");
	char top[256] = "untouched";

	scx_clear_error();
	cr_assert_eq(archive_top_level(arch, top, sizeof(top)), -1);
	assert_msg(arch, keyword);
}

/* --------------------------------------------------------- round trips */

static void make_source(void)
{
	unsigned char bin[100000];
	size_t i;

	for (i = 0; i < sizeof(bin); i++)
		bin[i] = (unsigned char)(i * 7919 % 251);
	cr_assert_eq(mkdir(wpath("src"), 0755), 0);
	cr_assert_eq(mkdir(wpath("src/sub"), 0755), 0);
	cr_assert_eq(mkdir(wpath("src/emptydir"), 0777), 0);
	cr_assert_eq(mkdir(wpath("src/z"), 0755), 0);
	cr_assert_eq(mkdir(wpath("src/z/y"), 0755), 0);
	write_file(wpath("src/a.txt"), "hello\n", 6, 0644);
	write_file(wpath("src/sub/b.bin"), bin, sizeof(bin), 0755);
	write_file(wpath("src/sub/empty"), "", 0, 0444);
	write_file(wpath("src/z/y/deep.txt"), "deep", 4, 0640);
}

static void assert_same_file(const char *a, const char *b)
{
	size_t la, lb;
	char *da = read_file(a, &la), *db = read_file(b, &lb);

	cr_assert_eq(la, lb, "%s vs %s size", a, b);
	cr_assert_eq(memcmp(da, db, la), 0, "%s vs %s content", a, b);
	cr_assert_eq(mode_of(b) & 07777, 0600, "%s mode %o", b, mode_of(b) & 07777);
	cr_assert(S_ISREG(mode_of(b)));
	free(da);
	free(db);
}

static void assert_dir_0700(const char *path)
{
	cr_assert(S_ISDIR(mode_of(path)), "%s not a dir", path);
	cr_assert_eq(mode_of(path) & 07777, 0700, "%s mode %o", path, mode_of(path) & 07777);
}

/* The archive's entry names, in order, joined by spaces. */
static void archive_names(const char *path, char *out, size_t size)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;

	archive_read_support_filter_gzip(a);
	archive_read_support_format_tar(a);
	cr_assert_eq(archive_read_open_filename(a, path, 10240), ARCHIVE_OK);
	out[0] = '\0';
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		cr_assert_eq(archive_entry_perm(e), archive_entry_filetype(e) == AE_IFDIR ? 0700 : 0600);
		snprintf(out + strlen(out), size - strlen(out), "%s ", archive_entry_pathname(e));
	}
	archive_read_free(a);
}

Test(archive, round_trip)
{
	char top[64], names[1024];

	make_source();
	cr_assert_eq(archive_create(wpath("p.tgz"), wpath("src"), "myprof"), 0, "%s", scx_errmsg());
	cr_assert_eq(archive_top_level(wpath("p.tgz"), top, sizeof(top)), 0, "%s", scx_errmsg());
	cr_assert_str_eq(top, "myprof");
	cr_assert_eq(archive_extract(wpath("p.tgz"), wpath("out"), NULL), 0, "%s", scx_errmsg());
	assert_dir_0700(wpath("out"));
	assert_dir_0700(wpath("out/sub"));
	assert_dir_0700(wpath("out/emptydir"));
	assert_dir_0700(wpath("out/z/y"));
	assert_same_file(wpath("src/a.txt"), wpath("out/a.txt"));
	assert_same_file(wpath("src/sub/b.bin"), wpath("out/sub/b.bin"));
	assert_same_file(wpath("src/sub/empty"), wpath("out/sub/empty"));
	assert_same_file(wpath("src/z/y/deep.txt"), wpath("out/z/y/deep.txt"));
	archive_names(wpath("p.tgz"), names, sizeof(names));
	cr_assert_str_eq(names, "myprof/ myprof/a.txt myprof/emptydir/ myprof/sub/ myprof/sub/b.bin "
				"myprof/sub/empty myprof/z/ myprof/z/y/ myprof/z/y/deep.txt ");
	assert_only("src", "p.tgz", "out", NULL);
}

Test(archive, create_is_deterministic)
{
	size_t la, lb;
	char *a, *b;

	make_source();
	cr_assert_eq(archive_create(wpath("1.tgz"), wpath("src"), "t"), 0, "%s", scx_errmsg());
	sleep(1);
	cr_assert_eq(archive_create(wpath("2.tgz"), wpath("src"), "t"), 0, "%s", scx_errmsg());
	a = read_file(wpath("1.tgz"), &la);
	b = read_file(wpath("2.tgz"), &lb);
	cr_assert(la == lb && memcmp(a, b, la) == 0, "archives differ");
	free(a);
	free(b);
}

Test(archive, dest_with_trailing_slash)
{
	TGZ(wpath("a.tgz"), D("top/"), F("top/f", "x"));
	cr_assert_eq(archive_extract(wpath("a.tgz"), wpath("dest/"), NULL), 0, "%s", scx_errmsg());
	cr_assert(S_ISREG(mode_of(wpath("dest/f"))));
	assert_only("a.tgz", "dest", NULL);
}

Test(archive, modes_forced_and_dot_slash_normalized)
{
	char top[64];

	TGZ(wpath("a.tgz"), D("./"), {.name = "./top/", .type = AE_IFDIR, .perm = 0777}, {.name = "./top/f", .data = "data", .perm = 04777},
	    {.name = "top//d/./e/", .type = AE_IFDIR, .perm = 0777}, {.name = "top/d/e/g", .data = "g", .perm = 0666});
	cr_assert_eq(archive_top_level(wpath("a.tgz"), top, sizeof(top)), 0, "%s", scx_errmsg());
	cr_assert_str_eq(top, "top");
	cr_assert_eq(archive_extract(wpath("a.tgz"), wpath("dest"), NULL), 0, "%s", scx_errmsg());
	cr_assert_eq(mode_of(wpath("dest/f")) & 07777, 0600);
	assert_dir_0700(wpath("dest/d/e"));
	cr_assert_eq(mode_of(wpath("dest/d/e/g")) & 07777, 0600);
}

Test(archive, top_level_buffer_too_small)
{
	char top[4];

	TGZ(wpath("a.tgz"), D("longname/"));
	cr_assert_eq(archive_top_level(wpath("a.tgz"), top, sizeof(top)), -1);
	assert_msg(wpath("a.tgz"), "too long");
}

/* ----------------------------------------------------- structure errors */

Test(archive, empty_archive)
{
	make_archive(wpath("a.tgz"), FMT_TGZ, NULL, 0);
	expect_top_fail("appears to be empty");
	expect_extract_fail(NULL, "appears to be empty", NULL);
}

Test(archive, only_dot_entry_is_empty)
{
	TGZ(wpath("a.tgz"), D("./"));
	expect_top_fail("appears to be empty");
	expect_extract_fail(NULL, "appears to be empty", NULL);
}

Test(archive, multiple_top_level_entries)
{
	TGZ(wpath("a.tgz"), D("a/"), F("a/x", "1"), F("b/y", "2"));
	expect_top_fail("contains multiple top-level entries (a, b)");
	expect_extract_fail(NULL, "contains multiple top-level entries (a, b)", NULL);
}

Test(archive, top_level_regular_file)
{
	TGZ(wpath("a.tgz"), F("prof", "not a dir"));
	expect_top_fail("not a directory");
	expect_extract_fail(NULL, "not a directory", "prof");
}

/* ------------------------------------------------------- hostile paths */

Test(archive, absolute_path)
{
	const char *evil = wpath("evil");

	TGZ(wpath("a.tgz"), D("top/"), F("top/ok", "ok"), F(evil, "pwned"));
	expect_extract_fail(NULL, "absolute path", evil);
	assert_absent(evil);
}

Test(archive, dotdot_path)
{
	TGZ(wpath("a.tgz"), D("top/"), F("top/../../evil", "pwned"));
	expect_extract_fail(NULL, "'..'", "top/../../evil");
	assert_absent(wpath("evil"));
}

Test(archive, dotdot_inside_tree_refused_too)
{
	TGZ(wpath("a.tgz"), D("top/"), F("top/a/../b", "x"));
	expect_extract_fail(NULL, "'..'", "top/a/../b");
}

Test(archive, absolute_symlink_then_write_through)
{
	const char *x = wpath("x");

	TGZ(wpath("a.tgz"), D("top/"), L("top/link", x), F("top/link/file", "pwned"));
	expect_extract_fail(NULL, "absolute", "top/link");
	assert_absent(x);
}

Test(archive, symlink_leaving_tree)
{
	TGZ(wpath("a.tgz"), D("top/"), L("top/a", "../../out"), F("top/a/f", "pwned"));
	expect_extract_fail(NULL, "leaves the tree", "top/a");
	assert_absent(wpath("out"));
}

Test(archive, symlink_leaving_tree_from_subdir)
{
	/* "../x" from top/d stays inside, "../../x" does not. */
	TGZ(wpath("a.tgz"), L("top/d/ok", "../x"), L("top/d/a", "sub/../../../x"));
	expect_extract_fail(NULL, "leaves the tree", "top/d/a");
}

Test(archive, safe_symlinks_are_skipped)
{
	TGZ(wpath("a.tgz"), L("top/d/ok", "../x"), L("top/link", "d"),
	    F("top/link/file", "data"));
	cr_assert_eq(archive_extract(wpath("a.tgz"), wpath("dest"), NULL), 0, "%s", scx_errmsg());
	assert_absent(wpath("dest/d/ok"));
	assert_dir_0700(wpath("dest/link"));
	cr_assert(S_ISREG(mode_of(wpath("dest/link/file"))));
	assert_absent(wpath("dest/d/file"));
}

Test(archive, hardlink_outside)
{
	TGZ(wpath("a.tgz"), D("top/"), H("top/h", "../../etc/passwd"));
	expect_extract_fail(NULL, "hard link", "top/h");
}

Test(archive, hardlink_inside_refused_too)
{
	TGZ(wpath("a.tgz"), D("top/"), F("top/a", "x"), H("top/b", "top/a"));
	expect_extract_fail(NULL, "hard link", "top/b");
}

Test(archive, char_device)
{
	TGZ(wpath("a.tgz"), D("top/"), X("top/null", AE_IFCHR));
	expect_extract_fail(NULL, "character device", "top/null");
}

Test(archive, block_device)
{
	TGZ(wpath("a.tgz"), D("top/"), X("top/sda", AE_IFBLK));
	expect_extract_fail(NULL, "block device", "top/sda");
}

Test(archive, fifo)
{
	TGZ(wpath("a.tgz"), D("top/"), X("top/p", AE_IFIFO));
	expect_extract_fail(NULL, "fifo", "top/p");
}

Test(archive, duplicate_file)
{
	TGZ(wpath("a.tgz"), D("top/"), F("top/f", "1"), F("top/f", "2"));
	expect_extract_fail(NULL, "duplicate", "top/f");
}

Test(archive, file_then_path_below_it)
{
	TGZ(wpath("a.tgz"), D("top/"), F("top/f", "1"), F("top/f/g", "2"));
	expect_extract_fail(NULL, "not a directory", "top/f/g");
}

Test(archive, control_characters_in_name_stay_one_line)
{
	TGZ(wpath("a.tgz"), D("top/"), X("top/a\nb", AE_IFIFO));
	expect_extract_fail(NULL, "fifo", "top/a?b");
}

/* ------------------------------------------------------- corrupt input */

Test(archive, plain_text_file)
{
	write_file(wpath("a.tgz"), "just some text\n", 15, 0644);
	expect_top_fail("not a gzip-compressed tar archive");
	expect_extract_fail(NULL, "not a gzip-compressed tar archive", NULL);
}

Test(archive, uncompressed_tar)
{
	make_archive(wpath("a.tgz"), FMT_TAR, ENTS(D("top/"), F("top/f", "x")));
	expect_top_fail("not a gzip-compressed tar archive");
	expect_extract_fail(NULL, "not a gzip-compressed tar archive", NULL);
}

Test(archive, gzip_of_non_tar)
{
	char text[4096];

	memset(text, 'q', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	make_archive(wpath("a.tgz"), FMT_GZ_RAW, ENTS(F("x", text)));
	expect_top_fail("not a gzip-compressed tar archive");
	expect_extract_fail(NULL, "not a gzip-compressed tar archive", NULL);
}

Test(archive, missing_archive)
{
	cr_assert_eq(archive_extract(wpath("a.tgz"), wpath("dest"), NULL), -1);
	assert_msg(wpath("a.tgz"), "No such file");
	assert_only(NULL);
}

Test(archive, truncated)
{
	static char big[200001];
	unsigned r = 12345;
	size_t i, len;
	char *data;

	for (i = 0; i + 1 < sizeof(big); i++) {
		r = r * 1103515245 + 12345;
		big[i] = (char)('!' + (r >> 16) % 90);
	}
	TGZ(wpath("a.tgz"), D("top/"), F("top/a", "first"), F("top/big", big));
	data = read_file(wpath("a.tgz"), &len);
	cr_assert_gt(len, 100000);
	write_file(wpath("a.tgz"), data, len / 2, 0644);
	free(data);
	expect_top_fail(": ");
	expect_extract_fail(NULL, ": ", NULL);
	/* The message is libarchive's, not the format one. */
	cr_assert_null(strstr(scx_errmsg(), "not a gzip"), "%s", scx_errmsg());
}

/* ---------------------------------------------------------------- caps */

Test(archive, size_cap_single_file)
{
	struct archive_limits lim = {.max_total_bytes = 500};
	char data[1001];

	memset(data, 'a', 1000);
	data[1000] = '\0';
	TGZ(wpath("a.tgz"), D("top/"), F("top/f", data));
	expect_extract_fail(&lim, "uncompressed size exceeds 500 bytes", NULL);
}

Test(archive, size_cap_cumulative)
{
	struct archive_limits lim = {.max_total_bytes = 899};
	char data[301];

	memset(data, 'a', 300);
	data[300] = '\0';
	TGZ(wpath("a.tgz"), D("top/"), F("top/1", data), F("top/2", data), F("top/3", data));
	expect_extract_fail(&lim, "uncompressed size exceeds 899 bytes", NULL);
	lim.max_total_bytes = 900; /* exactly enough */
	cr_assert_eq(archive_extract(wpath("a.tgz"), wpath("dest"), &lim), 0, "%s", scx_errmsg());
	cr_assert(S_ISREG(mode_of(wpath("dest/3"))));
}

Test(archive, entry_cap)
{
	struct archive_limits lim = {.max_entries = 4};

	TGZ(wpath("a.tgz"), D("top/"), F("top/1", "1"), F("top/2", "2"), F("top/3", "3"),
	    F("top/4", "4"));
	expect_extract_fail(&lim, "more than 4 entries", NULL);
	lim.max_entries = 5;
	cr_assert_eq(archive_extract(wpath("a.tgz"), wpath("dest"), &lim), 0, "%s", scx_errmsg());
}

Test(archive, write_error_reported_with_path)
{
	struct rlimit rl = {.rlim_cur = 1000, .rlim_max = RLIM_INFINITY};
	char data[5001];

	memset(data, 'w', 5000);
	data[5000] = '\0';
	TGZ(wpath("a.tgz"), D("top/"), F("top/big", data));
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	cr_assert_eq(archive_extract(wpath("a.tgz"), wpath("dest"), NULL), -1);
	assert_msg(wpath("dest/big"), "write");
	assert_msg("File too large", NULL);
	assert_only("a.tgz", NULL);
}

/* ---------------------------------------------------------- destination */

Test(archive, dest_exists)
{
	TGZ(wpath("a.tgz"), D("top/"), F("top/f", "x"));
	cr_assert_eq(mkdir(wpath("dest"), 0755), 0);
	write_file(wpath("dest/keep"), "keep", 4, 0644);
	cr_assert_eq(archive_extract(wpath("a.tgz"), wpath("dest"), NULL), -1);
	assert_msg(wpath("dest"), "already exists");
	assert_absent(wpath("dest/f"));
	cr_assert(S_ISREG(mode_of(wpath("dest/keep"))));
	assert_only("a.tgz", "dest", NULL);
}

Test(archive, dest_is_dangling_symlink)
{
	TGZ(wpath("a.tgz"), D("top/"), F("top/f", "x"));
	cr_assert_eq(symlink(wpath("elsewhere"), wpath("dest")), 0);
	cr_assert_eq(archive_extract(wpath("a.tgz"), wpath("dest"), NULL), -1);
	assert_msg(wpath("dest"), "already exists");
	assert_absent(wpath("elsewhere"));
	assert_only("a.tgz", "dest", NULL);
}

Test(archive, dest_parent_missing)
{
	TGZ(wpath("a.tgz"), D("top/"), F("top/f", "x"));
	cr_assert_eq(archive_extract(wpath("a.tgz"), wpath("nope/dest"), NULL), -1);
	assert_msg(wpath("nope/dest"), "No such file");
	assert_only("a.tgz", NULL);
}

/* ------------------------------------------------------------- creation */

Test(archive, create_refuses_existing_file)
{
	size_t len;
	char *data;

	make_source();
	write_file(wpath("p.tgz"), "keep", 4, 0644);
	cr_assert_eq(archive_create(wpath("p.tgz"), wpath("src"), "t"), -1);
	assert_msg(wpath("p.tgz"), "already exists");
	data = read_file(wpath("p.tgz"), &len);
	cr_assert(len == 4 && !memcmp(data, "keep", 4));
	free(data);
	assert_only("src", "p.tgz", NULL);
}

Test(archive, create_refuses_planted_symlink)
{
	size_t len;
	char *data;

	make_source();
	write_file(wpath("victim"), "orig", 4, 0644);
	cr_assert_eq(symlink(wpath("victim"), wpath("p.tgz")), 0);
	cr_assert_eq(archive_create(wpath("p.tgz"), wpath("src"), "t"), -1);
	assert_msg(wpath("p.tgz"), "already exists");
	data = read_file(wpath("victim"), &len);
	cr_assert(len == 4 && !memcmp(data, "orig", 4));
	free(data);
	cr_assert(S_ISLNK(mode_of(wpath("p.tgz"))));
	assert_only("src", "p.tgz", "victim", NULL);
}

Test(archive, create_refuses_dangling_planted_symlink)
{
	make_source();
	cr_assert_eq(symlink(wpath("victim"), wpath("p.tgz")), 0);
	cr_assert_eq(archive_create(wpath("p.tgz"), wpath("src"), "t"), -1);
	assert_msg(wpath("p.tgz"), "already exists");
	assert_absent(wpath("victim"));
	assert_only("src", "p.tgz", NULL);
}

Test(archive, create_refuses_symlink_in_source)
{
	make_source();
	cr_assert_eq(symlink("/etc/passwd", wpath("src/sub/link")), 0);
	cr_assert_eq(archive_create(wpath("p.tgz"), wpath("src"), "t"), -1);
	assert_msg(wpath("src"), "sub/link");
	assert_msg("symbolic link", NULL);
	assert_only("src", NULL);
}

Test(archive, create_refuses_fifo_in_source)
{
	make_source();
	cr_assert_eq(mkfifo(wpath("src/z/fifo"), 0600), 0);
	cr_assert_eq(archive_create(wpath("p.tgz"), wpath("src"), "t"), -1);
	assert_msg("z/fifo", "special file");
	assert_only("src", NULL);
}

Test(archive, create_refuses_bad_top_name)
{
	make_source();
	cr_assert_eq(archive_create(wpath("p.tgz"), wpath("src"), "a/b"), -1);
	assert_msg(wpath("p.tgz"), "invalid top-level name");
	cr_assert_eq(archive_create(wpath("p.tgz"), wpath("src"), ".."), -1);
	assert_only("src", NULL);
}
