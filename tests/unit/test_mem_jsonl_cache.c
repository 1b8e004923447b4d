/*
 * test_mem_jsonl_cache.c - process's escape cache for stable names
 * (process/mem_jsonl.c): when a later name of the same line makes the
 * arena grow (realloc), the names cached before it in that line are still
 * written whole. Before the fix the line took their pointers into the old
 * arena: perf.jsonl got "sym":<freed bytes>, unquoted (seen on a real
 * recording; under ASan a use after free).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonw.h"
#include "process/mem_jsonl.h"

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
