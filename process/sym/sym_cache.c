/*
 * sym_cache.c - the symbol cache: its options, the DSO objects it hands out
 * and frees (loaded lazily by sym_dso.c; the caller interns them), the
 * statistics for process.json, and the [vdso] DSO, whose image is the one
 * saved with the profile or, when that is allowed, this process's own.
 */
#include "process/sym/sym_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/vdso.h"

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct sym_cache *sym_cache_new(const struct sym_cache_opts *opts)
{
	struct sym_cache *c = calloc(1, sizeof(*c));

	if (!c) {
		scx_fail("symbols: out of memory");
		return NULL;
	}
	if (opts) {
		c->symfs = dup_or_null(opts->symfs && *opts->symfs ? opts->symfs : NULL);
		c->kallsyms_path = dup_or_null(opts->kallsyms_path);
		c->vdso_path = dup_or_null(opts->vdso_path);
		if (opts->vdso_build_id && opts->vdso_build_id_size) {
			c->vdso_bid_size = opts->vdso_build_id_size > SYM_BID_MAX ? SYM_BID_MAX
										  : opts->vdso_build_id_size;
			memcpy(c->vdso_bid, opts->vdso_build_id, c->vdso_bid_size);
		}
		c->allow_proc_kallsyms = opts->allow_proc_kallsyms;
	}
	c->vdso_fd = -1;
	if ((opts && opts->symfs && *opts->symfs && !c->symfs) ||
	    (opts && opts->kallsyms_path && !c->kallsyms_path)) {
		sym_cache_free(c);
		scx_fail("symbols: out of memory");
		return NULL;
	}
	return c;
}

static void dso_free(struct sym_dso *d)
{
	sym_tree_free(&d->t);
	sym_tree_free(&d->dt);
	free(d->filename);
	free(d->real_path);
	free(d->note);
	free(d);
}

void sym_cache_free(struct sym_cache *c)
{
	if (!c)
		return;
	sym_kernel_join(c);
	for (struct sym_dso *d = c->dsos, *nx; d; d = nx) {
		nx = d->next;
		dso_free(d);
	}
	sym_tree_free(&c->kt);
	free(c->symfs);
	free(c->kallsyms_path);
	free(c->vdso_path);
	if (c->vdso_fd >= 0)
		close(c->vdso_fd);
	free(c);
}

/* A DSO that failed to allocate: shared, never loaded, no symbols. */
static struct sym_dso oom_dso = { .loaded = true, .data_loaded = true, .note = "out of memory" };

struct sym_dso *sym_dso_new(struct sym_cache *c, const char *filename,
			    const uint8_t *build_id, size_t build_id_size)
{
	size_t n = build_id ? (build_id_size > SYM_BID_MAX ? SYM_BID_MAX : build_id_size) : 0;
	struct sym_dso *d;

	if (!c || !filename)
		return &oom_dso;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->filename = strdup(filename))) {
		free(d);
		return &oom_dso;
	}
	d->cache = c;
	d->has_bid = n > 0;
	d->bid_size = n;
	if (n)
		memcpy(d->bid, build_id, n);
	d->next = c->dsos;
	c->dsos = d;
	return d;
}

void sym_cache_stats(struct sym_cache *c, struct sym_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!c)
		return;
	sym_kernel_join(c);
	st->dsos_loaded = c->loaded;
	st->dsos_without_symbols = c->without_symbols;
	if (c->kernel_ok) {
		for (uint32_t i = 1; i < c->kt.count; i++)
			st->kernel_symbols += !c->kt.n[i].dead;
	}
}

static int cmp_dso_name(const void *x, const void *y)
{
	const struct sym_dso *a = *(const struct sym_dso *const *)x, *b = *(const struct sym_dso *const *)y;

	return strcmp(a->filename, b->filename);
}

size_t sym_cache_without_symbols(struct sym_cache *c, size_t max,
				 void (*fn)(void *ctx, const char *file, const char *why), void *ctx)
{
	const struct sym_dso **v, *d;
	size_t n = 0, i;

	/* dso_load() gives every DSO it counts in without_symbols a note */
	if (!c || !c->without_symbols || !(v = malloc(c->without_symbols * sizeof(*v))))
		return c ? c->without_symbols : 0; /* out of memory: the count alone */
	for (d = c->dsos; d && n < c->without_symbols; d = d->next)
		if (d->loaded && d->note)
			v[n++] = d;
	qsort(v, n, sizeof(*v), cmp_dso_name);
	for (i = 0; i < n && i < max; i++)
		fn(ctx, v[i]->filename, sym_dso_note(v[i]));
	free(v);
	return c->without_symbols;
}

/* Copy this process's vdso image into a memfd; "/proc/self/fd/N" in path. */
static int dump_own_vdso(struct sym_cache *c, char *path, size_t size)
{
	const void *start;
	size_t len;
	int fd;

	if (vdso_image(&start, &len) < 0)
		return -1;
	fd = memfd_create("scxprof-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, start, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	c->vdso_fd = fd;
	snprintf(path, size, "/proc/self/fd/%d", fd);
	return 0;
}

struct sym_dso *sym_dso_get_vdso(struct sym_cache *c)
{
	struct sym_dso *d;
	char path[64];

	if (!c)
		return &oom_dso;
	if (c->vdso)
		return c->vdso;
	/* with a recorded build-id the loader checks the image against it */
	d = sym_dso_new(c, "[vdso]", c->vdso_bid_size ? c->vdso_bid : NULL, c->vdso_bid_size);
	if (d == &oom_dso)
		return d;
	c->vdso = d;
	if (c->vdso_path)
		d->real_path = strdup(c->vdso_path);
	else if ((c->allow_proc_kallsyms || c->vdso_bid_size) &&
		 dump_own_vdso(c, path, sizeof(path)) == 0)
		d->real_path = strdup(path);
	return d;
}
