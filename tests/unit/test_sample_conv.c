/*
 * test_sample_conv.c - one-pass extract's direct conversion of a process
 * sample (pipeline/sample_conv.h) equals what extract's scanner reads from
 * the perf.jsonl line process writes for it: every field, on records with
 * invalid UTF-8, control characters, every data_id kind, weights, and
 * data_src values with and without HITM / PEER snoops.
 */
#include <criterion/criterion.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "extract/mem/mem_agg.h"
#include "lib/jsonw.h"
#include "pipeline/sample_conv.h"
#include "process/emit/mem_jsonl.h"

static void same_str(const char *what, const char *a, size_t an, const char *b, size_t bn)
{
	cr_assert_eq(a == NULL, b == NULL, "%s: present in one only", what);
	if (!a)
		return;
	cr_assert_eq(an, bn, "%s: length %zu vs %zu", what, an, bn);
	cr_assert(!memcmp(a, b, an), "%s: '%.*s' vs '%.*s'", what, (int)an, a, (int)bn, b);
}

/* r through perf.jsonl and the scanner vs r through sample_conv */
static void check_record(const struct mem_record *r)
{
	struct mem_jsonl_ctx *ctx = mem_jsonl_ctx_new();
	struct mem_sample a, b;
	struct jsonw w;
	char err[256], *arena = malloc(sample_conv_max(r));
	size_t used;

	cr_assert(ctx && arena);
	jsonw_init(&w);
	mem_jsonl_line(&w, r, ctx);
	cr_assert(!w.oom && w.len > 1);
	cr_assert_eq(jsonl_scan_mem(w.buf, w.len - 1, &a, err, sizeof(err)), 0, "%s: %.*s", err, (int)w.len, w.buf);
	used = sample_conv(r, true, &b, arena);
	cr_assert_leq(used, sample_conv_max(r));
	same_str("comm", a.comm, a.comm_len, b.comm, b.comm_len);
	same_str("cgroup", a.cgroup, a.cgroup_len, b.cgroup, b.cgroup_len);
	same_str("data_id", a.data_id, a.data_id_len, b.data_id, b.data_id_len);
	same_str("data_map", a.data_map, a.data_map_len, b.data_map, b.data_map_len);
	same_str("data_sym", a.data_sym, a.data_sym_len, b.data_sym, b.data_sym_len);
	cr_assert_eq(a.tid, b.tid);
	cr_assert_eq(a.pid, b.pid);
	cr_assert_eq(a.phys_addr, b.phys_addr);
	cr_assert_eq(a.addr, b.addr);
	cr_assert_eq(a.data_page_size, b.data_page_size);
	cr_assert_eq(a.hint, b.hint);
	cr_assert_eq(a.has_weight, b.has_weight);
	cr_assert_eq(a.weight, b.weight);
	cr_assert_eq(a.time_ns, b.time_ns, "time %llu vs %llu", (unsigned long long)a.time_ns,
		     (unsigned long long)b.time_ns);
	cr_assert_eq(a.peer, b.peer, "peer for data_src %#llx", (unsigned long long)r->data_src);
	cr_assert_eq(a.fault, b.fault, "fault for event %s", r->event ? r->event : "(none)");
	jsonw_free(&w);
	mem_jsonl_ctx_free(ctx);
	free(arena);
}

static struct mem_record base(void)
{
	struct mem_record r = {
		.comm = "worker-3", .tid = 101, .pid = 100, .time_ns = 12345678901234ULL, .addr = 0x7f0012345678ULL,
		.cgroup = "/workload.slice/x", .ip = 0x401000, .sym = "[unknown]", .dso = "[unknown]",
		.phys_addr = 0x12345678ULL, .data_page_size = 4096, .hint = 7,
	};
	return r;
}

Test(sample_conv, plain_and_hostile_strings)
{
	static const char *const comms[] = {
		"", "a", "quote\"back\\slash", "ctl\x01\x1f\t\n", "caf\xc3\xa9", "bad\xff\xfe", "trunc\xe2\x82",
		"over\xc0\xaf", "sur\xed\xa0\x80", "emoji\xf0\x9f\x98\x80", "\x80", "long-name-of-thirty-one-bytes!!",
	};
	for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		struct mem_record r = base();

		r.comm = comms[i];
		r.cgroup = comms[(i + 3) % (sizeof(comms) / sizeof(comms[0]))];
		r.data_map = comms[(i + 5) % (sizeof(comms) / sizeof(comms[0]))];
		r.data_sym = comms[(i + 7) % (sizeof(comms) / sizeof(comms[0]))];
		check_record(&r);
	}
}

Test(sample_conv, fault_events_are_first_touches)
{
	static const char *const events[] = {NULL, "cpu-clock", "minor-faults", "major-faults", "page-faults",
					     "faults", "cpu/mem-loads,ldlat=30/P"};
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		struct mem_record r = base();
		struct mem_sample s;
		char *arena;

		r.event = events[i];
		check_record(&r);
		arena = malloc(sample_conv_max(&r));
		cr_assert(arena);
		sample_conv(&r, false, &s, arena);
		cr_assert_eq(s.fault, i >= 2 && i <= 5, "%s", events[i] ? events[i] : "(none)");
		free(arena);
	}
}

Test(sample_conv, times_weights_and_ids)
{
	static const uint64_t times[] = {0, 1, 999999999, 1000000000, 18446744073709551615ULL};
	struct data_id ids[] = {
		{.kind = DATA_ID_NONE},
		{.kind = DATA_ID_ANON, .pid = 42, .page = 0x7f001},
		{.kind = DATA_ID_FILE, .maj = 8, .min = 1, .ino = 1234, .ino_gen = 5, .page = 3},
		{.kind = DATA_ID_RO, .maj = 0, .min = 0, .ino = 0xffffffffffffffffULL, .page = 0},
		{.kind = DATA_ID_KERNEL, .page = 0x1234},
	};
	for (size_t t = 0; t < sizeof(times) / sizeof(times[0]); t++)
		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
			struct mem_record r = base();

			r.time_ns = times[t];
			r.has_time_ns = t & 1;
			r.has_weight = i & 1;
			r.weight = 300 + i;
			r.data_id = ids[i];
			r.tid = -1;
			r.phys_addr = i ? 0 : 0xffffffffffffffffULL;
			r.addr = i ? 0 : 0xffffffffffffffffULL;
			check_record(&r);
		}
}

Test(sample_conv, data_src_peer)
{
	uint64_t snoops[] = {0, PERF_MEM_SNOOP_NA, PERF_MEM_SNOOP_HIT, PERF_MEM_SNOOP_HITM,
			     PERF_MEM_SNOOP_HITM | PERF_MEM_SNOOP_MISS};
	uint64_t snoopx[] = {0, PERF_MEM_SNOOPX_FWD, PERF_MEM_SNOOPX_PEER};
	uint64_t extra[] = {0, (uint64_t)PERF_MEM_OP_LOAD << PERF_MEM_OP_SHIFT,
			    (uint64_t)PERF_MEM_LVL_REM_CCE1 << PERF_MEM_LVL_SHIFT |
				    (uint64_t)PERF_MEM_OP_LOAD << PERF_MEM_OP_SHIFT};

	for (size_t a = 0; a < sizeof(snoops) / sizeof(snoops[0]); a++)
		for (size_t b = 0; b < sizeof(snoopx) / sizeof(snoopx[0]); b++)
			for (size_t c = 0; c < sizeof(extra) / sizeof(extra[0]); c++)
				for (int has = 0; has < 2; has++) {
					struct mem_record r = base();

					r.has_data_src = has;
					r.data_src = snoops[a] << PERF_MEM_SNOOP_SHIFT | snoopx[b] << PERF_MEM_SNOOPX_SHIFT |
						     extra[c];
					check_record(&r);
				}
}
