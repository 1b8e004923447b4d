/*
 * yield_prio.h - keeps the recorder's drain loop out of the workload's way.
 *
 * While the sched stream records and the memory stream is off (it needs
 * prompt drains to resolve physical addresses), the drain loop's thread runs
 * at nice YIELD_NICE: it then runs in the workload's idle gaps instead of
 * taking turns with it. On `perf bench sched pipe` this halves our slowdown
 * (bench/bench_sched.py). Two things raise it back to its own priority for
 * at least YIELD_HOLD_MS whenever the sched ring buffer is a quarter full, so it
 * never falls behind for long: the loop sees the ring's wakeup, and since on a
 * saturated host a nice 19 thread can wait seconds for a CPU, a watchdog
 * thread at the normal priority also reads the ring's fill level (left by
 * the BPF side) every YIELD_WATCHDOG_MS and raises it.
 * It is lowered only where it can be raised back (root, or an RLIMIT_NICE
 * that allows it). The command record runs is forked before this and keeps
 * its own priority.
 *
 * Usage: yield_prio_start(&y, fill, max) in the drain thread, yield_prio_beat(&y,
 * behind) after each poll, yield_prio_stop(&y) at the end (always, also on
 * errors: it joins the watchdog). The hold is measured on y.now (NULL, as in
 * a zeroed struct: CLOCK_MONOTONIC), set before start; tests give it a clock
 * of their own so that "within the hold" does not depend on how fast they run.
 */
#ifndef SCX_RECORD_YIELD_PRIO_H
#define SCX_RECORD_YIELD_PRIO_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define YIELD_NICE 19
#define YIELD_WATCHDOG_MS 100
#define YIELD_HOLD_MS 200

struct yield_prio {
	bool on; /* lowering is in effect (watchdog running) */
	int tid;
	int base; /* the drain thread's own nice value */
	atomic_bool low;                 /* now at YIELD_NICE */
	atomic_uint_fast64_t hold_until; /* CLOCK_MONOTONIC ns: stay raised until then */
	atomic_uint_fast64_t boosts;     /* times raised back while recording */
	atomic_bool stop;
	pthread_t watchdog;
	uint64_t (*now)(void);         /* ns clock of the hold; NULL: monotime_ns */
	const volatile uint64_t *fill; /* bytes waiting in the ring */
	uint64_t fill_max;             /* raise at this many */
};

/* Lower the calling thread to YIELD_NICE if it can later be raised back,
 * and start the watchdog on *fill (bytes waiting, raise at fill_max); y->on
 * says whether it did. */
void yield_prio_start(struct yield_prio *y, const volatile uint64_t *fill, uint64_t fill_max);

/* After each loop: behind = the sched ring woke us (a quarter full). */
void yield_prio_beat(struct yield_prio *y, bool behind);

/* Stop the watchdog, back to the base priority. */
void yield_prio_stop(struct yield_prio *y);

#endif
