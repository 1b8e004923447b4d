/*
 * order.h - the contract of process/order/, ordering: a perf.data file's
 * records in the order perf script delivers them (order.c, the queue of one
 * round; order_walk.c, the walk both perf.data input paths share) and the
 * machine their side-band records describe, replayed in that order
 * (session.c: threads, maps, cgroups, addresses to symbols).
 */
#ifndef SCX_ORDER_H
#define SCX_ORDER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/perfdata.h"
#include "lib/u64map.h"
#include "lib/data_id.h"
#include "process/sym/symbols.h"

/* ---- order.c: puts perf.data records into timestamp order the way perf's
 * ordered_events do, with memory bounded by one round.
 *
 * Records are queued with their time; at each PERF_RECORD_FINISHED_ROUND the
 * caller calls order_round(), which makes every queued record with a time at
 * or below the largest time seen before the *previous* round poppable (the
 * kernel guarantees nothing older arrives after that). Equal times keep
 * arrival order. At the end order_finish() makes everything poppable.
 * Records are referenced, not copied: they must outlive their stay here.
 * Records pushed after a round are only poppable after the next one.
 */
struct order_item {
	uint64_t time;
	uint64_t seq;
	const void *rec;
};

struct order_queue {
	struct order_item *heap; /* queued records, [head, n) */
	size_t head, n, cap;
	size_t sorted_upto;      /* [head, sorted_upto) is in order and may be popped */
	struct order_item *tmp;  /* merge scratch */
	size_t tmp_cap;
	uint64_t seq;
	uint64_t max_time;   /* largest time queued so far */
	uint64_t next_flush; /* the limit the next round will flush up to */
	uint64_t limit;      /* records at or below this time may be popped */
	size_t peak;         /* most records held at once */
	uint64_t late;       /* records queued below an already-flushed limit */
};

void order_init(struct order_queue *q);
void order_free(struct order_queue *q);
int order_push(struct order_queue *q, uint64_t time, const void *rec);
/* Both sort what is queued: -1 (scx_fail) when memory runs out. */
int order_round(struct order_queue *q);
int order_finish(struct order_queue *q);
/* Pop the oldest record if it is poppable. */
bool order_pop(struct order_queue *q, struct order_item *out);
/* Lowest-addressed record still queued (for releasing file pages), or NULL. */
const void *order_lowest_rec(const struct order_queue *q);

/* ---- order_walk.c: the walk over a perf.data file's records that both
 * perf.data input paths (mem_perfdata.c, sched_perfdata.c) share: records
 * reach the caller's deliver() in the order perf script delivers them.
 *
 * Modelled on perf's ordered events (tools/perf/util/ordered-events.c):
 * when every event samples its time (and sample_id_all gives other records
 * one), kernel records are queued by time (order.c, above); at each
 * PERF_RECORD_FINISHED_ROUND the queue is flushed up to the largest time seen
 * before the previous round; at the end of the file everything left is
 * flushed. Records without a time are delivered as they are read. Files
 * without times on every event are delivered in file order. Records perf
 * writes itself (types >= 64) are not delivered; records whose sample id
 * names no event of the file are skipped and counted, as perf does.
 *
 * File pages nothing queued points into any more are given back as the walk
 * goes (pd_release_before()), so memory stays bounded by a round.
 */
struct order_walk {
	/* set by order_walk_init() */
	struct pd_file *f;
	int (*deliver)(void *ctx, const struct perf_event_header *h); /* -1 stops the walk */
	void *ctx;
	/* optional, set by the caller before order_walk_run() */
	volatile sig_atomic_t *stop; /* set asynchronously: the walk fails with "interrupted" */
	FILE *log;                   /* notes on how the file is ordered (-v), or NULL */
	uint64_t *type_counts;       /* records per type, types below nr_type_counts */
	size_t nr_type_counts;
	void (*first_kernel_sample)(void *ctx); /* called (with deliver's ctx) when the first sample
						  * in kernel mode is read, before it is queued */
	/* results */
	bool ordered;                /* timestamp order by rounds; else file order */
	uint64_t rounds;             /* FINISHED_ROUND records */
	uint64_t unknown_id_records; /* records whose sample id names no event: skipped */
	/* internal */
	struct order_queue q;
	uint64_t delivered, since_release;
};

/* Whether f can be walked in time order is decided here (w->ordered). */
void order_walk_init(struct order_walk *w, struct pd_file *f,
		     int (*deliver)(void *ctx, const struct perf_event_header *h), void *ctx);
/* Walk every record of the data section. -1 with scx_errmsg() set when the
 * file is corrupt, memory runs out, *stop is set or deliver() fails. */
int order_walk_run(struct order_walk *w);
/* Most records queued at once, and records queued below a time already
 * flushed (a file whose rounds do not hold their promise). */
uint64_t order_walk_peak_queued(const struct order_walk *w);
uint64_t order_walk_late_records(const struct order_walk *w);
void order_walk_free(struct order_walk *w);

/* ---- session.c: the state of the profiled machine as perf.data side-band
 * records describe it, replayed in time order: threads (tid -> pid, comm),
 * each process's memory maps, the kernel's maps, and cgroup ids -> paths.
 *
 * The rules follow perf's own (tools/perf/util/machine.c, thread.c): a thread
 * first seen in a sample is named ":TID"; threads of a process share its
 * maps, a new process (fork with a different pid) gets a copy; a new mapping
 * replaces the parts of older ones it overlaps; a user-mode address outside
 * every user map that looks like a kernel address is looked up in the kernel
 * maps (vsyscall/vdso). Exited threads are kept for late samples.
 * Unlike perf, an exec (COMM with PERF_RECORD_MISC_COMM_EXEC) gives the
 * process an empty address space: the old maps no longer identify its data.
 */
struct session_dso {
	char *name;           /* as in the MMAP record; "[kernel.kallsyms]" for the kernel */
	struct sym_dso *syms; /* made on first lookup (sym_dso_new); NULL for names with no file */
	bool looked_up;
	bool is_kernel;       /* kernel image: symbols from kallsyms */
	bool no_file;         /* a name perf never opens as a file ([stack], //anon, ...) */
	bool is_ksymbol;      /* a KSYMBOL record's code (BPF program, trampoline, out-of-line
			       * code): one symbol, named as the dso, over the whole map */
	uint8_t build_id[20];
	uint8_t build_id_size;
};

struct session_map {
	uint64_t start, end, pgoff;
	struct session_dso *dso;
	/* the mapping's own name where the dso is perf's for JIT code
	 * (/tmp/perf-PID.map): data_map keeps '//anon', '[stack]', ...; else NULL */
	struct session_dso *mapped;
	/* how its data is identified (data_id.h): kind and file identity */
	uint64_t ino, ino_gen;
	uint32_t maj, min;
	uint8_t data_kind; /* enum data_id_kind */
};

struct session_maps {
	struct session_map *v;
	size_t n, cap;
	int refs;
	/* where the last instruction / data lookup was found: samples in a row
	 * mostly hit the same map, checked before the binary search (any index
	 * below n is a valid guess: maps are sorted and do not overlap) */
	size_t hint_ip, hint_data;
};

struct session_thread {
	int32_t pid, tid;
	char comm[32];
	bool comm_set;   /* named by a COMM record (else perf's ":TID" placeholder) */
	bool comm_from_sched; /* no COMM: comm is the scheduling stream's name for it */
	bool exited;
	struct session_maps *maps;
};

struct session_stats {
	uint64_t threads, processes, maps, dsos, cgroups;
};

struct session {
	struct u64map threads;   /* tid -> session_thread* */
	struct u64map cgroups;   /* cgroup id -> char* path */
	char **retired_cgroups;  /* paths a later CGROUP record replaced: freed at the end, as
				  * records still queued for formatting may point to them */
	size_t nr_retired_cgroups, cap_retired_cgroups;
	struct u64map dsos;      /* name hash -> session_dso* (chained by name compare) */
	struct session_maps kernel;
	struct sym_cache *syms;
	struct session_stats stats;
	/* optional: the build-id the recording noted for a file name (perf.data
	 * BUILD_ID feature), used when its MMAP record carries none */
	int (*build_id_of)(void *ctx, const char *name, uint8_t bid[20], size_t *size);
	void *build_id_ctx;
	bool no_data_syms;       /* session_resolve_data leaves sym NULL (no symbol tables loaded) */
	struct session_thread *last_thread; /* the last one session_thread() returned (samples in
					     * a row are mostly of one thread); cleared when freed */
};

/* Where an address resolved to. dso/sym are "[unknown]" when not found. */
struct session_resolved {
	const char *dso;
	const char *sym;
};

int session_init(struct session *s, struct sym_cache *syms);
void session_free(struct session *s);

/*
 * Apply one side-band record (COMM, FORK, EXIT, MMAP, MMAP2, CGROUP); other
 * types are ignored. body_size is the record's size without its sample_id
 * trailer (pd_body_size). -1 when the record is malformed (scx_fail).
 */
int session_apply(struct session *s, const struct perf_event_header *h, size_t body_size);

/* The thread for a sample, created on first sight as perf does. */
struct session_thread *session_thread(struct session *s, int32_t pid, int32_t tid);

/* Resolve an instruction address of thread t; cpumode from header.misc. */
void session_resolve_ip(struct session *s, struct session_thread *t, uint16_t cpumode,
			uint64_t ip, struct session_resolved *out);

/* Where a data address is, and the identity of its page. */
struct session_data {
	const char *map;        /* mapping name ("[kernel]" in the kernel half), NULL when unknown */
	struct data_id id;
	const char *sym;        /* ELF data object holding addr in a file mapping, else NULL */
};

/* Identify the data at addr of thread t (pid: the sample's); the kernel
 * half is identified by phys_addr's page. The data symbol comes from the
 * mapped file's symbol table (loaded once per file, as for ips). */
void session_resolve_data(struct session *s, struct session_thread *t, int32_t pid, uint64_t addr,
			  uint64_t phys_addr, struct session_data *out);

/* Path of a cgroup id, or NULL when no CGROUP record named it. */
const char *session_cgroup(const struct session *s, uint64_t id);

#endif
