/*
 * extract_mem.c - extract mem from input to cell config (see
 * extract_mem.h): aggregate the stream, report, then for each group kind
 * (allotment, workload, rest) build its units and subcells.
 */
#include "extract/extract_mem.h"

#include <stdlib.h>
#include <string.h>

#include "extract/mem/mem_agg.h"
#include "extract/rec_topology.h"
#include "extract/sched/extract_sched.h"
#include "extract/sharing/sharing.h"
#include "lib/error.h"

struct run {
	const struct extract_mem_opts *o;
	struct mem_agg agg;
	struct sharing_params sp;
	FILE *log; /* NULL unless verbose */
	struct sched_cells sched;
	bool has_sched, sched_header;
	double min_share;
	void *step; /* o->step's state; NULL: no step */
	const struct reader_limits *limits;
	struct cell_config wanted;  /* the config as the clustering wanted it, when a choice changed it */
	struct reader_fit_log fits; /* the choices made to meet the reader's limits */
	bool hint_terms;            /* the config has Hint terms */
	struct cell_config specs;   /* one spec per recorded allotment (allotment_specs_build) */
	bool has_specs;
	size_t allot_cell;          /* the allotment cell's index in the config, when has_specs */
};

static const char *kind_name(const struct run *r, enum group_kind kind)
{
	return kind == GROUP_ALLOTMENT ? "allotment" : kind == GROUP_WORKLOAD ? r->agg.o.workload : "rest";
}

/*
 * -v: say when one comm holds most of a cell and so hides comms that would
 * be units among the others (a busy host: one page-faulting process).
 */
static void note_dominant_comm(struct run *r, const struct comm_summary *s, enum group_kind kind)
{
	size_t i, top = 0, hidden = 0;
	uint64_t rest_total;

	if (!s->nr || !s->total)
		return;
	for (i = 1; i < s->nr; i++)
		if (s->comms[i].count > s->comms[top].count)
			top = i;
	if (s->comms[top].count * 2 <= s->total)
		return;
	rest_total = s->total - s->comms[top].count;
	for (i = 0; i < s->nr; i++)
		if (i != top && !sharing_is_significant(s->comms[i].count, s->total, r->min_share) &&
		    sharing_is_significant(s->comms[i].count, rest_total, r->min_share))
			hidden++;
	if (hidden)
		fprintf(r->log,
			"\n%s: %s holds %.2f%% of the samples; %zu comm%s above %g%% of the others fell below the %g%% "
			"rule and stay in rest (lower it with --min-share PCT)\n",
			kind_name(r, kind), s->comms[top].name, (double)s->comms[top].count * 100.0 / (double)s->total,
			hidden, hidden == 1 ? "" : "s", r->min_share, r->min_share);
}

static void agg_opts(const struct extract_mem_opts *o, struct mem_agg_opts *ao)
{
	memset(ao, 0, sizeof(*ao));
	ao->workload = o->workload ? o->workload : EXTRACT_DEFAULT_WORKLOAD;
	ao->allotment_re = o->allotment_re ? o->allotment_re : EXTRACT_DEFAULT_ALLOTMENT_RE;
	ao->evidence = o->cluster == CLUSTER_SHARING;
	ao->line_granularity = o->line_granularity;
	ao->max_keys = o->max_keys;
	ao->max_names = o->max_names;
	ao->max_groups = o->max_groups;
	ao->track_tids = o->sched_path != NULL;
	ao->track_seen = true; /* the demand when there is no sched trace (an empty one is ignored) */
	ao->objects = o->verbose > 0; /* names of shared objects are only printed with -v */
}

int extract_mem_check_opts(const struct extract_mem_opts *o)
{
	struct mem_agg_opts ao;
	struct mem_agg a;
	int rc;

	const char *why;
	size_t at;

	agg_opts(o, &ao);
	ao.evidence = false;
	rc = mem_agg_init(&a, &ao);
	mem_agg_free(&a);
	if (rc < 0)
		return rc;
	/* the config carries both to the reader: refuse what it would refuse or read otherwise */
	if (ao.allotment_re[0] == '^' || !strncmp(ao.allotment_re, "\\A", 2) || strstr(ao.allotment_re, "|^"))
		return scx_fail("--workload-allotment-cgroup-regex: an anchor (^ or \\A): extract matches the recorded path "
				"(/workload.slice/...), the reader the absolute one (" READER_CGROUP_ROOT "/...), so no "
				"anchored regex reads alike in both; drop it");
	if ((why = reader_regex_problem(ao.allotment_re, &at)))
		return scx_fail("--workload-allotment-cgroup-regex: at byte %zu: %s (%s)", at, why,
				(o->limits ? o->limits : &reader_limits_default)->name);
	if ((why = reader_contains_problem(ao.workload)))
		return scx_fail("--workload-cgroup-regex: '%s': %s (%s)", ao.workload, why,
				(o->limits ? o->limits : &reader_limits_default)->name);
	return 0;
}

static int add_rest_subcell(struct cell *cell)
{
	struct cell *rest = cell_config_add_subcell(cell, "rest");

	return rest ? cell_config_add_clause(rest, NULL, false, 0) : -1;
}

static int add_unit_clauses(struct cell *sub, const struct unit *u)
{
	size_t i;

	for (i = 0; i < u->nr_clauses; i++)
		if (cell_config_add_clause(sub, u->clauses[i].comm_prefix, u->clauses[i].has_hint, u->clauses[i].hint) < 0)
			return -1;
	return 0;
}

/* The config's subcells of one cell from the fitted ones; with wanted (a
 * choice changed the clustering), the clustering's own into it too. */
static int add_fitted(struct cell *cell, const struct cell_fit *f)
{
	for (size_t i = 0; i < f->n; i++) {
		struct cell *sub = cell_config_add_subcell(cell, f->v[i].name);

		if (!sub)
			return -1;
		for (size_t k = 0; k < f->v[i].nr_clauses; k++)
			if (cell_config_add_clause(sub, f->v[i].clauses[k].comm_prefix, f->v[i].clauses[k].has_hint,
						   f->v[i].clauses[k].hint) < 0)
				return -1;
	}
	return 0;
}

static int add_clustered(struct cell *cell, const struct unit_list *u, const struct clustering *cl)
{
	for (size_t i = 0; i < cl->n; i++) {
		char *name = sharing_cluster_name(u, &cl->v[i]);
		struct cell *sub = name ? cell_config_add_subcell(cell, name) : NULL;

		free(name);
		if (!sub)
			return scx_fail("out of memory");
		for (size_t m = 0; m < cl->v[i].n; m++)
			if (add_unit_clauses(sub, &u->v[cl->v[i].members[m]]) < 0)
				return -1;
	}
	return 0;
}

/* Every concrete comm of the cell (borrowed names), for the prefix rule. */
static const char **cell_comms(const struct comm_summary *s, size_t *n)
{
	size_t i, j, k = 0;
	const char **v;

	for (i = 0; i < s->nr; i++)
		k += s->comms[i].nr_concretes;
	if (!(v = malloc((k + 1) * sizeof(*v)))) {
		scx_fail("out of memory");
		return NULL;
	}
	for (i = 0, k = 0; i < s->nr; i++)
		for (j = 0; j < s->comms[i].nr_concretes; j++)
			v[k++] = s->comms[i].concretes[j].name;
	*n = k;
	return v;
}

/* The clustering's cluster of exactly these members, or NULL (the fit made it). */
static const struct unit_cluster *same_cluster(const struct clustering *cl, const size_t *members, size_t n)
{
	for (size_t j = 0; cl && j < cl->n; j++) {
		size_t k, hit = 0;

		if (cl->v[j].n != n)
			continue;
		for (k = 0; k < n; k++)
			for (size_t m = 0; m < n; m++)
				hit += cl->v[j].members[m] == members[k];
		if (hit == n)
			return &cl->v[j];
	}
	return NULL;
}

/* The fitted subcells as a clustering of the units (for the observer and the
 * sched lines); a subcell the clustering made keeps its merges' evidence. */
static int fitted_clustering(const struct cell_fit *f, const struct clustering *cl, struct clustering *out)
{
	const struct unit_cluster *same;

	memset(out, 0, sizeof(*out));
	if (!(out->v = calloc(f->n + 1, sizeof(*out->v))))
		return scx_fail("out of memory");
	for (size_t i = 0; i < f->n; i++) {
		if (!(out->v[i].members = malloc((f->v[i].n + 1) * sizeof(size_t))))
			return scx_fail("out of memory");
		memcpy(out->v[i].members, f->v[i].members, f->v[i].n * sizeof(size_t));
		out->v[i].n = f->v[i].n;
		out->v[i].demand = f->v[i].demand;
		out->n++;
		if ((same = same_cluster(cl, f->v[i].members, f->v[i].n)) && same->nmerges) {
			if (!(out->v[i].merges = malloc(same->nmerges * sizeof(*same->merges))))
				return scx_fail("out of memory");
			memcpy(out->v[i].merges, same->merges, same->nmerges * sizeof(*same->merges));
			out->v[i].nmerges = same->nmerges;
		}
	}
	if (cl && cl->unit_aff) {
		size_t n = cl->nr_units;

		if (!(out->unit_aff = malloc((n * n + 1) * sizeof(double))))
			return scx_fail("out of memory");
		memcpy(out->unit_aff, cl->unit_aff, n * n * sizeof(double));
		out->nr_units = n;
		for (size_t i = 0; i < out->n; i++)
			sharing_cluster_pair_affinity(&out->v[i], out->unit_aff, n);
	}
	if (cl && cl->nr_undecided) {
		if (!(out->undecided = malloc(cl->nr_undecided * sizeof(*cl->undecided))))
			return scx_fail("out of memory");
		memcpy(out->undecided, cl->undecided, cl->nr_undecided * sizeof(*cl->undecided));
		out->nr_undecided = cl->nr_undecided;
	}
	if (cl)
		out->duration_s = cl->duration_s;
	return 0;
}

/* The allotment cell's fitted subcells f: one spec per recorded allotment; -v's note when they run different programs. */
static int allotment_specs(struct run *r, const struct unit_list *u, const struct cell_fit *f)
{
	size_t ng, *groups = sharing_groups_of_kind(&r->agg, GROUP_ALLOTMENT, &ng);
	int rc;

	if (!groups)
		return -1;
	rc = allotment_specs_build(&r->specs, &r->agg, groups, ng, u, f);
	r->has_specs = !rc;
	if (!rc && r->log && r->o->cluster == CLUSTER_SHARING)
		rc = allotment_specs_note(r->log, &r->agg, groups, ng, u, f, &r->specs);
	free(groups);
	return rc;
}

/*
 * Fit the clustering to the reader's limits (extract/sharing/reader_fit.c),
 * add the fitted subcells to cell, and when a choice changed anything, the
 * clustering's own to r->wanted's copy of the cell; -v names each choice.
 */
static int fit_cell(struct run *r, struct cell *cell, const struct comm_summary *s, const struct unit_list *u,
		    const struct clustering *cl, const double *demand, struct clustering *fitted)
{
	struct fit_input in = {.u = u, .demand = demand, .aff = cl->unit_aff, .l = r->limits};
	struct cell_fit f;
	int rc;

	if (!(in.comms = cell_comms(s, &in.nr_comms)))
		return -1;
	rc = reader_fit_cell(&in, cl, &f);
	free((void *)in.comms);
	if (rc < 0)
		return -1;
	rc = add_fitted(cell, &f);
	if (!rc && f.nr_choices) {
		struct cell *w = cell_config_add(&r->wanted, cell->name, cell->top, cell->top_value);

		rc = w ? add_clustered(w, u, cl) : -1;
		if (!rc && r->log) {
			fprintf(r->log, "\n%s: the reader (%s) takes at most %u subcells, %u OR groups:\n", cell->name,
				r->limits->name, r->limits->subcells, r->limits->or_groups);
			for (size_t i = 0; i < f.nr_choices; i++)
				fprintf(r->log, "  %s %s: %s\n", reader_fit_kind_name(f.choices[i].kind), f.choices[i].subcell,
					f.choices[i].detail);
		}
		if (!rc)
			rc = reader_fit_log_add(&r->fits, cell->name, &f);
	} else if (!rc) {
		struct cell *w = cell_config_add(&r->wanted, cell->name, cell->top, cell->top_value);

		rc = w ? add_clustered(w, u, cl) : -1;
	}
	if (!rc && cell->top == TOP_CGROUP_REGEX)
		rc = allotment_specs(r, u, &f);
	if (!rc)
		rc = fitted_clustering(&f, cl, fitted);
	for (size_t i = 0; !rc && i < f.n; i++)
		for (size_t k = 0; k < f.v[i].nr_clauses; k++)
			r->hint_terms |= f.v[i].clauses[k].has_hint;
	reader_fit_free(&f);
	return rc;
}

/* --cluster comm: each unit its own subcell, fitted as a clustering of singletons. */
static int subcells_from_units(struct run *r, struct cell *cell, const struct comm_summary *s,
			       const struct unit_list *u)
{
	struct clustering one = {0}, fitted = {0};
	int rc = 0;

	if (!(one.v = calloc(u->n + 1, sizeof(*one.v))))
		return scx_fail("out of memory");
	for (size_t i = 0; i < u->n && !rc; i++) {
		if (!(one.v[i].members = malloc(sizeof(size_t)))) {
			rc = scx_fail("out of memory");
			break;
		}
		one.v[i].members[0] = i;
		one.v[i].n = 1;
		one.n++;
	}
	if (!rc)
		rc = fit_cell(r, cell, s, u, &one, NULL, &fitted);
	sharing_clustering_free(&fitted);
	sharing_clustering_free(&one);
	return rc;
}

static int notify(struct run *r, const struct cell *cell, enum group_kind kind, const struct comm_summary *s,
		  const struct unit_list *u, const struct clustering *cl, const struct sharing_params *sp)
{
	struct extract_mem_cell c = {
		.name = cell->name, .kind = (int)kind, .samples = s->total,
		.input = {r->agg.total, r->agg.level, r->agg.o.line_granularity}, .agg = &r->agg,
		.units = u, .cl = cl, .sp = sp, .sched = r->has_sched ? &r->sched : NULL,
	};

	return r->o->observer->on_cell ? r->o->observer->on_cell(r->o->observer->ctx, &c) : 0;
}

static int subcells_from_clusters(struct run *r, struct cell *cell, const struct comm_summary *s,
				  const struct unit_list *u, enum group_kind kind)
{
	struct sharing_params sp = r->sp;
	struct clustering cl, fitted = {0};
	double *demand = NULL;
	int rc = 0;

	if (!(demand = calloc(u->n ? u->n : 1, sizeof(*demand))))
		return scx_fail("out of memory");
	if (r->has_sched)
		sched_cells_demand(&r->sched, &r->agg, kind, u, demand);
	else /* sample share x CPUs, at most the time each thread was seen running */
		mem_agg_seen_demand(&r->agg, kind, u, sp.online_cpus, demand);
	sp.demand = demand;
	rc = sharing_cluster(&r->agg, u, &sp, cell->name, r->log, &cl);
	if (rc < 0) {
		free(demand);
		return -1;
	}
	rc = fit_cell(r, cell, s, u, &cl, demand, &fitted);
	if (!rc && r->log && r->has_sched && sched_cells_report(r->log, &r->sched, &r->agg, kind, cell->name, u, &fitted) < 0)
		rc = -1;
	if (!rc && r->o->observer && notify(r, cell, kind, s, u, &fitted, &sp) < 0)
		rc = -1;
	sharing_clustering_free(&fitted);
	sharing_clustering_free(&cl);
	free(demand); /* after notify: the observer sees sp.demand */
	return rc;
}

/* One top-level cell for the groups of one kind, if it has samples. */
static int add_group_cell(struct run *r, struct cell_config *cfg, enum group_kind kind)
{
	const struct mem_agg_opts *ao = &r->agg.o;
	struct comm_summary s = {0};
	struct unit_list units = {0};
	size_t n, *groups = sharing_groups_of_kind(&r->agg, kind, &n);
	struct cell *cell = NULL;
	int rc = -1;

	if (!groups)
		return -1;
	if (n == 0) {
		free(groups);
		return 0;
	}
	if (sharing_summary_build(&r->agg, groups, n, &s) < 0)
		goto out;
	sharing_summary_sort_by_name(&s);
	if ((kind == GROUP_ALLOTMENT || r->o->cluster == CLUSTER_SHARING) &&
	    sharing_upstream_units(&s, r->o->use_hints, r->min_share, &units) < 0)
		goto out;
	if (r->log && r->o->cluster == CLUSTER_SHARING) /* --cluster comm's text stays upstream's */
		note_dominant_comm(r, &s, kind);
	if (kind == GROUP_ALLOTMENT)
		cell = cell_config_add(cfg, "allotment", TOP_CGROUP_REGEX, ao->allotment_re);
	else if (kind == GROUP_WORKLOAD)
		cell = cell_config_add(cfg, ao->workload, TOP_CGROUP_CONTAINS, ao->workload);
	else
		cell = cell_config_add(cfg, "rest", TOP_EMPTY, NULL);
	if (!cell)
		goto out;
	if (kind == GROUP_ALLOTMENT)
		r->allot_cell = cfg->nr_cells - 1;
	if (units.n) {
		if (r->o->cluster == CLUSTER_SHARING ? subcells_from_clusters(r, cell, &s, &units, kind) < 0
						     : subcells_from_units(r, cell, &s, &units) < 0)
			goto out;
		if (add_rest_subcell(cell) < 0 || add_rest_subcell(&r->wanted.cells[r->wanted.nr_cells - 1]) < 0)
			goto out;
	} else if (!cell_config_add(&r->wanted, cell->name, cell->top, cell->top_value)) {
		goto out;
	}
	if (kind == GROUP_ALLOTMENT && !r->has_specs) { /* no unit: each allotment's spec is rest alone */
		struct cell_fit none = {0};

		if (allotment_specs(r, &units, &none) < 0)
			goto out;
	}
	if (r->o->observer && (r->o->cluster == CLUSTER_COMM || !units.n) &&
	    notify(r, cell, kind, &s, &units, NULL, NULL) < 0)
		goto out;
	/* sharing mode reports its units' sched lines after their clustering */
	if (r->log && r->has_sched && (r->o->cluster == CLUSTER_COMM || !units.n)) {
		if (r->o->cluster == CLUSTER_COMM && !r->sched_header)
			fprintf(r->log, "\nScheduling (%s: %.3f s, %zu CPUs):\n", r->sched.path,
				(double)r->sched.st.duration_ns / 1e9, r->sched.st.cpu_count);
		r->sched_header = true;
		if (sched_cells_report(r->log, &r->sched, &r->agg, kind, cell->name, &units, NULL) < 0)
			goto out;
	}
	rc = 0;
out:
	sharing_unit_list_free(&units);
	sharing_summary_free(&s);
	free(groups);
	return rc;
}

static const char *cap_source(const struct extract_mem_opts *o, bool none)
{
	return o->max_cell_cpus > 0 ? "--max-cell-cpus"
	       : o->topology	    ? "largest LLC of --topology"
	       : none		    ? "no topology: the whole machine"
				    : "largest LLC";
}

/*
 * The CPUs the demand counts in and the cap: the recording's topology,
 * the cap from --topology's when given (another host's LLCs). With none,
 * one line says so and the machine is taken as one LLC: the CPUs of the
 * sched trace, else one (demand in shares of the machine).
 */
static int sharing_setup(struct run *r)
{
	struct rec_topology rec, other;
	struct cpu_topology t = {0};
	bool none;

	if (rec_topology_load(r->o->path, NULL, &rec) < 0)
		return -1;
	if (r->o->topology && rec_topology_load(r->o->path, r->o->topology, &other) < 0) {
		rec_topology_unload(&rec);
		return -1;
	}
	if (rec.found)
		rec_topology_counts(&rec.t, rec.source, &t);
	else if (r->o->topology) /* the recording has none: --topology's, as asked */
		rec_topology_counts(&other.t, other.source, &t);
	if (r->o->topology) {
		t.largest_llc_cpus = host_topology_largest_llc(&other.t);
		rec_topology_unload(&other);
	}
	none = !rec.found && !r->o->topology;
	if (none) {
		t.online_cpus = r->has_sched && r->sched.st.cpu_count ? (unsigned)r->sched.st.cpu_count : 1;
		t.largest_llc_cpus = t.online_cpus;
		if (r->log)
			fprintf(r->log, "\ntopology: the recording has none (%s): the machine is taken as one LLC; "
					"--topology FILE, or --topology host for this machine's\n",
				rec.none);
	}
	r->sp.threshold = r->o->share_threshold >= 0 ? r->o->share_threshold : SHARE_THRESHOLD_DEFAULT;
	r->sp.cap_cpus = r->o->max_cell_cpus > 0 ? r->o->max_cell_cpus : (double)t.largest_llc_cpus;
	r->sp.online_cpus = (double)t.online_cpus;
	r->sp.total_samples = r->agg.total;
	r->sp.fault_samples = r->agg.fault_samples;
	r->sp.min_keys = r->o->min_keys ? r->o->min_keys : SHARE_MIN_KEYS_DEFAULT;
	r->sp.min_samples = r->o->min_samples ? r->o->min_samples : SHARE_MIN_SAMPLES_DEFAULT;
	r->sp.keep_undecided = r->o->observer && r->o->observer->undecided_pairs;
	if (r->log && r->has_sched)
		fprintf(r->log,
			"\nCPU demand: sched runtime / trace duration (%s: %.3f s, %zu CPUs); cap %.2f CPUs per cell (%s)\n",
			r->sched.path, (double)r->sched.st.duration_ns / 1e9, r->sched.st.cpu_count, r->sp.cap_cpus,
			cap_source(r->o, none));
	else if (r->log && none)
		fprintf(r->log, "\nCPU demand: share of samples (of the whole machine), at most each thread's time seen (100 ms "
				"bins); cap %.2f (%s)\n", r->sp.cap_cpus,
			cap_source(r->o, none));
	else if (r->log)
		fprintf(r->log, "\nCPU demand: share of samples x %u online CPUs (%s), at most each thread's time seen (100 ms "
			"bins); cap %.2f CPUs per cell (%s)\n",
			t.online_cpus, t.source, r->sp.cap_cpus,
			cap_source(r->o, none));
	rec_topology_unload(&rec);
	return 0;
}

/* perf.jsonl on a stream, sched JSONL from o->sched_path (with o->jobs >= 2
 * read on a thread of its own while perf.jsonl is read) */
struct jsonl_source {
	const struct extract_mem_opts *o;
	FILE *in;
	struct sched_cells early;           /* the thread's, until jsonl_sched takes it */
	struct sched_cells_async *async;
};

static int jsonl_samples(void *ctx, struct mem_agg *a)
{
	struct jsonl_source *j = ctx;

	if (j->o->sched_path && j->o->jobs >= 2 && !(j->async = sched_cells_async_start(&j->early, j->o->sched_path)))
		return -1;
	return mem_agg_read(a, j->in, j->o->path, j->o->stop);
}

static int jsonl_sched(void *ctx, struct sched_cells *m, const struct mem_agg *a)
{
	struct jsonl_source *j = ctx;
	int rc;

	if (!j->async)
		return sched_cells_load(m, j->o->sched_path, a) < 0 ? -1 : 1;
	rc = sched_cells_async_finish(j->async, a);
	j->async = NULL;
	*m = j->early;
	memset(&j->early, 0, sizeof(j->early));
	return rc < 0 ? -1 : 1;
}

int extract_mem_run(const struct extract_mem_opts *o, FILE *in, FILE *out, FILE *log)
{
	struct jsonl_source j = {.o = o, .in = in};
	struct extract_mem_source src = {.samples = jsonl_samples, .sched = jsonl_sched, .ctx = &j};
	int rc = extract_mem_run_source(o, &src, out, log);

	if (j.async) /* the samples failed before the sched stream was taken */
		sched_cells_async_cancel(j.async);
	sched_cells_free(&j.early);
	return rc;
}

/* Two or more recorded allotments, one of them without some of the allotment spec's subcells. */
static bool allotments_differ(const struct run *r, const struct cell_config *cfg)
{
	if (!r->has_specs || r->specs.nr_cells < 2 || r->allot_cell >= cfg->nr_cells)
		return false;
	for (size_t k = 0; k < r->specs.nr_cells; k++)
		if (r->specs.cells[k].nr_subcells < cfg->cells[r->allot_cell].nr_subcells)
			return true;
	return false;
}

/* --per-allotment-config DIR: one config per recorded allotment, one line to log saying so. */
static int write_per_allotment(const struct run *r, const struct cell_config *cfg, FILE *log)
{
	const char *dir = r->o->per_allotment_dir;
	size_t ng, *groups = sharing_groups_of_kind(&r->agg, GROUP_ALLOTMENT, &ng);
	long n;

	if (!groups)
		return -1;
	free(groups);
	n = allotment_configs_write(dir, cfg, r->has_specs ? r->allot_cell : cfg->nr_cells, &r->specs, r->limits);
	if (n < 0)
		return -1;
	if (log)
		fprintf(log, "per-allotment configs: %ld written to %s (the config with the allotment spec replaced by "
			     "that allotment's own)%s\n",
			n, dir, (size_t)n < ng ? "; the allotment cgroups folded beyond --max-groups have none" : "");
	return 0;
}

int extract_mem_run_source(const struct extract_mem_opts *o, const struct extract_mem_source *src, FILE *out,
			   FILE *log)
{
	static const enum group_kind kinds[] = {GROUP_ALLOTMENT, GROUP_WORKLOAD, GROUP_REST};
	struct mem_agg_opts ao;
	struct cell_config cfg = {0};
	struct run r = {.o = o, .log = o->verbose ? log : NULL, .min_share = o->min_share > 0 ? o->min_share : SIGNIFICANT_PCT,
			.limits = o->limits ? o->limits : &reader_limits_default};
	size_t k;
	int rc = -1;

	snprintf(r.fits.reader, sizeof(r.fits.reader), "%s", r.limits->name);

	agg_opts(o, &ao);
	if (o->step && o->step->start(o, &ao, &r.step) < 0)
		goto out;
	if (mem_agg_init(&r.agg, &ao) < 0)
		goto out;
	if (src->samples(src->ctx, &r.agg) < 0)
		goto out;
	if (o->sched_path) {
		int n = src->sched(src->ctx, &r.sched, &r.agg);

		if (n < 0)
			goto out;
		r.has_sched = n > 0;
	}
	if (r.log && sharing_report_write(r.log, &r.agg, o->verbose, o->use_hints) < 0)
		goto out;
	if (o->cluster == CLUSTER_SHARING && sharing_setup(&r) < 0)
		goto out;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (add_group_cell(&r, &cfg, kinds[k]) < 0)
			goto out;
	if (r.log && r.has_sched && sched_cells_report_unattributed(r.log, &r.sched, &r.agg) < 0)
		goto out;
	if (r.step) {
		bool differ = allotments_differ(&r, &cfg);
		struct extract_mem_built b = {.cfg = &cfg, .wanted = r.fits.n ? &r.wanted : NULL, .fits = &r.fits,
					      .sched = r.has_sched ? &r.sched : NULL, .allot_specs = differ ? &r.specs : NULL,
					      .allot_cell = differ ? r.allot_cell : 0};

		if (o->step->finish(r.step, &ao, &b, r.log) < 0)
			goto out;
	}
	if (r.hint_terms && log)
		fprintf(log, "note: the config has Hint terms (--use-hints, as upstream's extractor writes them); %s has no "
			     "Hint term yet and refuses them (scxprof check names them)\n",
			r.limits->name);
	if (r.log && fflush(r.log) != 0) {
		scx_fail_errno("writing the report failed");
		goto out;
	}
	if (o->per_allotment_dir && !(r.has_specs && r.specs.nr_cells)) { /* before the config: nothing written */
		scx_fail("--per-allotment-config %s: no allotment cgroup was recorded (none matched the allotment regex): "
			 "nothing written", o->per_allotment_dir);
		goto out;
	}
	if (!cfg.nr_cells && !r.agg.total) { /* the reader needs a spec; say why there is none */
		scx_fail("%s: no samples, so no config: process keeps only samples with a physical address (and not "
			 "perf's or the idle task's); its process.json says how many it dropped and why",
			 o->path ? o->path : "-");
		goto out;
	}
	rc = cell_config_write_checked(&cfg, r.limits, o->path ? o->path : "-", out);
	if (!rc && o->per_allotment_dir)
		rc = write_per_allotment(&r, &cfg, log);
out:
	cell_config_free(&cfg);
	cell_config_free(&r.wanted);
	cell_config_free(&r.specs);
	reader_fit_log_free(&r.fits);
	mem_agg_free(&r.agg);
	sched_cells_free(&r.sched);
	if (r.step)
		o->step->end(r.step);
	return rc;
}
