/*
 * session.h - the state of the profiled machine as perf.data side-band
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
#ifndef SCX_SESSION_H
#define SCX_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/perfdata.h"
#include "lib/u64map.h"
#include "lib/data_id.h"
#include "process/sym/symbols.h"

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
