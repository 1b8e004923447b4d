/*
 * cell_config_read.c - the cell config's JSON reader (see
 * sharing.h), json-c over the whole file.
 */
#include "extract/sharing/sharing.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/fsutil.h"

/* Where the reader is, for messages: "cells[1].subcells[0]" */
struct at {
	const char *path;
	char where[96];
};

static int bad(const struct at *a, const char *what)
{
	return scx_fail("%s: %s: %s", a->path, a->where, what);
}

/* A string member without NUL bytes, or NULL (the caller says what is wrong). */
static const char *string_of(struct json_object *v)
{
	const char *s;

	if (!v || !json_object_is_type(v, json_type_string))
		return NULL;
	s = json_object_get_string(v);
	return strlen(s) == (size_t)json_object_get_string_len(v) ? s : NULL;
}

/* Every key of o is one of the names (NULL-terminated). */
static int only_keys(const struct at *a, struct json_object *o, const char *const *names)
{
	json_object_object_foreach(o, k, v) {
		const char *const *n;

		(void)v;
		for (n = names; *n && strcmp(*n, k); n++)
			;
		if (!*n) {
			char msg[160];
			size_t i, len = (size_t)snprintf(msg, sizeof(msg), "unknown key \"%.60s\"", k);

			for (i = 0; i < len && i < sizeof(msg); i++) /* the message stays one printable line */
				if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f)
					msg[i] = '?';
			return bad(a, msg);
		}
	}
	return 0;
}

/* One clause: an array of {"CommPrefix": S} and {"Hint": U64} objects, each at most once. */
static int read_clause(const struct at *a, struct json_object *cl, struct cell *sub)
{
	static const char *const keys[] = {"CommPrefix", "Hint", NULL};
	const char *prefix = NULL;
	bool has_hint = false;
	uint64_t hint = 0;
	size_t i;

	if (!json_object_is_type(cl, json_type_array))
		return bad(a, "a clause is not an array of conditions");
	for (i = 0; i < json_object_array_length(cl); i++) {
		struct json_object *c = json_object_array_get_idx(cl, i), *v;

		if (!json_object_is_type(c, json_type_object) || json_object_object_length(c) != 1)
			return bad(a, "a condition is not an object with one key");
		if (only_keys(a, c, keys) < 0)
			return -1;
		if (json_object_object_get_ex(c, "CommPrefix", &v)) {
			if (prefix || !(prefix = string_of(v)))
				return bad(a, "CommPrefix is not a string (or given twice in a clause)");
		} else {
			json_object_object_get_ex(c, "Hint", &v);
			if (has_hint || !json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
				return bad(a, "Hint is not an unsigned 64-bit integer (or given twice in a clause)");
			has_hint = true;
			hint = json_object_get_uint64(v);
		}
	}
	return cell_config_add_clause(sub, prefix, has_hint, hint);
}

/* A subcell or a cell: an object of keys only, with a "name" string; its
 * "name" and "matches" members (matches NULL when absent). */
static int read_named(const struct at *a, struct json_object *o, const char *const *keys,
		      struct json_object **name, struct json_object **matches)
{
	if (!json_object_is_type(o, json_type_object))
		return bad(a, "not an object");
	if (only_keys(a, o, keys) < 0)
		return -1;
	json_object_object_get_ex(o, "name", name);
	json_object_object_get_ex(o, "matches", matches);
	if (!string_of(*name))
		return bad(a, "no \"name\" string");
	return 0;
}

static int read_subcell(struct at *a, struct json_object *o, struct cell *parent)
{
	static const char *const keys[] = {"name", "matches", NULL};
	struct json_object *name = NULL, *matches = NULL;
	struct cell *sub;
	size_t i;

	if (read_named(a, o, keys, &name, &matches) < 0)
		return -1;
	if (!matches || !json_object_is_type(matches, json_type_array))
		return bad(a, "\"matches\" is not an array of clauses");
	if (!(sub = cell_config_add_subcell(parent, string_of(name))))
		return -1;
	for (i = 0; i < json_object_array_length(matches); i++)
		if (read_clause(a, json_object_array_get_idx(matches, i), sub) < 0)
			return -1;
	return 0;
}

/* A top-level cell's matcher: {"CgroupRegex": S}, {"CgroupContains": S} or {}. */
static int read_top(const struct at *a, struct json_object *m, enum cell_top_match *top, const char **value)
{
	static const char *const keys[] = {"CgroupRegex", "CgroupContains", NULL};
	struct json_object *v;

	if (!m || !json_object_is_type(m, json_type_object) || json_object_object_length(m) > 1)
		return bad(a, "\"matches\" is not {\"CgroupRegex\": S}, {\"CgroupContains\": S} or {}");
	if (only_keys(a, m, keys) < 0)
		return -1;
	*top = TOP_EMPTY;
	*value = NULL;
	if (json_object_object_get_ex(m, "CgroupRegex", &v))
		*top = TOP_CGROUP_REGEX;
	else if (json_object_object_get_ex(m, "CgroupContains", &v))
		*top = TOP_CGROUP_CONTAINS;
	else
		return 0;
	if (!(*value = string_of(v)))
		return bad(a, "the cgroup matcher's value is not a string");
	return 0;
}

static int read_cell(struct at *a, size_t idx, struct json_object *o, struct cell_config *c)
{
	static const char *const keys[] = {"name", "matches", "subcells", NULL};
	struct json_object *name = NULL, *matches = NULL, *subs = NULL;
	enum cell_top_match top = TOP_EMPTY;
	const char *value = NULL;
	struct cell *cell;
	size_t i;

	if (read_named(a, o, keys, &name, &matches) < 0)
		return -1;
	if (read_top(a, matches, &top, &value) < 0)
		return -1;
	if (json_object_object_get_ex(o, "subcells", &subs) && !json_object_is_type(subs, json_type_array))
		return bad(a, "\"subcells\" is not an array");
	if (!(cell = cell_config_add(c, string_of(name), top, value)))
		return -1;
	for (i = 0; subs && i < json_object_array_length(subs); i++) {
		snprintf(a->where, sizeof(a->where), "cells[%zu].subcells[%zu]", idx, i);
		if (read_subcell(a, json_object_array_get_idx(subs, i), cell) < 0)
			return -1;
	}
	return 0;
}

/* The whole file as one JSON value (json_tokener, strict: trailing text refused). NULL: scx_fail naming path. */
static struct json_object *parse_file(const char *path)
{
	struct json_tokener *tok;
	struct json_object *root = NULL;
	char *buf; /* NUL-terminated: strspn below reads up to it */
	size_t n;

	if (fs_read_file(path, CELL_CONFIG_MAX_BYTES, &buf, &n) < 0)
		return NULL;
	if (cell_config_reader_text(path, buf, n) < 0) { /* json-c takes any bytes in a string */
		free(buf);
		return NULL;
	}
	if (!(tok = json_tokener_new())) {
		scx_fail("%s: out of memory", path);
	} else {
		enum json_tokener_error err;

		json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
		root = json_tokener_parse_ex(tok, buf, (int)n);
		err = json_tokener_get_error(tok);
		if (err == json_tokener_continue)
			scx_fail("%s: not JSON: ends in the middle of a value", path);
		else if (err != json_tokener_success)
			scx_fail("%s: not JSON: %s at byte %zu", path, json_tokener_error_desc(err), json_tokener_get_parse_end(tok));
		else if (json_tokener_get_parse_end(tok) + strspn(buf + json_tokener_get_parse_end(tok), " \t\r\n") != n) {
			scx_fail("%s: not JSON: text after the value at byte %zu", path, json_tokener_get_parse_end(tok));
			json_object_put(root);
			root = NULL;
		}
		if (err != json_tokener_success)
			root = NULL;
		json_tokener_free(tok);
	}
	free(buf);
	return root;
}

int cell_config_read(const char *path, struct cell_config *c)
{
	struct at a = {path, "top level"};
	struct json_object *root;
	size_t i;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	if (!(root = parse_file(path)))
		return -1;
	if (!json_object_is_type(root, json_type_array)) {
		rc = bad(&a, "not an array of cells");
		goto out;
	}
	for (i = 0; i < json_object_array_length(root) && !rc; i++) {
		snprintf(a.where, sizeof(a.where), "cells[%zu]", i);
		rc = read_cell(&a, i, json_object_array_get_idx(root, i), c);
	}
out:
	json_object_put(root);
	if (rc)
		cell_config_free(c);
	return rc;
}
