/*
 * test_spe_stream.c - record's memory stream with the Arm SPE backend
 * (record/streams/mem_stream.c) on a host without SPE: the backend is built
 * from the neoverse-n1 sysfs fixture and its event is opened, through
 * mem_event_set_open_fn, as a software dummy event. The kernel refuses an
 * AUX area on such an event, so what runs here is the refusal path: one
 * message naming the cpu, the size, the event and the reason. Mapping a
 * real AUX area, TIME_CONV from a real mmap page and copying what SPE
 * wrote need an SPE host (SKIP below, never a pass). The drain protocol
 * (aux_head read, the copy, aux_tail handed back) runs on a control page
 * and an area in ordinary memory.
 */
#include "record/backend/backend.h"
#include "record/streams/aux_area.h"
#include "record/streams/streams.h"
#include "lib/error.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int dummy_open(struct perf_event_attr *attr, int cpu, int group_fd)
{
	struct perf_event_attr a = *attr;

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.config1 = a.config2 = 0;
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static void fixture_opts(struct mem_backend_opts *o)
{
	static char root[PATH_MAX];
	const char *top = getenv("TOP");

	snprintf(root, sizeof(root), "%s%stests/fixtures/sysfs/neoverse-n1/bus/event_source/devices",
		 top ? top : "", top ? "/" : "");
	mem_backend_opts_init(o);
	o->sysfs_root = root;
	o->priv = MEM_PRIV_YES;
	o->kconfig_path = "/nonexistent";
}

Test(spe_stream, aux_area_refused_says_why)
{
	struct mem_backend_opts o;
	struct mem_backend b;
	struct mem_stream ms;
	struct pd_writer w;
	char path[] = "/tmp/test_spe_stream.XXXXXX";
	char file[64];
	int fd;

	fixture_opts(&o);
	cr_assert_eq(mem_backend_choose(&o, &b), 0, "%s", scx_errmsg());
	fd = dummy_open(&b.ev[0].attr, 0, -1);
	if (fd < 0)
		cr_skip_test("SKIP: perf_event_open is not allowed here (run as root)");
	close(fd);
	cr_assert(mkdtemp(path));
	snprintf(file, sizeof(file), "%s/perf.mem.data", path);
	cr_assert_eq(pd_writer_open(&w, file), 0, "%s", scx_errmsg());
	mem_event_set_open_fn(dummy_open);
	cr_assert_neq(mem_stream_open(&ms, &b, &w, &(struct mem_stream_opts){ .aux_pages = 0 }), 0);
	mem_event_set_open_fn(NULL);
	cr_assert(strstr(scx_errmsg(), "cpu 0: mmap of a 4096 KiB AUX area for arm_spe_0/"),
		  "%s", scx_errmsg());
	cr_assert(strstr(scx_errmsg(), "refused: Operation not supported (this PMU or kernel gives "
			 "no AUX area"), "%s", scx_errmsg());
	cr_assert(ms.sideband.context_switch, "switch records asked for on the side-band event");
	mem_stream_close(&ms);
	pd_writer_abort(&w);
	rmdir(path);
}

Test(spe_stream, aux_pages_must_be_a_power_of_two)
{
	struct mem_backend_opts o;
	struct mem_backend b;
	struct mem_stream ms;
	struct pd_writer w;
	char path[] = "/tmp/test_spe_stream.XXXXXX";
	char file[64];

	fixture_opts(&o);
	cr_assert_eq(mem_backend_choose(&o, &b), 0, "%s", scx_errmsg());
	cr_assert(mkdtemp(path));
	snprintf(file, sizeof(file), "%s/perf.mem.data", path);
	cr_assert_eq(pd_writer_open(&w, file), 0, "%s", scx_errmsg());
	cr_assert_neq(mem_stream_open(&ms, &b, &w, &(struct mem_stream_opts){ .aux_pages = 3 }), 0);
	cr_assert(strstr(scx_errmsg(), "--aux-pages 3: must be a power of two"), "%s", scx_errmsg());
	mem_stream_close(&ms);
	pd_writer_abort(&w);
	rmdir(path);
}

Test(spe_stream, drain_copies_and_hands_back)
{
	struct perf_event_mmap_page pg;
	uint8_t area[64];
	struct aux_area a = { .base = area, .size = sizeof(area), .idx = 2, .cpu = 5 };
	struct auxtrace t;
	struct pd_writer w;
	char path[] = "/tmp/test_spe_stream.XXXXXX", file[64];

	memset(&pg, 0, sizeof(pg));
	for (size_t i = 0; i < sizeof(area); i++)
		area[i] = (uint8_t)i;
	cr_assert(mkdtemp(path));
	snprintf(file, sizeof(file), "%s/perf.mem.data", path);
	cr_assert_eq(pd_writer_open(&w, file), 0, "%s", scx_errmsg());
	auxtrace_init(&t);
	cr_assert_eq(aux_area_drain(&a, &pg, &t, &w, 7), 0, "%s", scx_errmsg());
	cr_assert_eq(t.st.records, 0, "nothing new: no record");
	pg.aux_head = 40;
	cr_assert_eq(aux_area_drain(&a, &pg, &t, &w, 7), 0, "%s", scx_errmsg());
	cr_assert_eq(pg.aux_tail, 40, "the space is handed back");
	pg.aux_head = 90; /* positions 40..89: the area's end, then its start */
	cr_assert_eq(aux_area_drain(&a, &pg, &t, &w, 7), 0, "%s", scx_errmsg());
	cr_assert_eq(pg.aux_tail, 90);
	cr_assert_eq(a.tail, 90);
	cr_assert_eq(t.st.records, 2);
	cr_assert_eq(t.st.bytes, 90);
	cr_assert_eq(t.st.wrapped, 1);
	cr_assert_eq(w.data_size, 2 * 48 + 40 + 56, "two headers, payloads padded to 8");
	auxtrace_free(&t);
	pd_writer_abort(&w);
	rmdir(path);
}

Test(spe_stream, real_aux_area)
{
	if (access("/sys/bus/event_source/devices/arm_spe_0", F_OK) != 0)
		cr_skip_test("SKIP: no arm_spe_0 on this host: mapping a real AUX area, TIME_CONV "
			     "from its mmap page and copying SPE's records run only on an SPE host");
	cr_skip_test("SKIP: on an SPE host run scxprof record --backend arm-spe and compare "
		     "perf script's memory samples (docs/spe.md)");
}
