/*
 * mem_agg.h - the contract of extract/mem/: reading perf.jsonl and aggregating
 * its samples, what the rest of extract (and pipeline/, report/) takes from
 * this room: the line scanner (jsonl_scan.c), the name a comm counts under
 * (comm_name.c) and the streaming aggregation (mem_agg.c and its parts
 * mem_agg_fold.c, mem_agg_key.c, mem_agg_shard.c). heavy_hitters.h (the
 * Misra-Gries table the aggregation's records embed) is part of the contract
 * through this header; mem_agg_internal.h is the room's own.
 */
#ifndef SCX_EXTRACT_MEM_ROOM_H
#define SCX_EXTRACT_MEM_ROOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "extract/mem/heavy_hitters.h"
#include "lib/strmap.h"
#include "lib/u64map.h"

/* ---- jsonl_scan.c: a small dedicated scanner for one line of perf.jsonl
 * (ours, with extra keys) or upstream's perf.mem.jsonl.
 *
 * It walks the top-level object once, decodes only the keys extract needs
 * (comm, tid, pid, cgroup, phys_addr, addr, data_page_size, hint, weight, cpu,
 * time / time_ns, data_id, data_map, data_sym, data_src.hitm/snoop) and
 * checks the syntax of every other value without building anything. String
 * escapes in comm and cgroup (\" \\ \/ \b \f \n \r \t, \uXXXX including
 * surrogate pairs) are decoded to UTF-8 in place, inside the line buffer.
 */
struct mem_sample {
	const char *comm;      /* points into the line, decoded, not NUL-terminated */
	size_t comm_len;
	const char *cgroup;
	size_t cgroup_len;
	int64_t tid, pid;
	uint64_t phys_addr;
	uint64_t addr;            /* virtual data address ("addr", hex string); 0 when absent */
	uint64_t data_page_size; /* 0: unknown */
	uint64_t hint;           /* 0 when the key is absent, as upstream */
	uint64_t weight;         /* load latency when has_weight */
	bool has_weight;
	uint64_t time_ns;        /* time_ns, else "time" (seconds) in ns; 0 when absent */
	const char *data_id;     /* NULL when absent or null (then the physical page is the key) */
	size_t data_id_len;
	const char *data_map;    /* mapping name, NULL when absent */
	size_t data_map_len;
	const char *data_sym;    /* data symbol, NULL when absent */
	size_t data_sym_len;
	bool peer;               /* data_src says HITM (local/remote) or a peer-cache snoop */
	int64_t cpu;             /* the CPU the sample was taken on, when has_cpu */
	bool has_cpu;
	bool fault;              /* "event" is a page-fault event (jsonl_event_is_fault): a first touch, not a sampled access */
	/* its evidence key computed ahead (mem_agg_sample_key_ahead, on another
	 * thread than the aggregation's); key_ahead 0: not (the scanner's) */
	uint8_t key_ahead, key_scale;
	uint64_t key;
};

/*
 * Scan line[0..len) (no trailing newline) into *s, decoding strings in
 * place. Returns 0, or -1 with a short description of what is wrong in
 * err ("missing key \"cgroup\"", "\"tid\": expected an integer", ...).
 * Required keys: comm, tid, pid, cgroup, phys_addr, data_page_size.
 */
int jsonl_scan_mem(char *line, size_t len, struct mem_sample *s, char *err, size_t errlen);

/*
 * Is an event name one of the page-fault software events (page-faults,
 * faults, minor-faults, major-faults, with or without a ":u"-style
 * modifier): samples taken when a process maps a page, not a sample of
 * its accesses (docs/clustering.md, "First touches").
 */
bool jsonl_event_is_fault(const char *name, size_t len);

/* ---- comm_name.c: the name a thread's comm counts under: upstream strips
 * trailing ASCII digits so that "web1".."web12" are one name ("web").
 * Shared by the aggregation (mem_agg), the comm summaries (sharing_units.c),
 * the thread-to-unit mapping (sched_cells) and the report.
 */
/* "web12" -> "web"; an all-digit comm stays as is. Returns the new length. */
size_t comm_name_normalize(const char *comm, size_t len);

/* ---- mem_agg.c, mem_agg_fold.c, mem_agg_key.c, mem_agg_shard.c: streaming aggregation of perf.jsonl samples for extract mem.
 *
 * Each sample is classified into a group (upstream's rule: "rest" unless the
 * cgroup contains the workload string; then the allotment regex's matched
 * text if it matches, else the workload string), then counted per concrete
 * comm and per hint. When evidence is on, the memory each (group, comm,
 * hint) touched is kept as a map from evidence key to summed sample weight
 * and sample count. A key is (identity of the data, time epoch): the
 * sample's data_id when it has one (A: private anonymous page of one
 * process, F: shared/file page, K: kernel page), with the physical page
 * folded in so that one identity behind two physical pages never matches;
 * without a data_id (upstream's files), the physical page. Read-only file
 * text (R:) is no evidence. docs/clustering.md has the model. Those maps
 * are bounded as a whole: when they hold
 * more than max_keys keys, a global sampling level rises and every map keeps
 * only keys whose hash has `level` leading zero bits (the same subset of the
 * key space for every unit, so overlaps stay comparable). Memory therefore
 * depends on the number of distinct cgroups/comms/hints and on max_keys,
 * never on the number of samples.
 *
 * Names are bounded per group too. Each group counts its normalized comms
 * (the names units are made of) with Misra-Gries counters
 * (extract/mem/heavy_hitters.h, k = max_names): when 2k names are live, a
 * round evicts at least k of them with all their comms, hints and
 * evidence ("folded": their samples still count in the group's total, so
 * they end in the cell's rest subcell). A name with more than 1/(k+1) of
 * its group's samples is never folded, and a kept name's count is short by
 * at most the group's decrements before it was admitted; names admitted
 * before the first fold are exact. A name keeps its first
 * MEM_AGG_CONCRETES_MAX concrete comms; later ones share one folded
 * comm_rec, so the name's counts, hints and evidence stay exact. The
 * hints of a comm_rec are Misra-Gries counted too (k = MEM_AGG_HINTS_K,
 * the counter derived as count + since - decrements); evicted hints are
 * added to its one "other" hint_rec, which is never a unit of its own.
 * docs/clustering.md ("Bounded names") has the proof that no unit above
 * the 5% threshold is lost.
 *
 * Allotment groups are bounded the same way: Misra-Gries counters over
 * their samples (k = max_groups). A round merges the evicted groups into
 * one record (kind allotment, folded_groups, key MEM_AGG_FOLDED_GROUPS_KEY)
 * with their comms, hints, evidence and tid counts, so the allotment cell,
 * which sums its groups, keeps every name; only -v's per-group view loses
 * them. A group with more than 1/(k+1) of the allotment samples is never
 * folded ("Bounded groups" in docs/clustering.md).
 */
enum group_kind { GROUP_ALLOTMENT, GROUP_WORKLOAD, GROUP_REST };

struct hint_rec {
	uint64_t hint, count;
	struct u64map pages; /* evidence key -> EV_PACK(samples, summed weight) */
	uint64_t since;      /* the comm's hint decrements when it was admitted */
	bool other;          /* the folded hints of the comm together (hint is 0) */
	uint32_t ev_id;      /* its number (never reused): its part of each evidence shard */
};

/*
 * Evidence keys: the top 48 bits identify the data, the low 16 bits are the
 * epoch (time / epoch length, modulo 2^16). Two keys of the same identity
 * are concurrent when their epochs are equal or adjacent.
 */
#define EV_EPOCH_BITS 16
#define EV_EPOCH_MASK ((1ULL << EV_EPOCH_BITS) - 1)
#define EV_IDENT(key) ((key) >> EV_EPOCH_BITS)
#define EV_EPOCH(key) ((key) & EV_EPOCH_MASK)
/*
 * Line keys: a sample whose data_id is A: or F: is keyed by its 64-byte
 * line (the unit of sharing: two threads on disjoint lines of one page
 * exchange nothing). From bit 63 down: 1, the region (the id without its
 * page number: one process's private memory, one file or shm object; 12
 * bits hashed), the block (page / 512, 18 bits hashed), the page's low 9
 * bits, the physical page (10 bits hashed: one identity behind two
 * physical pages is not the same data), the line in the page (6 bits) and
 * the epoch modulo 256 (8 bits). Keys sort by region, block, page, line,
 * epoch. Other keys (K: kernel pages, samples without a data_id) have bit
 * 63 clear, a 47-bit hashed identity and a 16-bit epoch.
 */
#define EV_LINE_FLAG (1ULL << 63)
#define EV_IS_LINE(key) (((key) & EV_LINE_FLAG) != 0)
#define EV_LINE_EPOCH_BITS 8
#define EV_LINE_EPOCH_MASK ((1ULL << EV_LINE_EPOCH_BITS) - 1)
#define EV_LINE_SHIFT 8
#define EV_PAGE_SHIFT 14     /* key >> EV_PAGE_SHIFT: the page (physical fold included) */
#define EV_PAGENO_SHIFT 24
#define EV_BLOCK_SHIFT 33    /* key >> EV_BLOCK_SHIFT: region and block */
#define EV_REGION_SHIFT 51   /* key >> EV_REGION_SHIFT: region */
#define EV_PHYSFOLD_MASK 0x3ffULL
#define EV_BLOCKBITS_MASK 0x3ffffULL
#define EV_REGION_MASK 0xfffULL
#define EV_LINE_IDENT(key) ((key) >> EV_LINE_SHIFT) /* a line key without its epoch */
#define EV_LINE_EPOCH(key) ((key) & EV_LINE_EPOCH_MASK)
/* What an identity's object name and key sampling go by: the page of a line key, else the identity. */
#define EV_OBJECT(key) (EV_IS_LINE(key) ? EV_LINE_FLAG | (key) >> EV_PAGE_SHIFT : EV_IDENT(key))
/* A map value: sample count in the top 24 bits, scaled weight below. */
#define EV_WEIGHT_BITS 40
#define EV_PACK(n, w) ((uint64_t)(n) << EV_WEIGHT_BITS | (w))
#define EV_SAMPLES(v) ((v) >> EV_WEIGHT_BITS)
#define EV_WEIGHT(v) ((v) & ((1ULL << EV_WEIGHT_BITS) - 1))
/*
 * Epoch lengths: user data with an identity (A:, F:), kernel pages (K:),
 * and samples keyed by their physical page (no data_id), where reuse is
 * only thinned by time. -D for experiments (docs/clustering.md).
 */
#ifndef EV_EPOCH_NS
#define EV_EPOCH_NS 1000000000ULL
#endif
#define EV_KERNEL_EPOCH_NS 100000000ULL
#ifndef EV_PHYS_EPOCH_NS
#define EV_PHYS_EPOCH_NS 100000000ULL
#endif
/* Weight scale: a kernel page counts 1/4 of user data; HITM/peer x4. */
#define EV_SCALE_USER 4
#define EV_SCALE_KERNEL 1
#define EV_PEER_FACTOR 4

/* Why samples gave no evidence (reported with -v). */
struct ev_stats {
	uint64_t by_id, by_phys, kernel, peer; /* samples keyed by data_id / physical page; K:; HITM/peer */
	uint64_t readonly, none;               /* R: samples; no data_id and no physical address */
};

struct comm_rec {
	char *comm; /* NUL-terminated copy (may contain other bytes than ASCII) */
	size_t len;
	uint64_t count;
	struct hint_rec *hints;
	size_t nr_hints, cap_hints, last_hint;
	struct u64map hint_index; /* hint -> index in hints */
	size_t name;              /* index of its name in the group's names */
	bool folded;              /* stands for its name's concretes beyond the cap */
	/* hints are bounded the same way (k = MEM_AGG_HINTS_K), evicted ones
	 * go to one "other" hint_rec so the comm's counts and evidence stay whole */
	uint64_t hint_decrements, hints_folded;
	size_t other_hint;        /* index of the other hint_rec + 1, 0: none */
};

/* A normalized comm of a group; parallel to the group's name counters. */
struct name_rec {
	size_t nr_concretes; /* concrete comm_recs (not the folded one) */
	size_t folded;       /* index of the folded comm_rec + 1, 0: none */
};

#define MEM_AGG_CONCRETES_MAX 4
#define MEM_AGG_CONCRETES_MAX_STR "4"
#define MEM_AGG_HINTS_K 32
#define MEM_AGG_CGROUP_CACHE_MAX 4096 /* cgroup paths remembered (classification cache) */

struct group_rec {
	char *key;
	size_t key_len;
	enum group_kind kind;
	uint64_t count;
	struct comm_rec *comms;
	size_t nr_comms, cap_comms;
	struct strmap comm_index;   /* concrete comm -> comms index (not the folded ones) */
	struct name_rec *names;     /* parallel to mg */
	size_t cap_names;
	struct strmap name_index;   /* normalized comm -> names index */
	struct mg_counters mg;      /* samples per name, Misra-Gries */
	uint64_t folded_samples;    /* samples the folded names had been counted with */
	size_t mg_entry;            /* allotment: its entry in mem_agg's group_mg */
	bool folded_groups;         /* the record the folded allotment groups were merged into */
};

struct mem_agg_opts {
	const char *workload;     /* --workload-cgroup-regex (a substring) */
	const char *allotment_re; /* --workload-allotment-cgroup-regex (PCRE2) */
	bool evidence;            /* keep page evidence (sharing clustering) */
	bool line_granularity;    /* 64-byte lines instead of pages */
	size_t max_keys;          /* evidence budget over all units (0: default) */
	bool track_tids;          /* keep tid -> group/hint (extract mem's sched stats) */
	bool track_seen;          /* keep when each (tid, group) was seen (demand without a sched trace) */
	bool objects;             /* keep identity -> data_map/data_sym names (-v's top shared objects) */
	size_t max_names;         /* k of each group's name counters (0: default) */
	size_t max_groups;        /* k of the allotment groups' counters (0: default) */
	/* called by mem_agg_add with every sample it counted (extract mem's LLC measure); NULL: none */
	int (*on_sample)(void *ctx, const struct mem_sample *s);
	void *on_sample_ctx;
};

#define MEM_AGG_DEFAULT_MAX_KEYS ((size_t)1 << 20)
#define MEM_AGG_DEFAULT_MAX_NAMES ((size_t)1024)
#define MEM_AGG_DEFAULT_MAX_GROUPS ((size_t)1024)
#define MEM_AGG_MAX_GROUPS_MAX ((size_t)1 << 18) /* 2k + 3 groups fit MEM_AGG_TG_KEY's 20 bits */
#define MEM_AGG_FOLDED_GROUPS_KEY "(folded allotment groups)"
#define MEM_AGG_MAX_OBJECTS 4096
/* (tid or pid, group index) -> one u64 key of tid_groups / pid_groups */
#define MEM_AGG_TG_KEY(id, group) ((uint64_t)(id) << 20 | (uint64_t)(group))
#define MEM_AGG_TG_ID(key) ((key) >> 20)         /* the tid or pid of such a key */
#define MEM_AGG_TG_GROUP(key) ((key) & 0xfffff)  /* its group index */

/* One (tid, group)'s samples and the time it was seen running (track_seen). */
struct mem_agg_seen {
	uint64_t key;      /* MEM_AGG_TG_KEY(tid, group) */
	uint64_t samples;
	uint64_t bins;     /* distinct 100 ms bins holding its samples */
	uint64_t last_bin; /* the bin of its latest sample */
	uint64_t hint;     /* its first sample's */
	uint8_t comm_len;
	char comm[31];     /* its latest sample's comm (cut to 31 bytes) */
};
#define MEM_AGG_MAX_SEEN ((size_t)1 << 18)

struct mem_agg {
	struct mem_agg_opts o;
	size_t workload_len;
	void *re, *match; /* pcre2_code_8 *, pcre2_match_data_8 * */
	struct group_rec *groups;
	size_t nr_groups, cap_groups;
	struct strmap group_index;  /* group key -> index */
	struct mg_counters group_mg; /* samples per live allotment group, Misra-Gries */
	size_t *mg_group, cap_mg_group; /* parallel to group_mg: the group index */
	size_t folded_group;        /* index + 1 of the folded-groups record, 0: none */
	struct {
		uint64_t groups, samples;      /* allotment groups folded, with their samples */
		uint64_t names, name_samples;  /* names those groups had folded before */
	} group_fold;
	struct strmap cgroup_cache; /* cgroup path -> group index */
	uint64_t total;
	uint64_t fault_samples; /* of them, page-fault samples (first touches: mem_sample.fault) */
	uint64_t first_ns, last_ns; /* the earliest and latest sample time (0, 0: none with a time) */
	unsigned level;   /* evidence sampling level: keep 2^-level of the key space */
	size_t nr_keys;   /* keys held in all evidence maps */
	struct ev_stats ev;
	/* identity (EV_IDENT) -> index + 1 in objects, for -v's "top shared objects" */
	struct u64map ident_object;
	struct strmap objects; /* "data_map data_sym" names, at most MEM_AGG_MAX_OBJECTS */
	const char **object_names; /* index -> name (owned by objects) */
	size_t nr_objects;
	/*
	 * with track_tids: samples per (tid, group) and (pid, group), keyed by
	 * MEM_AGG_TG_KEY, and tid -> hint of its first sample
	 */
	struct u64map tid_groups, pid_groups, tid_hint;
	/*
	 * with track_seen: per (tid, group), keyed by MEM_AGG_TG_KEY in
	 * seen_index (index + 1 in seen), its samples and the 100 ms bins
	 * holding them (lib/sample_demand.h); at most MEM_AGG_MAX_SEEN, the
	 * samples of later threads counted in seen_dropped
	 */
	struct u64map seen_index;
	struct mem_agg_seen *seen;
	size_t nr_seen, cap_seen;
	uint64_t seen_dropped;
	uint32_t next_ev_id;        /* the next new hint_rec's ev_id */
	uint32_t *free_ev_ids;      /* the ev_ids of hint_recs folded away, for reuse (shards: their maps emptied first) */
	size_t nr_free_ev_ids, cap_free_ev_ids;
	struct mem_agg_shards *shards; /* the evidence maps' threads (mem_agg_shards_start), NULL: none */
};

/*
 * Compile the allotment regex (PCRE2, UTF, JIT when available). On a bad
 * regex: -1 and scx_fail("--workload-allotment-cgroup-regex: MESSAGE at
 * offset N").
 */
int mem_agg_init(struct mem_agg *a, const struct mem_agg_opts *o);
void mem_agg_free(struct mem_agg *a);

/*
 * Keep the evidence maps on n threads of their own (extract/mem/mem_agg_shard.c:
 * split by key hash, the key budget decided from per-level key counts), the
 * same result as without them for any n. Before the first sample (else,
 * or without evidence, nothing happens); mem_agg_shards_finish after the
 * last one moves the evidence into the hint_recs (mem_agg_free stops
 * them on an error path). -1 + scx_fail.
 */
int mem_agg_shards_start(struct mem_agg *a, size_t n);
int mem_agg_shards_finish(struct mem_agg *a);
#define MEM_AGG_SHARDS_MAX 16

/* Count one sample. -1 on OOM. */
int mem_agg_add(struct mem_agg *a, const struct mem_sample *s);

/*
 * Read a whole perf.jsonl stream. A malformed line fails with
 * scx_fail("PATH:LINE: what"). stop (may be NULL) is polled to interrupt.
 */
int mem_agg_read(struct mem_agg *a, FILE *f, const char *path, volatile int *stop);

/* The physical key of a sample: page (or line) number tagged with its size. */
uint64_t mem_agg_evidence_key(uint64_t phys_addr, uint64_t data_page_size, bool line_granularity);

/*
 * The evidence key of a sample (identity and epoch, see above) and its
 * weight scale (EV_SCALE_*). false when the sample is no evidence (R:, or
 * neither a data_id nor a physical address).
 */
bool mem_agg_sample_key(const struct mem_sample *s, bool line_granularity, uint64_t *key, unsigned *scale);
/*
 * Compute s's key ahead, into s (a pure function of the sample: one pass's
 * decoding thread does it so that the aggregation thread need not);
 * mem_agg_sample_key then answers from it for the same line_granularity.
 */
void mem_agg_sample_key_ahead(struct mem_sample *s, bool line_granularity);

/* The object ("data_map data_sym") of an EV_OBJECT: index + 1 into object_names, 0 when unknown. */
size_t mem_agg_object(const struct mem_agg *a, uint64_t object);
/* The name ("data_map data_sym") of object obj (mem_agg_object's index + 1); NULL for 0 (unknown). */
const char *mem_agg_object_name(const struct mem_agg *a, size_t obj);

/*
 * With track_tids: each sampled thread's cell kind, the enum group_kind
 * whose groups hold most of its samples (ties: the lower kind; as
 * extract/sched/extract_sched.h's "major" cell), into out: tid -> kind + 1
 * (u64map_init'ed here; the caller frees it). -1 (scx_fail, out freed) on OOM.
 */
int mem_agg_tid_kinds(const struct mem_agg *a, struct u64map *out);

/*
 * extract/mem/mem_agg_seen.c, with track_seen. mem_agg_seen_add: sample s
 * of group gi, with a time (-1 on OOM); mem_agg_seen_remap: the groups
 * renumbered by gmap (records of merged groups add up); mem_agg_seen_free.
 */
int mem_agg_seen_add(struct mem_agg *a, const struct mem_sample *s, size_t gi);
int mem_agg_seen_remap(struct mem_agg *a, const size_t *gmap);
void mem_agg_seen_free(struct mem_agg *a);

/*
 * Each unit's CPU demand without a scheduling trace (lib/sample_demand.h),
 * for the units u of the cell of kind, in a recording of cpus CPUs: the
 * sum over its threads (a (tid, group) of that kind whose latest comm,
 * normalized, is the unit's, and for a by-hint unit whose first hint is
 * its hint) of the smaller of their sample share x cpus and the share of
 * the recording's bins they were seen in (at most 1 each); the unit's samples no thread
 * accounts for (no time, beyond MEM_AGG_MAX_SEEN, another hint) at their
 * sample share x cpus. demand[0..u->n) is written.
 */
struct unit_list;
void mem_agg_seen_demand(const struct mem_agg *a, enum group_kind kind, const struct unit_list *u, double cpus,
			 double *demand);

#endif
