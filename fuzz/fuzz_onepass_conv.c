/*
 * fuzz_onepass_conv.c - libFuzzer target for one-pass extract's direct
 * conversions (pipeline/sched_conv.c, pipeline/sample_conv.c), which stand
 * for process's JSONL line and extract's parse of it. The strings come
 * from hostile files (comms, cgroup paths, mapping names, trace text made
 * of them), so the input is cut into those strings.
 *
 * Invariants, besides no crash:
 *  - a sched record sched_conv accepts gives, field by field, what
 *    sched_jsonl_line + sched_events_parse_line give; one it refuses still
 *    parses that way (the path one pass then takes);
 *  - decoded values of any kind (strings from the input) that
 *    sched_trace_plain passes give the line of their text without it, and
 *    sched_conv gives of them what extract parses of that line;
 *  - a memory sample gives, field by field, what mem_jsonl_line +
 *    jsonl_scan_mem give, within sample_conv_max bytes.
 * Input: NUL-separated strings: event, trace, comm, cgroup, data_map,
 * data_sym; then up to 16 bytes of numbers (pid, tid, cpu, time, hint).
 * Seeds: fuzz/corpus/onepass_conv/.
 */
#include "extract/mem/mem_agg.h"
#include "extract/sched/sched_events.h"
#include "fuzz/fuzz_util.h"
#include "lib/jsonw.h"
#include "pipeline/sample_conv.h"
#include "pipeline/sched_conv.h"
#include "process/emit/mem_jsonl.h"
#include "process/sched/sched_decode.h"

static struct sched_reader *reader;
static struct sched_conv_cache cache;

static void same(const char *what, const char *a, const char *b)
{
	FUZZ_CHECK((a == NULL) == (b == NULL), "%s present in one only", what);
	FUZZ_CHECK(!a || !strcmp(a, b), "%s: '%s' vs '%s'", what, a, b);
}

static void same_n(const char *what, const char *a, size_t an, const char *b, size_t bn)
{
	FUZZ_CHECK((a == NULL) == (b == NULL), "%s present in one only", what);
	FUZZ_CHECK(!a || (an == bn && !memcmp(a, b, an)), "%s differs", what);
}

static void check_sched(const struct sched_line *l)
{
	struct sched_event a, b;
	struct jsonw w;
	char *arena = malloc(sched_conv_max(l));
	size_t used = 0;
	int n;

	FUZZ_CHECK(arena != NULL, "malloc");
	jsonw_init(&w);
	sched_jsonl_line(&w, l);
	n = sched_events_parse_line(reader, 1, w.buf, w.len - 1, &a);
	if (sched_conv(l, &cache, &b, arena, &used)) {
		FUZZ_CHECK(n == 1, "sched_conv accepted a line extract refuses: %s", w.buf);
		FUZZ_CHECK(used <= sched_conv_max(l), "arena overrun");
		same("comm", a.comm, b.comm);
		same("event", a.event, b.event);
		if (l->trace)
			same("trace", a.trace, b.trace);
		else
			FUZZ_CHECK(!b.trace, "a record of values got a trace");
		same("prev_comm", a.prev_comm, b.prev_comm);
		same("prev_state", a.prev_state, b.prev_state);
		same("next_comm", a.next_comm, b.next_comm);
		same("action", a.action, b.action);
		FUZZ_CHECK(a.pid == b.pid && a.tid == b.tid && a.cpu == b.cpu, "ids");
		FUZZ_CHECK(a.time_ns == b.time_ns && a.time_ok == b.time_ok && a.hint == b.hint, "time, hint");
		FUZZ_CHECK(a.kind == b.kind && a.has_fields == b.has_fields, "kind");
		FUZZ_CHECK(a.prev_pid == b.prev_pid && a.next_pid == b.next_pid && a.next_hint == b.next_hint,
			   "switch fields: %s", w.buf);
		FUZZ_CHECK(a.f_pid == b.f_pid && a.target_cpu == b.target_cpu && a.dest_cpu == b.dest_cpu,
			   "fields: %s", w.buf);
	}
	jsonw_free(&w);
	free(arena);
}

/* Decoded values of kind k whose text sched_trace_plain says parses back:
 * the line of the values (no text) is the line of their text byte for byte,
 * and sched_conv of the values gives what extract parses of it. */
static void check_vals(const struct sched_line *base, enum sched_kind k, const struct sched_vals *v)
{
	struct sched_switch_info sw_text, sw_vals;
	struct sched_line lt = *base, lv;
	struct jsonw wt, wv;
	char text[1024];

	if (!sched_trace_plain(k, v))
		return;
	lt.trace_len = sched_trace_format(k, v, text, sizeof(text));
	lt.trace = text;
	lt.sw = NULL;
	lv = lt;
	lv.trace = NULL;
	lv.trace_len = 0;
	lv.kind = k;
	lv.v = v;
	if (k == SK_SWITCH) {
		lt.event = lv.event = "sched:sched_switch";
		FUZZ_CHECK(sched_jsonl_parse_switch(text, lt.trace_len, &sw_text), "plain switch text unparsed: %s", text);
		sched_jsonl_switch_of(v, &sw_vals);
		lt.sw = &sw_text;
		lv.sw = &sw_vals;
	}
	jsonw_init(&wt);
	jsonw_init(&wv);
	sched_jsonl_line(&wt, &lt);
	sched_jsonl_line(&wv, &lv);
	FUZZ_CHECK(wt.len == wv.len && !memcmp(wt.buf, wv.buf, wt.len), "values' line differs: %s", wt.buf);
	jsonw_free(&wt);
	jsonw_free(&wv);
	check_sched(&lv);
}

static void check_sample(const struct mem_record *r)
{
	struct mem_jsonl_ctx *ctx = mem_jsonl_ctx_new();
	struct mem_sample a, b;
	struct jsonw w;
	char err[256], *arena = malloc(sample_conv_max(r));
	size_t used;

	FUZZ_CHECK(ctx && arena, "malloc");
	jsonw_init(&w);
	mem_jsonl_line(&w, r, ctx);
	FUZZ_CHECK(jsonl_scan_mem(w.buf, w.len - 1, &a, err, sizeof(err)) == 0, "%s", err);
	used = sample_conv(r, true, &b, arena);
	FUZZ_CHECK(used <= sample_conv_max(r), "arena overrun");
	same_n("comm", a.comm, a.comm_len, b.comm, b.comm_len);
	same_n("cgroup", a.cgroup, a.cgroup_len, b.cgroup, b.cgroup_len);
	same_n("data_map", a.data_map, a.data_map_len, b.data_map, b.data_map_len);
	same_n("data_sym", a.data_sym, a.data_sym_len, b.data_sym, b.data_sym_len);
	same_n("data_id", a.data_id, a.data_id_len, b.data_id, b.data_id_len);
	FUZZ_CHECK(a.tid == b.tid && a.pid == b.pid && a.time_ns == b.time_ns && a.hint == b.hint, "numbers");
	FUZZ_CHECK(a.peer == b.peer && a.has_weight == b.has_weight && a.weight == b.weight, "data_src, weight");
	jsonw_free(&w);
	mem_jsonl_ctx_free(ctx);
	free(arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 7), *s[6];
	size_t pos = 0, i;
	uint8_t num[16] = {0};
	int64_t v;

	if (!buf)
		return 0;
	if (!reader && !(reader = sched_events_open(NULL, "fuzz")))
		abort();
	memcpy(buf, data, size);
	memset(buf + size, 0, 7);
	for (i = 0; i < 6; i++) { /* NUL-separated strings; the last ones may be empty */
		s[i] = buf + pos;
		pos += strlen(buf + pos) + 1;
		if (pos > size)
			pos = size;
	}
	if (pos < size)
		memcpy(num, data + pos, size - pos < sizeof(num) ? size - pos : sizeof(num));
	memcpy(&v, num, 8);

	struct sched_line l = {
		.comm = s[2], .pid = (int32_t)v, .tid = (int16_t)(v >> 32), .cpu = num[12], .time_ns = (uint64_t)v >> 1,
		.event = s[0], .trace = s[1], .trace_len = strlen(s[1]), .hint = num[13],
	};
	struct sched_switch_info sw;

	if (sched_jsonl_parse_switch(l.trace, l.trace_len, &sw) && !strcmp(l.event, "sched:sched_switch")) {
		l.sw = &sw;
		l.prev_hint = num[14];
		l.next_hint = num[15];
	}
	check_sched(&l);

	struct sched_vals sv = {.pid = (int32_t)v, .pid2 = (int16_t)(v >> 32), .prio = num[13], .prio2 = num[14],
				.a0 = (int64_t)(num[15] % 12) - 1, .a1 = v, .has_a0 = num[12] & 1, .has_a1 = num[12] & 2};

	snprintf(sv.comm, sizeof(sv.comm), "%s", s[2]);
	snprintf(sv.comm2, sizeof(sv.comm2), "%s", s[3]);
	snprintf(sv.str, sizeof(sv.str), "%s", s[4]);
	snprintf(sv.state, sizeof(sv.state), "%s", s[5]);
	check_vals(&l, (enum sched_kind)(num[12] % (SK_RESCHED_EXIT + 1)), &sv);

	struct mem_record r = {
		.comm = s[2], .tid = (int32_t)v, .pid = (int32_t)(v >> 32), .time_ns = (uint64_t)v, .addr = (uint64_t)v * 3,
		.cgroup = s[3], .sym = "[unknown]", .dso = "[unknown]", .phys_addr = (uint64_t)v ^ 0x5555,
		.data_page_size = 4096, .hint = num[13], .data_map = *s[4] ? s[4] : NULL, .data_sym = *s[5] ? s[5] : NULL,
		.has_weight = num[14] & 1, .weight = num[15], .has_data_src = num[14] & 2, .data_src = (uint64_t)v,
		.data_id = {.kind = (enum data_id_kind)(num[12] % 5), .pid = (int32_t)v, .page = (uint64_t)v >> 12,
			    .maj = num[13], .min = num[14], .ino = (uint64_t)v, .ino_gen = num[15]},
	};
	check_sample(&r);
	free(buf);
	return 0;
}
