/*
 * cell_config_check.c - a cell config checked against the reader's rules
 * (see sharing.h): the JSON as the reader's serde structs take it (a cell
 * spec's name, its matches object, its subcells; a subcell's name and its
 * OR of AND groups of CommPrefix terms), then its limits, one problem a
 * line, every problem of the file (not only the first).
 */
#include "extract/sharing/sharing.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/fsutil.h"

struct checker {
	const struct reader_limits *l;
	reader_problem_fn fn;
	void *ctx;
	long problems;
	int rc; /* -1 once fn asked to stop */
	char where[192];
};

/* A name for messages: printable, at most 40 bytes. */
static void printable(char *out, size_t size, const char *s, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < len && o + 4 < size && i < 40; i++)
		out[o++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	if (i < len && o + 4 < size) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

static void problem(struct checker *k, const char *rule, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void problem(struct checker *k, const char *rule, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	k->problems++;
	if (k->rc < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (k->fn(k->ctx, k->where, rule, what) < 0)
		k->rc = -1;
}

/* The string of v, its length in *len, or NULL when v is no string. */
static const char *str_of(struct json_object *v, size_t *len)
{
	if (!v || !json_object_is_type(v, json_type_string))
		return NULL;
	*len = (size_t)json_object_get_string_len(v);
	return json_object_get_string(v);
}

/* Every key of o is among names (NULL-terminated); others are a problem. */
static void known_keys(struct checker *k, struct json_object *o, const char *const *names, const char *what)
{
	json_object_object_foreach(o, key, v) {
		const char *const *n;
		char shown[64];

		(void)v;
		for (n = names; *n && strcmp(*n, key); n++)
			;
		if (*n)
			continue;
		printable(shown, sizeof(shown), key, strlen(key));
		problem(k, "unknown-key", "\"%s\" is no key of a %s; the reader ignores it (a misspelt key?)", shown, what);
	}
}

/* where = "cell[i] \"name\"" (+ " subcell[j] \"name\"") */
static void set_where(struct checker *k, size_t ci, struct json_object *cell, long si, struct json_object *sub)
{
	char cn[64] = "?", sn[64] = "?";
	struct json_object *v;
	const char *s;
	size_t len;

	if (json_object_is_type(cell, json_type_object) && json_object_object_get_ex(cell, "name", &v) &&
	    (s = str_of(v, &len)))
		printable(cn, sizeof(cn), s, len);
	if (si < 0) {
		snprintf(k->where, sizeof(k->where), "cell[%zu] \"%s\"", ci, cn);
		return;
	}
	if (json_object_is_type(sub, json_type_object) && json_object_object_get_ex(sub, "name", &v) &&
	    (s = str_of(v, &len)))
		printable(sn, sizeof(sn), s, len);
	snprintf(k->where, sizeof(k->where), "cell[%zu] \"%s\" subcell[%ld] \"%s\"", ci, cn, si, sn);
}

static void check_name(struct checker *k, struct json_object *o, const char *what)
{
	struct json_object *v;
	size_t len;

	if (!json_object_object_get_ex(o, "name", &v))
		problem(k, "name", "a %s needs a \"name\" (the reader refuses one without)", what);
	else if (!str_of(v, &len))
		problem(k, "name", "the %s's \"name\" is not a string", what);
}

static void check_term(struct checker *k, size_t oi, size_t ai, struct json_object *t)
{
	struct json_object *v;
	const char *s;
	size_t len;

	if (!json_object_is_type(t, json_type_object) || json_object_object_length(t) != 1) {
		problem(k, "term", "OR group %zu, term %zu is not an object with one key ({\"CommPrefix\": S})", oi, ai);
		return;
	}
	if (json_object_object_get_ex(t, "Hint", &v)) {
		problem(k, "hint-term", "OR group %zu, term %zu is a Hint term: the reader has only CommPrefix", oi, ai);
		return;
	}
	if (!json_object_object_get_ex(t, "CommPrefix", &v)) {
		json_object_object_foreach(t, key, val) {
			char shown[64];

			(void)val;
			printable(shown, sizeof(shown), key, strlen(key));
			problem(k, "term", "OR group %zu, term %zu: unknown term \"%s\": the reader has only CommPrefix", oi,
				ai, shown);
		}
		return;
	}
	if (!(s = str_of(v, &len))) {
		problem(k, "term", "OR group %zu, term %zu: CommPrefix is not a string", oi, ai);
		return;
	}
	if (memchr(s, '\0', len))
		problem(k, "prefix-nul", "OR group %zu, term %zu: CommPrefix holds a NUL byte (the reader refuses it)", oi,
			ai);
	else if (len > k->l->prefix_bytes) {
		char shown[64];

		printable(shown, sizeof(shown), s, k->l->prefix_bytes);
		problem(k, "prefix-length",
			"OR group %zu, term %zu: CommPrefix of %zu bytes: the reader cuts it to %u, \"%s\", and matches every comm "
			"starting with that",
			oi, ai, len, k->l->prefix_bytes, shown);
	}
}

/* A subcell; *catch_all set when it is one (an empty AND group). */
static void check_subcell(struct checker *k, struct json_object *sub, bool *catch_all)
{
	static const char *const keys[] = {"name", "matches", NULL};
	struct json_object *m;
	size_t oi, ai, n;

	*catch_all = false;
	if (!json_object_is_type(sub, json_type_object)) {
		problem(k, "type", "a subcell is not an object");
		return;
	}
	check_name(k, sub, "subcell");
	known_keys(k, sub, keys, "subcell");
	if (!json_object_object_get_ex(sub, "matches", &m)) {
		*catch_all = true; /* absent: [[]] */
		return;
	}
	if (!json_object_is_type(m, json_type_array)) {
		problem(k, "type", "\"matches\" is not an array of OR groups (arrays of terms)");
		return;
	}
	n = json_object_array_length(m);
	if (n == 0)
		problem(k, "no-match", "\"matches\" is [] (no OR group): no task matches it, yet it takes CPUs of its cell");
	if (n > k->l->or_groups)
		problem(k, "or-groups", "%zu OR groups: the reader allows %u (%s)", n, k->l->or_groups, k->l->name);
	for (oi = 0; oi < n; oi++) {
		struct json_object *g = json_object_array_get_idx(m, oi);
		size_t na;

		if (!json_object_is_type(g, json_type_array)) {
			problem(k, "type", "OR group %zu is not an array of terms", oi);
			continue;
		}
		na = json_object_array_length(g);
		if (na == 0)
			*catch_all = true;
		if (na > k->l->and_terms)
			problem(k, "and-terms", "OR group %zu has %zu AND terms: the reader allows %u (%s)", oi, na,
				k->l->and_terms, k->l->name);
		for (ai = 0; ai < na; ai++)
			check_term(k, oi, ai, json_object_array_get_idx(g, ai));
	}
}

static void check_regex(struct checker *k, const char *re, size_t len)
{
	const char *what;
	size_t at;

	if (memchr(re, '\0', len)) {
		problem(k, "regex", "CgroupRegex holds a NUL byte");
		return;
	}
	if ((what = reader_regex_problem(re, &at)))
		problem(k, "regex", "CgroupRegex at byte %zu: %s", at, what);
}

/* A cell spec's matches; true when it is the catch-all ({} or absent). */
static bool check_cell_matches(struct checker *k, struct json_object *cell)
{
	struct json_object *m, *v;
	const char *s;
	size_t len;

	if (!json_object_object_get_ex(cell, "matches", &m))
		return true;
	if (json_object_is_type(m, json_type_array)) {
		problem(k, "cell-matches",
			"a cell's \"matches\" is an array; the reader takes an object: {\"CgroupRegex\": S}, "
			"{\"CgroupContains\": S} or {} (the catch-all)");
		return false;
	}
	if (!json_object_is_type(m, json_type_object)) {
		problem(k, "cell-matches", "a cell's \"matches\" is not an object ({\"CgroupRegex\": S}, "
					   "{\"CgroupContains\": S} or {})");
		return false;
	}
	if (json_object_object_length(m) == 0)
		return true;
	if (json_object_object_length(m) > 1) {
		problem(k, "cell-matches", "a cell's \"matches\" has %d keys; the reader takes one",
			json_object_object_length(m));
		return false;
	}
	if (json_object_object_get_ex(m, "CgroupRegex", &v)) {
		if (!(s = str_of(v, &len)))
			problem(k, "cell-matches", "CgroupRegex is not a string");
		else
			check_regex(k, s, len);
	} else if (json_object_object_get_ex(m, "CgroupContains", &v)) {
		const char *what;

		if (!(s = str_of(v, &len)))
			problem(k, "cell-matches", "CgroupContains is not a string");
		else if (!memchr(s, '\0', len) && (what = reader_contains_problem(s)))
			problem(k, "cell-matches", "CgroupContains: %s", what);
	} else {
		json_object_object_foreach(m, key, val) {
			char shown[64];

			(void)val;
			printable(shown, sizeof(shown), key, strlen(key));
			problem(k, "cell-matches", "unknown cell matcher \"%s\": the reader takes CgroupRegex or CgroupContains",
				shown);
		}
	}
	return false;
}

static void check_cell(struct checker *k, size_t ci, struct json_object *cell, bool last,
		       struct cell_config_summary *sum)
{
	static const char *const keys[] = {"name", "matches", "subcells", NULL};
	struct json_object *subs;
	size_t si, n, catch_alls = 0;

	set_where(k, ci, cell, -1, NULL);
	if (!json_object_is_type(cell, json_type_object)) {
		problem(k, "type", "a cell spec is not an object");
		return;
	}
	check_name(k, cell, "cell spec");
	known_keys(k, cell, keys, "cell spec");
	if (check_cell_matches(k, cell)) {
		sum->catch_all_specs++;
		if (!last)
			problem(k, "catch-all-cell", "a catch-all spec (matches {} or none) that is not the last: only the last "
						     "spec may be a catch-all");
	}
	if (!json_object_object_get_ex(cell, "subcells", &subs))
		return; /* the reader gives it one catch-all subcell */
	if (!json_object_is_type(subs, json_type_array)) {
		problem(k, "type", "\"subcells\" is not an array");
		return;
	}
	n = json_object_array_length(subs);
	for (si = 0; si < n; si++) {
		bool catch_all;

		set_where(k, ci, cell, (long)si, json_object_array_get_idx(subs, si));
		check_subcell(k, json_object_array_get_idx(subs, si), &catch_all);
		if (catch_all && ++catch_alls == 2)
			problem(k, "catch-all-subcell", "a second catch-all subcell (an empty AND group): the reader allows one a cell");
	}
	set_where(k, ci, cell, -1, NULL);
	/* the reader adds a catch-all ("rest") when none is given */
	n += catch_alls == 0;
	sum->subcells += n;
	if (n > k->l->subcells)
		problem(k, "subcells", "%zu subcells%s: the reader allows %u, the catch-all included (%s)", n,
			catch_alls ? "" : " with the catch-all the reader adds", k->l->subcells, k->l->name);
}

int cell_config_reader_text(const char *name, const char *buf, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)buf[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		unsigned cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;

		if (!len || i + len > n)
			return scx_fail("%s: not UTF-8 at byte %zu (the reader reads UTF-8 only)", name, i);
		for (size_t j = 1; j < len; j++) {
			if (((unsigned char)buf[i + j] & 0xc0) != 0x80)
				return scx_fail("%s: not UTF-8 at byte %zu (the reader reads UTF-8 only)", name, i);
			cp = cp << 6 | ((unsigned char)buf[i + j] & 0x3f);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return scx_fail("%s: not UTF-8 at byte %zu (the reader reads UTF-8 only)", name, i);
		if (c == '\\' && i + 1 < n) {
			if (buf[i + 1] == 'u' && i + 6 <= n) {
				unsigned long u = strtoul((char[5]){buf[i + 2], buf[i + 3], buf[i + 4], buf[i + 5], 0}, NULL, 16);

				if (u >= 0xdc00 && u <= 0xdfff)
					return scx_fail("%s: a lone surrogate \\u%04lx at byte %zu (the reader refuses it)", name, u, i);
				if (u >= 0xd800 && u <= 0xdbff) {
					unsigned long lo = i + 12 <= n && buf[i + 6] == '\\' && buf[i + 7] == 'u'
								   ? strtoul((char[5]){buf[i + 8], buf[i + 9], buf[i + 10], buf[i + 11], 0}, NULL, 16)
								   : 0;

					if (lo < 0xdc00 || lo > 0xdfff)
						return scx_fail("%s: a lone surrogate \\u%04lx at byte %zu (the reader refuses it)", name, u, i);
					i += 6;
				}
				i += 6;
				continue;
			}
			i += 2;
			continue;
		}
		i += len;
	}
	return 0;
}

static struct json_object *parse(const char *name, const char *buf, size_t n)
{
	struct json_tokener *tok;
	struct json_object *root;
	enum json_tokener_error err;
	size_t end;

	if (n > (size_t)INT32_MAX - 1)
		return scx_fail("%s: too large", name), NULL;
	if (cell_config_reader_text(name, buf, n) < 0)
		return NULL;
	if (!(tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH)))
		return scx_fail("%s: out of memory", name), NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, buf, (int)n);
	err = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (err == json_tokener_continue || (err == json_tokener_success && !root && end == 0)) {
		json_object_put(root);
		return scx_fail("%s: not JSON: ends in the middle of a value", name), NULL;
	}
	if (err != json_tokener_success)
		return scx_fail("%s: not JSON: %s at byte %zu", name, json_tokener_error_desc(err), end), NULL;
	while (end < n && strchr(" \t\r\n", buf[end]) && buf[end])
		end++;
	if (end != n) {
		json_object_put(root);
		return scx_fail("%s: not JSON: text after the value at byte %zu", name, end), NULL;
	}
	return root;
}

long cell_config_check_buf(const char *name, const char *buf, size_t n, const struct reader_limits *l,
			   reader_problem_fn fn, void *ctx, struct cell_config_summary *sum)
{
	struct checker k = {.l = l ? l : &reader_limits_default, .fn = fn, .ctx = ctx};
	struct cell_config_summary dummy;
	struct json_object *root;
	size_t i, nr;

	if (!sum)
		sum = &dummy;
	memset(sum, 0, sizeof(*sum));
	if (n == 0 || !(root = parse(name, buf, n))) {
		if (n == 0)
			scx_fail("%s: not JSON: empty", name);
		return -1;
	}
	if (!json_object_is_type(root, json_type_array)) {
		problem(&k, "type", "the config is not an array of cell specs");
	} else if (!(nr = json_object_array_length(root))) {
		problem(&k, "specs", "no cell spec: the reader needs at least one");
	} else {
		for (i = 0; i < nr && k.rc == 0; i++)
			check_cell(&k, i, json_object_array_get_idx(root, i), i + 1 == nr, sum);
		sum->specs = nr;
	}
	json_object_put(root);
	return k.rc < 0 ? -1 : k.problems;
}

long cell_config_check_file(const char *path, const struct reader_limits *l, reader_problem_fn fn, void *ctx,
			    struct cell_config_summary *sum)
{
	char *buf;
	size_t n;
	long rc;

	if (fs_read_file(path, CELL_CONFIG_MAX_BYTES, &buf, &n) < 0)
		return -1;
	rc = cell_config_check_buf(path, buf, n, l, fn, ctx, sum);
	free(buf);
	return rc;
}
