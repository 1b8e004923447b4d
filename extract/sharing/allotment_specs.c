/*
 * allotment_specs.c - -v's note when the cgroups the allotment regex
 * matched run different programs (see sharing.h): the reader makes each
 * matching cgroup a cell of its own with every subcell of the spec, so a
 * program absent from one still has a subcell there that takes CPUs. The
 * note names which subcells each recorded allotment ran and prints one
 * spec per allotment, only its own subcells, to put in the config instead.
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

static void print_spec(FILE *log, const char *key, const struct unit_list *u, const struct cell_fit *f, size_t g)
{
	char *re = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&re, &len);

	if (!m)
		return;
	key_regex(m, key);
	fclose(m);
	fputs("    {\"name\": ", log);
	json_str(log, key);
	fputs(", \"matches\": {\"CgroupRegex\": ", log);
	json_str(log, re ? re : "");
	fputs("}, \"subcells\": [", log);
	for (size_t i = 0; i < f->n; i++) {
		if (!sub_in_group(u, &f->v[i], g))
			continue;
		fputs("{\"name\": ", log);
		json_str(log, f->v[i].name);
		fputs(", \"matches\": [", log);
		for (size_t c = 0; c < f->v[i].nr_clauses; c++) {
			fputs(c ? ", [" : "[", log);
			if (f->v[i].clauses[c].comm_prefix) {
				fputs("{\"CommPrefix\": ", log);
				json_str(log, f->v[i].clauses[c].comm_prefix);
				fputc('}', log);
			}
			if (f->v[i].clauses[c].has_hint)
				fprintf(log, "%s{\"Hint\": %llu}", f->v[i].clauses[c].comm_prefix ? ", " : "",
					(unsigned long long)f->v[i].clauses[c].hint);
			fputc(']', log);
		}
		fputs("]}, ", log);
	}
	fputs("{\"name\": \"rest\", \"matches\": [[]]}]},\n", log);
	free(re);
}

int allotment_specs_note(FILE *log, const struct mem_agg *a, const size_t *groups, size_t nr_groups,
			 const struct unit_list *u, const struct cell_fit *f)
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
		     "before the others; an allotment created later matches none of them):\n");
	for (g = 0; g < nr_groups; g++)
		if (!a->groups[groups[g]].folded_groups)
			print_spec(log, a->groups[groups[g]].key, u, f, groups[g]);
	return ferror(log) ? scx_fail_errno("writing the report failed") : 0;
}
