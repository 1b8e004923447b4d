/*
 * place_run.c - the steps of `scxprof place` (see place_run.h): gather the
 * workload's threads, measure, plan, print, pin, and the follow loop.
 */
#include "place/place_run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "extract/sharing/sharing.h"
#include "lib/error.h"
#include "lib/warnings.h"
#include "llc/llc.h"
#include "place/place_host.h"
#include "place/place_mitosis.h"
#include "place/place_plan.h"

struct run {
	const struct place_opts *o;
	FILE *out;
	struct cell_config cfg;
	struct llc_map map;
	struct place_plan plan;
	struct place_mitosis pm;    /* --model mitosis */
	struct mitosis_opts mo;     /* its options */
	struct place_thread *others; /* --model mitosis --follow: the host's other threads, laid out again each time */
	size_t nr_others;
	struct place_thread *known; /* threads planned so far */
	size_t nr_known, cap_known;
	int hints_fd;
	struct warnings warnings;   /* without --topology: this host's cpuset files that could not be read */
};

/* Sleep ms, waking early when *stop is set. */
static void nap(const struct place_opts *o, long ms)
{
	while (ms > 0 && !(o->stop && *o->stop)) {
		long step = ms < 50 ? ms : 50;
		struct timespec ts = {step / 1000, (step % 1000) * 1000000L};

		nanosleep(&ts, NULL);
		ms -= step;
	}
}

/* The workload's threads now. strict: a given pid that is gone is an error (else skipped). */
static int gather(const struct run *r, struct place_tids *tids, bool strict)
{
	size_t i;

	for (i = 0; i < r->o->nr_pids; i++)
		if (place_host_process_tids(r->o->pids[i], tids) < 0 && strict)
			return -1;
	if (r->o->cgroup && place_host_cgroup_tids(r->o->cgroup, tids) < 0 && strict)
		return -1;
	scx_clear_error();
	return 0;
}

/*
 * all = the workload's tids, then every other thread of the host (every
 * cgroup v2 cgroup's): the placement counts their CPU demand, as extract's
 * prediction places every thread of the recording, so that a busy program
 * outside the workload moves the workload's subcells here as it does there.
 * They are measured and planned, never pinned. A host whose cgroup tree
 * cannot be read adds none.
 */
static int gather_host(const struct place_tids *tids, struct place_tids *all)
{
	struct place_tids host = {0};
	size_t i;
	int rc = 0;

	for (i = 0; i < tids->n && !rc; i++)
		rc = place_tids_add(all, tids->v[i]);
	if (!rc && place_host_cgroup_tids("/", &host) < 0)
		scx_clear_error();
	for (i = 0; i < host.n && !rc; i++)
		rc = place_tids_add(all, host.v[i]);
	place_tids_free(&host);
	return rc;
}

static int is_known(const struct run *r, int64_t tid)
{
	size_t i;

	for (i = 0; i < r->nr_known; i++)
		if (r->known[i].tid == tid)
			return 1;
	return 0;
}

/* A thread's first reading in measure(). */
struct reading {
	uint64_t runtime_ns; /* its CPU time then */
	bool live;           /* read: a thread not known yet, not gone */
};

/*
 * Read the threads of tids not known yet into *t: CPU demand = CPU time
 * over window_ms (first) or, for threads found by a follow round, their CPU
 * time so far over the interval. Threads gone meanwhile are left out.
 */
static int measure(struct run *r, const struct place_tids *tids, bool first, struct place_thread **t, size_t *n)
{
	struct reading *r0 = calloc(tids->n + 1, sizeof(*r0));
	struct place_thread *v = calloc(tids->n + 1, sizeof(*v));
	size_t i, k = 0;
	int rc = -1, x = 0;

	if (!r0 || !v) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < tids->n; i++) {
		if (is_known(r, tids->v[i]))
			continue;
		if ((x = place_host_thread(tids->v[i], &v[i], &r0[i].runtime_ns)) < 0)
			goto out;
		r0[i].live = x == 0;
	}
	if (first)
		nap(r->o, r->o->window_ms);
	for (i = 0; i < tids->n; i++) {
		uint64_t t1 = r0[i].runtime_ns;

		if (!r0[i].live || (first && (x = place_host_thread(tids->v[i], &v[i], &t1)) != 0)) {
			if (first && r0[i].live && x < 0)
				goto out;
			continue;
		}
		v[i].demand = first ? (double)(t1 - r0[i].runtime_ns) / ((double)r->o->window_ms * 1e6)
				    : (double)t1 / ((double)r->o->interval_ms * 1e6);
		if (v[i].demand > 1) /* a thread renamed long after it started: one thread uses at most one CPU */
			v[i].demand = 1;
		if (r->hints_fd >= 0) {
			if ((x = place_host_hint(r->hints_fd, v[i].tid, &v[i].hint)) < 0)
				goto out;
			if (x)
				continue;
		}
		v[k++] = v[i];
	}
	*t = v;
	*n = k;
	v = NULL;
	rc = 0;
out:
	free(r0);
	free(v);
	return rc;
}

static void print_thread(const struct run *r, const struct place_thread *t)
{
	char cpus[1024];

	if (r->o->mitosis) {
		const struct mitosis_run *run = place_mitosis_run(&r->pm, (size_t)t->scope);

		fprintf(r->out, "%" PRId64 "\t%s\t%s\t%d\t%s\n", t->tid, t->comm, r->pm.name[t->scope], t->llc,
			mitosis_cpulist(cpus, sizeof(cpus), run->cpus, run->n));
		return;
	}
	if (place_plan_cpulist(&r->map, t->llc, cpus, sizeof(cpus)) < 0)
		snprintf(cpus, sizeof(cpus), "(too many to list)");
	fprintf(r->out, "%" PRId64 "\t%s\t%s\t%d\t%s\n", t->tid, t->comm,
		t->scope >= 0 ? r->plan.scopes[t->scope].name : "-", t->llc, cpus);
}

/* Pin t[0..n) (unless a dry run); threads gone meanwhile are skipped. */
static int pin(const struct run *r, const struct place_thread *t, size_t n)
{
	size_t i;

	for (i = 0; i < n && !r->o->dry_run; i++) {
		if (r->o->mitosis) {
			const struct mitosis_run *run = place_mitosis_run(&r->pm, (size_t)t[i].scope);

			if (place_host_pin_cpus(t[i].tid, run->cpus, run->n) < 0)
				return -1;
		} else if (t[i].llc >= 0 && place_host_pin(t[i].tid, &r->map, t[i].llc) < 0) {
			return -1;
		}
	}
	return 0;
}

static int remember(struct run *r, const struct place_thread *t, size_t n)
{
	if (r->nr_known + n > r->cap_known) {
		size_t cap = (r->nr_known + n) * 2;
		struct place_thread *k = realloc(r->known, cap * sizeof(*k));

		if (!k)
			return scx_fail("out of memory");
		r->known = k;
		r->cap_known = cap;
	}
	memcpy(r->known + r->nr_known, t, n * sizeof(*t));
	r->nr_known += n;
	return 0;
}

static void print_header(const struct run *r, size_t n, size_t others)
{
	size_t i;

	fprintf(r->out, "# place: %s, topology %s (%zu LLCs), %zu threads, demand over %ld ms (and %zu other threads' of the host, not pinned)%s\n",
		r->o->config, r->map.source, r->map.nr_llcs, n, r->o->window_ms, others,
		r->o->dry_run ? ", dry run: nothing pinned" : "");
	if (r->o->mitosis) {
		fprintf(r->out, "# model: %s %s (%s weights): each thread on its subcell's CPU run\n", MITOSIS_MODEL_NAME,
			MITOSIS_MODEL_VERSION, r->o->mitosis_rebalancing ? "utilisation" : "equal");
		place_mitosis_print(r->out, &r->pm, &r->map);
	}
	for (i = 0; !r->o->mitosis && i < r->plan.nr_scopes; i++) {
		const struct place_scope *s = &r->plan.scopes[i];

		if (s->llc == PLACEMENT_UNSET)
			continue;
		if (s->llc >= 0)
			fprintf(r->out, "# %s %.2f CPUs -> LLC %d\n", s->name, s->demand, s->llc);
		else
			fprintf(r->out, "# %s %.2f CPUs, larger than every LLC: its threads placed one by one\n", s->name,
				s->demand);
	}
	fprintf(r->out, "tid\tcomm\tsubcell\tllc\tcpus\n");
}

/*
 * Forget the known threads of tids whose comm or cgroup changed since they
 * were placed (a thread often names itself just after it starts): they are
 * matched and placed again as new.
 */
static int forget_renamed(struct run *r, const struct place_tids *tids)
{
	size_t i = 0;

	while (i < r->nr_known) {
		struct place_thread now = {0};
		uint64_t ns;
		int x = place_tids_has(tids, r->known[i].tid) ? place_host_thread(r->known[i].tid, &now, &ns) : 1;

		if (x < 0)
			return -1;
		if (x == 0 && (strcmp(now.comm, r->known[i].comm) || strcmp(now.cgroup, r->known[i].cgroup)))
			r->known[i] = r->known[--r->nr_known];
		else
			i++;
	}
	return 0;
}

/*
 * --model mitosis, threads t[0..n) appeared: the reader lays its cells and
 * subcells out for the cgroups and threads it has (a new cgroup can be a
 * new cell and move every run), so lay out again with the workload's live
 * known threads, the new ones and the host's others; the known threads'
 * places into r->known, the new ones' into t. Prints the layout again.
 */
static int mitosis_again(struct run *r, const struct place_tids *tids, struct place_thread *t, size_t n)
{
	struct place_thread *all = malloc((r->nr_known + n + r->nr_others + 1) * sizeof(*all));
	size_t *from = malloc((r->nr_known + 1) * sizeof(*from));
	size_t i, k = 0, nk;
	int rc = -1;

	if (!all || !from) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = 0; i < r->nr_known; i++)
		if (place_tids_has(tids, r->known[i].tid)) {
			from[k] = i;
			all[k++] = r->known[i];
		}
	nk = k;
	memcpy(all + k, t, n * sizeof(*t));
	memcpy(all + k + n, r->others, r->nr_others * sizeof(*all));
	place_mitosis_free(&r->pm);
	memset(&r->pm, 0, sizeof(r->pm));
	if (place_mitosis_plan(&r->pm, &r->cfg, &r->map, &r->mo, all, nk + n + r->nr_others) < 0)
		goto out;
	for (i = 0; i < nk; i++)
		r->known[from[i]] = all[i];
	memcpy(t, all + nk, n * sizeof(*t));
	fprintf(r->out, "# %zu thread%s appeared: laid out again\n", n, n == 1 ? "" : "s");
	place_mitosis_print(r->out, &r->pm, &r->map);
	rc = 0;
out:
	free(all);
	free(from);
	return rc;
}

/* One follow round: pin the threads that appeared, re-pin the others. 1 when the workload has no thread left. */
static int follow_round(struct run *r)
{
	struct place_tids tids = {0};
	struct place_thread *t = NULL;
	size_t i, n = 0;
	int rc = -1;

	if (gather(r, &tids, false) < 0)
		goto out;
	if (!tids.n) {
		rc = 1;
		goto out;
	}
	if (forget_renamed(r, &tids) < 0)
		goto out;
	if (measure(r, &tids, false, &t, &n) < 0)
		goto out;
	if (r->o->mitosis ? n && mitosis_again(r, &tids, t, n) < 0 : place_plan_add(&r->plan, t, n) < 0)
		goto out;
	if (pin(r, t, n) < 0)
		goto out;
	for (i = 0; i < n; i++)
		print_thread(r, &t[i]);
	fflush(r->out);
	for (i = 0; i < r->nr_known; i++)
		if (place_tids_has(&tids, r->known[i].tid) && pin(r, &r->known[i], 1) < 0)
			goto out;
	rc = remember(r, t, n);
out:
	free(t);
	place_tids_free(&tids);
	return rc;
}

int place_run(const struct place_opts *o, FILE *out)
{
	struct run r = {.o = o, .out = out, .hints_fd = -1};
	struct place_tids tids = {0}, all = {0};
	struct place_thread *t = NULL;
	size_t i, k, n = 0;
	int rc = -1, x;

	if (cell_config_read(o->config, &r.cfg) < 0)
		return -1;
	if (llc_map_read(o->topology, &r.map, &r.warnings) < 0)
		goto out;
	for (i = 0; i < r.warnings.nr; i++) /* this host's cpusets: a file that could not be read */
		fprintf(out, "# place: WARNING: %s\n", r.warnings.line[i]);
	if (o->topology)
		snprintf(r.map.source, sizeof(r.map.source), "%s", o->topology);
	if (place_plan_init(&r.plan, &r.cfg, &r.map, o->workload, o->allotment_re) < 0)
		goto out;
	if (o->hints_map && (r.hints_fd = place_host_hints_open(o->hints_map)) < 0)
		goto out;
	if (gather(&r, &tids, true) < 0)
		goto out;
	if (!tids.n) {
		scx_fail("%s: no threads to place", o->cgroup ? o->cgroup : "the workload");
		goto out;
	}
	if (gather_host(&tids, &all) < 0 || measure(&r, &all, true, &t, &n) < 0)
		goto out;
	if (o->stop && *o->stop) {
		scx_fail("interrupted");
		goto out;
	}
	if (o->mitosis) {
		r.mo = (struct mitosis_opts){.rebalancing = o->mitosis_rebalancing, .llc_aware = true};
		if (place_mitosis_plan(&r.pm, &r.cfg, &r.map, &r.mo, t, n) < 0)
			goto out;
	} else if (place_plan_add(&r.plan, t, n) < 0) {
		goto out;
	}
	if (o->mitosis && o->follow && !(r.others = malloc((n + 1) * sizeof(*r.others)))) {
		scx_fail("out of memory");
		goto out;
	}
	for (i = k = 0; i < n; i++) /* the workload's threads first, the others dropped (--follow: kept apart) */
		if (place_tids_has(&tids, t[i].tid))
			t[k++] = t[i];
		else if (r.others)
			r.others[r.nr_others++] = t[i];
	if (!k) {
		scx_fail("the workload's threads all exited");
		goto out;
	}
	if (pin(&r, t, k) < 0 || remember(&r, t, k) < 0)
		goto out;
	print_header(&r, k, n - k);
	n = k;
	for (i = 0; i < n; i++)
		print_thread(&r, &t[i]);
	fflush(out);
	rc = 0;
	while (o->follow && !rc && !(o->stop && *o->stop)) {
		nap(o, o->interval_ms);
		if (o->stop && *o->stop)
			break;
		if ((x = follow_round(&r)) != 0)
			rc = x > 0 ? 0 : -1;
		if (x > 0)
			break;
	}
out:
	if (r.hints_fd >= 0)
		close(r.hints_fd);
	free(t);
	free(r.known);
	free(r.others);
	place_tids_free(&tids);
	place_tids_free(&all);
	place_plan_free(&r.plan);
	place_mitosis_free(&r.pm);
	llc_map_free(&r.map);
	cell_config_free(&r.cfg);
	return rc;
}
