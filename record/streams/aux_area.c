/*
 * aux_area.c - the AUX area of one cpu's Arm SPE event (see aux_area.h).
 * The area is mapped read-write: the kernel then stops at our aux_tail
 * (and says so with a TRUNCATED PERF_RECORD_AUX) instead of overwriting.
 * Positions only grow; the record layouts are record/perfdata/auxtrace.c.
 */
#include "record/streams/aux_area.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <time.h>

#include "lib/error.h"

size_t aux_area_size(size_t aux_pages, bool privileged)
{
	long page = sysconf(_SC_PAGESIZE);

	if (aux_pages)
		return aux_pages * (size_t)page;
	return privileged ? 4u << 20 : 128u << 10;
}

static const char *map_hint(int err)
{
	switch (err) {
	case EPERM:
	case ENOMEM:
		return " (over the locked-memory limit: run as root, raise kernel.perf_event_mlock_kb, "
		       "or use --aux-pages smaller)";
	case EINVAL:
		return " (the size must be a power of two of pages)";
	case EOPNOTSUPP:
		return " (this PMU or kernel gives no AUX area: Arm SPE needs kernel 4.16+ with "
		       "CONFIG_ARM_SPE_PMU)";
	default:
		return "";
	}
}

int aux_area_map(struct aux_area *a, int fd, void *ctl, size_t map_size, size_t size, int cpu,
		 const char *event)
{
	struct perf_event_mmap_page *pg = ctl;
	void *p;

	memset(a, 0, sizeof(*a));
	a->cpu = cpu;
	pg->aux_offset = map_size;
	pg->aux_size = size;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)map_size);
	if (p == MAP_FAILED) {
		int err = errno;

		scx_fail("cpu %d: mmap of a %zu KiB AUX area for %s refused: %s%s", cpu, size >> 10,
			 event, strerror(err), map_hint(err));
		errno = err;
		return -1;
	}
	a->base = p;
	a->size = size;
	return 0;
}

void aux_area_unmap(struct aux_area *a)
{
	if (a->base)
		munmap(a->base, a->size);
	a->base = NULL;
}

int aux_area_drain(struct aux_area *a, void *ctl, struct auxtrace *t, struct pd_writer *w,
		   uint64_t reference)
{
	struct perf_event_mmap_page *pg = ctl;
	uint64_t head = __atomic_load_n(&pg->aux_head, __ATOMIC_ACQUIRE);
	struct auxtrace_where where = {a->idx, (uint32_t)a->cpu, reference};
	int rc = auxtrace_copy(t, w, a->base, a->size, a->tail, head, &where);

	if (rc == 0) {
		a->tail = head;
		__atomic_store_n(&pg->aux_tail, head, __ATOMIC_RELEASE);
	}
	return rc;
}

/* The mmap page as one consistent copy (the kernel updates it under a
 * sequence count, perf_event_mmap_page.lock). */
static void read_page(const struct perf_event_mmap_page *pg, struct perf_event_mmap_page *out)
{
	for (int tries = 0; tries < 1000; tries++) {
		uint32_t seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);

		memcpy(out, (const void *)pg, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&pg->lock, __ATOMIC_RELAXED) == seq)
			return;
	}
}

#if defined(__aarch64__)
/* The virtual counter, which SPE timestamps count (pct_enable 0). */
static uint64_t read_counter(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

/* CLOCK_MONOTONIC minus the perf clock (sched_clock, what the mmap page
 * converts the counter to), measured around one counter read: our events
 * use CLOCK_MONOTONIC, so TIME_CONV gets time_zero + this, and SPE times
 * come out in the clock of every other record of the file. The two clocks
 * drift apart by NTP's slew (tens of ppm) during a long recording. */
static bool clock_adjust(const struct perf_event_mmap_page *pg, int64_t *adjust)
{
	struct timespec a, b;
	uint64_t cyc, ns;

	clock_gettime(CLOCK_MONOTONIC, &a);
	cyc = read_counter();
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = auxtrace_perf_time(pg, cyc);
	*adjust = (int64_t)(((uint64_t)a.tv_sec * 1000000000 + (uint64_t)a.tv_nsec +
			     (uint64_t)b.tv_sec * 1000000000 + (uint64_t)b.tv_nsec) / 2 - ns);
	return true;
}
#else
static bool clock_adjust(const struct perf_event_mmap_page *pg, int64_t *adjust)
{
	(void)pg;
	*adjust = 0; /* no Arm counter to read: SPE exists on arm64 only */
	return false;
}
#endif

int aux_area_start(struct pd_writer *w, const void *ctl, uint32_t pmu_type, int64_t *adjust,
		   bool *adjusted)
{
	struct perf_event_mmap_page snap;

	read_page(ctl, &snap);
	*adjusted = clock_adjust(&snap, adjust);
	if (auxtrace_write_time_conv(w, &snap, *adjust) < 0)
		return -1;
	return auxtrace_write_info_spe(w, pmu_type);
}
