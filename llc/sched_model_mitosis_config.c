/*
 * sched_model_mitosis_config.c - the config as scx_mitosis reads it: which
 * cgroups become cells, the subcell ids and which subcell a comm matches,
 * and CPU lists as text (see sched_model_mitosis.h).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "llc/sched_model_mitosis.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/mempool.h"

static bool is_catch_all(const struct cell *sub)
{
	if (!sub->nr_clauses)
		return true; /* matches absent: [[]] */
	for (size_t i = 0; i < sub->nr_clauses; i++)
		if (!sub->clauses[i].comm_prefix && !sub->clauses[i].has_hint)
			return true;
	return false;
}

#define MITOSIS_MAX_ORS 4 /* intf.h MAX_SUBCELL_MATCH_ORS */

const char *mitosis_config_refusal(const struct cell_config *cfg, char *buf, size_t len)
{
	if (!cfg->nr_cells)
		return snprintf(buf, len, "cell config must contain at least one cell spec"), buf;
	for (size_t i = 0; i < cfg->nr_cells; i++) {
		const struct cell *c = &cfg->cells[i];
		size_t catch_all = 0, nr;
		long *id;

		if (c->top != TOP_CGROUP_REGEX && c->top != TOP_CGROUP_CONTAINS && i + 1 < cfg->nr_cells)
			return snprintf(buf, len, "only the final catch-all cell spec may use an empty match (cell %s)",
					c->name), buf;
		for (size_t j = 0; j < c->nr_subcells; j++) {
			const struct cell *s = &c->subcells[j];

			catch_all += is_catch_all(s);
			if (s->nr_clauses > MITOSIS_MAX_ORS)
				return snprintf(buf, len, "Too many subcell match OR groups: %zu > %d (subcell %s/%s)",
						s->nr_clauses, MITOSIS_MAX_ORS, c->name, s->name), buf;
			for (size_t k = 0; k < s->nr_clauses; k++)
				if (s->clauses[k].has_hint)
					return snprintf(buf, len, "unknown variant `Hint`, expected `CommPrefix` (subcell %s/%s)",
							c->name, s->name), buf;
		}
		if (catch_all > 1)
			return snprintf(buf, len, "cell config contains multiple catch-all subcells (cell %s)", c->name), buf;
		if (!(id = calloc(c->nr_subcells + 1, sizeof(long))))
			return snprintf(buf, len, "out of memory"), buf;
		mitosis_subcell_ids(c, id, &nr);
		free(id);
		if (nr > MITOSIS_MAX_SUBCELLS)
			return snprintf(buf, len, "cell config has too many subcells: %zu > %d (cell %s)", nr,
					MITOSIS_MAX_SUBCELLS, c->name), buf;
	}
	return NULL;
}

void mitosis_subcell_ids(const struct cell *spec, long *id, size_t *nr)
{
	long next = 1;

	for (size_t j = 0; j < spec->nr_subcells; j++)
		id[j] = is_catch_all(&spec->subcells[j]) ? 0 : next++;
	*nr = (size_t)next;
}

size_t mitosis_match_subcell(const struct cell *spec, const char *comm, size_t comm_len)
{
	size_t id = 1;

	if (comm_len > 15)
		comm_len = 15;
	for (size_t j = 0; j < spec->nr_subcells; j++) {
		const struct cell *s = &spec->subcells[j];

		if (is_catch_all(s))
			continue;
		for (size_t k = 0; k < s->nr_clauses; k++) {
			/* one clause is one AND group; a Hint term is no term of the reader's */
			const char *p = s->clauses[k].comm_prefix;
			size_t n = p ? strnlen(p, 15) : 0;

			if (p && n <= comm_len && !memcmp(comm, p, n))
				return id;
		}
		id++;
	}
	return 0;
}

void mitosis_cells_free(struct mitosis_cells *c)
{
	for (size_t i = 0; c->path && i < c->nr; i++)
		free(c->path[i]);
	free(c->path);
	free(c->spec);
	free(c->cell_of);
	memset(c, 0, sizeof(*c));
}

const struct cell *mitosis_cell_spec(const struct cell_config *cfg, const struct mitosis_cells *c, size_t i)
{
	return c->spec[i] >= 0 ? &cfg->cells[c->spec[i]] : NULL;
}

int mitosis_places(const struct cell_config *cfg, const struct mitosis_cells *c, struct mempool *mem, size_t **base,
		   const char ***sub)
{
	size_t i, n = 0, most = 1;
	long *id;

	*sub = NULL;
	for (i = 0; i < cfg->nr_cells; i++)
		if (cfg->cells[i].nr_subcells > most)
			most = cfg->cells[i].nr_subcells;
	if (!(*base = mempool_calloc(mem, c->nr + 1, sizeof(size_t))) || !(id = calloc(most + 1, sizeof(long))))
		return scx_fail("out of memory");
	for (i = 0; i < c->nr; i++) {
		const struct cell *sp = mitosis_cell_spec(cfg, c, i);
		size_t nr = 1;

		if (sp)
			mitosis_subcell_ids(sp, id, &nr);
		(*base)[i] = n;
		n += nr;
	}
	(*base)[c->nr] = n;
	if (!(*sub = calloc(n + 1, sizeof(char *)))) {
		free(id);
		return scx_fail("out of memory");
	}
	for (i = 0; i < c->nr; i++) {
		const struct cell *sp = mitosis_cell_spec(cfg, c, i);
		size_t nr = 1, p0 = (*base)[i];

		if (sp)
			mitosis_subcell_ids(sp, id, &nr);
		for (size_t j = 0; sp && j < sp->nr_subcells; j++)
			if (!(*sub)[p0 + (size_t)id[j]])
				(*sub)[p0 + (size_t)id[j]] = sp->subcells[j].name;
		if (!(*sub)[p0])
			(*sub)[p0] = "rest";
	}
	free(id);
	return 0;
}

struct cg {
	char *path;     /* below the mount */
	long spec;      /* first matching non-catch-all spec, -1 */
	long cell;      /* its cell once resolved */
	bool kept;      /* a cell of its own */
};

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct cg *)a)->path, ((const struct cg *)b)->path);
}

/* The cgroup and all its ancestors ("/a/b" -> "/a/b", "/a"), added to v if new. */
static int add_with_ancestors(struct cg **v, size_t *n, size_t *cap, const char *path)
{
	size_t len = strlen(path);

	while (len > 1) {
		bool seen = false;

		for (size_t i = 0; i < *n && !seen; i++)
			seen = strlen((*v)[i].path) == len && !memcmp((*v)[i].path, path, len);
		if (!seen) {
			if (*n == *cap) {
				size_t nc = *cap ? *cap * 2 : 16;
				struct cg *nv = realloc(*v, nc * sizeof(*nv));

				if (!nv)
					return scx_fail("out of memory");
				*v = nv;
				*cap = nc;
			}
			if (!((*v)[*n].path = strndup(path, len)))
				return scx_fail("out of memory");
			(*v)[*n].spec = -1;
			(*v)[*n].kept = false;
			(*n)++;
		}
		while (len > 1 && path[len - 1] != '/')
			len--;
		if (len > 1)
			len--; /* the '/' */
	}
	return 0;
}

static bool is_ancestor(const char *a, const char *b)
{
	size_t n = strlen(a);

	return n < strlen(b) && !memcmp(a, b, n) && b[n] == '/';
}

int mitosis_resolve_cells(const struct cell_config *cfg, const char *const *cgroups, size_t n,
			  struct mitosis_cells *out)
{
	pcre2_code **re = calloc(cfg->nr_cells + 1, sizeof(*re));
	pcre2_match_data *md = NULL;
	struct cg *v = NULL;
	size_t nv = 0, cap = 0, i, k, buflen = 0;
	char *buf = NULL;
	long root = -1;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!re)
		return scx_fail("out of memory");
	for (i = 0; i < cfg->nr_cells; i++) {
		const struct cell *c = &cfg->cells[i];

		if (c->top == TOP_CGROUP_REGEX) {
			int err;
			PCRE2_SIZE off;

			if (!(re[i] = pcre2_compile((PCRE2_SPTR)c->top_value, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &err, &off,
						    NULL))) {
				PCRE2_UCHAR msg[256];

				pcre2_get_error_message(err, msg, sizeof(msg));
				scx_fail("cell %s: CgroupRegex %s: %s at offset %zu", c->name, c->top_value, (char *)msg,
					 (size_t)off);
				goto out;
			}
		} else if (c->top != TOP_CGROUP_CONTAINS) {
			root = (long)i; /* the last catch-all spec */
		}
	}
	for (i = 0; i < n; i++)
		if (add_with_ancestors(&v, &nv, &cap, cgroups[i]) < 0)
			goto out;
	if (nv)
		qsort(v, nv, sizeof(*v), by_path);
	/* each cgroup's first matching spec, by its absolute path */
	for (k = 0; k < nv; k++) {
		size_t need = strlen(MITOSIS_CGROUP_MOUNT) + strlen(v[k].path) + 1;

		if (need > buflen) {
			char *nb = realloc(buf, need);

			if (!nb) {
				scx_fail("out of memory");
				goto out;
			}
			buf = nb;
			buflen = need;
		}
		snprintf(buf, need, "%s%s", MITOSIS_CGROUP_MOUNT, v[k].path);
		for (i = 0; i < cfg->nr_cells && v[k].spec < 0; i++) {
			const struct cell *c = &cfg->cells[i];
			bool hit = false;

			if (c->top == TOP_CGROUP_CONTAINS) {
				hit = c->top_value && strstr(buf, c->top_value);
			} else if (re[i]) {
				int m;

				if (!(md = md ? md : pcre2_match_data_create(4, NULL))) {
					scx_fail("out of memory");
					goto out;
				}
				m = pcre2_match(re[i], (PCRE2_SPTR)buf, strlen(buf), 0, 0, md, NULL);
				if (m < 0 && m != PCRE2_ERROR_NOMATCH) {
					scx_fail("cell %s: CgroupRegex %s: matching failed (%d)", c->name, c->top_value, m);
					goto out;
				}
				hit = m >= 0;
			}
			if (hit)
				v[k].spec = (long)i;
		}
	}
	/* a matched cgroup is a cell unless an ancestor of an equal or earlier spec is one (ancestors sort first) */
	for (k = 0; k < nv; k++) {
		if (v[k].spec < 0)
			continue;
		v[k].kept = true;
		for (i = 0; i < k && v[k].kept; i++)
			if (v[i].kept && v[i].spec <= v[k].spec && is_ancestor(v[i].path, v[k].path))
				v[k].kept = false;
	}
	out->nr = 1;
	for (k = 0; k < nv; k++)
		out->nr += v[k].kept;
	if (!(out->path = calloc(out->nr, sizeof(char *))) || !(out->spec = calloc(out->nr, sizeof(long))) ||
	    !(out->cell_of = calloc(n + 1, sizeof(long))) || !(out->path[0] = strdup("/"))) {
		scx_fail("out of memory");
		goto out;
	}
	out->spec[0] = root;
	for (k = 0, i = 1; k < nv; k++)
		if (v[k].kept) {
			v[k].cell = (long)i;
			out->spec[i] = v[k].spec;
			out->path[i] = v[k].path;
			v[k].path = NULL;
			i++;
		}
	/* a cgroup's cell: its own, else its nearest ancestor's that is one, else cell 0 */
	for (i = 0; i < n; i++) {
		size_t best = 0, blen = 0;

		for (k = 1; k < out->nr; k++) {
			size_t len = strlen(out->path[k]);

			if ((!strcmp(out->path[k], cgroups[i]) || is_ancestor(out->path[k], cgroups[i])) && len > blen) {
				best = k;
				blen = len;
			}
		}
		out->cell_of[i] = (long)best;
	}
	rc = 0;
out:
	if (rc)
		mitosis_cells_free(out);
	for (k = 0; k < nv; k++)
		free(v[k].path);
	free(v);
	free(buf);
	if (md)
		pcre2_match_data_free(md);
	for (i = 0; i < cfg->nr_cells; i++)
		if (re[i])
			pcre2_code_free(re[i]);
	free(re);
	return rc;
}

const char *mitosis_cpulist(char *buf, size_t len, const int *cpus, size_t n)
{
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int w;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		w = j > i ? snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", cpus[i], cpus[j])
			  : snprintf(buf + off, len - off, "%s%d", off ? "," : "", cpus[i]);
		if (w < 0 || (size_t)w >= len - off)
			break;
		off += (size_t)w;
		i = j + 1;
	}
	return buf;
}
