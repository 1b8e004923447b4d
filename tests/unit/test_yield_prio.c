/*
 * test_yield_prio.c - unit tests of record/yield_prio: the drain thread is
 * lowered to nice 19 at start, raised back to its own nice by the watchdog
 * thread when the ring's fill level reaches the limit (even though the
 * drain thread itself does nothing), kept there for the hold time, lowered
 * again by the next beat after it, raised at once by a beat that says the
 * ring woke us, and back to its own nice after stop. The hold runs on a clock
 * the test moves (y.now), so "within the hold" holds however slowly the test
 * runs on a loaded machine. Needs the privilege to
 * raise the nice value back (root); criterion runs each test in its own
 * process, so the changes do not leak.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/yield_prio.h"

static int my_nice(void)
{
	errno = 0;
	int n = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));

	cr_assert_eq(errno, 0);
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Wait for this thread's nice to become want; whether it did. ms only
 * guards against a hang: a slow machine must not fail the test. */
static bool wait_nice(int want, long ms)
{
	for (long t = 0; t < ms; t += 5) {
		if (my_nice() == want)
			return true;
		sleep_ms(5);
	}
	return my_nice() == want;
}

/* Wait for y's boost count to become want (the watchdog counts a raise
 * after it made it: the nice can be seen first); whether it did. ms only
 * guards against a hang. */
static bool wait_boosts(struct yield_prio *y, unsigned long long want, long ms)
{
	for (long t = 0; t < ms; t += 5) {
		if (atomic_load(&y->boosts) == want)
			return true;
		sleep_ms(5);
	}
	return atomic_load(&y->boosts) == want;
}

/* The hold's clock: moves only when the test says. */
static atomic_uint_fast64_t fake_ns = 1000000000ull;

static uint64_t fake_now(void)
{
	return atomic_load(&fake_ns);
}

static void need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("SKIP: needs root to raise the nice value back");
}

TestSuite(yield_prio, .init = need_root);

/* Start with a watchdog on *fill (limit max): the thread must now be at
 * YIELD_NICE. Returns its nice value before. */
static int start_low(struct yield_prio *y, volatile uint64_t *fill, uint64_t max)
{
	int base = my_nice();

	yield_prio_start(y, fill, max);
	cr_assert(y->on);
	cr_assert_eq(my_nice(), YIELD_NICE);
	return base;
}

Test(yield_prio, watchdog_raises_on_fill_and_beat_lowers_after_hold)
{
	volatile uint64_t fill = 0;
	struct yield_prio y = {.now = fake_now};
	int base = start_low(&y, &fill, 1000);

	/* below the limit: the watchdog leaves it low */
	fill = 999;
	sleep_ms(3 * YIELD_WATCHDOG_MS);
	cr_assert_eq(my_nice(), YIELD_NICE);
	cr_assert_eq(atomic_load(&y.boosts), 0);

	/* at the limit: raised without any beat of ours */
	fill = 1000;
	cr_assert(wait_nice(base, 30000), "not raised: nice %d", my_nice());
	cr_assert(wait_boosts(&y, 1, 30000), "boosts %llu", (unsigned long long)atomic_load(&y.boosts));

	/* drained; a beat within the hold keeps it raised (up to its last ns),
	 * one after lowers */
	fill = 0;
	yield_prio_beat(&y, false);
	cr_assert_eq(my_nice(), base);
	atomic_fetch_add(&fake_ns, YIELD_HOLD_MS * 1000000ull - 1);
	yield_prio_beat(&y, false);
	cr_assert_eq(my_nice(), base);
	atomic_fetch_add(&fake_ns, 1);
	yield_prio_beat(&y, false);
	cr_assert_eq(my_nice(), YIELD_NICE);

	/* the ring woke us: raised at once */
	yield_prio_beat(&y, true);
	cr_assert_eq(my_nice(), base);
	cr_assert_eq(atomic_load(&y.boosts), 2);

	yield_prio_stop(&y);
	cr_assert_eq(my_nice(), base);
	cr_assert(!y.on);
}

Test(yield_prio, stop_restores_while_low)
{
	volatile uint64_t fill = 0;
	struct yield_prio y = {0};
	int base = start_low(&y, &fill, 1);

	yield_prio_stop(&y);
	cr_assert_eq(my_nice(), base);
}
