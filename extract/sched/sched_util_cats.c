/*
 * sched_util_cats.c - the categories of `extract sched util` (see
 * sched_util_internal.h): the --categories list parsed and checked
 * (COMM, GLOB, COMM@hint=H, the system categories always added), the
 * options checked, and the glob matcher.
 */
#include "extract/sched/extract_sched.h"
#include "extract/sched/sched_util_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

void sched_util_cats_free(struct cats *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].comm);
	}
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

static bool is_glob(const char *s)
{
	return strchr(s, '*') || strchr(s, '?');
}

static bool cats_has(const struct cats *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return true;
	return false;
}

static int cats_add(struct cats *c, const char *name, const char *comm, bool has_hint, uint64_t hint)
{
	struct category *v = realloc(c->v, (c->n + 1) * sizeof(*v));

	if (!v)
		return scx_fail("out of memory");
	c->v = v;
	v[c->n] = (struct category){strdup(name), strdup(comm), is_glob(comm), has_hint, hint};
	if (!v[c->n].name || !v[c->n].comm)
		return scx_fail("out of memory");
	c->n++;
	return 0;
}

/* trim ASCII whitespace in place */
static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

int sched_util_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s == '+')
		s++;
	if (!(*s >= '0' && *s <= '9'))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Upstream's category list: user items (deduplicated by name), COMM@hint=0 for hinted comms, system ones. */
int sched_util_parse_categories(const char *spec, struct cats *out)
{
	char *copy = strdup(spec ? spec : ""), *save = NULL, *tok;
	char **hinted = NULL;  /* comm parts named with a hint */
	char **zero = NULL;    /* comm parts named with @hint=0 */
	size_t nh = 0, nz = 0, i, j;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!copy)
		return scx_fail("out of memory");
	/* strtok_r would merge empty items, which upstream skips anyway */
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *item = trim(tok), *at, *comm;
		bool has_hint = false;
		uint64_t hint = 0;
		char name[4096];

		if (!*item)
			continue;
		snprintf(name, sizeof(name), "%s", item);
		at = strstr(item, "@hint=");
		if (at) {
			*at = 0;
			if (sched_util_parse_u64(trim(at + 6), &hint) < 0) {
				scx_fail("invalid hint selector in category '%s'", name);
				goto out;
			}
			has_hint = true;
		}
		comm = trim(item);
		if (has_hint) {
			char ***arr = hint == 0 ? &zero : &hinted;
			size_t *n = hint == 0 ? &nz : &nh;
			char **a = realloc(*arr, (*n + 1) * sizeof(char *));

			if (!a) {
				scx_fail("out of memory");
				goto out;
			}
			*arr = a;
			a[(*n)++] = comm;
			if (hint == 0) { /* a zero hint is also a hinted comm */
				a = realloc(hinted, (nh + 1) * sizeof(char *));
				if (!a) {
					scx_fail("out of memory");
					goto out;
				}
				hinted = a;
				hinted[nh++] = comm;
			}
		}
		if (cats_has(out, name))
			continue;
		if (cats_add(out, name, comm, has_hint, hint) < 0)
			goto out;
	}
	if (nh)
		qsort(hinted, nh, sizeof(char *), cmp_str);
	for (i = 0; i < nh; i++) {
		char name[4200];
		bool has_zero = false;

		if (i > 0 && !strcmp(hinted[i], hinted[i - 1]))
			continue;
		for (j = 0; j < nz; j++)
			has_zero |= !strcmp(zero[j], hinted[i]);
		if (has_zero)
			continue;
		snprintf(name, sizeof(name), "%s@hint=0", hinted[i]);
		if (cats_has(out, name))
			continue;
		if (cats_add(out, name, hinted[i], true, 0) < 0)
			goto out;
	}
	for (i = 0; i < sizeof(sys_names) / sizeof(sys_names[0]); i++)
		if (!cats_has(out, sys_names[i]) && cats_add(out, sys_names[i], sys_names[i], false, 0) < 0)
			goto out;
	rc = 0;
out:
	free(hinted);
	free(zero);
	free(copy);
	if (rc < 0)
		sched_util_cats_free(out);
	return rc;
}

int sched_util_check_opts(const struct sched_util_opts *o)
{
	struct cats c;

	if (o->window_ms == 0)
		return scx_fail("--window-ms must be greater than zero");
	if (o->window_ms > UINT64_MAX / 1000000)
		return scx_fail("--window-ms is too large");
	if (sched_util_parse_categories(o->categories, &c) < 0)
		return -1;
	sched_util_cats_free(&c);
	return 0;
}

/* '*' any run, '?' one byte, bytes otherwise (upstream's matcher) */
bool sched_util_glob_match(const char *p, const char *v)
{
	const char *star = NULL, *sv = NULL;

	while (*v) {
		if (*p && (*p == '?' || *p == *v)) {
			p++;
			v++;
		} else if (*p == '*') {
			star = p++;
			sv = v;
		} else if (star) {
			p = star + 1;
			v = ++sv;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}
