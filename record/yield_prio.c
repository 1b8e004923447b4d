/*
 * yield_prio.c - runs the recorder's drain loop at nice 19 while it keeps
 * up, raised back when a ring fills or a watchdog sees it starved (see
 * yield_prio.h).
 */
#include "record/yield_prio.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/monotime.h"


static int set_nice(const struct yield_prio *y, int nice)
{
	/* PRIO_PROCESS with a thread id sets that thread only (Linux) */
	return setpriority(PRIO_PROCESS, (id_t)y->tid, nice);
}

/* Raise the drain thread to its base priority for YIELD_HOLD_MS. */
static void raise_for_hold(struct yield_prio *y)
{
	atomic_store(&y->hold_until, y->now() + YIELD_HOLD_MS * 1000000ull);
	if (atomic_exchange(&y->low, false)) {
		if (set_nice(y, y->base) == 0)
			atomic_fetch_add(&y->boosts, 1);
		else
			atomic_store(&y->low, true);
	}
}

static void *watchdog_main(void *arg)
{
	struct yield_prio *y = arg;
	struct timespec period = {0, YIELD_WATCHDOG_MS * 1000000L};

	while (!atomic_load(&y->stop)) {
		nanosleep(&period, NULL);
		if (atomic_load(&y->low) && *y->fill >= y->fill_max && !atomic_load(&y->stop))
			raise_for_hold(y);
	}
	return NULL;
}

void yield_prio_start(struct yield_prio *y, const volatile uint64_t *fill, uint64_t fill_max)
{
	struct rlimit rl;

	y->on = false;
	if (!y->now)
		y->now = monotime_ns;
	atomic_init(&y->low, false);
	atomic_init(&y->hold_until, 0);
	atomic_init(&y->boosts, 0);
	atomic_init(&y->stop, false);
	y->fill = fill;
	y->fill_max = fill_max;
	y->tid = (int)syscall(SYS_gettid);
	errno = 0;
	y->base = getpriority(PRIO_PROCESS, (id_t)y->tid);
	if (errno || y->base >= YIELD_NICE)
		return;
	/* raising back from 19 needs privilege: root or an RLIMIT_NICE of at
	 * least 20 - base */
	if (geteuid() != 0 &&
	    (getrlimit(RLIMIT_NICE, &rl) < 0 || (rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur < 20 - y->base)))
		return;
	/* the watchdog inherits the base priority: create it first */
	if (pthread_create(&y->watchdog, NULL, watchdog_main, y) != 0)
		return;
	y->on = true;
	if (set_nice(y, YIELD_NICE) == 0)
		atomic_store(&y->low, true);
}

void yield_prio_beat(struct yield_prio *y, bool behind)
{
	if (!y->on)
		return;
	if (behind)
		raise_for_hold(y);
	else if (!atomic_load(&y->low) && y->now() >= atomic_load(&y->hold_until)) {
		if (set_nice(y, YIELD_NICE) == 0)
			atomic_store(&y->low, true);
	}
}

void yield_prio_stop(struct yield_prio *y)
{
	if (!y->on)
		return;
	atomic_store(&y->stop, true);
	pthread_join(y->watchdog, NULL);
	if (atomic_exchange(&y->low, false))
		set_nice(y, y->base);
	y->on = false;
}
