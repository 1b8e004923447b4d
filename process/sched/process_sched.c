/*
 * process_sched.c - the scheduling stream of the process stage: runs the
 * input path the profile has (sched.data, perf.sched.data or
 * perf.sched.script) into the sink, then warns about what the input lacks.
 */
#include "process/sched/sched_decode.h"

#include <string.h>

#include "lib/error.h"
#include "process/process_warn.h"
#include "process/summary/summary.h"
#include "process/sched/sched_data.h"
#include "process/sched/sched_perfdata.h"
#include "process/sched/sched_script.h"
#include "process/sched/sched_sink.h"

/* The recording's own losses (metadata.json): the analysis host never saw
 * record's warnings. A missing or unreadable metadata.json is said too. */
static void warn_record_losses(const struct process_inputs *in, struct process_result *res)
{
	struct record_losses l;

	if (!in->has_metadata)
		return;
	if (record_losses_read(in->metadata_path, &l) < 0) {
		process_warn(res, "cannot tell what the recording lost: %s", scx_errmsg());
		return;
	}
	if (l.sched_drops)
		process_warn(res, "the recording dropped %llu scheduling records (its ring buffer was full): "
			     "%s lacks them", (unsigned long long)l.sched_drops, in->sched_name);
	if (l.sched_skipped)
		process_warn(res, "the kernel skipped %llu nested scheduling tracepoint hits while recording "
			     "(metadata.json sched.skipped_nested_by_tracepoint): %s lacks them",
			     (unsigned long long)l.sched_skipped, in->sched_name);
}

/* The sched input path the profile has into s. */
static int read_sched_input(const struct process_inputs *in, struct sched_sink *s)
{
	switch (in->sched_kind) {
	case SCHED_IN_DATA: return sched_data_read(s, in->sched_path);
	case SCHED_IN_PERF_DATA: return sched_perfdata_read(s, in->sched_path);
	case SCHED_IN_SCRIPT: return sched_script_read(s, in->sched_path);
	default: return scx_fail("no scheduling stream");
	}
}

int process_sched_names(const struct process_opts *opts, struct thread_names *names)
{
	struct process_sched_result scratch = {0};
	struct process_opts quiet = *opts; /* the real pass says what is unparseable */
	struct sched_sink s = {.opts = &quiet, .res = &scratch, .names = names};
	int rc;

	quiet.verbose = 0;
	quiet.sink = NULL;
	rc = read_sched_input(opts->in, &s);
	thread_names_finish(names);
	return rc;
}

int process_sched(const struct process_opts *opts, FILE *out, struct pftrace *trace, struct process_result *res)
{
	const struct process_inputs *in = opts->in;
	struct sched_sink s = {.opts = opts, .out = out, .res = &res->sched, .trace = trace};
	int rc;

	memset(&res->sched, 0, sizeof(res->sched));
	res->sched.present = true;
	if (in->has_hints) {
		/* an index of its own: lookup-order statistics stay the memory stream's */
		if (hints_load(&s.hints, in->hints_path, NULL) < 0)
			return -1;
	} else if (!(s.hints = hints_empty())) {
		return scx_fail("out of memory");
	}
	jsonw_init(&s.w);
	rc = read_sched_input(in, &s);
	if (rc == 0)
		rc = sched_sink_flush(&s);
	if (rc == 0 && res->sched.truncated_bytes)
		process_warn(res, "%s: the last %llu bytes are not whole records (truncated or damaged file; ignored)",
			     in->sched_name,
			     (unsigned long long)res->sched.truncated_bytes);
	if (rc == 0 && res->sched.unknown_types)
		process_warn(res, "%s: %llu records of unknown types skipped", in->sched_name,
			     (unsigned long long)res->sched.unknown_types);
	if (rc == 0 && in->sched_kind == SCHED_IN_DATA)
		warn_record_losses(in, res);
	jsonw_free(&s.w);
	hints_free(s.hints);
	return rc;
}
