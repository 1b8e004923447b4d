/*
 * sym_paths.c - which files may hold a DSO's symbols, in the order perf's
 * dso__load tries them (dso__read_binary_type_filename): the .gnu_debuglink
 * file, /usr/lib/debug/<path>[.debug], /usr/lib/debug/.build-id/xx/y.debug,
 * the file itself, perf's own build-id cache (~/.debug/.build-id), then
 * <dir>/.debug/<base> and Ubuntu's mixed-up /usr/lib/debug/lib/... . Every
 * path but the build-id cache's takes the --symfs prefix.
 */
#include "process/sym/sym_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool sym_is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void join_symfs(const struct sym_cache *c, char *buf, size_t sz, const char *path)
{
	snprintf(buf, sz, "%s%s", c->symfs ? c->symfs : "", path);
}

void sym_dso_path(const struct sym_dso *d, char *buf, size_t sz)
{
	if (d->real_path)
		snprintf(buf, sz, "%s", d->real_path);
	else
		join_symfs(d->cache, buf, sz, d->filename);
}

/* The .gnu_debuglink file name of path, or -1. */
static int read_debuglink(const char *path, char *out, size_t sz)
{
	GElf_Shdr sh;
	GElf_Ehdr eh;
	size_t shstrndx;
	Elf_Scn *scn;
	Elf_Data *data;
	int fd, ret = -1;
	Elf *elf = sym_elf_open(path, &fd);

	if (!elf)
		return -1;
	if (gelf_getehdr(elf, &eh) && !elf_getshdrstrndx(elf, &shstrndx) &&
	    (scn = sym_elf_section(elf, shstrndx, ".gnu_debuglink", &sh, NULL)) &&
	    (data = elf_getdata(scn, NULL)) && data->d_size > 0) {
		size_t n = strnlen(data->d_buf, data->d_size);

		if (n < sz) {
			memcpy(out, data->d_buf, n);
			out[n] = '\0';
			ret = 0;
		}
	}
	elf_end(elf);
	close(fd);
	return ret;
}

/* snprintf into a path buffer; false when it does not fit. */
static bool __attribute__((format(printf, 3, 4)))
path_fmt(char *buf, size_t sz, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sz, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < sz;
}

static int debuglink_path(const struct sym_dso *d, char *buf, size_t sz)
{
	char dir[PATH_MAX], link[PATH_MAX];
	const char *slash;

	sym_dso_path(d, buf, sz);
	slash = strrchr(buf, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - buf) : 0, buf);
	if (!sym_is_regular(buf) || read_debuglink(buf, link, sizeof(link)))
		return -1;
	/* perf's debuglink_paths: bare name, <dir>/, <dir>/.debug/, /usr/lib/debug<dir>/ */
	if (path_fmt(buf, sz, "%s", link) && sym_is_regular(buf))
		return 0;
	if (path_fmt(buf, sz, "%s/%s", dir, link) && sym_is_regular(buf))
		return 0;
	if (path_fmt(buf, sz, "%s/.debug/%s", dir, link) && sym_is_regular(buf))
		return 0;
	if (path_fmt(buf, sz, "/usr/lib/debug%s/%s", dir, link) && sym_is_regular(buf))
		return 0;
	return -1;
}

/* d's build-id in lower-case hex (has_bid only). */
static void bid_hex(const struct sym_dso *d, char hex[2 * SYM_BID_MAX + 1])
{
	for (size_t i = 0; i < d->bid_size; i++)
		snprintf(hex + 2 * i, 3, "%02x", d->bid[i]);
}

int sym_candidate_path(const struct sym_dso *d, enum sym_cand type, char *buf, size_t sz)
{
	const struct sym_cache *c = d->cache;
	char tmp[PATH_MAX];
	const char *slash;

	switch (type) {
	case SYM_C_DEBUGLINK:
		return debuglink_path(d, buf, sz);
	case SYM_C_FEDORA:
		snprintf(tmp, sizeof(tmp), "/usr/lib/debug%s.debug", d->filename);
		break;
	case SYM_C_UBUNTU:
		snprintf(tmp, sizeof(tmp), "/usr/lib/debug%s", d->filename);
		break;
	case SYM_C_BUILDID: {
		char hex[2 * SYM_BID_MAX + 1];

		if (!d->has_bid)
			return -1;
		bid_hex(d, hex);
		snprintf(tmp, sizeof(tmp), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		break;
	}
	case SYM_C_PERF_CACHE: {
		/* perf record keeps a copy of every binary it saw here, by
		 * build-id: the right one when the file was replaced since */
		char hex[2 * SYM_BID_MAX + 1];
		const char *home = getenv("HOME");

		if (!d->has_bid || !home || !*home)
			return -1;
		bid_hex(d, hex);
		snprintf(buf, sz, "%s/.debug/.build-id/%.2s/%s/elf", home, hex, hex + 2);
		return 0;
	}
	case SYM_C_SYSTEM:
		if (d->real_path) {
			snprintf(buf, sz, "%s", d->real_path);
			return 0;
		}
		snprintf(tmp, sizeof(tmp), "%s", d->filename);
		break;
	case SYM_C_OPENEMBEDDED:
		slash = strrchr(d->filename, '/');
		if (!slash)
			return -1;
		snprintf(tmp, sizeof(tmp), "%.*s/.debug%s", (int)(slash - d->filename),
			 d->filename, slash);
		break;
	case SYM_C_MIXEDUP_UBUNTU:
		if (strncmp(d->filename, "/usr/lib/", 9))
			return -1;
		snprintf(tmp, sizeof(tmp), "/usr/lib/debug%s", d->filename + 4);
		break;
	default:
		return -1;
	}
	join_symfs(c, buf, sz, tmp);
	return 0;
}
