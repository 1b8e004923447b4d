/*
 * allotment_specs.c - one spec per recorded allotment (see sharing.h): the
 * reader makes each cgroup the allotment regex matches a cell of its own
 * with every subcell of the spec, so a program absent from one still has a
 * subcell there that takes CPUs. allotment_specs_build() makes the specs
 * (each allotment's cgroup, only its own subcells, rest), which
 * --per-allotment-config writes and the cross-LLC step predicts;
 * allotment_specs_note() is -v's note when the allotments run different
 * programs: which subcells each ran, and the specs to use instead.
 */
#include "extract/sharing/sharing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/* s as a JSON string (serde's escapes). */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A regex matching the directory name key in any path, in both dialects: /KEY(/|$), KEY's metacharacters escaped. */
static void key_regex(FILE *f, const char *key)
{
	fputc('/', f);
	for (; *key; key++) {
		if (strchr("\\.+*?()|[]{}^$", *key))
			fputc('\\', f);
		fputc(*key, f);
	}
	fputs("(/|$)", f);
}

/* Does fitted subcell s have samples in group g (one of its units' comms was seen there)? */
static bool sub_in_group(const struct unit_list *u, const struct fit_sub *s, size_t g)
{
	for (size_t m = 0; m < s->n; m++) {
		const struct norm_comm *c = u->v[s->members[m]].comm;

		for (size_t k = 0; c && k < c->nr_srcs; k++)
			if (c->srcs[k].group == g)
				return true;
	}
	return false;
}

/* One spec (a built top-level cell) on one line, as JSON. */
static void print_spec(FILE *log, const struct cell *c)
{
	fputs("    {\"name\": ", log);
	json_str(log, c->name);
	fputs(", \"matches\": {\"CgroupRegex\": ", log);
	json_str(log, c->top_value ? c->top_value : "");
	fputs("}, \"subcells\": [", log);
	for (size_t i = 0; i < c->nr_subcells; i++) {
		const struct cell *sc = &c->subcells[i];

		fputs(i ? ", {\"name\": " : "{\"name\": ", log);
		json_str(log, sc->name);
		fputs(", \"matches\": [", log);
		for (size_t k = 0; k < sc->nr_clauses; k++) {
			const struct cell_clause *cl = &sc->clauses[k];

			fputs(k ? ", [" : "[", log);
			if (cl->comm_prefix) {
				fputs("{\"CommPrefix\": ", log);
				json_str(log, cl->comm_prefix);
				fputc('}', log);
			}
			if (cl->has_hint)
				fprintf(log, "%s{\"Hint\": %llu}", cl->comm_prefix ? ", " : "", (unsigned long long)cl->hint);
			fputc(']', log);
		}
		fputs("]}", log);
	}
	fputs("]},\n", log);
}

int allotment_specs_build(struct cell_config *out, const struct mem_agg *a, const size_t *groups, size_t nr_groups,
			  const struct unit_list *u, const struct cell_fit *f)
{
	for (size_t g = 0; g < nr_groups; g++) {
		const struct group_rec *gr = &a->groups[groups[g]];
		struct cell *c, *sub;
		char *re = NULL;
		size_t len = 0;
		FILE *m;

		if (gr->folded_groups)
			continue;
		if (!(m = open_memstream(&re, &len)))
			return scx_fail("out of memory");
		key_regex(m, gr->key);
		if (fclose(m) != 0) {
			free(re);
			return scx_fail("out of memory");
		}
		c = cell_config_add(out, gr->key, TOP_CGROUP_REGEX, re);
		free(re);
		if (!c)
			return -1;
		for (size_t i = 0; i < f->n; i++) {
			if (!sub_in_group(u, &f->v[i], groups[g]))
				continue;
			if (!(sub = cell_config_add_subcell(c, f->v[i].name)))
				return -1;
			for (size_t k = 0; k < f->v[i].nr_clauses; k++)
				if (cell_config_add_clause(sub, f->v[i].clauses[k].comm_prefix, f->v[i].clauses[k].has_hint,
							   f->v[i].clauses[k].hint) < 0)
					return -1;
		}
		if (!(sub = cell_config_add_subcell(c, "rest")) || cell_config_add_clause(sub, NULL, false, 0) < 0)
			return -1;
	}
	return 0;
}

int allotment_specs_note(FILE *log, const struct mem_agg *a, const size_t *groups, size_t nr_groups,
			 const struct unit_list *u, const struct cell_fit *f, const struct cell_config *specs)
{
	size_t g, i, differ = 0;

	if (nr_groups < 2 || !f->n)
		return 0;
	for (g = 0; g < nr_groups; g++) {
		size_t here = 0;

		for (i = 0; i < f->n; i++)
			here += sub_in_group(u, &f->v[i], groups[g]);
		differ += here < f->n;
	}
	if (!differ)
		return 0;
	fprintf(log,
		"\nallotment: %zu cgroups match the allotment regex and run different programs; the reader makes each "
		"matching cgroup a cell with every subcell of the spec, so in %zu of them subcells of programs it does not "
		"run still take CPUs (with equal weights, each subcell a share). Subcells per recorded allotment:\n",
		nr_groups, differ);
	for (g = 0; g < nr_groups; g++) {
		const struct group_rec *gr = &a->groups[groups[g]];
		size_t n = 0;

		fprintf(log, "  %s:", gr->key);
		for (i = 0; i < f->n; i++)
			if (sub_in_group(u, &f->v[i], groups[g]))
				fprintf(log, "%s %s", n++ ? "," : "", f->v[i].name);
		fprintf(log, "%s (%zu of %zu)\n", n ? "" : " none", n, f->n);
	}
	fprintf(log, "  one spec per recorded allotment, to put in the config instead of the allotment spec (same order, "
		     "before the others; an allotment created later matches none of them; --per-allotment-config DIR "
		     "writes one config per allotment):\n");
	for (i = 0; i < specs->nr_cells; i++)
		print_spec(log, &specs->cells[i]);
	return ferror(log) ? scx_fail_errno("writing the report failed") : 0;
}
