/*
 * extract_multi.c - extract over several recordings (see extract_multi.h):
 * each recording through the usual stage with an evidence observer
 * (extract/evidence/evidence.h), its evidence written as a file or, in the
 * one-shot run, written to memory and read back exactly as a file would
 * be, then combined (extract/evidence/evidence.h). The one-shot run and the
 * combine of evidence files are therefore the same computation.
 */
#include "cmd/extract_multi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/extract_args.h"
#include "extract/extract.h"
#include "lib/error.h"
#include "lib/host/host.h"

/* Run one recording with the collector; rec holds its evidence (caller evf_free). */
static int collect(extract_multi_stage stage, const struct extract_mem_opts *base, const char *path,
		   const char *sched, long jobs, FILE *out, struct evf_recording *rec)
{
	struct extract_mem_opts o = *base;
	struct evidence_collect c;
	int rc;

	memset(rec, 0, sizeof(*rec));
	if (base->observer)
		return scx_fail("--llc-json cannot be combined with evidence over recordings");
	if (evidence_collect_init(&c, base, path) < 0) {
		evf_free(&c.rec);
		return -1;
	}
	o.path = path;
	o.observer = &c.obs;
	if (!o.sched_path) /* a JSONL file's sched.jsonl beside it (a profile finds its own) */
		o.sched_path = extract_args_sched_next_to(path);
	rc = stage(&o, sched, jobs, out);
	if (rc < 0) {
		evf_free(&c.rec);
		return -1;
	}
	*rec = c.rec;
	return 0;
}

static int write_evidence(FILE *f, void *ctx)
{
	return evf_write(ctx, f);
}

int extract_multi_evidence_out(extract_multi_stage stage, struct extract_mem_opts *o, const char *sched, long jobs,
			       const char *path)
{
	struct evf_recording rec;
	int rc;

	if (access(path, F_OK) == 0)
		return scx_fail("%s: already exists, not overwritten", path);
	if (collect(stage, o, o->path, sched, jobs, stdout, &rec) < 0)
		return -1;
	rc = host_write_file(path, write_evidence, &rec);
	evf_free(&rec);
	return rc;
}

/* rec through the file format and back (the one-shot run reads what a file would hold) */
static int round_trip(struct evf_recording *rec)
{
	struct evf_recording back;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc;

	if (!m)
		return scx_fail("out of memory");
	rc = evf_write(rec, m);
	if (fclose(m) != 0 && rc == 0)
		rc = scx_fail("out of memory");
	if (rc == 0 && (rc = evf_parse(buf, len, rec->source, &back)) == 0) {
		evf_free(rec);
		*rec = back;
	}
	free(buf);
	return rc;
}

int extract_multi_combine(extract_multi_stage stage, const struct extract_mem_opts *o, const char *const *files,
			  size_t nf, const char *const *ev, size_t ne, long jobs, const struct evidence_merge_opts *mo)
{
	struct evf_recording *recs = calloc(nf + ne + 1, sizeof(*recs));
	FILE *null = nf ? fopen("/dev/null", "w") : NULL;
	size_t n = 0, i;
	int rc = -1;

	if (!recs || (nf && !null)) {
		scx_fail(recs ? "/dev/null: cannot open" : "out of memory");
		goto out;
	}
	for (i = 0; i < nf; i++) {
		struct extract_mem_opts one = *o;

		one.verbose = 0; /* the -v report is the combine's */
		one.sched_path = NULL;
		if (collect(stage, &one, files[i], NULL, jobs, null, &recs[n]) < 0)
			goto out;
		n++;
		if (round_trip(&recs[n - 1]) < 0)
			goto out;
	}
	for (i = 0; i < ne; i++) {
		if (evf_read(ev[i], &recs[n]) < 0)
			goto out;
		n++;
	}
	rc = evidence_merge_run(recs, n, mo, stdout, stderr);
out:
	for (i = 0; recs && i < n; i++)
		evf_free(&recs[i]);
	free(recs);
	if (null)
		fclose(null);
	return rc;
}
