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

#include "lib/jsonw.h"
#include "lib/data_id.h"
#include "lib/data_src.h"

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
};

struct mem_jsonl_ctx *mem_jsonl_ctx_new(void);
void mem_jsonl_ctx_free(struct mem_jsonl_ctx *c);

struct mem_record {
	const char *comm;
	int64_t tid, pid;
	uint64_t time_ns;
	uint64_t addr;
	const char *cgroup;
	uint64_t ip;
	const char *sym, *dso;
	uint64_t phys_addr;
	uint64_t data_page_size;
	uint64_t hint;
	/* extras */
	const char *event; /* NULL: omitted */
	bool has_cpu, has_time_ns, has_period, has_weight, has_weight_struct, has_data_src;
	uint32_t cpu;
	uint64_t period, weight, data_src;
	uint32_t var1;
	uint16_t var2, var3;
	const char *data_map;  /* NULL: omitted */
	struct data_id data_id; /* DATA_ID_NONE: null */
	const char *data_sym;  /* NULL: omitted */
	/* sym, dso, event, data_map and data_sym point to strings that live and stay unchanged as
	 * long as the ctx: their escaped form may be cached by pointer */
	bool stable_names;
};

/* Append the record as one JSON line (with the trailing newline). */
void mem_jsonl_line(struct jsonw *w, const struct mem_record *r, struct mem_jsonl_ctx *ctx);

#endif
