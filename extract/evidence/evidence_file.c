/*
 * evidence_file.c - one recording's evidence as JSON (see evidence.h
 * and schemas/evidence.schema.json): the writer, and the parser of what
 * may be anybody's file. Doubles are written with 17 significant digits,
 * so a value read back is the value written (the combine over files gives
 * the config of the one-shot run byte for byte).
 */
#include "extract/evidence/evidence.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "extract/sharing/sharing.h"
#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/jsonw.h"
#include "lib/utf8.h"

static const char *const kind_names[EVF_KINDS] = {"allotment", "workload", "rest"};

const char *evf_kind_name(enum evf_cell_kind k)
{
	return (unsigned)k < EVF_KINDS ? kind_names[k] : "?";
}

/* --- writing --- */

static void write_unit(struct jsonw *w, const struct evf_unit *u)
{
	jsonw_obj_open(w);
	jsonw_kv_str(w, "name", u->name);
	jsonw_kv_str(w, "comm", u->comm);
	jsonw_kv_u64_or_null(w, "hint", u->by_hint, u->hint);
	jsonw_key(w, "clauses");
	jsonw_arr_open(w);
	for (size_t i = 0; i < u->nr_clauses; i++) {
		jsonw_obj_open(w);
		jsonw_kv_str_or_null(w, "comm_prefix", u->clauses[i].comm_prefix);
		jsonw_kv_u64_or_null(w, "hint", u->clauses[i].has_hint, u->clauses[i].hint);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	JSONW_KV_U64S(w, u->samples, u->line_samples);
	jsonw_kv_double_exact(w, "weight", u->weight);
	jsonw_kv_double_exact(w, "demand", u->demand);
	jsonw_obj_close(w);
}

static void write_pair(struct jsonw *w, const struct evf_pair *p)
{
	jsonw_obj_open(w);
	JSONW_KV_U64S(w, p->a, p->b, p->keys, p->samples_a, p->samples_b);
	jsonw_kv_double_exact(w, "wa", p->wa);
	jsonw_kv_double_exact(w, "wb", p->wb);
	JSONW_KV_U64S(w, p->na_r, p->nb_r, p->ja, p->jb, p->ha, p->hb, p->ra, p->rb, p->ra_blk, p->rb_blk,
		      p->lines);
	jsonw_kv_double_exact(w, "lwa", p->lwa);
	jsonw_kv_double_exact(w, "lwb", p->lwb);
	jsonw_obj_close(w);
}

static void write_cell(struct jsonw *w, const struct evf_cell *c)
{
	jsonw_obj_open(w);
	jsonw_kv_str(w, "name", c->name);
	jsonw_kv_str(w, "kind", evf_kind_name(c->kind));
	jsonw_kv_str_or_null(w, "match", c->match);
	JSONW_KV_LINES(w, "units", c->units, c->nr_units, write_unit);
	JSONW_KV_LINES(w, "pairs", c->pairs, c->nr_pairs, write_pair);
	jsonw_obj_close(w);
}

int evf_write(const struct evf_recording *r, FILE *f)
{
	struct jsonw w;

	jsonw_file_open(&w);
	jsonw_kv_str(&w, "format", EVF_FORMAT);
	jsonw_kv_u64(&w, "version", EVF_VERSION);
	jsonw_kv_str(&w, "source", r->source ? r->source : "");
	JSONW_KV_U64S(&w, r->samples, r->fault_samples);
	jsonw_kv_double_exact(&w, "duration_s", r->duration_s);
	jsonw_kv_double_exact(&w, "online_cpus", r->online_cpus);
	jsonw_kv_double_exact(&w, "cap_cpus", r->cap_cpus);
	jsonw_kv_str(&w, "granularity", r->line_granularity ? "line" : "page");
	jsonw_kv_bool(&w, "use_hints", r->use_hints);
	jsonw_kv_double_exact(&w, "min_share", r->min_share);
	JSONW_KV_LINES(&w, "cells", r->cells, r->nr_cells, write_cell);
	return jsonw_file_close(&w, f, "evidence");
}

/* --- freeing --- */

static void free_unit(struct evf_unit *u)
{
	free(u->name);
	free(u->comm);
	for (size_t i = 0; i < u->nr_clauses; i++)
		free(u->clauses[i].comm_prefix);
	free(u->clauses);
}

void evf_free(struct evf_recording *r)
{
	for (size_t c = 0; c < r->nr_cells; c++) {
		struct evf_cell *cell = &r->cells[c];

		for (size_t i = 0; i < cell->nr_units; i++)
			free_unit(&cell->units[i]);
		free(cell->units);
		free(cell->pairs);
		free(cell->name);
		free(cell->match);
	}
	free(r->cells);
	free(r->source);
	memset(r, 0, sizeof(*r));
}

/* --- parsing --- */

struct parse {
	const char *name; /* the file */
	char where[96];   /* "cell 1 unit 3": what is being read */
};

static int bad(struct parse *p, const char *fmt, const char *key)
{
	return scx_fail("%s: not scxprof evidence: %s%s%s", p->name, p->where, p->where[0] ? ": " : "",
			fmt[0] ? fmt : key);
}

static struct json_object *field(struct parse *p, struct json_object *o, const char *key, enum json_type t,
				 bool nullable, int *rc)
{
	struct json_object *v;
	char msg[128];

	if (!json_object_object_get_ex(o, key, &v)) {
		snprintf(msg, sizeof(msg), "\"%s\" is missing", key);
		*rc = bad(p, msg, key);
		return NULL;
	}
	if (nullable && json_object_get_type(v) == json_type_null)
		return NULL;
	if (json_object_get_type(v) != t) {
		snprintf(msg, sizeof(msg), "\"%s\" is not a %s", key, json_type_to_name(t));
		*rc = bad(p, msg, key);
		return NULL;
	}
	return v;
}

static int get_u64(struct parse *p, struct json_object *o, const char *key, uint64_t max, uint64_t *out)
{
	int rc = 0;
	struct json_object *v = field(p, o, key, json_type_int, false, &rc);
	char msg[128];
	int64_t x;

	if (!v)
		return rc ? rc : -1;
	errno = 0;
	x = json_object_get_int64(v);
	if (x < 0 || (uint64_t)x > max || (x == INT64_MAX && errno)) {
		snprintf(msg, sizeof(msg), "\"%s\" is out of range (0 to %llu)", key, (unsigned long long)max);
		return bad(p, msg, key);
	}
	*out = (uint64_t)x;
	return 0;
}

static int get_double(struct parse *p, struct json_object *o, const char *key, double *out)
{
	struct json_object *v;
	char msg[128];
	double x;

	if (!json_object_object_get_ex(o, key, &v)) {
		snprintf(msg, sizeof(msg), "\"%s\" is missing", key);
		return bad(p, msg, key);
	}
	if (json_object_get_type(v) != json_type_double && json_object_get_type(v) != json_type_int) {
		snprintf(msg, sizeof(msg), "\"%s\" is not a number", key);
		return bad(p, msg, key);
	}
	x = json_object_get_double(v);
	if (!isfinite(x) || x < 0 || x > 1e300) {
		snprintf(msg, sizeof(msg), "\"%s\" is not a finite number >= 0", key);
		return bad(p, msg, key);
	}
	*out = x;
	return 0;
}

/* A string (or NULL when nullable and null); copied. */
static int get_str(struct parse *p, struct json_object *o, const char *key, bool nullable, char **out)
{
	int rc = 0;
	struct json_object *v = field(p, o, key, json_type_string, nullable, &rc);

	*out = NULL;
	if (!v)
		return rc;
	if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v)) {
		char msg[128];

		snprintf(msg, sizeof(msg), "\"%s\" holds a NUL character", key);
		return bad(p, msg, key);
	}
	for (const char *c = json_object_get_string(v), *end = c + strlen(c); c < end;) {
		size_t n = utf8_seq_len((const unsigned char *)c, (size_t)(end - c));

		if (!n) {
			char msg[128];

			snprintf(msg, sizeof(msg), "\"%s\" is not valid UTF-8", key);
			return bad(p, msg, key);
		}
		c += n;
	}
	if (!(*out = strdup(json_object_get_string(v))))
		return scx_fail("out of memory");
	return 0;
}

static int get_hint(struct parse *p, struct json_object *o, bool *has, uint64_t *hint)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, "hint", &v))
		return bad(p, "\"hint\" is missing", "");
	*has = json_object_get_type(v) != json_type_null;
	return *has ? get_u64(p, o, "hint", UINT64_MAX >> 1, hint) : 0;
}

static int parse_unit(struct parse *p, struct json_object *o, struct evf_unit *u)
{
	struct json_object *cl;
	int rc = 0;

	if (json_object_get_type(o) != json_type_object)
		return bad(p, "not an object", "");
	if (get_str(p, o, "name", false, &u->name) < 0 || get_str(p, o, "comm", false, &u->comm) < 0 ||
	    get_hint(p, o, &u->by_hint, &u->hint) < 0)
		return -1;
	if (!u->name[0])
		return bad(p, "\"name\" is empty", "");
	if (!(cl = field(p, o, "clauses", json_type_array, false, &rc)))
		return -1;
	u->nr_clauses = json_object_array_length(cl);
	if (!u->nr_clauses || u->nr_clauses > EVF_MAX_CLAUSES)
		return bad(p, "\"clauses\" must hold 1 to 4096 clauses", "");
	if (!(u->clauses = calloc(u->nr_clauses, sizeof(*u->clauses))))
		return scx_fail("out of memory");
	for (size_t i = 0; i < u->nr_clauses; i++) {
		struct json_object *c = json_object_array_get_idx(cl, i);

		if (json_object_get_type(c) != json_type_object)
			return bad(p, "a clause is not an object", "");
		if (get_str(p, c, "comm_prefix", true, &u->clauses[i].comm_prefix) < 0 ||
		    get_hint(p, c, &u->clauses[i].has_hint, &u->clauses[i].hint) < 0)
			return -1;
	}
	if (get_u64(p, o, "samples", EVF_MAX_COUNT, &u->samples) < 0 ||
	    get_u64(p, o, "line_samples", u->samples, &u->line_samples) < 0 ||
	    get_double(p, o, "weight", &u->weight) < 0 || get_double(p, o, "demand", &u->demand) < 0)
		return -1;
	return 0;
}

static int parse_pair(struct parse *p, struct json_object *o, size_t nr_units, struct evf_pair *e)
{
	static const char *const names[] = {"keys", "samples_a", "samples_b", "na_r", "nb_r", "ja", "jb",
					    "ha", "hb", "ra", "rb", "ra_blk", "rb_blk", "lines"};
	uint64_t *const dst[] = {&e->keys, &e->samples_a, &e->samples_b, &e->na_r, &e->nb_r, &e->ja, &e->jb,
				 &e->ha, &e->hb, &e->ra, &e->rb, &e->ra_blk, &e->rb_blk, &e->lines};
	uint64_t a, b;

	if (json_object_get_type(o) != json_type_object)
		return bad(p, "not an object", "");
	if (!nr_units)
		return bad(p, "a pair in a cell without units", "");
	if (get_u64(p, o, "a", nr_units - 1, &a) < 0 || get_u64(p, o, "b", nr_units - 1, &b) < 0)
		return -1;
	if (a >= b)
		return bad(p, "\"a\" is not below \"b\"", "");
	e->a = (size_t)a;
	e->b = (size_t)b;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (get_u64(p, o, names[i], EVF_MAX_COUNT, dst[i]) < 0)
			return -1;
	if (get_double(p, o, "wa", &e->wa) < 0 || get_double(p, o, "wb", &e->wb) < 0 ||
	    get_double(p, o, "lwa", &e->lwa) < 0 || get_double(p, o, "lwb", &e->lwb) < 0)
		return -1;
	return 0;
}

static int unit_order_ok(const struct evf_unit *x, const struct evf_unit *y)
{
	int c = strcmp(x->comm, y->comm);

	if (c)
		return c < 0;
	return x->by_hint && y->by_hint && x->hint < y->hint;
}

static int parse_cell(struct parse *p, struct json_object *o, struct evf_cell *c)
{
	struct json_object *units, *pairs;
	char *kind = NULL;
	size_t i, j;
	int rc = 0;

	if (json_object_get_type(o) != json_type_object)
		return bad(p, "not an object", "");
	if (get_str(p, o, "name", false, &c->name) < 0 || get_str(p, o, "kind", false, &kind) < 0)
		return -1;
	for (c->kind = 0; c->kind < EVF_KINDS && strcmp(kind, kind_names[c->kind]); c->kind++)
		;
	free(kind);
	if (c->kind == EVF_KINDS)
		return bad(p, "\"kind\" is not allotment, workload or rest", "");
	if (get_str(p, o, "match", c->kind == EVF_REST, &c->match) < 0)
		return -1;
	if (c->kind == EVF_REST && c->match)
		return bad(p, "the rest cell has a \"match\"", "");
	/* the combine writes the match into the config: refuse what the config's reader would */
	if (c->kind == EVF_ALLOTMENT) {
		size_t at;
		const char *why = reader_regex_problem(c->match, &at);
		char msg[192];

		if (why) {
			snprintf(msg, sizeof(msg), "\"match\" at byte %zu: %s", at, why);
			return bad(p, msg, "");
		}
	} else if (c->kind == EVF_WORKLOAD && reader_contains_problem(c->match)) {
		char msg[192];

		snprintf(msg, sizeof(msg), "\"match\": %s", reader_contains_problem(c->match));
		return bad(p, msg, "");
	}
	if (!(units = field(p, o, "units", json_type_array, false, &rc)) ||
	    !(pairs = field(p, o, "pairs", json_type_array, false, &rc)))
		return -1;
	if (json_object_array_length(units) > EVF_MAX_UNITS)
		return bad(p, "more than 1024 units in a cell", "");
	c->units = calloc(json_object_array_length(units) + 1, sizeof(*c->units));
	if (!c->units)
		return scx_fail("out of memory");
	c->nr_units = json_object_array_length(units); /* zeroed: evf_free frees what was parsed */
	size_t len = strlen(p->where);
	for (i = 0; i < c->nr_units; i++) {
		snprintf(p->where + len, sizeof(p->where) - len, " unit %zu", i + 1);
		if (parse_unit(p, json_object_array_get_idx(units, i), &c->units[i]) < 0)
			return -1;
		for (j = 0; j < i; j++)
			if (!strcmp(c->units[j].name, c->units[i].name))
				return bad(p, "a unit name appears twice", "");
		if (i && !unit_order_ok(&c->units[i - 1], &c->units[i]))
			return bad(p, "units are not in config order (comm, then hint)", "");
	}
	c->nr_pairs = json_object_array_length(pairs);
	if (c->nr_pairs > c->nr_units * (c->nr_units ? c->nr_units - 1 : 0) / 2)
		return bad(p, "more pairs than pairs of units", "");
	if (!(c->pairs = calloc(c->nr_pairs + 1, sizeof(*c->pairs))))
		return scx_fail("out of memory");
	for (i = 0; i < c->nr_pairs; i++) {
		snprintf(p->where + len, sizeof(p->where) - len, " pair %zu", i + 1);
		if (parse_pair(p, json_object_array_get_idx(pairs, i), c->nr_units, &c->pairs[i]) < 0)
			return -1;
		if (i && (c->pairs[i - 1].a > c->pairs[i].a ||
			  (c->pairs[i - 1].a == c->pairs[i].a && c->pairs[i - 1].b >= c->pairs[i].b)))
			return bad(p, "pairs are not sorted by (a, b) without repeats", "");
	}
	p->where[len] = '\0';
	return 0;
}

static int parse_root(struct parse *p, struct json_object *root, struct evf_recording *r)
{
	struct json_object *cells;
	char *s = NULL;
	uint64_t version;
	int rc = 0;

	if (json_object_get_type(root) != json_type_object)
		return bad(p, "the top level is not an object", "");
	if (get_str(p, root, "format", false, &s) < 0)
		return -1;
	rc = strcmp(s, EVF_FORMAT);
	free(s);
	if (rc)
		return bad(p, "\"format\" is not \"" EVF_FORMAT "\"", "");
	if (get_u64(p, root, "version", UINT32_MAX, &version) < 0)
		return -1;
	if (version != EVF_VERSION)
		return scx_fail("%s: evidence version %llu, this scxprof reads version %d", p->name,
				(unsigned long long)version, EVF_VERSION);
	if (get_str(p, root, "source", false, &r->source) < 0 || get_u64(p, root, "samples", EVF_MAX_COUNT, &r->samples) < 0 ||
	    get_double(p, root, "duration_s", &r->duration_s) < 0 ||
	    get_double(p, root, "online_cpus", &r->online_cpus) < 0 || get_double(p, root, "cap_cpus", &r->cap_cpus) < 0 ||
	    get_double(p, root, "min_share", &r->min_share) < 0 || get_str(p, root, "granularity", false, &s) < 0)
		return -1;
	if (json_object_object_get_ex(root, "fault_samples", NULL) &&
	    get_u64(p, root, "fault_samples", r->samples, &r->fault_samples) < 0) {
		free(s);
		return -1;
	}
	r->line_granularity = !strcmp(s, "line");
	rc = strcmp(s, "line") && strcmp(s, "page");
	free(s);
	if (rc)
		return bad(p, "\"granularity\" is not page or line", "");
	rc = 0;
	{
		struct json_object *v = field(p, root, "use_hints", json_type_boolean, false, &rc);

		if (!v)
			return -1;
		r->use_hints = json_object_get_boolean(v);
	}
	if (!(cells = field(p, root, "cells", json_type_array, false, &rc)))
		return -1;
	if (json_object_array_length(cells) > EVF_KINDS)
		return bad(p, "more than 3 cells", "");
	if (!(r->cells = calloc(EVF_KINDS, sizeof(*r->cells))))
		return scx_fail("out of memory");
	for (size_t i = 0; i < json_object_array_length(cells); i++) {
		snprintf(p->where, sizeof(p->where), "cell %zu", i + 1);
		r->nr_cells = i + 1; /* evf_free frees what was parsed */
		if (parse_cell(p, json_object_array_get_idx(cells, i), &r->cells[i]) < 0)
			return -1;
		if (i && r->cells[i - 1].kind >= r->cells[i].kind)
			return bad(p, "cells are not allotment, workload, rest (each once, in that order)", "");
	}
	return 0;
}

int evf_parse(const char *buf, size_t len, const char *name, struct evf_recording *r)
{
	struct json_tokener *tok;
	struct json_object *root;
	struct parse p = {.name = name};
	int rc;

	memset(r, 0, sizeof(*r));
	if (len > EVF_MAX_BYTES)
		return scx_fail("%s: larger than %u MiB, not scxprof evidence", name, EVF_MAX_BYTES >> 20);
	if (memchr(buf, '\0', len))
		return scx_fail("%s: not scxprof evidence: a NUL byte in the text", name);
	if (!(tok = json_tokener_new_ex(64)))
		return scx_fail("out of memory");
	root = json_tokener_parse_ex(tok, buf, (int)len);
	if (!root || json_tokener_get_error(tok) != json_tokener_success) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		json_object_put(root);
		json_tokener_free(tok);
		return scx_fail("%s: not scxprof evidence: invalid JSON (%s)", name,
				e == json_tokener_continue ? "cut short" : json_tokener_error_desc(e));
	}
	if (tok->char_offset < (int)len && strspn(buf + tok->char_offset, " \t\r\n") != len - (size_t)tok->char_offset) {
		json_object_put(root);
		json_tokener_free(tok);
		return scx_fail("%s: not scxprof evidence: text after the JSON document", name);
	}
	json_tokener_free(tok);
	rc = parse_root(&p, root, r);
	json_object_put(root);
	if (rc < 0)
		evf_free(r);
	return rc < 0 ? -1 : 0;
}

int evf_read(const char *path, struct evf_recording *r)
{
	char *buf;
	size_t n;
	int rc;

	memset(r, 0, sizeof(*r));
	if (fs_read_file(path, EVF_MAX_BYTES, &buf, &n) < 0)
		return -1;
	rc = evf_parse(buf, n, path, r);
	free(buf);
	return rc;
}
