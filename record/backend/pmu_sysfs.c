/*
 * pmu_sysfs.c - perf PMU descriptions from sysfs and the term encoder.
 * See pmu_sysfs.h. Format files say which attr bits a named field occupies;
 * event files list terms in the same syntax a user writes inside
 * "pmu/.../". Everything here is data-driven: no PMU's bits are hard-coded.
 */
#include "record/backend/pmu_sysfs.h"
#include "lib/error.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ALIAS_DEPTH 2

const char *pmu_sysfs_root(const char *root)
{
	return root ? root : PMU_SYSFS_DEFAULT_ROOT;
}

static void trim(char *s)
{
	size_t n = strlen(s);
	char *p = s;

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (*p && isspace((unsigned char)*p))
		p++;
	if (p != s)
		memmove(s, p, strlen(p) + 1);
}

/* Read a small text file, trimmed. 1 read, 0 absent, -1 + scx_fail. */
static int read_small_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return scx_fail_errno("%s", path);
	}
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return scx_fail_errno("%s", path);
	buf[n] = '\0';
	trim(buf);
	return 1;
}

bool pmu_exists(const char *root, const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", pmu_sysfs_root(root), name);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	return 0;
}

static int parse_word(const char *s, size_t len, int *word)
{
	static const char *const words[] = { "config", "config1", "config2", "config3" };

	for (int i = 0; i < 4; i++) {
		if (strlen(words[i]) == len && strncmp(s, words[i], len) == 0) {
			*word = i;
			return 0;
		}
	}
	return -1;
}

static uint64_t bit_range(unsigned lo, unsigned hi)
{
	uint64_t upto_hi = hi >= 63 ? ~0ULL : (1ULL << (hi + 1)) - 1;

	return upto_hi & ~((1ULL << lo) - 1);
}

/* One "lo-hi" or "bit" item of a format string. */
static int parse_range(const char *s, uint64_t *mask)
{
	unsigned long lo, hi;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	lo = strtoul(s, &end, 10);
	hi = lo;
	if (*end == '-') {
		if (!isdigit((unsigned char)end[1]))
			return -1;
		hi = strtoul(end + 1, &end, 10);
	}
	if (*end || lo > hi || hi > 63)
		return -1;
	*mask |= bit_range((unsigned)lo, (unsigned)hi);
	return 0;
}

int pmu_parse_format(const char *text, int *word, uint64_t *mask)
{
	const char *colon = strchr(text, ':');
	char ranges[128], *save = NULL, *tok;

	if (!colon || parse_word(text, (size_t)(colon - text), word) < 0)
		return scx_fail("format \"%s\": expected configN:BITS", text);
	if (strlen(colon + 1) >= sizeof(ranges))
		return scx_fail("format \"%s\": too long", text);
	strcpy(ranges, colon + 1);
	*mask = 0;
	for (tok = strtok_r(ranges, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		trim(tok);
		if (parse_range(tok, mask) < 0)
			return scx_fail("format \"%s\": bad bit range \"%s\"", text, tok);
	}
	if (!*mask)
		return scx_fail("format \"%s\": no bits", text);
	return 0;
}

static int load_one_format(struct pmu_desc *p, const char *name)
{
	char path[4352], text[256];
	struct pmu_format *f;
	int rc;

	if (p->nr_formats == PMU_MAX_FORMATS)
		return scx_fail("%s/format: more than %d formats", p->dir, PMU_MAX_FORMATS);
	if (strlen(name) >= sizeof(f->name))
		return scx_fail("%s/format/%s: name too long", p->dir, name);
	if (snprintf(path, sizeof(path), "%s/format/%s", p->dir, name) >= (int)sizeof(path))
		return scx_fail("%s/format/%s: path too long", p->dir, name);
	rc = read_small_file(path, text, sizeof(text));
	if (rc <= 0)
		return rc < 0 ? -1 : scx_fail("%s: vanished", path);
	f = &p->formats[p->nr_formats];
	if (pmu_parse_format(text, &f->word, &f->mask) < 0) {
		char why[256];

		snprintf(why, sizeof(why), "%s", scx_errmsg());
		return scx_fail("%s: %s", path, why);
	}
	strcpy(f->name, name);
	p->nr_formats++;
	return 0;
}

static int load_formats(struct pmu_desc *p)
{
	char path[4200];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/format", p->dir);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : scx_fail_errno("%s", path);
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] != '.')
			rc = load_one_format(p, de->d_name);
	}
	closedir(d);
	return rc;
}

static int load_type(struct pmu_desc *p)
{
	char path[4200], text[64];
	uint64_t v;
	int rc;

	snprintf(path, sizeof(path), "%s/type", p->dir);
	rc = read_small_file(path, text, sizeof(text));
	if (rc < 0)
		return -1;
	if (rc == 0)
		return scx_fail("%s: missing (not a PMU directory?)", path);
	if (parse_u64(text, &v) < 0 || v > UINT32_MAX)
		return scx_fail("%s: \"%s\" is not a PMU type number", path, text);
	p->type = (uint32_t)v;
	return 0;
}

static int load_cpus(struct pmu_desc *p)
{
	static const char *const files[] = { "cpus", "cpumask" };
	char path[4200];

	p->cpus[0] = '\0';
	for (int i = 0; i < 2; i++) {
		int rc;

		snprintf(path, sizeof(path), "%s/%s", p->dir, files[i]);
		rc = read_small_file(path, p->cpus, sizeof(p->cpus));
		if (rc != 0)
			return rc < 0 ? -1 : 0;
	}
	return 0;
}

int pmu_load(const char *root, const char *name, struct pmu_desc *out)
{
	memset(out, 0, sizeof(*out));
	if (strlen(name) >= sizeof(out->name))
		return scx_fail("PMU name \"%s\" too long", name);
	strcpy(out->name, name);
	snprintf(out->dir, sizeof(out->dir), "%s/%s", pmu_sysfs_root(root), name);
	if (!pmu_exists(root, name))
		return scx_fail("no PMU \"%s\" under %s", name, pmu_sysfs_root(root));
	if (load_type(out) < 0 || load_cpus(out) < 0 || load_formats(out) < 0)
		return -1;
	return 0;
}

static bool valid_leaf_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

bool pmu_has_event(const struct pmu_desc *p, const char *event)
{
	char path[4352];
	struct stat st;

	if (!valid_leaf_name(event))
		return false;
	snprintf(path, sizeof(path), "%s/events/%s", p->dir, event);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int pmu_read_event(const struct pmu_desc *p, const char *event, char *buf, size_t size)
{
	char path[4352];
	int rc;

	if (!valid_leaf_name(event))
		return scx_fail("bad event name \"%s\"", event);
	snprintf(path, sizeof(path), "%s/events/%s", p->dir, event);
	rc = read_small_file(path, buf, size);
	if (rc == 0)
		return scx_fail("PMU %s has no event \"%s\"", p->name, event);
	return rc < 0 ? -1 : 0;
}

int pmu_read_cap(const struct pmu_desc *p, const char *cap, uint64_t *val)
{
	char path[4352], text[64];
	int rc;

	if (!valid_leaf_name(cap))
		return scx_fail("bad capability name \"%s\"", cap);
	snprintf(path, sizeof(path), "%s/caps/%s", p->dir, cap);
	rc = read_small_file(path, text, sizeof(text));
	if (rc <= 0)
		return rc;
	if (parse_u64(text, val) < 0)
		return scx_fail("%s: \"%s\" is not a number", path, text);
	return 1;
}

static uint64_t *attr_word(struct perf_event_attr *attr, int word)
{
	switch (word) {
	case 0:
		return (uint64_t *)&attr->config;
	case 1:
		return (uint64_t *)&attr->config1;
	default:
		return (uint64_t *)&attr->config2;
	}
}

static const struct pmu_format *find_format(const struct pmu_desc *p, const char *name)
{
	for (size_t i = 0; i < p->nr_formats; i++) {
		if (strcmp(p->formats[i].name, name) == 0)
			return &p->formats[i];
	}
	return NULL;
}

/* Spread val's low bits over the set bits of mask, low to high (perf's
 * pmu_format_value). Fails when val has more bits than mask holds. */
static int deposit_bits(uint64_t mask, uint64_t val, uint64_t *out)
{
	uint64_t res = 0;
	int width = __builtin_popcountll(mask);

	if (width < 64 && (val >> width) != 0)
		return -1;
	for (int bit = 0; bit < 64 && val; bit++) {
		if (!(mask & (1ULL << bit)))
			continue;
		if (val & 1)
			res |= 1ULL << bit;
		val >>= 1;
	}
	*out = res;
	return 0;
}

/* config3 (kernel 6.3+, e.g. Arm SPE's inv_event_filter) is read from
 * format/ so that such PMUs load, but the linux/perf_event.h built against
 * has no attr.config3 field to set it in. */
static int config3_refused(const struct pmu_desc *p, const char *name)
{
	return scx_fail("PMU %s: term \"%s\" lives in attr.config3, which this build does not "
			"set (its perf_event_attr predates config3)", p->name, name);
}

int pmu_set_term(const struct pmu_desc *p, struct perf_event_attr *attr, const char *name,
		 uint64_t val)
{
	const struct pmu_format *f = find_format(p, name);
	uint64_t bits, *w;
	int word;

	if (!f) {
		if (parse_word(name, strlen(name), &word) < 0)
			return scx_fail("PMU %s has no format term \"%s\"", p->name, name);
		if (word == PMU_WORD_CONFIG3)
			return config3_refused(p, name);
		*attr_word(attr, word) = val;
		return 0;
	}
	if (f->word == PMU_WORD_CONFIG3)
		return config3_refused(p, name);
	if (deposit_bits(f->mask, val, &bits) < 0)
		return scx_fail("%s/%s=%#" PRIx64 "/: value wider than its %d-bit field", p->name,
				name, val, __builtin_popcountll(f->mask));
	w = attr_word(attr, f->word);
	*w = (*w & ~f->mask) | bits;
	return 0;
}

static int apply_terms_depth(const struct pmu_desc *p, struct perf_event_attr *attr,
			     const char *terms, int depth);

static int apply_alias(const struct pmu_desc *p, struct perf_event_attr *attr, const char *name,
		       int depth)
{
	char text[512];

	if (depth >= MAX_ALIAS_DEPTH)
		return scx_fail("PMU %s: event alias \"%s\" nested too deep", p->name, name);
	if (pmu_read_event(p, name, text, sizeof(text)) < 0)
		return -1;
	return apply_terms_depth(p, attr, text, depth + 1);
}

static int apply_sampling_term(struct perf_event_attr *attr, const char *name, uint64_t val)
{
	if (strcmp(name, "period") == 0) {
		attr->freq = 0;
		attr->sample_period = val;
	} else {
		attr->freq = 1;
		attr->sample_freq = val;
	}
	return 0;
}

static int apply_one_term(const struct pmu_desc *p, struct perf_event_attr *attr, char *term,
			  int depth)
{
	char *eq = strchr(term, '=');
	uint64_t val = 1;

	trim(term);
	if (!*term)
		return scx_fail("PMU %s: empty term", p->name);
	if (!eq) {
		if (!find_format(p, term) && pmu_has_event(p, term))
			return apply_alias(p, attr, term, depth);
		return pmu_set_term(p, attr, term, 1);
	}
	*eq = '\0';
	trim(term);
	trim(eq + 1);
	if (strcmp(eq + 1, "?") == 0)
		return scx_fail("PMU %s: term \"%s\" needs a value (%s=N)", p->name, term, term);
	if (parse_u64(eq + 1, &val) < 0)
		return scx_fail("PMU %s: term %s=%s: not a number", p->name, term, eq + 1);
	if (strcmp(term, "period") == 0 || strcmp(term, "freq") == 0)
		return apply_sampling_term(attr, term, val);
	return pmu_set_term(p, attr, term, val);
}

static int apply_terms_depth(const struct pmu_desc *p, struct perf_event_attr *attr,
			     const char *terms, int depth)
{
	char *copy = strdup(terms), *save = NULL, *tok;
	int rc = 0;

	if (!copy)
		return scx_fail("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save))
		rc = apply_one_term(p, attr, tok, depth);
	free(copy);
	return rc;
}

int pmu_apply_terms(const struct pmu_desc *p, struct perf_event_attr *attr, const char *terms)
{
	return apply_terms_depth(p, attr, terms, 0);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void pmu_list_names(const char *root, char *buf, size_t size)
{
	char *names[256];
	size_t n = 0, used = 0;
	struct dirent *de;
	DIR *d = opendir(pmu_sysfs_root(root));

	buf[0] = '\0';
	if (!d)
		return;
	while ((de = readdir(d)) != NULL && n < 256) {
		char *name = de->d_name[0] != '.' ? strdup(de->d_name) : NULL;

		if (name)
			names[n++] = name;
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (used < size)
			used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? " " : "",
						 names[i]);
		free(names[i]);
	}
}
