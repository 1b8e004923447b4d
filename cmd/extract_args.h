/*
 * extract_args.h - extract mem's options, shared by `scxprof extract mem`
 * and `scxprof report` (which runs the same analysis): their option-table
 * entries, parsed into extract_mem_opts where the value is a field as it is,
 * and the strings and numbers that need reading into it.
 */
#ifndef SCX_CMD_EXTRACT_ARGS_H
#define SCX_CMD_EXTRACT_ARGS_H

#include <stdbool.h>

#include "cmd/opts.h"
#include "extract/extract.h"

struct extract_args {
	struct extract_mem_opts o; /* the options that are its fields; extract_args_finish completes it */
	const char *sched;         /* --sched FILE as given (o.sched_path: else the one next to o.path) */
	const char *threshold;     /* --share-threshold and --min-share: numbers extract_args_finish reads */
	const char *min_share;
	int cluster;               /* enum cluster_mode (extract_args_cluster_choices) */
	int line;                  /* --granularity line (extract_args_granularity_choices) */
	long max_cell_cpus;        /* a whole number of CPUs (o.max_cell_cpus is a double) */
	const char *mitosis_virt_llc;
	const char *reader_limits;   /* --reader-limits SPEC */
	struct reader_limits limits; /* what extract_args_finish parsed (o.limits points at it) */
};

/* --cluster's and --granularity's values */
extern const struct opt_choice extract_args_cluster_choices[];
extern const struct opt_choice extract_args_granularity_choices[];
extern const struct opt_choice extract_args_model_choices[];

#define SCX_STR_(x) #x
#define SCX_STR(x) SCX_STR_(x)

/* The option-table entries of every extract mem option but -f (a: a struct extract_args; vhelp: -v's help). */
#define EXTRACT_MEM_OPTIONS(a, vhelp)                                                                                     \
	OPT_STRING(0, "workload-cgroup-regex", &(a).o.workload, "S",                                                 \
		   "workload cgroup, a plain substring as upstream (default " EXTRACT_DEFAULT_WORKLOAD ")"),         \
	OPT_STRING(0, "workload-allotment-cgroup-regex", &(a).o.allotment_re, "RE",                                  \
		   "allotment cgroups, PCRE2 (default " EXTRACT_DEFAULT_ALLOTMENT_RE ")"),                           \
	OPT_FLAG(0, "use-hints", &(a).o.use_hints, "split units by hint value (NAME@hint=H)"),                       \
	OPT_COUNT('v', "verbose", &(a).o.verbose, vhelp),                                                  \
	OPT_ENUM(0, "cluster", &(a).cluster, "MODE", "sharing (default) or comm (upstream-exact)",                   \
		 extract_args_cluster_choices),                                                                           \
	OPT_ENUM(0, "granularity", &(a).line, "G", "sharing evidence: page (default) or line (64 B)",                \
		 extract_args_granularity_choices),                                                                       \
	OPT_STRING(0, "share-threshold", &(a).threshold, "X", "merge while affinity > X, 0..1 (default 0.065)"),     \
	OPT_INT(0, "max-cell-cpus", &(a).max_cell_cpus, "N",                                                         \
		"CPU demand cap of a merged cell (default: CPUs of the largest LLC)", 1, 1 << 20),                  \
	OPT_STRING(0, "sched", &(a).sched, "FILE",                                                                   \
		   "sched JSONL for CPU demand and -v sched stats (default: sched.jsonl or sched.jsonl.zst next to -f FILE, if not empty)"), \
	OPT_STRING(0, "topology", &(a).o.topology, "FILE|host",                                                      \
		   "topology.json whose LLCs and nodes the cross-LLC figures and the default cap use, or host for "    \
		   "this machine's (default: the recording's: topology.json next to -f FILE, else a perf.data's "      \
		   "headers)"),                                                                                        \
	OPT_INT(0, "max-names", &(a).o.max_names, "K",                                                               \
		"names counted per group: more than 1/(K+1) of a group's samples is never folded (default 1024)",  \
		20, 1L << 24),                                                                                       \
	OPT_INT(0, "max-groups", &(a).o.max_groups, "K",                                                             \
		"allotment groups counted: more than 1/(K+1) of the allotment samples is never folded (default 1024)", \
		1, 1L << 18),                                                                                        \
	OPT_INT(0, "evidence-keys", &(a).o.max_keys, "N",                                                       \
		"pages kept for all units before sampling them down (default 1048576)", 64, 1L << 32),              \
	OPT_STRING(0, "min-share", &(a).min_share, "PCT",                                                            \
		   "a comm is a unit above PCT% of its group's samples (default 5, as upstream)"),                   \
	OPT_INT(0, "min-shared-keys", &(a).o.min_keys, "N",                                                          \
		"least shared data pages for a merge, fewer with N x the samples below (default " \
		SCX_STR(SHARE_MIN_KEYS_DEFAULT) ")", 1,                                                              \
		1L << 30),                                                                                           \
	OPT_INT(0, "min-shared-samples", &(a).o.min_samples, "N",                                                    \
		"least samples on them, each side (default " SCX_STR(SHARE_MIN_SAMPLES_DEFAULT) ")", 1, 1L << 30),     \
	OPT_ENUM(0, "sched-model", &(a).o.sched_model, "M",                                                          \
		 "the predicted cross-LLC figures: mitosis (default: scx_mitosis's layout) or packing (subcells "     \
		 "packed into LLCs)", extract_args_model_choices),                                                 \
	OPT_FLAG(0, "mitosis-rebalancing", &(a).o.mitosis_rebalancing,                                               \
		 "the scx_mitosis model runs with --enable-rebalancing (sizes by utilisation)"),                    \
	OPT_FLAG(0, "mitosis-no-llc-awareness", &(a).o.mitosis_no_llc_aware,                                         \
		 "the scx_mitosis model runs without --enable-llc-awareness"),                                       \
	OPT_STRING(0, "mitosis-virt-llc", &(a).mitosis_virt_llc, "MIN-MAX",                                          \
		   "the scx_mitosis model runs with --virt-llc MIN-MAX (cores per virtual LLC)"),                     \
	OPT_STRING(0, "reader-limits", &(a).reader_limits, "SPEC",                                                   \
		   "subcells=N,or=N,and=N,prefix=N: the config reader's limits (default " READER_DEFAULT_NAME        \
		   "'s 8,4,4,15)"),                                                                                   \
	OPT_FLAG(0, "order-subcells", &(a).o.order_subcells,                                                         \
		 "write each cell's subcells in the order that minimises the predicted cross-LLC share on "          \
		 "scx_mitosis's layout (costs the cross-LLC step's time without -v too)")

/* sched.jsonl (or sched.jsonl.zst) in the directory of file when it is there and not
 * empty, else NULL (static buffer) */
const char *extract_args_sched_next_to(const char *file);

/* a->o with a->o.path set: its fields from the options that need reading (sched.jsonl next to
 * o.path unless --sched) and the checks; -1 after printing "scxprof CMD: ..." */
int extract_args_finish(const char *cmd, struct extract_args *a);

#endif
