/*
 * test_mem_jsonl_cache.c - process's escape cache for stable names
 * (process/emit/mem_jsonl.c): when a later name of the same line makes the
 * arena grow (realloc), the names cached before it in that line are still
 * written whole. Before the fix the line took their pointers into the old
 * arena: perf.jsonl got "sym":<freed bytes>, unquoted (seen on a real
 * recording; under ASan a use after free).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>
#include <stdbool.h>

#include "lib/data_src.h"
#include "lib/jsonw.h"
#include "process/emit/mem_jsonl.h"

static char *filled(size_t n, char ch)
{
	char *s = malloc(n + 1);

	cr_assert(s);
	memset(s, ch, n);
	s[n] = '\0';
	return s;
}

Test(mem_jsonl_cache, names_cached_before_an_arena_move_stay_whole)
{
	struct mem_jsonl_ctx *ctx = mem_jsonl_ctx_new();
	/* the arena starts at 64 KiB and reserves 6 bytes a character (the escape bound) */
	char *sym1 = filled(10, 'a'), *sym2 = filled(9000, 'b'), *dso2 = filled(10000, 'c');
	struct mem_record r = {.comm = "w", .tid = 1, .pid = 1, .cgroup = "/", .sym = sym1, .dso = "d",
			       .stable_names = true};
	struct jsonw w;
	char *want;

	cr_assert(ctx);
	jsonw_init(&w);
	mem_jsonl_line(&w, &r, ctx); /* the first arena, 64 KiB */
	jsonw_reset(&w);
	r.sym = sym2;                /* cached next, in the same arena (54 KiB reserved) ... */
	r.dso = dso2;                /* ... then this one needs a bigger one */
	mem_jsonl_line(&w, &r, ctx);
	cr_assert(!w.oom && w.len > 0);
	want = malloc(9000 + 16);
	cr_assert(want);
	snprintf(want, 9000 + 16, "\"sym\":\"%s\"", sym2);
	cr_assert(memmem(w.buf, w.len, want, strlen(want)) != NULL, "the line lost its sym: %.80s...", w.buf);
	snprintf(want, 9000 + 16, "\"dso\":\"%.10s", dso2);
	cr_assert(memmem(w.buf, w.len, want, strlen(want)) != NULL);
	free(want);
	jsonw_free(&w);
	mem_jsonl_ctx_free(ctx);
	free(sym1);
	free(sym2);
	free(dso2);
}

/* The line holds every name whole and quoted: "key":"<n times ch>" */
static void assert_name(const struct jsonw *w, const char *key, size_t n, char ch)
{
	size_t klen = strlen(key);
	char *want = malloc(klen + n + 8), *p = want;

	cr_assert(want);
	p += sprintf(p, "\"%s\":\"", key);
	memset(p, ch, n);
	p[n] = '"';
	p[n + 1] = '\0';
	cr_assert(memmem(w->buf, w->len, want, strlen(want)) != NULL, "the line lost its %s (%zu x '%c')", key, n, ch);
	free(want);
}

/*
 * The arena starts over once it would pass 64 MiB. Here it does so while the
 * second name of a line is cached, and that name is longer than everything
 * cached before it in the arena that started over: the first name's bytes
 * are overwritten and the line must notice (a name longer than the arena's
 * length before it hid the start-over from a length comparison).
 */
Test(mem_jsonl_cache, names_cached_before_a_start_over_stay_whole, .timeout = 120)
{
	struct mem_jsonl_ctx *ctx = mem_jsonl_ctx_new();
	enum { FILL = 1 << 20, BIG = 11 << 20 };
	/* \x01 escapes to \u0001: 6 bytes each, the arena fills 6 MiB a name */
	char *fill[16], *small = filled(1000, 'x'), *big = filled(BIG, 'b');
	struct mem_record r = {.comm = "w", .tid = 1, .pid = 1, .cgroup = "/", .dso = "d", .stable_names = true};
	struct jsonw w;
	size_t lines = 0, starts_before;

	cr_assert(ctx);
	jsonw_init(&w);
	/* fill until the arena has started over once (its length went down) */
	for (int i = 0; i < 16; i++) {
		size_t before = ctx->arena_len;

		fill[i] = filled(FILL, '\x01');
		r.sym = fill[i];
		jsonw_reset(&w);
		mem_jsonl_line(&w, &r, ctx);
		cr_assert(!w.oom && w.len > 6 * FILL);
		lines++;
		if (ctx->arena_len < before)
			break;
	}
	starts_before = ctx->arena_len;
	cr_assert(starts_before < 16u << 20, "the arena never started over (%zu bytes)", starts_before);
	/* sym is cached in the fresh arena; dso needs more than 64 MiB can hold */
	r.sym = small;
	r.dso = big;
	jsonw_reset(&w);
	mem_jsonl_line(&w, &r, ctx);
	cr_assert(!w.oom);
	assert_name(&w, "sym", 1000, 'x');
	assert_name(&w, "dso", BIG, 'b');
	/* and the same names again, now from the cache */
	jsonw_reset(&w);
	mem_jsonl_line(&w, &r, ctx);
	assert_name(&w, "sym", 1000, 'x');
	assert_name(&w, "dso", BIG, 'b');
	jsonw_free(&w);
	mem_jsonl_ctx_free(ctx);
	for (size_t i = 0; i < lines; i++)
		free(fill[i]);
	free(small);
	free(big);
}

/* Many lines of five long names each, cycling through more names than the
 * cache has slots and more bytes than the arena holds: every line whole. */
Test(mem_jsonl_cache, long_names_through_reallocs_and_start_overs, .timeout = 120)
{
	struct mem_jsonl_ctx *ctx = mem_jsonl_ctx_new();
	enum { NAMES = 9000, LEN = 2000 };
	char **names = malloc(NAMES * sizeof(*names));
	struct mem_record r = {.comm = "w", .tid = 1, .pid = 1, .cgroup = "/", .stable_names = true};
	struct jsonw w;
	int starts = 0;

	cr_assert(ctx && names);
	for (int i = 0; i < NAMES; i++) {
		names[i] = filled(LEN + i % 7, (char)('a' + i % 26));
		names[i][LEN / 2] = '"'; /* escaped as \" */
	}
	jsonw_init(&w);
	for (int i = 0; i < 4 * NAMES; i++) {
		size_t before = ctx->arena_len;
		int k[5] = {i % NAMES, (i * 7 + 1) % NAMES, (i * 13 + 2) % NAMES, (i * 31 + 3) % NAMES, (i * 61 + 4) % NAMES};

		r.sym = names[k[0]], r.dso = names[k[1]], r.event = names[k[2]];
		r.data_map = names[k[3]], r.data_sym = names[k[4]];
		jsonw_reset(&w);
		mem_jsonl_line(&w, &r, ctx);
		cr_assert(!w.oom);
		if (ctx->arena_len < before)
			starts++;
		const char *keys[5] = {"sym", "dso", "event", "data_map", "data_sym"};
		for (int j = 0; j < 5; j++) {
			size_t n = strlen(names[k[j]]), klen = strlen(keys[j]);
			char *want = malloc(klen + n + 16), *p = want;

			p += sprintf(p, "\"%s\":\"", keys[j]);
			memcpy(p, names[k[j]], LEN / 2);
			p += LEN / 2;
			p += sprintf(p, "\\\"%s\"", names[k[j]] + LEN / 2 + 1);
			cr_assert(memmem(w.buf, w.len, want, (size_t)(p - want)) != NULL, "line %d lost its %s", i, keys[j]);
			free(want);
		}
	}
	cr_assert(starts > 0, "the arena never started over");
	jsonw_free(&w);
	mem_jsonl_ctx_free(ctx);
	for (int i = 0; i < NAMES; i++)
		free(names[i]);
	free(names);
}

/*
 * The line reuses data id heads (kind and mapping fields, kept by mapping) and the
 * last time's seconds while they repeat: over records whose ids change one
 * field at a time (kind, pid, maj, min, ino, gen, page, or none) and whose
 * times cross seconds both ways, every line holds what the stateless writers
 * (data_id_put, printf) make of that record.
 */
Test(mem_jsonl_cache, data_id_head_and_seconds_reused_only_while_they_repeat)
{
	struct mem_jsonl_ctx *ctx = mem_jsonl_ctx_new();
	struct mem_record r = {.comm = "w", .tid = 1, .pid = 1, .cgroup = "", .sym = "s", .dso = "d",
			       .has_time_ns = true, .stable_names = true};
	struct data_id id = {.kind = DATA_ID_FILE, .pid = 7, .maj = 8, .min = 1, .ino = 0x1234, .ino_gen = 3,
			     .page = 0x10};
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	struct jsonw w;

	cr_assert(ctx);
	jsonw_init(&w);
	for (int i = 0; i < 20000; i++) {
		char want[256], *e;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		switch (x % 9) {
		case 0: id.kind = (enum data_id_kind)(x >> 8) % 5; break;
		case 1: id.pid = (int32_t)(x >> 16) % 5 - 1; break;
		case 2: id.maj = (uint32_t)(x >> 20) % 3; break;
		case 3: id.min = (uint32_t)(x >> 20) % 3; break;
		case 4: id.ino = (x >> 20) % 3 ? 0x1234 : x; break;
		case 5: id.ino_gen = (x >> 20) % 3; break;
		default: id.page = x >> (x % 64); break;
		}
		r.data_id = id;
		/* times around a few seconds, below one second too, forwards and back */
		r.time_ns = (x >> 40) % 4 * 1000000000ULL + (x >> 8) % 2000000000ULL;
		jsonw_reset(&w);
		mem_jsonl_line(&w, &r, ctx);
		cr_assert(!w.oom && w.len > 0 && w.buf[w.len - 1] == '\n');
		e = want + sprintf(want, ",\"data_id\":");
		e = data_id_put(e, &id);
		*e = '\0';
		cr_assert(memmem(w.buf, w.len, want, strlen(want)), "line %d: no %s in %.*s", i, want, (int)w.len, w.buf);
		snprintf(want, sizeof(want), ",\"time\":\"%llu.%09llu\",", (unsigned long long)(r.time_ns / 1000000000ULL),
			 (unsigned long long)(r.time_ns % 1000000000ULL));
		cr_assert(memmem(w.buf, w.len, want, strlen(want)), "line %d: no %s in %.*s", i, want, (int)w.len, w.buf);
		snprintf(want, sizeof(want), ",\"time_ns\":%llu,", (unsigned long long)r.time_ns);
		cr_assert(memmem(w.buf, w.len, want, strlen(want)), "line %d: no %s in %.*s", i, want, (int)w.len, w.buf);
	}
	jsonw_free(&w);
	mem_jsonl_ctx_free(ctx);
}

/*
 * Each thread's start of line ({"comm":..,"tid":..,"pid":..) is kept by tid:
 * over records whose comm (renamed, escaped, 31 to 40 bytes), pid or tid
 * change, with more tids than slots, every line starts as the stateless
 * writers make it.
 */
Test(mem_jsonl_cache, thread_start_reused_only_while_comm_tid_pid_repeat)
{
	static const char *comms[] = {"w", "worker-1", "worker-2", "q\"x\\y\n", "\xc3\xa9t\xc3\xa9", "",
				      "abcdefghijklmnopqrstuvwxyz01234",           /* 31: cached */
				      "abcdefghijklmnopqrstuvwxyz012345",          /* 32: not */
				      "abcdefghijklmnopqrstuvwxyz0123456789abcd"}; /* 40 */
	struct mem_jsonl_ctx *ctx = mem_jsonl_ctx_new();
	struct mem_record r = {.cgroup = "", .sym = "s", .dso = "d", .stable_names = true};
	uint64_t x = 0x2545f4914f6cdd1dULL;
	struct jsonw w;

	cr_assert(ctx);
	jsonw_init(&w);
	for (int i = 0; i < 50000; i++) {
		char want[512], *e = want;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		r.tid = (int64_t)(x % 700) - 1; /* -1 .. 698: more tids than slots */
		r.pid = (x >> 12) % 4 ? r.tid : (int64_t)((x >> 20) % 3);
		r.comm = comms[(x >> 30) % 4 ? (size_t)(r.tid + 1) % 3 : (x >> 40) % (sizeof(comms) / sizeof(*comms))];
		jsonw_reset(&w);
		mem_jsonl_line(&w, &r, ctx);
		cr_assert(!w.oom);
		memcpy(e, "{\"comm\":", 8), e += 8;
		e = jsonw_put_str(e, r.comm, strlen(r.comm));
		e += sprintf(e, ",\"tid\":%lld,\"pid\":%lld,\"time\":", (long long)r.tid, (long long)r.pid);
		cr_assert(w.len > (size_t)(e - want) && !memcmp(w.buf, want, (size_t)(e - want)), "line %d: %.*s, not %.*s",
			  i, (int)(e - want), w.buf, (int)(e - want), want);
	}
	jsonw_free(&w);
	mem_jsonl_ctx_free(ctx);
}

/* A data_src value that says nothing is remembered so the next line skips
 * the check: over lines alternating unknown values (0, every part "not
 * available", with and without the level number) and known ones, data_src
 * is in a line exactly when the value says something. */
Test(mem_jsonl_cache, data_src_left_out_exactly_when_unknown)
{
	const uint64_t na = (uint64_t)PERF_MEM_OP_NA << PERF_MEM_OP_SHIFT | (uint64_t)PERF_MEM_LVL_NA << PERF_MEM_LVL_SHIFT |
			    (uint64_t)PERF_MEM_SNOOP_NA << PERF_MEM_SNOOP_SHIFT |
			    (uint64_t)PERF_MEM_LOCK_NA << PERF_MEM_LOCK_SHIFT | (uint64_t)PERF_MEM_TLB_NA << PERF_MEM_TLB_SHIFT;
	const uint64_t values[] = {0, na, na | (uint64_t)PERF_MEM_LVLNUM_NA << PERF_MEM_LVLNUM_SHIFT,
				   (uint64_t)PERF_MEM_OP_LOAD << PERF_MEM_OP_SHIFT | (uint64_t)PERF_MEM_LVL_HIT << PERF_MEM_LVL_SHIFT,
				   na ^ ((uint64_t)PERF_MEM_OP_NA << PERF_MEM_OP_SHIFT) ^ ((uint64_t)PERF_MEM_OP_STORE << PERF_MEM_OP_SHIFT)};
	struct mem_jsonl_ctx *ctx = mem_jsonl_ctx_new();
	struct mem_record r = {.comm = "w", .cgroup = "", .sym = "s", .dso = "d", .has_data_src = true,
			       .stable_names = true};
	struct jsonw w;
	uint64_t x = 88172645463325252ULL;

	cr_assert(ctx);
	jsonw_init(&w);
	for (int i = 0; i < 2000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		r.data_src = values[x % 5];
		r.has_data_src = (x >> 8) % 7 != 0;
		jsonw_reset(&w);
		mem_jsonl_line(&w, &r, ctx);
		bool has = memmem(w.buf, w.len, ",\"data_src\":", 12) != NULL;
		cr_assert_eq(has, r.has_data_src && !data_src_is_unknown(r.data_src), "line %d (value %llx): %.*s", i,
			     (unsigned long long)r.data_src, (int)w.len, w.buf);
	}
	jsonw_free(&w);
	mem_jsonl_ctx_free(ctx);
}
