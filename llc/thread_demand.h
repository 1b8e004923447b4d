/*
 * thread_demand.h - the CPU demand of every thread of the scheduling
 * trace, sampled or not, and where a reader of the config puts it: its
 * cgroup is the one of its own samples with the most of them, else (never
 * sampled itself) its process's; its comm the trace's last one for it (else
 * its samples'); its cell and subcell config_match's on those (a subcell
 * by CommPrefix as scx_mitosis matches: the first non-catch-all subcell in
 * file order whose clause holds, on the comm and prefix cut at 15 bytes,
 * else the catch-all). Threads whose process was never sampled have no
 * cgroup and are left out (sched_cells counts them as unattributed).
 * Part of the room's contract through llc.h.
 */
#ifndef SCX_THREAD_DEMAND_H
#define SCX_THREAD_DEMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extract/sched/extract_sched.h"
#include "llc/config_match.h"
#include "llc/llc_types.h"

struct llc_thread_demand {
	int64_t tid, pid;
	const char *comm;       /* the sched trace's (or the samples') storage; "" when none */
	size_t comm_len;
	const char *cgroup;     /* the llc_share's storage */
	uint64_t hint;          /* its most sampled actor's (0 when never sampled) */
	uint64_t runtime_ns;
	double cpus;            /* runtime / trace duration */
	long cell, sub;         /* config_match's indexes: -1 for none */
	bool by_process;        /* never sampled itself: the cgroup is its process's */
};

/*
 * One entry per attributed thread of st, in st's order: *out malloc'ed
 * (free it; the strings are s's and st's). -1 (scx_fail) on OOM or a
 * regex failure.
 */
int llc_thread_demands(const struct llc_share *s, const struct sched_threads *st, const struct config_matcher *cm,
		       struct llc_thread_demand **out, size_t *n);

#endif
