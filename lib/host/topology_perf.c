/*
 * topology_perf.c - the recording host's CPU topology from perf.data's
 * feature sections (see host.h), as perf record writes them (perf's
 * tools/perf/util/header.c):
 *   NRCPUS:        u32 nr_cpus_avail, u32 nr_cpus_online
 *   CPU_TOPOLOGY:  string list core siblings, string list thread siblings,
 *                  then (perf >= 3.x) {u32 core_id, u32 socket_id} per CPU
 *                  0..nr_cpus_avail-1, then (perf >= 5.2) a string list of
 *                  die siblings and u32 die_id per CPU
 *   NUMA_TOPOLOGY: u32 nr; per node u32 id, u64 mem_total, u64 mem_free,
 *                  string cpulist
 *   CACHE:         u32 version (1), u32 nr; per cache u32 level, line_size,
 *                  sets, ways, strings type, size, shared cpulist
 * A CPU's LLC is its level 3 cache, else level 2 (the reader's rule, as
 * topology_sysfs.c); a file with no CACHE section (perf before 4.x, pipe
 * mode, converters) gets its package, the core siblings list of
 * CPU_TOPOLOGY, as its LLC with llc_level -1: no LLC spans two packages,
 * so a share across them is cross-LLC whatever the caches were.
 * A string is u32 len and len bytes holding a NUL; a string list u32 nr and
 * nr strings. The file is hostile input: every count and length is checked
 * against what is left of its section.
 */
#include "lib/host/host.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/perfdata.h"

#define MAX_ENTRIES 65536 /* caches, nodes, sibling lists: more is a corrupt count */

struct cur {
	const uint8_t *p, *end;
	const char *what;   /* "FILE: CPU_TOPOLOGY" */
};

static int cur_u32(struct cur *c, uint32_t *v)
{
	if ((size_t)(c->end - c->p) < 4)
		return scx_fail("%s: truncated", c->what);
	memcpy(v, c->p, 4);
	c->p += 4;
	return 0;
}

static int cur_skip(struct cur *c, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return scx_fail("%s: truncated", c->what);
	c->p += n;
	return 0;
}

/* A string: *s points into the section, NUL-terminated within its length. */
static int cur_str(struct cur *c, const char **s)
{
	uint32_t len = 0;

	if (cur_u32(c, &len) < 0)
		return -1;
	if (len > (size_t)(c->end - c->p))
		return scx_fail("%s: a string of %u bytes past the end of the section", c->what, len);
	if (!len || !memchr(c->p, '\0', len))
		return scx_fail("%s: a string without its NUL", c->what);
	*s = (const char *)c->p;
	c->p += len;
	return 0;
}

/* A cpulist string, checked. */
static int cur_cpulist(struct cur *c, const char **s)
{
	if (cur_str(c, s) < 0)
		return -1;
	if (host_cpulist_count(*s) < 0)
		return scx_fail("%s: \"%.64s\" is not a CPU list", c->what, *s);
	return 0;
}

struct list {
	const char **s;
	uint32_t n;
};

static int cur_list(struct cur *c, struct list *l)
{
	uint32_t i;

	l->s = NULL;
	if (cur_u32(c, &l->n) < 0)
		return -1;
	if (l->n > MAX_ENTRIES || l->n > (size_t)(c->end - c->p) / 4)
		return scx_fail("%s: %u sibling lists in %zu bytes", c->what, l->n, (size_t)(c->end - c->p));
	if (l->n && !(l->s = calloc(l->n, sizeof(*l->s))))
		return scx_fail("out of memory");
	for (i = 0; i < l->n; i++)
		if (cur_cpulist(c, &l->s[i]) < 0)
			return -1;
	return 0;
}

/* The list of lists holding cpu, NULL when none does. */
static const char *list_with(const struct list *l, int cpu)
{
	uint32_t i;

	for (i = 0; i < l->n; i++)
		if (host_cpulist_has(l->s[i], cpu))
			return l->s[i];
	return NULL;
}

struct cache {
	uint32_t level;
	const char *type, *size, *map;
};

struct parsed {
	uint32_t nr_avail, nr_online;
	bool has_nrcpus;
	struct list cores, threads, dies;
	const uint32_t *ids;     /* core_id, socket_id pairs (unaligned: memcpy), NULL when absent */
	const uint8_t *die_ids;  /* u32 per CPU, NULL when absent */
	struct cache *caches;
	uint32_t nr_caches;
	struct {
		uint32_t id;
		const char *cpus;
	} *nodes;
	uint32_t nr_nodes;
};

static int parse_cpu_topology(const struct host_perf_sections *s, const char *what, struct parsed *x)
{
	char name[512];
	struct cur c = {s->cpu_topology, (const uint8_t *)s->cpu_topology + s->cpu_topology_size, name};

	snprintf(name, sizeof(name), "%s: CPU_TOPOLOGY", what);
	if (cur_list(&c, &x->cores) < 0 || cur_list(&c, &x->threads) < 0)
		return -1;
	if (c.p == c.end || !x->has_nrcpus) /* an old perf: sibling lists only */
		return 0;
	if ((size_t)(c.end - c.p) / 8 < x->nr_avail)
		return scx_fail("%s: core and socket ids of %u CPUs in %zu bytes", name, x->nr_avail,
				(size_t)(c.end - c.p));
	x->ids = (const uint32_t *)c.p;
	c.p += (size_t)x->nr_avail * 8;
	if (c.p == c.end)
		return 0;
	if (cur_list(&c, &x->dies) < 0)
		return -1;
	x->die_ids = c.p;
	if (cur_skip(&c, (size_t)x->nr_avail * 4) < 0)
		return scx_fail("%s: die ids of %u CPUs past the end of the section", name, x->nr_avail);
	return 0;
}

static int parse_numa(const struct host_perf_sections *s, const char *what, struct parsed *x)
{
	char name[512];
	struct cur c = {s->numa_topology, (const uint8_t *)s->numa_topology + s->numa_topology_size, name};
	uint32_t i;

	snprintf(name, sizeof(name), "%s: NUMA_TOPOLOGY", what);
	if (cur_u32(&c, &x->nr_nodes) < 0)
		return -1;
	if (x->nr_nodes > MAX_ENTRIES || x->nr_nodes > (size_t)(c.end - c.p) / 24)
		return scx_fail("%s: %u nodes in %zu bytes", name, x->nr_nodes, (size_t)(c.end - c.p));
	if (x->nr_nodes && !(x->nodes = calloc(x->nr_nodes, sizeof(*x->nodes))))
		return scx_fail("out of memory");
	for (i = 0; i < x->nr_nodes; i++)
		if (cur_u32(&c, &x->nodes[i].id) < 0 || cur_skip(&c, 16) < 0 || cur_cpulist(&c, &x->nodes[i].cpus) < 0)
			return -1;
	return 0;
}

static int parse_cache(const struct host_perf_sections *s, const char *what, struct parsed *x)
{
	char name[512];
	struct cur c = {s->cache, (const uint8_t *)s->cache + s->cache_size, name};
	uint32_t version = 0, i;

	snprintf(name, sizeof(name), "%s: CACHE", what);
	if (cur_u32(&c, &version) < 0 || cur_u32(&c, &x->nr_caches) < 0)
		return -1;
	if (version != 1)
		return scx_fail("%s: version %u (perf writes 1)", name, version);
	if (x->nr_caches > MAX_ENTRIES || x->nr_caches > (size_t)(c.end - c.p) / 28)
		return scx_fail("%s: %u caches in %zu bytes", name, x->nr_caches, (size_t)(c.end - c.p));
	if (x->nr_caches && !(x->caches = calloc(x->nr_caches, sizeof(*x->caches))))
		return scx_fail("out of memory");
	for (i = 0; i < x->nr_caches; i++) {
		struct cache *k = &x->caches[i];

		if (cur_u32(&c, &k->level) < 0 || cur_skip(&c, 12) < 0 || cur_str(&c, &k->type) < 0 ||
		    cur_str(&c, &k->size) < 0 || cur_cpulist(&c, &k->map) < 0)
			return -1;
	}
	return 0;
}

/* The LLC of cpu: the level 3, else level 2, data or unified cache holding it. */
static const struct cache *llc_of(const struct parsed *x, int cpu)
{
	static const uint32_t levels[] = {3, 2};
	size_t l;
	uint32_t i;

	for (l = 0; l < 2; l++)
		for (i = 0; i < x->nr_caches; i++) {
			const struct cache *k = &x->caches[i];

			if (k->level == levels[l] && strcmp(k->type, "Instruction") && host_cpulist_has(k->map, cpu))
				return k;
		}
	return NULL;
}

static uint64_t size_bytes(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	if (v > (UINT64_MAX >> 30))
		return 0;
	return *end == 'K' ? v << 10 : *end == 'M' ? v << 20 : *end == 'G' ? v << 30 : v;
}

static int id_at(const uint8_t *base, size_t idx)
{
	uint32_t v;

	memcpy(&v, base + idx * 4, 4);
	return v > (uint32_t)INT32_MAX ? -1 : (int)v; /* perf writes -1 for CPUs it could not read */
}

static int fill_cpu(const struct parsed *x, int cpu, struct host_cpu *c)
{
	const struct cache *k = llc_of(x, cpu);
	const char *sib = list_with(&x->threads, cpu), *pkg = NULL;
	uint32_t i;

	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->core = c->die = c->package = c->node = -1;
	c->llc = -1;
	c->llc_level = -1;
	if (x->ids && (uint32_t)cpu < x->nr_avail) {
		c->core = id_at((const uint8_t *)x->ids, (size_t)cpu * 2);
		c->package = id_at((const uint8_t *)x->ids, (size_t)cpu * 2 + 1);
	}
	if (x->die_ids && (uint32_t)cpu < x->nr_avail)
		c->die = id_at(x->die_ids, (size_t)cpu);
	for (i = 0; i < x->nr_nodes; i++)
		if (x->nodes[i].id <= (uint32_t)INT32_MAX && host_cpulist_has(x->nodes[i].cpus, cpu)) {
			c->node = (int)x->nodes[i].id;
			break;
		}
	if (k) {
		c->llc = host_cpulist_first(k->map);
		c->llc_level = (int)k->level;
		c->llc_size = size_bytes(k->size);
	} else if ((pkg = list_with(&x->cores, cpu))) {
		/* no cache in the headers: the package is the LLC's bound (no LLC spans two), its level unknown */
		c->llc = host_cpulist_first(pkg);
	}
	c->llc_cpus = strdup(k ? k->map : pkg ? pkg : "");
	c->siblings = strdup(sib ? sib : "");
	return c->llc_cpus && c->siblings ? 0 : scx_fail("out of memory");
}

/* The CPUs: the union of the thread sibling lists, else of the caches' lists. */
static int cpu_set(const struct parsed *x, bool **on, size_t *n)
{
	uint32_t i;
	int *cpus;
	size_t nc, j;

	*n = 0;
	if (!(*on = calloc(HOST_MAX_CPU + 1, sizeof(bool))))
		return scx_fail("out of memory");
	for (i = 0; i < x->threads.n; i++) {
		if (host_cpulist_parse(x->threads.s[i], &cpus, &nc) < 0)
			return -1;
		for (j = 0; j < nc; j++)
			(*on)[cpus[j]] = true;
		free(cpus);
	}
	for (i = 0; !x->threads.n && i < x->nr_caches; i++) {
		if (host_cpulist_parse(x->caches[i].map, &cpus, &nc) < 0)
			return -1;
		for (j = 0; j < nc; j++)
			(*on)[cpus[j]] = true;
		free(cpus);
	}
	for (j = 0; j <= HOST_MAX_CPU; j++)
		*n += (*on)[j];
	return 0;
}

static int build(const struct parsed *x, struct host_topology *t)
{
	bool *on;
	size_t n, j;
	int rc = cpu_set(x, &on, &n);

	if (rc == 0 && n && !(t->cpus = calloc(n, sizeof(*t->cpus))))
		rc = scx_fail("out of memory (%zu CPUs)", n);
	for (j = 0; rc == 0 && j <= HOST_MAX_CPU; j++)
		if (on[j] && (rc = fill_cpu(x, (int)j, &t->cpus[t->n])) == 0)
			t->n++;
	free(on);
	return rc;
}

int host_topology_perf(const struct host_perf_sections *s, const char *what, struct host_topology *t)
{
	struct parsed x = {0};
	int rc = 0;

	memset(t, 0, sizeof(*t));
	if (s->nrcpus && s->nrcpus_size >= 8) {
		memcpy(&x.nr_avail, s->nrcpus, 4);
		memcpy(&x.nr_online, (const uint8_t *)s->nrcpus + 4, 4);
		x.has_nrcpus = x.nr_avail <= HOST_MAX_CPU + 1;
	}
	if (s->cpu_topology && s->cpu_topology_size)
		rc = parse_cpu_topology(s, what, &x);
	if (rc == 0 && s->numa_topology && s->numa_topology_size)
		rc = parse_numa(s, what, &x);
	if (rc == 0 && s->cache && s->cache_size)
		rc = parse_cache(s, what, &x);
	if (rc == 0)
		rc = build(&x, t);
	free(x.cores.s);
	free(x.threads.s);
	free(x.dies.s);
	free(x.caches);
	free(x.nodes);
	if (rc < 0) {
		host_topology_free(t);
		return -1;
	}
	snprintf(t->source, sizeof(t->source), "perf.data headers");
	return t->n ? 0 : 1;
}

int host_topology_perfdata(const struct pd_file *f, struct host_topology *t)
{
	struct host_perf_sections s = {0};
	const void *d;
	uint64_t n;

	if (pd_feature(f, PD_FEAT_NRCPUS, &d, &n) == 0)
		s.nrcpus = d, s.nrcpus_size = n;
	if (pd_feature(f, PD_FEAT_CPU_TOPOLOGY, &d, &n) == 0)
		s.cpu_topology = d, s.cpu_topology_size = n;
	if (pd_feature(f, PD_FEAT_NUMA_TOPOLOGY, &d, &n) == 0)
		s.numa_topology = d, s.numa_topology_size = n;
	if (pd_feature(f, PD_FEAT_CACHE, &d, &n) == 0)
		s.cache = d, s.cache_size = n;
	return host_topology_perf(&s, f->path, t);
}

int host_topology_perfdata_path(const char *path, struct host_topology *t)
{
	struct pd_file f;
	int rc;

	memset(t, 0, sizeof(*t));
	if (pd_open(&f, path) < 0)
		return -1;
	rc = host_topology_perfdata(&f, t);
	pd_close(&f);
	return rc;
}
