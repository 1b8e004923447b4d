/*
 * order_walk.h - the walk over a perf.data file's records that both
 * perf.data input paths (mem_perfdata.c, sched_perfdata.c) share: records
 * reach the caller's deliver() in the order perf script delivers them.
 *
 * Modelled on perf's ordered events (tools/perf/util/ordered-events.c):
 * when every event samples its time (and sample_id_all gives other records
 * one), kernel records are queued by time (order.h); at each
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
#ifndef SCX_ORDER_WALK_H
#define SCX_ORDER_WALK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/perfdata.h"
#include "process/order/order.h"

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

#endif
