/*
 * cell_config.c - building the cell config and printing it the way
 * upstream's serde_json pretty printer does (see sharing.h). The
 * printer is a tiny indenting emitter: open/close containers, separators
 * and serde's string escaping.
 */
#include "extract/sharing/sharing.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/*
 * Room for element n of arr, zeroed. The arrays here grow only through these
 * helpers, one element at a time from empty, so their capacity is implicit:
 * it doubles when n is 0 or a power of two. One realloc per element would
 * copy the whole array each time where realloc moves it (ASan's always
 * does): quadratic in an allotment cell per group of 12k groups.
 */
static void *grow_one(void *arr, size_t n, size_t elem)
{
	void *p = arr;

	if (!(n & (n - 1)) && !(p = realloc(arr, (n ? 2 * n : 1) * elem))) {
		scx_fail("out of memory");
		return NULL;
	}
	memset((char *)p + n * elem, 0, elem);
	return p;
}

/* A new cell named name at the end of *cells (*n of them), zeroed but for its name. */
static struct cell *new_cell(struct cell **cells, size_t *n, const char *name)
{
	struct cell *v = grow_one(*cells, *n, sizeof(*v)), *cell;

	if (!v)
		return NULL;
	*cells = v;
	cell = &v[(*n)++];
	if (!(cell->name = strdup(name))) {
		scx_fail("out of memory");
		return NULL;
	}
	return cell;
}

struct cell *cell_config_add(struct cell_config *c, const char *name, enum cell_top_match top,
			     const char *value)
{
	struct cell *cell = new_cell(&c->cells, &c->nr_cells, name);

	if (!cell)
		return NULL;
	cell->top = top;
	if (value && !(cell->top_value = strdup(value))) {
		scx_fail("out of memory");
		return NULL;
	}
	return cell;
}

struct cell *cell_config_add_subcell(struct cell *parent, const char *name)
{
	return new_cell(&parent->subcells, &parent->nr_subcells, name);
}

int cell_config_add_clause(struct cell *c, const char *comm_prefix, bool has_hint, uint64_t hint)
{
	struct cell_clause *cl = grow_one(c->clauses, c->nr_clauses, sizeof(*cl));

	if (!cl)
		return -1;
	c->clauses = cl;
	cl = &cl[c->nr_clauses++];
	cl->has_hint = has_hint;
	cl->hint = hint;
	if (comm_prefix && !(cl->comm_prefix = strdup(comm_prefix)))
		return scx_fail("out of memory");
	return 0;
}

static void cell_free(struct cell *c)
{
	size_t i;

	for (i = 0; i < c->nr_clauses; i++)
		free(c->clauses[i].comm_prefix);
	for (i = 0; i < c->nr_subcells; i++)
		cell_free(&c->subcells[i]);
	free(c->clauses);
	free(c->subcells);
	free(c->name);
	free(c->top_value);
}

void cell_config_free(struct cell_config *c)
{
	size_t i;

	for (i = 0; i < c->nr_cells; i++)
		cell_free(&c->cells[i]);
	free(c->cells);
	memset(c, 0, sizeof(*c));
}

/* --- serde_json-compatible pretty printer --- */

struct pretty {
	FILE *f;
	int depth;
	bool first; /* no element yet in the current container */
};

static void newline_indent(struct pretty *p)
{
	int i;

	fputc('\n', p->f);
	for (i = 0; i < p->depth; i++)
		fputs("  ", p->f);
}

/* Before a value inside an array, or a key inside an object. */
static void element(struct pretty *p)
{
	if (!p->first)
		fputc(',', p->f);
	newline_indent(p);
	p->first = false;
}

static void pretty_open(struct pretty *p, char ch)
{
	fputc(ch, p->f);
	p->depth++;
	p->first = true;
}

static void pretty_close(struct pretty *p, char ch)
{
	p->depth--;
	if (!p->first)
		newline_indent(p);
	fputc(ch, p->f);
	p->first = false;
}

/* serde_json's escaping: \" \\ \b \f \n \r \t, other controls as \u00xx. */
static void put_string(struct pretty *p, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	fputc('"', p->f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"': fputs("\\\"", p->f); break;
		case '\\': fputs("\\\\", p->f); break;
		case '\b': fputs("\\b", p->f); break;
		case '\f': fputs("\\f", p->f); break;
		case '\n': fputs("\\n", p->f); break;
		case '\r': fputs("\\r", p->f); break;
		case '\t': fputs("\\t", p->f); break;
		default:
			if (c < 0x20)
				fprintf(p->f, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
			else
				fputc(c, p->f);
		}
	}
	fputc('"', p->f);
}

static void key(struct pretty *p, const char *k)
{
	element(p);
	put_string(p, k);
	fputs(": ", p->f);
}

static void kv_string(struct pretty *p, const char *k, const char *v)
{
	key(p, k);
	put_string(p, v);
}

static void write_clause(struct pretty *p, const struct cell_clause *cl)
{
	element(p);
	pretty_open(p, '[');
	if (cl->comm_prefix) {
		element(p);
		pretty_open(p, '{');
		kv_string(p, "CommPrefix", cl->comm_prefix);
		pretty_close(p, '}');
	}
	if (cl->has_hint) {
		element(p);
		pretty_open(p, '{');
		key(p, "Hint");
		fprintf(p->f, "%llu", (unsigned long long)cl->hint);
		pretty_close(p, '}');
	}
	pretty_close(p, ']');
}

static void write_matches(struct pretty *p, const struct cell *c)
{
	size_t i;

	key(p, "matches");
	pretty_open(p, c->top == TOP_NONE ? '[' : '{');
	switch (c->top) {
	case TOP_NONE:
		for (i = 0; i < c->nr_clauses; i++)
			write_clause(p, &c->clauses[i]);
		pretty_close(p, ']');
		return;
	case TOP_CGROUP_REGEX:
		kv_string(p, "CgroupRegex", c->top_value);
		break;
	case TOP_CGROUP_CONTAINS:
		kv_string(p, "CgroupContains", c->top_value);
		break;
	case TOP_EMPTY:
		break;
	}
	pretty_close(p, '}');
}

static void write_cell(struct pretty *p, const struct cell *c)
{
	size_t i;

	element(p);
	pretty_open(p, '{');
	kv_string(p, "name", c->name);
	write_matches(p, c);
	if (c->nr_subcells) {
		key(p, "subcells");
		pretty_open(p, '[');
		for (i = 0; i < c->nr_subcells; i++)
			write_cell(p, &c->subcells[i]);
		pretty_close(p, ']');
	}
	pretty_close(p, '}');
}

int cell_config_write(const struct cell_config *c, FILE *f)
{
	struct pretty p = {f, 0, true};
	size_t i;

	pretty_open(&p, '[');
	for (i = 0; i < c->nr_cells; i++)
		write_cell(&p, &c->cells[i]);
	pretty_close(&p, ']');
	fputc('\n', f);
	if (fflush(f) != 0 || ferror(f))
		return scx_fail_errno("writing the cell config failed");
	return 0;
}

struct first_problem {
	char line[512];
	long n;
};

static int keep_first(void *ctx, const char *where, const char *rule, const char *what)
{
	struct first_problem *p = ctx;

	if (!strcmp(rule, "hint-term"))
		return 0;
	if (!p->n++)
		snprintf(p->line, sizeof(p->line), "%s%s%s: %s", where, *where ? ": " : "", rule, what);
	return 0;
}

int cell_config_write_checked(const struct cell_config *c, const struct reader_limits *l, const char *name, FILE *f)
{
	struct first_problem p = {.n = 0};
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	int rc = -1;

	if (!m)
		return scx_fail("out of memory");
	if (cell_config_write(c, m) < 0) {
		fclose(m);
		free(buf);
		return -1;
	}
	if (fclose(m) != 0) {
		free(buf);
		return scx_fail("out of memory");
	}
	if (cell_config_check_buf(name, buf, n, l, keep_first, &p, NULL) < 0)
		goto out;
	if (p.n) {
		scx_fail("%s: the config would break %ld of the reader's rules (%s), not written: %s", name, p.n,
			 (l ? l : &reader_limits_default)->name, p.line);
		goto out;
	}
	if (fwrite(buf, 1, n, f) != n || fflush(f) != 0 || ferror(f))
		scx_fail_errno("writing the cell config failed");
	else
		rc = 0;
out:
	free(buf);
	return rc;
}
