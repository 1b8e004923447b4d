/*
 * sharing.h - the contract of extract/sharing/: from aggregated samples to
 * a cell config: the config's data structure and printer (cell_config.c)
 * and its reader for `scxprof place` (cell_config_read.c),
 * the comm summaries and upstream's units (sharing_units.c), the -v/-vv report
 * (sharing_report.c), and the sharing-aware clustering of the units with its
 * evidence (sharing.c, sharing_evidence.c, sharing_lines.c, sharing_log.c).
 * The rest of extract includes nothing else from this room.
 */
#ifndef SCX_EXTRACT_SHARING_H
#define SCX_EXTRACT_SHARING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "extract/mem/mem_agg.h"

struct reader_limits;

/* ---- cell_config.c: the cell config extract mem prints: a list of top-level
 * cells (one per group kind present: allotment, workload, rest), each with
 * optional subcells. Subcell `matches` is a list of clauses (OR), each a
 * list of conditions (AND): CommPrefix and optionally Hint.
 *
 * cell_config_write() prints it exactly as upstream's
 * serde_json::to_string_pretty followed by a newline (2-space indent,
 * "key": value, [] and {} for empty containers), so configs compare
 * byte for byte.
 */
struct cell_clause {
	char *comm_prefix; /* NULL: the empty clause (matches anything) */
	bool has_hint;
	uint64_t hint;
};

enum cell_top_match { TOP_NONE, TOP_CGROUP_REGEX, TOP_CGROUP_CONTAINS, TOP_EMPTY };

struct cell {
	char *name;
	enum cell_top_match top;  /* top-level cells: their simple matcher */
	char *top_value;          /* CgroupRegex / CgroupContains value */
	struct cell_clause *clauses; /* subcells: matches */
	size_t nr_clauses;
	struct cell *subcells;
	size_t nr_subcells;
};

struct cell_config {
	struct cell *cells;
	size_t nr_cells;
};

/* Append helpers (copy strings); return NULL / -1 on OOM (scx_fail). */
struct cell *cell_config_add_subcell(struct cell *parent, const char *name);
struct cell *cell_config_add(struct cell_config *c, const char *name, enum cell_top_match top,
			     const char *value);
int cell_config_add_clause(struct cell *c, const char *comm_prefix, bool has_hint, uint64_t hint);
void cell_config_free(struct cell_config *c);

/* Print the config (pretty JSON + "\n"). -1 (scx_fail) on write error. */
int cell_config_write(const struct cell_config *c, FILE *f);
/*
 * The same, only when the printed config meets the reader's rules
 * (cell_config_check.c; l NULL: reader_limits_default) but for Hint terms,
 * which --use-hints writes on purpose: else nothing is written and -1
 * (scx_fail: "NAME: the config would break ...", the first problem).
 */
int cell_config_write_checked(const struct cell_config *c, const struct reader_limits *l, const char *name, FILE *f);

/* ---- cell_config_read.c: reading back the cell config extract prints
 * (extract/sharing/sharing.h), for `scxprof place`: a JSON array of top-level
 * cells, each {"name": S, "matches": {"CgroupRegex": S} | {"CgroupContains":
 * S} | {}, "subcells": [...]?}, each subcell {"name": S, "matches":
 * [[{"CommPrefix": S}?, {"Hint": U64}?], ...]} (clauses OR, conditions
 * AND; an empty clause matches anything). Unknown keys, a subcell with
 * subcells, a Hint that is not an unsigned 64-bit integer or a string with
 * a NUL in it are refused, and so is text the reader's JSON parser
 * refuses (not UTF-8, a lone surrogate escape: cell_config_reader_text):
 * the config a scheduler would read must be the one placed.
 */
/* Largest config file read. */
#define CELL_CONFIG_MAX_BYTES (64u << 20)

/* Read the config at path into *c (freed by cell_config_free). -1 (scx_fail naming path and what is wrong) on error. */
int cell_config_read(const char *path, struct cell_config *c);

/* ---- reader_rules.c: the rules and limits of the scheduler that reads
 * the config, in one table. READER_DEFAULT is scx_mitosis --cell-config as
 * of sched-ext/scx branch mitosis-next at 1be7d9fea (src/config.rs, the
 * limits in src/bpf/intf.h): at most 8 subcells per cell, the catch-all
 * included; 4 OR groups per subcell; 4 AND terms per group; a CommPrefix is
 * cut to 15 bytes (MAX_COMM 16, NUL included) and may hold no NUL; the only
 * term is CommPrefix; a cell's "matches" is an object; only the last spec
 * may be a catch-all; CgroupRegex is Rust `regex` syntax, matched against
 * the cgroup's absolute path (/sys/fs/cgroup/...). Another reader's limits:
 * reader_limits_parse("subcells=8,or=4,and=4,prefix=15").
 */
#define READER_DEFAULT_NAME "scx_mitosis mitosis-next 1be7d9fea"
#define READER_CGROUP_ROOT "/sys/fs/cgroup"

struct reader_limits {
	char name[64];         /* named in every message */
	unsigned subcells;     /* per cell, the catch-all included */
	unsigned or_groups;    /* per subcell */
	unsigned and_terms;    /* per OR group */
	unsigned prefix_bytes; /* a CommPrefix longer than this is cut */
};

extern const struct reader_limits reader_limits_default;

/* "subcells=N,or=N,and=N,prefix=N" (any of them, any order; the others
 * stay the default's) into *out. -1 (scx_fail naming the bad part). */
int reader_limits_parse(const char *spec, struct reader_limits *out);

/*
 * The first construct of a CgroupRegex that the reader (Rust regex, on
 * /sys/fs/cgroup/... paths) refuses or reads otherwise than PCRE2 on a
 * recorded path: look-around, backreferences, possessive quantifiers,
 * atomic groups, \K and the other PCRE-only escapes, recursion,
 * conditionals, verbs, callouts, comments, PCRE-only flags, \v \< \> (a
 * class or an assertion in Rust, not in PCRE), and a ^ or \A anchor not
 * followed by /sys/fs/cgroup. NULL when none; else a static one-line
 * description ("look-ahead (?=...)"), *at its byte offset.
 */
const char *reader_regex_problem(const char *re, size_t *at);

/* The same for a CgroupContains string: NULL, or why the reader matches it
 * otherwise (it is found in every cgroup's /sys/fs/cgroup/ prefix). */
const char *reader_contains_problem(const char *s);

/* ---- cell_config_check.c: a config file checked against the reader's
 * rules, as the reader parses it (serde over the JSON), one call of fn per
 * problem: where ("cell[0] \"allotment\" subcell[2] \"a-+b-\"", "" for
 * the whole file), rule (a short name: "cell-matches", "catch-all-cell",
 * "subcells", "or-groups", "and-terms", "term", "hint-term",
 * "prefix-nul", "prefix-length", "regex", "name", "unknown-key",
 * "catch-all-subcell", "no-match", "specs", "type", "utf-8") and what is
 * wrong. Unknown keys are a problem although the reader ignores them: a
 * misspelt key silently changes what the config means.
 */
typedef int (*reader_problem_fn)(void *ctx, const char *where, const char *rule, const char *what);

struct cell_config_summary {
	size_t specs, subcells, catch_all_specs;
};

/* The number of problems (fn called for each; fn returning -1 stops with
 * -1), or -1 (scx_fail naming name) when buf is not JSON. sum may be NULL. */
long cell_config_check_buf(const char *name, const char *buf, size_t n, const struct reader_limits *l,
			   reader_problem_fn fn, void *ctx, struct cell_config_summary *sum);
/* The text of a config as the reader's JSON parser (serde_json) takes it:
 * UTF-8 only, no lone surrogate escape. 0, or -1 (scx_fail: "NAME: not
 * UTF-8 at byte N ..."); both readers here (check's, place's) call it. */
int cell_config_reader_text(const char *name, const char *buf, size_t n);
/* The same on a file (at most CELL_CONFIG_MAX_BYTES). */
long cell_config_check_file(const char *path, const struct reader_limits *l, reader_problem_fn fn, void *ctx,
			    struct cell_config_summary *sum);

/* ---- sharing_units.c: upstream's comm-level view of a set of groups: comms
 * normalized by stripping trailing ASCII digits, with their concrete comms
 * and hint values (comm_summary), and the significant "units" upstream
 * turns into subcells (a normalized comm above 5% of the group's samples,
 * split into NAME@hint=H units with --use-hints), each with its match
 * clauses. The report (-v) and both clustering modes start from these.
 */
/* Upstream's significance threshold: strictly above 5% of the samples. */
#define SIGNIFICANT_PCT 5.0

struct name_count {
	char *name;
	uint64_t count;
	bool folded; /* the concretes beyond MEM_AGG_CONCRETES_MAX of a name (name: the normalized comm) */
};

struct hint_count {
	uint64_t hint, count;
	bool other; /* hints folded by the name bound (extract/mem/mem_agg.h): never a unit */
};

struct comm_ref {
	size_t group, comm; /* indexes into mem_agg groups / their comms */
};

struct norm_comm {
	char *name; /* normalized comm */
	uint64_t count;
	struct name_count *concretes; /* one per distinct concrete comm */
	size_t nr_concretes;
	struct hint_count *hints;     /* one per distinct hint value */
	size_t nr_hints;
	struct comm_ref *srcs;        /* the comm_recs it was built from */
	size_t nr_srcs;
};

struct comm_summary {
	struct norm_comm *comms;
	size_t nr;
	uint64_t total; /* samples of all the groups summarized */
};

/* Summarize the groups whose indexes are listed. -1 on OOM. */
int sharing_summary_build(const struct mem_agg *a, const size_t *groups, size_t nr_groups,
		       struct comm_summary *out);
/* Report order: comms by count (desc) then name; concretes and hints likewise by count. */
void sharing_summary_sort_by_count(struct comm_summary *s);
/* Config order: comms, concretes and hints by name / value. */
void sharing_summary_sort_by_name(struct comm_summary *s);
void sharing_summary_free(struct comm_summary *s);

/* True when count is strictly above pct% of total, computed as upstream does (pct 5). */
bool sharing_is_significant(uint64_t count, uint64_t total, double pct);

struct unit {
	char *name;                 /* "web" or "alpha@hint=7" */
	struct cell_clause *clauses;
	size_t nr_clauses;
	uint64_t count;             /* samples of the unit */
	const struct norm_comm *comm;
	bool by_hint;               /* only the samples with this hint */
	uint64_t hint;
};

struct unit_list {
	struct unit *v;
	size_t n;
};

/*
 * Upstream's subcells of a summary (which must be sorted by name): each
 * normalized comm above min_share percent (upstream: SIGNIFICANT_PCT), or
 * with use_hints its hint values above min_share percent of the comm when
 * it has more than one. -1 on OOM.
 */
int sharing_upstream_units(const struct comm_summary *s, bool use_hints, double min_share, struct unit_list *out);
void sharing_unit_list_free(struct unit_list *u);



/*
 * Indexes of all groups in upstream's order: allotment matches by name,
 * then the workload group, then rest. Caller frees; NULL on OOM (or when
 * there are no groups, with *n == 0).
 */
size_t *sharing_groups_in_order(const struct mem_agg *a, size_t *n);
/* Indexes of the groups of one kind, in the same order. */
size_t *sharing_groups_of_kind(const struct mem_agg *a, enum group_kind kind, size_t *n);

/* ---- sharing.c, sharing_evidence.c, sharing_lines.c, sharing_log.c: sharing-aware clustering of extract mem's units.
 *
 * Evidence (extract/mem/mem_agg.h): per unit, the keys (data identity, time epoch) it
 * touched with their summed weight and sample count. Two units share an
 * identity when both touched it in the same or adjacent epochs. Each
 * shared key counts with idf(k) / idf_max, idf = ln((N + 1) / df) where df
 * is how many of the N units touched the identity, so memory nearly every
 * unit touches (allocator, kernel) weighs little. share(a, b) = a's
 * weight on keys shared with b (idf-weighed) / a's total weight, and the
 * affinity is sqrt(share(a, b) x share(b, a)): it grows with the part of
 * each unit's memory that is shared, so one common sample out of 10,000
 * scores 1e-4, not 1. A pair with fewer than min_keys shared identities
 * or min_samples samples on them (either side) scores 0.
 * Clusters are merged bottom-up with average linkage (UPGMA) while the
 * best affinity is above the threshold; a merge whose CPU demand (share of
 * all samples x online CPUs) would exceed the cap is refused and the next
 * best pair is tried. docs/clustering.md has the evidence for defaults.
 */
/* Defaults; docs/clustering.md says how they were chosen. */
#define SHARE_THRESHOLD_DEFAULT 0.065
#define SHARE_MIN_KEYS_DEFAULT 4
#define SHARE_MIN_SAMPLES_DEFAULT 8
/* Line evidence: the window (epochs of EV_EPOCH_NS either side) and the
 * confidence of the decision (one-sided, in standard deviations). */
#ifndef SHARE_WINDOW_EPOCHS
#define SHARE_WINDOW_EPOCHS 15
#endif
#define SHARE_Z_DEFAULT 2.326

struct sharing_params {
	double threshold;       /* merge while average affinity > threshold */
	double cap_cpus;        /* max CPU demand of a merged cluster */
	double online_cpus;     /* demand = samples / total_samples * online_cpus */
	uint64_t total_samples; /* all samples of the input */
	uint64_t fault_samples; /* of them, page-fault samples: more than half makes the evidence first touches */
	const double *demand;   /* per unit of the call (CPUs), NULL: the sample share above */
	size_t min_keys;        /* least shared identities for a non-zero affinity (sharing_enough_evidence) */
	uint64_t min_samples;   /* least samples on them, on each side */
	unsigned window;        /* line evidence: epochs either side (0: SHARE_WINDOW_EPOCHS) */
	double z;               /* line evidence: confidence (0: SHARE_Z_DEFAULT) */
	bool keep_undecided;    /* sharing_cluster hands out the pairs that cannot tell (clustering.undecided) */
};

struct unit_cluster {
	size_t *members; /* unit indexes, sorted by unit name */
	size_t n;
	double demand;
	/* the merges that built it, in the clustering's order (n - 1 of them;
	 * none from sharing_cluster_matrix, which has no evidence vectors) */
	struct sharing_merge *merges;
	size_t nmerges;
	/* mean and least affinity of its member pairs in the units' matrix
	 * (sharing_cluster_pair_affinity; 0 for a cluster of one unit) */
	double mean_pair_affinity, min_pair_affinity;
};

struct clustering {
	struct unit_cluster *v; /* ordered by their first unit (upstream order) */
	size_t n;
	double *unit_aff;       /* the units' affinity matrix the clustering started from (units x units) */
	size_t nr_units;
	/*
	 * sharing_cluster with p->keep_undecided: the unit pairs whose line
	 * evidence cannot tell (-v's "cannot tell" pairs), a < b in unit order,
	 * each with its evidence; and the samples' span, in seconds, that -v's
	 * "more recording would decide" figures take (sharing_log_line_detail)
	 */
	struct sharing_pair *undecided;
	size_t nr_undecided;
	double duration_s;
};

/* A merged subcell's name: its members' names joined with "+" (malloc'ed;
 * NULL when memory is short). */
char *sharing_cluster_name(const struct unit_list *u, const struct unit_cluster *c);
/* c's mean_pair_affinity and min_pair_affinity from the n x n unit matrix aff (none for one member). */
void sharing_cluster_pair_affinity(struct unit_cluster *c, const double *aff, size_t n);

/* One unit's evidence as a sparse vector sorted by key (identity, then epoch). */
struct evidence {
	uint64_t *keys;
	double *w;          /* scaled weight per key */
	uint64_t *samples;  /* samples per key */
	size_t n;
	double total;       /* all the unit's weight */
};

int sharing_evidence_of_unit(const struct mem_agg *a, const struct unit *u, struct evidence *e);
void sharing_evidence_free(struct evidence *e);

/*
 * Line evidence (extract/sharing/sharing_lines.c; docs/clustering.md "Estimator").
 * For the line keys (A:/F: data) of two units a and b:
 *   n_a          a's samples on line keys;
 *   na_r         a's samples in regions b touched too (a process's private
 *                memory, a file or shm object);
 *   ja           a's samples in blocks (2 MiB of a region) b touched too (J);
 *   ha           a's samples on a line b was sampled on within the window;
 *   ra           a's samples in J whose line a was sampled on again within
 *                the window (its recapture rate: ra / ja is a's coverage);
 *   ra_blk       a's samples in common regions whose block a sampled again.
 * f_a = ha x jb / (n_a x rb) estimates the share of a's accesses that go to
 * lines b uses, whatever the density (f_b likewise); f = sqrt(f_a x f_b).
 * low / high: f from Poisson bounds of the counts at z (high also bounded
 * by the same estimate at block level). shared: low > floor; apart: high
 * <= floor, or no common region; else cannot tell, and more = how many
 * times the counts would have to grow for a verdict (0: not within 10^6).
 *
 * The estimate needs samples that are a random subset of the accesses.
 * Two cases say they are not, and then the pair cannot tell whatever the
 * counts (unsampled; more 0, since more of the same samples would not
 * help): the recaptures contradict the block bound (low above high), or
 * the samples are first touches (page faults: first_touch, set by the
 * caller) and one side has no line sampled twice, so its coverage is
 * unknown. A page-fault sample is taken when a process maps a page: its
 * own first touch of it, never its later accesses, and threads of one
 * process fault once between them. hits / n is then the share of a's
 * first touches on lines b also touched (footprint overlap, f_touch), not
 * the share of its accesses. docs/clustering.md, "First touches".
 */
enum sharing_verdict { SHARING_APART, SHARING_CANNOT_TELL, SHARING_SHARED };

struct line_estimate {
	uint64_t n_a, n_b, na_r, nb_r, ja, jb, ha, hb, ra, rb, ra_blk, rb_blk;
	uint64_t lines; /* distinct lines both were sampled on within the window */
	double f_a, f_b, f, low, high, more;
	double wa, wb;  /* weight of a's / b's samples counted in ha / hb */
	bool first_touch; /* in: the samples are page faults (sharing_params_first_touch) */
	bool unsampled;   /* out: not a random subset of accesses (see above): cannot tell */
	double f_touch;   /* out, with unsampled: sqrt(ha / n_a x hb / n_b), the footprint overlap */
	enum sharing_verdict verdict;
};

/* Are p's samples first touches (page faults are more than half of them)? */
bool sharing_params_first_touch(const struct sharing_params *p);

/* What two units share (see above). */
struct pair_evidence {
	size_t keys;                  /* shared identities (pages; lines for line keys) */
	uint64_t samples_a, samples_b; /* samples of a / b on them */
	double share_a, share_b;      /* part of a's / b's weight on them (no idf) */
	double affinity;              /* what the clustering uses (see sharing_affinity_matrix_df) */
	double page_affinity;         /* the affinity of the keys without lines (K:, no data_id) */
	double page_wa, page_wb;      /* a's / b's idf-weighed weight on the shared keys without lines */
	struct line_estimate line;
};

/* Two units of a cell (unit indexes, a < b) and their evidence. */
struct sharing_pair {
	size_t a, b;
	struct pair_evidence pe;
};

#define SHARING_LINK_OBJECTS 3

/*
 * One merge of the clustering, as -v explains it ("merge A + B: affinity,
 * demand", then its strongest link): the two clusters' average affinity and
 * their CPU demand together; the member pair of the highest unit affinity
 * (x in the first, y in the second) with its evidence; and the data objects
 * (data_map data_sym) of the identities x shares with y, by x's weight on
 * them, heaviest first.
 */
struct sharing_merge {
	double affinity, demand;
	size_t x, y;                 /* unit indexes */
	struct pair_evidence pe;
	struct {
		size_t obj;              /* mem_agg's object index + 1; 0: no data_map */
		double weight;           /* x's weight on it */
	} obj[SHARING_LINK_OBJECTS];
	size_t nobj;
	double obj_total;            /* x's weight on all the shared objects */
};

/* df of every identity over n units: ident -> number of units. -1 on OOM. */
int sharing_evidence_df(const struct evidence *ev, size_t n, struct u64map *df);
/*
 * The minimum evidence for a non-zero affinity: at least min_samples
 * samples a side on the shared data, and either min_keys shared identities
 * or, on fewer, at least min_keys x min_samples samples a side (one hot
 * structure two threads hammer all the time is no coincidence).
 */
bool sharing_enough_evidence(const struct pair_evidence *pe, size_t min_keys, uint64_t min_samples);

/* a ~ b's evidence (struct pair_evidence) of n units' df, the line evidence
 * decided at p's threshold (floor), window and z. */
void sharing_pair_evidence_at(const struct evidence *a, const struct evidence *b, const struct u64map *df, size_t n,
			      const struct sharing_params *p, struct pair_evidence *out);

/*
 * Affinity matrix (n x n, row-major, diagonal 1) of n units' evidence, with
 * their df (sharing_evidence_df): the page affinity described above over
 * keys without lines, or, when larger, the line estimate f of a pair whose
 * verdict is shared. Caller frees. NULL on OOM.
 */
double *sharing_affinity_matrix_df(const struct evidence *ev, size_t n, const struct u64map *df,
				   const struct sharing_params *p);

/* The line estimate of a and b (see struct line_estimate); window in epochs, floor, z. */
void sharing_line_estimate(const struct evidence *a, const struct evidence *b, unsigned window, double floor,
			   double z, bool first_touch, struct line_estimate *o);
/*
 * One side of o (a's, or b's with side_b): the share of its accesses on
 * lines the other uses (f_a), with bounds at z as in the verdict (high
 * also bounded at block level); all 0 without data in common, f and low 0
 * when unsampled.
 */
void sharing_line_side(const struct line_estimate *o, bool side_b, double z, double *f, double *lo, double *hi);
/* The bounds, verdict and "more" of o's counts (set by sharing_line_estimate, or summed over recordings;
 * o->first_touch as the caller sets it). */
void sharing_line_decide(struct line_estimate *o, double floor, double z);
/* The index of e's first line key (e->n when none). */
size_t sharing_first_line_key(const struct evidence *e);
const char *sharing_verdict_name(enum sharing_verdict v);
/* -v: the line estimate of a pair in one line (nothing when they have no common data). */
void sharing_log_line_detail(FILE *log, const char *indent, const struct pair_evidence *pe,
			     const struct sharing_params *p, double duration_s);
/* -v: the top 10 pairs of pe (n x n, upper triangle) and every pair the samples cannot decide. */
int sharing_log_pairs(FILE *log, const struct unit_list *u, const struct pair_evidence *pe, size_t n,
		      const struct sharing_params *p, double duration_s);
/* One-sided Poisson bounds of a count at z standard deviations. */
double sharing_poisson_low(double x, double z);
double sharing_poisson_high(double x, double z);

/*
 * Cluster the units of one cell. When log is not NULL, explain the top
 * shared pairs, each merge and each refused merge into it. -1 on OOM.
 */
int sharing_cluster(const struct mem_agg *a, const struct unit_list *units, const struct sharing_params *p,
		    const char *cell_name, FILE *log, struct clustering *out);
/*
 * The same clustering on a given unit x unit affinity matrix (n x n; p->demand
 * per unit must be set), for evidence combined over recordings
 * (extract/evidence/evidence_merge.c). log: the merges, without link details.
 */
int sharing_cluster_matrix(const struct unit_list *units, const double *aff, const struct sharing_params *p,
			   FILE *log, struct clustering *out);
void sharing_clustering_free(struct clustering *c);

/* ---- reader_fit.c: one cell's clustering fitted to the reader's limits.
 * A subcell with more CommPrefix terms than l->or_groups: its terms are
 * merged into shorter prefixes, the longest common prefix of two terms
 * first, each one only when every comm seen in the cell that starts with it
 * is one of the subcell's own (comms: all concrete comms of the cell,
 * rest's included; NULL: no shortening, as for evidence files, which do not
 * list them; never with Hint terms); when that cannot fit it, the subcell
 * is split: its units merged again, the pair of parts with the most summed
 * affinity between them first, while the merged part fits. A unit that
 * alone cannot fit keeps its first terms. Then, past l->subcells - 1
 * subcells, the least valuable go to the catch-all: value = demand x (1 +
 * the summed pairwise affinity of its units), the lowest first (ties: the
 * name last in order). Each change is a choice (kind, the clustering's
 * subcell name, what was done and why).
 */
struct fit_input {
	const struct unit_list *u;     /* names, clauses, sample counts */
	const double *demand;          /* per unit, CPUs; NULL: the units' sample counts */
	const double *aff;             /* units x units affinity; NULL: none known */
	const char *const *comms;      /* every comm seen in the cell; NULL: no shortening */
	size_t nr_comms;
	const struct reader_limits *l;
};

struct fit_sub {
	char *name;                    /* its units' names joined with "+" */
	size_t *members, n;            /* unit indexes, ascending */
	struct cell_clause *clauses;   /* what the subcell matches */
	size_t nr_clauses;
	double demand, inner_aff;
};

enum fit_kind { FIT_SHORTENED, FIT_SPLIT, FIT_FOLDED, FIT_TRUNCATED };

struct fit_choice {
	enum fit_kind kind;
	char *subcell;                 /* the subcell the clustering wanted */
	char *detail;                  /* one line: what was done and why */
	double value;                  /* folded: its value; split: the affinity cut */
};

struct cell_fit {
	struct fit_sub *v;             /* the subcells to write, in the clustering's order */
	size_t n;
	struct fit_choice *choices;
	size_t nr_choices;
};

/* -1 (scx_fail) on OOM. */
int reader_fit_cell(const struct fit_input *in, const struct clustering *cl, struct cell_fit *out);
void reader_fit_sub_free(struct fit_sub *s);
void reader_fit_free(struct cell_fit *f);
const char *reader_fit_kind_name(enum fit_kind k);

/* The choices of every cell of a config, for -v, --llc-json and the report. */
struct reader_fit_entry {
	char *cell, *subcell, *detail;
	enum fit_kind kind;
	double value;
};

struct reader_fit_log {
	char reader[64];               /* the limits' name */
	struct reader_fit_entry *v;
	size_t n;
};

/* Append f's choices as the cell's. -1 (scx_fail) on OOM. */
int reader_fit_log_add(struct reader_fit_log *log, const char *cell, const struct cell_fit *f);
void reader_fit_log_free(struct reader_fit_log *log);

/* ---- allotment_specs.c: one spec per recorded allotment, and -v's note
 * when the allotment cgroups (groups[0..n) of a, the allotment cell's) run
 * different programs.
 *
 * allotment_specs_build() appends to out one top-level cell per recorded
 * allotment (not the folded record): named by its cgroup, CgroupRegex
 * /KEY(/|$), only the fitted subcells it ran, then rest. -1 (scx_fail) on OOM.
 * allotment_specs_note() says which fitted subcells each one ran and prints
 * specs (what allotment_specs_build made) to use instead of the allotment
 * spec; nothing when they all run every subcell. -1 on a write error.
 */
int allotment_specs_build(struct cell_config *out, const struct mem_agg *a, const size_t *groups, size_t nr_groups,
			  const struct unit_list *u, const struct cell_fit *f);
int allotment_specs_note(FILE *log, const struct mem_agg *a, const size_t *groups, size_t nr_groups,
			 const struct unit_list *u, const struct cell_fit *f, const struct cell_config *specs);

/* ---- allotment_configs.c: --per-allotment-config DIR: one config file per
 * per-allotment spec (DIR/CGROUP.json): cfg with its allotment cell (index
 * allot) replaced by that spec, each checked against l as the config is.
 * DIR must not exist; the files are written into a directory beside it,
 * renamed to DIR once all are written: all or nothing. The number written,
 * or -1 (scx_fail naming the path).
 */
long allotment_configs_write(const char *dir, const struct cell_config *cfg, size_t allot,
			     const struct cell_config *specs, const struct reader_limits *l);

/* ---- sharing_report.c: extract mem's -v/-vv report, upstream's exact text: the
 * total, then one block per group (allotment matches by name, the workload
 * group, rest) with its normalized comms, their hints (--use-hints) and,
 * with -vv, their concrete comms.
 */
/* Write the report for verbosity >= 1 into f. -1 on OOM. */
int sharing_report_write(FILE *f, const struct mem_agg *a, int verbosity, bool use_hints);

#endif
