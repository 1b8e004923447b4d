/*
 * test_place.c - `scxprof place`'s plan (place/place_plan.c) and the
 * config reader it starts from (extract/sharing/cell_config_read.c): threads land
 * in the subcell and LLC extract's prediction gives them (the same threads
 * evaluated by llc_share_evaluate), later threads join their subcell's LLC,
 * one LLC is refused, and the config extract prints reads back as itself.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extract/sharing/sharing.h"
#include "lib/error.h"
#include "llc/llc_map.h"
#include "llc/llc_share.h"
#include "llc/placement.h"
#include "place/place_plan.h"

static const char *allot = "/workload.slice/tw-x.allotment/app";

/* allotment: alpha+beta, gamma, delta@hint=5; rest: no subcells */
static void build_config(struct cell_config *cfg)
{
	struct cell *a, *s;

	memset(cfg, 0, sizeof(*cfg));
	cr_assert(a = cell_config_add(cfg, "allotment", TOP_CGROUP_REGEX, "tw-[a-z]+\\.allotment"));
	cr_assert(s = cell_config_add_subcell(a, "alpha+beta"));
	cr_assert_eq(cell_config_add_clause(s, "alpha", false, 0), 0);
	cr_assert_eq(cell_config_add_clause(s, "beta", false, 0), 0);
	cr_assert(s = cell_config_add_subcell(a, "gamma"));
	cr_assert_eq(cell_config_add_clause(s, "gamma", false, 0), 0);
	cr_assert(s = cell_config_add_subcell(a, "delta@hint=5"));
	cr_assert_eq(cell_config_add_clause(s, "delta", true, 5), 0);
	cr_assert(cell_config_add(cfg, "rest", TOP_EMPTY, NULL));
}

/* A topology.json of 4 CPUs, two per LLC (or all in one). */
static void map_of(struct llc_map *map, bool one_llc)
{
	char path[] = "/tmp/place-topo-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	int i;

	cr_assert(f);
	fprintf(f, "{\"version\":1,\"cpus\":[");
	for (i = 0; i < 4; i++)
		fprintf(f, "%s{\"cpu\":%d,\"llc\":%d,\"node\":0,\"llc_cpus\":\"%s\"}", i ? "," : "", i,
			one_llc ? 0 : i / 2 * 2, one_llc ? "0-3" : i < 2 ? "0-1" : "2-3");
	fprintf(f, "]}");
	fclose(f);
	int rc = llc_map_read(path, map, NULL);

	unlink(path); /* before the assertion: a failing test leaves no file either */
	cr_assert_eq(rc, 0);
}

static struct place_thread thread(int64_t tid, const char *comm, const char *cgroup, uint64_t hint, double demand)
{
	struct place_thread t = {.tid = tid, .pid = tid, .hint = hint, .demand = demand};

	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	snprintf(t.cgroup, sizeof(t.cgroup), "%s", cgroup);
	return t;
}

/* alpha 0.9 + beta 0.6, gamma 1.2, delta (hint 5) 0.4, and a shell of no subcell 0.1 */
static size_t threads(struct place_thread *t)
{
	t[0] = thread(10, "alpha-0", allot, 0, 0.9);
	t[1] = thread(11, "beta-0", allot, 0, 0.6);
	t[2] = thread(12, "gamma-0", allot, 0, 1.2);
	t[3] = thread(13, "delta-0", allot, 5, 0.4);
	t[4] = thread(14, "bash", "/user.slice/session-1.scope", 0, 0.1);
	return 5;
}

Test(place, plan_is_the_predictions_model)
{
	struct cell_config cfg;
	struct llc_map map;
	struct place_plan p;
	struct place_thread t[8];
	size_t n;

	build_config(&cfg);
	map_of(&map, false);
	n = threads(t);
	cr_assert_eq(place_plan_init(&p, &cfg, &map, NULL, NULL), 0);
	cr_assert_eq(p.nr_scopes, 4, "three subcells and the rest cell");
	cr_assert_eq(place_plan_add(&p, t, n), 0);
	/* worst fit decreasing on two 2-CPU LLCs: alpha+beta 1.5 -> 0, gamma 1.2 -> 1, delta 0.4 -> 1 (0.8 free vs 0.5) */
	cr_assert(t[0].scope == 0 && t[1].scope == 0 && t[2].scope == 1 && t[3].scope == 2 && t[4].scope == 3);
	cr_assert(t[0].llc == 0 && t[1].llc == 0, "alpha and beta together on LLC 0");
	cr_assert(t[2].llc == 1 && t[3].llc == 1);
	cr_assert_eq(t[4].llc, 0, "the rest cell (no subcells) is one scope: 0.1 CPUs on the freer LLC 0");
	cr_assert_float_eq(p.scopes[0].demand, 1.5, 1e-9);
	cr_assert_str_eq(p.scopes[0].name, "allotment/alpha+beta");
	cr_assert_str_eq(p.scopes[3].name, "rest");
	/* a later thread of alpha+beta joins LLC 0; a later thread of no matching clause goes one by one */
	{
		struct place_thread late[2] = {thread(20, "alpha-1", allot, 0, 0.3), thread(21, "delta-1", allot, 9, 0.2)};

		cr_assert_eq(place_plan_add(&p, late, 2), 0);
		cr_assert(late[0].scope == 0 && late[0].llc == 0);
		/* loads: LLC 0 1.5 + 0.1 + 0.3 = 1.9, LLC 1 1.6: delta with hint 9 matches no clause -> freer LLC 1 */
		cr_assert(late[1].scope == -1 && late[1].llc == 1, "got scope %ld llc %d", late[1].scope, late[1].llc);
		cr_assert_float_eq(p.load[0], 1.9, 1e-9);
	}
	place_plan_free(&p);
	llc_map_free(&map);
	cell_config_free(&cfg);
}

/* config_match_scope_index is each scope's place in the plan's list; a (cell, sub) the config does not have is -1. */
Test(place, scope_index_is_the_scope_lists_order)
{
	struct cell_config cfg;
	struct llc_map map;
	struct place_plan p;
	size_t i;

	build_config(&cfg);
	map_of(&map, false);
	cr_assert_eq(place_plan_init(&p, &cfg, &map, NULL, NULL), 0);
	for (i = 0; i < p.nr_scopes; i++)
		cr_assert_eq(config_match_scope_index(&cfg, p.scopes[i].cell, p.scopes[i].sub), (long)i, "%s",
			     p.scopes[i].name);
	cr_assert_eq(config_match_scope_index(&cfg, 1, -1), 3, "the rest cell, no subcells");
	cr_assert_eq(config_match_scope_index(&cfg, -1, -1), -1, "no cell");
	cr_assert_eq(config_match_scope_index(&cfg, 0, -1), -1, "a cell with subcells has no scope of its own");
	cr_assert_eq(config_match_scope_index(&cfg, 0, 3), -1, "no fourth subcell");
	cr_assert_eq(config_match_scope_index(&cfg, 1, 0), -1, "the rest cell has no subcell 0");
	cr_assert_eq(config_match_scope_index(&cfg, 2, -1), -1, "no third cell");
	place_plan_free(&p);
	llc_map_free(&map);
	cell_config_free(&cfg);
}

static double demand_of(void *ctx, int64_t tid)
{
	const struct place_thread *t = ctx;
	int i;

	for (i = 0; i < 5; i++)
		if (t[i].tid == tid)
			return t[i].demand;
	return 0;
}

/* The same threads through extract's prediction (runtime demand): the same subcell LLCs and demands. */
Test(place, plan_agrees_with_extracts_prediction)
{
	struct cell_config cfg;
	struct llc_map map;
	struct place_plan p;
	struct place_thread t[8];
	struct llc_share s;
	struct llc_share_result r;
	struct llc_share_eval e;
	size_t n, i;

	build_config(&cfg);
	map_of(&map, false);
	n = threads(t);
	llc_share_init(&s, false, 0);
	for (i = 0; i < n; i++) {
		struct mem_sample m = {0};

		m.comm = t[i].comm;
		m.comm_len = strlen(t[i].comm);
		m.cgroup = t[i].cgroup;
		m.cgroup_len = strlen(t[i].cgroup);
		m.tid = m.pid = t[i].tid;
		m.hint = t[i].hint;
		m.phys_addr = 0x1000;
		m.data_page_size = 4096;
		m.data_id = "F:1:2:0:1";
		m.data_id_len = strlen(m.data_id);
		m.cpu = 0;
		m.has_cpu = true;
		m.time_ns = 1000;
		cr_assert_eq(llc_share_add(&s, &m), 0);
	}
	e = (struct llc_share_eval){.cfg = &cfg, .workload = "workload.slice", .allotment_re = "tw-[a-z]+\\.allotment",
				    .map = &map, .online_cpus = 4, .thread_cpus = demand_of, .thread_ctx = t};
	cr_assert_eq(llc_share_evaluate(&s, &e, &r), 0);
	cr_assert_eq(place_plan_init(&p, &cfg, &map, NULL, NULL), 0);
	cr_assert_eq(place_plan_add(&p, t, n), 0);
	cr_assert_eq(r.nr_subs, p.nr_scopes);
	for (i = 0; i < r.nr_subs; i++) {
		cr_assert_str_eq(r.subs[i].name, p.scopes[i].name);
		cr_assert_eq(r.subs[i].llc, p.scopes[i].llc, "%s: prediction LLC %d, plan %d", p.scopes[i].name,
			     r.subs[i].llc, p.scopes[i].llc);
		cr_assert_float_eq(r.subs[i].demand, p.scopes[i].demand, 1e-9);
	}
	llc_share_result_free(&r);
	llc_share_free(&s);
	place_plan_free(&p);
	llc_map_free(&map);
	cell_config_free(&cfg);
}

Test(place, one_llc_is_nothing_to_place)
{
	struct cell_config cfg;
	struct llc_map map;
	struct place_plan p;

	build_config(&cfg);
	map_of(&map, true);
	cr_assert_eq(place_plan_init(&p, &cfg, &map, NULL, NULL), -1);
	cr_assert(strstr(scx_errmsg(), "nothing to place: one LLC"), "%s", scx_errmsg());
	llc_map_free(&map);
	cell_config_free(&cfg);
}

Test(place, cpulist_of_an_llc)
{
	struct llc_map map;
	char buf[64];

	map_of(&map, false);
	cr_assert_eq(place_plan_cpulist(&map, 1, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "2-3");
	cr_assert_eq(place_plan_cpulist(&map, 0, buf, 3), -1, "\"0-1\" does not fit 3 bytes");
	llc_map_free(&map);
}

/* Write cfg, read it back, write again: the same bytes. */
Test(place, config_reads_back_as_printed)
{
	struct cell_config cfg, back;
	char path[] = "/tmp/place-cfg-XXXXXX", *a = NULL, *b = NULL;
	size_t na, nb;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w"), *m;

	build_config(&cfg);
	cr_assert_eq(cell_config_write(&cfg, f), 0);
	fclose(f);
	int rc = cell_config_read(path, &back);

	unlink(path); /* before the assertions: a failing test leaves no file either */
	cr_assert_eq(rc, 0, "%s", scx_errmsg());
	m = open_memstream(&a, &na);
	cell_config_write(&cfg, m);
	fclose(m);
	m = open_memstream(&b, &nb);
	cell_config_write(&back, m);
	fclose(m);
	cr_assert(na == nb && !memcmp(a, b, na), "read back differs:\n%s\n---\n%s", a, b);
	cr_assert_eq(back.cells[0].subcells[2].clauses[0].hint, 5);
	free(a);
	free(b);
	cell_config_free(&back);
	cell_config_free(&cfg);
}

static void refused(const char *text, const char *why)
{
	char path[] = "/tmp/place-bad-XXXXXX";
	int fd = mkstemp(path), rc;
	struct cell_config c;
	ssize_t n = write(fd, text, strlen(text));

	close(fd);
	rc = cell_config_read(path, &c);
	unlink(path); /* before the assertions: a failing test leaves no file either */
	cr_assert_eq(n, (ssize_t)strlen(text));
	cr_assert_eq(rc, -1, "accepted: %s", text);
	cr_assert(strstr(scx_errmsg(), path) && strstr(scx_errmsg(), why), "%s: message \"%s\", want \"%s\"", text,
		  scx_errmsg(), why);
	cr_assert_eq(c.nr_cells, 0);
}

Test(place, bad_configs_are_one_line_naming_the_file)
{
	refused("[{\"name\": \"a\", \"matches\": {}", "not JSON");
	refused("{}", "not an array of cells");
	refused("[{\"matches\": {}}]", "cells[0]: no \"name\" string");
	refused("[{\"name\": \"a\", \"matches\": {\"Cgroup\": \"x\"}}]", "unknown key \"Cgroup\"");
	refused("[{\"name\": \"a\", \"matches\": {}, \"subcells\": [{\"name\": \"s\", \"matches\": [[{\"Hint\": -1}]]}]}]",
		"cells[0].subcells[0]: Hint is not an unsigned 64-bit integer");
	refused("[{\"name\": \"a\", \"matches\": {}, \"subcells\": [{\"name\": \"s\", \"matches\": [[{\"CommPrefix\": \"a\\u0000b\"}]]}]}]",
		"CommPrefix is not a string");
	refused("[{\"name\": \"a\", \"matches\": {}, \"subcells\": [{\"name\": \"s\", \"matches\": [], \"subcells\": []}]}]",
		"unknown key \"subcells\"");
	refused("[] []", "not JSON");
}
