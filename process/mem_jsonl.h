/*
 * mem_jsonl.h - one perf.jsonl line: a kept memory sample with upstream's
 * keys, order and types, followed by our extra keys.
 *
 * Upstream keys (in order): comm, tid, pid, time (string, seconds with 9
 * decimals), addr (hex string), cgroup, ip (hex string), sym, dso,
 * phys_addr (hex string), data_page_size (bytes), hint.
 * Extra keys, present when the input has them: event, cpu, time_ns, period,
 * weight, weight_struct {var1, var2, var3}, data_src {...} (left out when
 * the kernel reported every part of it as not available); then the data's
 * identity: data_map (when a mapping is known), data_id (always; null when
 * unknown), data_sym (when known).
 * schemas/perf-sample.schema.json is the contract.
 */
#ifndef SCX_MEM_JSONL_H
#define SCX_MEM_JSONL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/data_src.h"
#include "lib/jsonw.h"
#include "lib/mem_record.h"

/*
 * Formatting state kept across lines: formatted data_src objects, and the
 * escaped JSON form of strings whose pointers stay valid and unchanged for
 * the whole run (interned dso, symbol and event names), keyed by pointer.
 */
#define ESCAPE_CACHE 4096
struct mem_jsonl_ctx {
	struct data_src_cache data_src;
	struct {
		const char *key;
		uint32_t off, len;
	} esc[ESCAPE_CACHE];
	char *arena;
	size_t arena_len, arena_cap;
	unsigned long starts; /* times the arena started over */
};

struct mem_jsonl_ctx *mem_jsonl_ctx_new(void);
void mem_jsonl_ctx_free(struct mem_jsonl_ctx *c);

/* Append the record as one JSON line (with the trailing newline). */
void mem_jsonl_line(struct jsonw *w, const struct mem_record *r, struct mem_jsonl_ctx *ctx);

#endif
