/*
 * stage.c - entry points of the process stage: find a profile's inputs and
 * run the right input paths (see stage.h).
 */
#include "stage.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/fsutil.h"
#include "process/emit/emit.h"
#include "process/mem/mem_decode.h"
#include "process/summary/summary.h"
#include "lib/pftrace/perfetto_trace.h"
#include "lib/pftrace/perfetto_track.h"
#include "process/sched/sched_decode.h"
#include "process/process_warn.h"

/* A file name an input may have, and the kind of input it is */
struct input_candidate {
	const char *name;
	int kind; /* enum process_mem_kind or process_sched_kind */
};

static const struct input_candidate mem_candidates[] = {
	{"perf.mem.data", MEM_PERF_DATA},
	{"perf.data", MEM_PERF_DATA},
	{"perf.mem.script", MEM_SCRIPT_TEXT},
	{"perf.script", MEM_SCRIPT_TEXT},
};

static const struct input_candidate sched_candidates[] = {
	{"sched.data", SCHED_IN_DATA},
	{"perf.sched.data", SCHED_IN_PERF_DATA},
	{"perf.sched.script", SCHED_IN_SCRIPT},
};

static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a fifo";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	return "not a regular file";
}

/*
 * Sets *found when dir/name is a regular file or a symbolic link to one
 * (followed, as perf follows it: users keep big files elsewhere). A link to
 * anything else is an error that says what it points to. Other entries
 * that are not regular files (a directory named perf.data) are not inputs.
 * Archives never get here with links: extraction does not create them.
 */
static int find_file(const char *dir, const char *name, char *path, size_t size, bool *found)
{
	struct stat lst, st;
	char target[4096];
	ssize_t n;

	*found = false;
	if (fs_join(path, size, dir, name) < 0)
		return -1;
	if (lstat(path, &lst) < 0 || (!S_ISREG(lst.st_mode) && !S_ISLNK(lst.st_mode)))
		return 0;
	if (S_ISREG(lst.st_mode)) {
		*found = true;
		return 0;
	}
	n = readlink(path, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			return scx_fail("%s: symbolic link to %s, which does not exist (dangling link)", path, target);
		return scx_fail_errno("%s: symbolic link to %s, which cannot be followed", path, target);
	}
	if (!S_ISREG(st.st_mode))
		return scx_fail("%s: symbolic link to %s, which is %s, not a regular file", path, target,
				file_kind(st.st_mode));
	*found = true;
	return 0;
}

/*
 * The first of the n candidates c that dir holds (find_file): its path,
 * name and kind in path, name and *kind; path "" and *kind untouched when
 * there is none.
 */
static int find_first(const char *dir, const struct input_candidate *c, size_t n, char *path, size_t size,
		      char *name, size_t name_size, int *kind)
{
	bool found = false;

	for (size_t i = 0; i < n && !found; i++) {
		if (find_file(dir, c[i].name, path, size, &found) < 0)
			return -1;
		if (found) {
			*kind = c[i].kind;
			snprintf(name, name_size, "%s", c[i].name);
		}
	}
	if (!found)
		path[0] = '\0';
	return 0;
}

int process_find_inputs(const char *dir, struct process_inputs *in)
{
	int mem_kind = MEM_NONE, sched_kind = SCHED_IN_NONE;

	memset(in, 0, sizeof(*in));
	snprintf(in->dir, sizeof(in->dir), "%s", dir);
	if (fs_is_file(dir)) { /* a perf.data on its own: its samples, nothing else of a profile */
		in->single_file = true;
		in->mem_kind = MEM_PERF_DATA;
		snprintf(in->mem_path, sizeof(in->mem_path), "%s", dir);
		snprintf(in->mem_name, sizeof(in->mem_name), "perf.data");
		return 0;
	}
	if (!fs_is_dir(dir))
		return scx_fail("%s: not a profile directory", dir);
	if (find_first(dir, mem_candidates, sizeof(mem_candidates) / sizeof(mem_candidates[0]), in->mem_path,
		       sizeof(in->mem_path), in->mem_name, sizeof(in->mem_name), &mem_kind) < 0)
		return -1;
	in->mem_kind = (enum process_mem_kind)mem_kind;
	if (find_first(dir, sched_candidates, sizeof(sched_candidates) / sizeof(sched_candidates[0]), in->sched_path,
		       sizeof(in->sched_path), in->sched_name, sizeof(in->sched_name), &sched_kind) < 0)
		return -1;
	in->sched_kind = (enum process_sched_kind)sched_kind;
	if (in->mem_kind == MEM_NONE && in->sched_kind == SCHED_IN_NONE)
		return scx_fail("%s: no memory stream found (perf.mem.data, perf.data, perf.mem.script "
				"or perf.script) and no scheduling stream (sched.data, perf.sched.data or "
				"perf.sched.script)", dir);
	if (find_file(dir, "hints.jsonl", in->hints_path, sizeof(in->hints_path), &in->has_hints) < 0 ||
	    find_file(dir, "kallsyms", in->kallsyms_path, sizeof(in->kallsyms_path), &in->has_kallsyms) < 0 ||
	    find_file(dir, "metadata.json", in->metadata_path, sizeof(in->metadata_path), &in->has_metadata) < 0 ||
	    find_file(dir, "vdso.so", in->vdso_path, sizeof(in->vdso_path), &in->has_vdso) < 0)
		return -1;
	return 0;
}

/* Upstream's ordering warning: "detected N out-of-order LABEL violation(s)
 * across T tid(s) while processing CONTEXT. ACTION Example tids: a, b. Please
 * fix the input ordering if possible." */
static void ordering_warning(struct process_result *res, uint64_t n, const char *label, uint64_t tids,
			     const char *context, const char *action, const uint32_t *ex, size_t nr_ex)
{
	char list[128];
	size_t i, len = 0;

	list[0] = '\0';
	for (i = 0; i < nr_ex && len < sizeof(list) - 24; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u", i ? ", " : " Example tids: ", ex[i]);
	if (len)
		snprintf(list + len, sizeof(list) - len, ".");
	process_warn(res, "detected %llu out-of-order %s violation(s) across %llu tid(s) while processing %s. "
		     "%s%s Please fix the input ordering if possible.", (unsigned long long)n, label,
		     (unsigned long long)tids, context, action, list);
}

static void hint_warnings(const struct process_opts *opts, struct process_result *res)
{
	const struct hints_stats *h = &res->hints;

	if (h->unordered_updates)
		ordering_warning(res, h->unordered_updates, "hint timeline", h->unordered_update_tids_total,
				 "hints.jsonl", "Hint events will be sorted conservatively before annotation.",
				 h->unordered_update_tids, h->nr_unordered_update_tids);
	if (h->unordered_lookups)
		ordering_warning(res, h->unordered_lookups, "sample timeline", h->unordered_lookup_tids_total,
				 opts->in->mem_path, "Hint lookup fell back conservatively for out-of-order samples.",
				 h->unordered_lookup_tids, h->nr_unordered_lookup_tids);
}

/* The trace writer on out->trace, with the recording host from
 * metadata.json when there is one (an unreadable one is warned about by
 * the sched stream already: the trace then says kernel 4.14). */
static struct pftrace *open_trace(const struct process_inputs *in, FILE *f)
{
	struct pftrace_host host;

	memset(&host, 0, sizeof(host));
	if (in->has_metadata && pftrace_host_from_metadata(in->metadata_path, &host) < 0)
		memset(&host, 0, sizeof(host));
	return pftrace_new(f, &host);
}

static void trace_result(const struct pftrace *t, struct process_result *res)
{
	struct pftrace_stats st;

	pftrace_get_stats(t, &st);
	res->trace.written = true;
	res->trace.bytes = st.bytes;
	res->trace.packets = st.packets;
	res->trace.switches = st.switches;
	res->trace.switches_full = st.switches_full;
	res->trace.wakings = st.wakings;
	res->trace.wakings_full = st.wakings_full;
	res->trace.irq_events = st.irq_events;
	res->trace.forks = st.forks;
	res->trace.mem_samples = st.mem_samples;
	res->trace.hint_values = st.hint_values;
	res->trace.threads = st.threads;
}

/* Every hint update into the trace as its thread's "hint" counter. */
static int hint_to_trace(void *trace, uint32_t tid, int32_t tgid, uint64_t ts, uint64_t value)
{
	return pftrace_hint(trace, tid, tgid, ts, value);
}

static int load_hints(const struct process_opts *opts, struct process_outputs *out, struct pftrace *trace,
		      struct hints_index **hints)
{
	if (hints_load(hints, opts->in->hints_path, out->hints_copy) < 0)
		return -1;
	if (trace && hints_foreach(*hints, hint_to_trace, trace) < 0) {
		hints_free(*hints);
		*hints = NULL;
		return -1;
	}
	return 0;
}

static int run_streams(const struct process_opts *opts, struct process_outputs *out, struct process_result *res,
		       struct pftrace *trace)
{
	struct hints_index *hints = NULL;
	struct emitter e;
	int rc;

	if (opts->in->mem_kind == MEM_NONE) {
		/* scheduling stream only; hints.jsonl is still copied */
		if (opts->in->has_hints) {
			if (load_hints(opts, out, trace, &hints) < 0)
				return -1;
			res->has_hints = true;
			hints_get_stats(hints, &res->hints);
			hints_free(hints);
		}
		if (opts->in->sched_kind == SCHED_IN_NONE)
			return scx_fail("%s: no memory or scheduling stream", opts->in->dir);
		return process_sched(opts, out->sched_jsonl, trace, res);
	}
	if (opts->in->has_hints) {
		if (load_hints(opts, out, trace, &hints) < 0)
			return -1;
		res->has_hints = true;
	} else {
		hints = hints_empty();
		if (!hints)
			return scx_fail("out of memory");
	}
	if (emitter_init(&e, opts, out, res, hints) < 0) {
		emitter_free(&e);
		hints_free(hints);
		return -1;
	}
	e.trace = trace;
	if (opts->in->mem_kind == MEM_PERF_DATA)
		rc = mem_perfdata_read(&e);
	else
		rc = mem_script_read(&e);
	hints_get_stats(hints, &res->hints);
	if (rc == 0) {
		hint_warnings(opts, res);
		if (res->lost_events || res->lost_samples)
			process_warn(res, "the kernel reported %llu lost events and %llu lost samples "
				     "while recording", (unsigned long long)res->lost_events,
				     (unsigned long long)res->lost_samples);
	}
	emitter_free(&e);
	hints_free(hints);
	if (rc == 0 && opts->in->sched_kind != SCHED_IN_NONE && !opts->mem_only)
		rc = process_sched(opts, out->sched_jsonl, trace, res);
	return rc;
}

int process_run(const struct process_opts *opts, struct process_outputs *out, struct process_result *res)
{
	struct pftrace *trace = NULL;
	int rc;

	memset(res, 0, sizeof(*res));
	res->kallsyms_source = "none";
	if (out->trace && !(trace = open_trace(opts->in, out->trace)))
		return -1;
	rc = run_streams(opts, out, res, trace);
	if (rc == 0 && trace && (rc = pftrace_finish(trace)) == 0)
		trace_result(trace, res);
	pftrace_free(trace);
	return rc;
}
