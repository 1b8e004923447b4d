/*
 * extract_args.c - extract mem's options shared by `scxprof extract mem` and
 * `scxprof report` (see extract_args.h): the --cluster and --granularity
 * choices, and the checks and conversions that complete extract_mem_opts.
 */
#include "cmd/extract_args.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/signals.h"
#include "extract/extract.h"
#include "lib/error.h"
#include "llc/llc.h"

const struct opt_choice extract_args_cluster_choices[] = {{"comm", CLUSTER_COMM}, {"sharing", CLUSTER_SHARING}, {NULL, 0}};
const struct opt_choice extract_args_granularity_choices[] = {{"page", 0}, {"line", 1}, {NULL, 0}};
const struct opt_choice extract_args_model_choices[] = {{"mitosis", LLC_MODEL_MITOSIS}, {"packing", LLC_MODEL_PACKING},
							  {NULL, 0}};

/* --mitosis-virt-llc MIN-MAX: 1 <= MIN <= MAX (scx_utils' rule). */
static int parse_virt_llc(const char *cmd, const char *val, unsigned *min, unsigned *max)
{
	unsigned long a, b;
	char *end;

	errno = 0;
	a = strtoul(val, &end, 10);
	if (end == val || *end != '-' || errno)
		goto bad;
	val = end + 1;
	b = strtoul(val, &end, 10);
	if (end == val || *end || errno || !a || a > b || b > 4096)
		goto bad;
	*min = (unsigned)a;
	*max = (unsigned)b;
	return 0;
bad:
	fprintf(stderr, "scxprof %s: --mitosis-virt-llc: want MIN-MAX cores, 1 <= MIN <= MAX <= 4096\n", cmd);
	return -1;
}

static int parse_number(const char *cmd, const char *opt, const char *val, double max, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(val, &end);
	if (errno || end == val || *end || !(*out >= 0 && *out <= max)) {
		fprintf(stderr, "scxprof %s: %s: '%s' is not a number from 0 to %g\n", cmd, opt, val, max);
		return -1;
	}
	return 0;
}

const char *extract_args_sched_next_to(const char *file)
{
	static char path[PATH_MAX];
	static const char *const names[] = {"sched.jsonl", "sched.jsonl.zst"};
	const char *slash;
	struct stat st;

	if (!strcmp(file, "-"))
		return NULL;
	slash = strrchr(file, '/');
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (slash)
			snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - file), file, names[i]);
		else
			snprintf(path, sizeof(path), "%s", names[i]);
		if (stat(path, &st) == 0)
			return st.st_size > 0 ? path : NULL; /* an empty one: no sched recorded */
	}
	return NULL;
}

int extract_args_finish(const char *cmd, struct extract_args *a)
{
	struct extract_mem_opts *o = &a->o;

	o->share_threshold = -1;
	if (a->threshold && parse_number(cmd, "--share-threshold", a->threshold, 1, &o->share_threshold) < 0)
		return -1;
	if (a->min_share && parse_number(cmd, "--min-share", a->min_share, 100, &o->min_share) < 0)
		return -1;
	o->max_cell_cpus = (double)a->max_cell_cpus;
	o->cluster = (enum cluster_mode)a->cluster;
	o->line_granularity = a->line;
	/* --sched FILE, else sched.jsonl (or process -z's sched.jsonl.zst) in the
	 * directory of -f FILE when it exists, else NULL */
	o->sched_path = a->sched ? a->sched : extract_args_sched_next_to(o->path);
	o->stop = (volatile int *)&cmd_interrupted;
	o->step = &llc_extract_step; /* the cross-LLC figures (llc/) */
	if (a->mitosis_virt_llc && parse_virt_llc(cmd, a->mitosis_virt_llc, &o->mitosis_vllc_min, &o->mitosis_vllc_max) < 0)
		return -1;
	if (o->mitosis_vllc_min && o->mitosis_no_llc_aware) {
		fprintf(stderr, "scxprof %s: --mitosis-virt-llc needs LLC awareness (scx_mitosis refuses --virt-llc "
				"without --enable-llc-awareness)\n", cmd);
		return -1;
	}
	a->limits = reader_limits_default;
	if (a->reader_limits && reader_limits_parse(a->reader_limits, &a->limits) < 0) {
		fprintf(stderr, "scxprof %s: %s\n", cmd, scx_errmsg());
		return -1;
	}
	o->limits = &a->limits;
	if (extract_mem_check_opts(o) < 0) {
		fprintf(stderr, "scxprof %s: %s\n", cmd, scx_errmsg());
		return -1;
	}
	return 0;
}
