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
 * Formatting state kept across lines: formatted data_src objects, the
 * seconds of the last time written, recent data ids' heads, each recent
 * thread's start of line (comm, tid, pid), and the escaped JSON form of strings
 * whose pointers stay valid and unchanged for the whole run (interned dso,
 * symbol and event names), keyed by pointer. Escaped forms live in chunks
 * that never move; past 64 MiB the cache starts over, and the chunks it
 * drops are freed at the next line (the current line may still copy them).
 */
#define ESCAPE_CACHE 4096
#define THREAD_CACHE 256
#define ID_CACHE 64
#define THREAD_COMM_MAX 32 /* longer comms are escaped every time */
/* {"comm":<escaped comm>,"tid":<i64>,"pid":<i64>, and 32 bytes for the copy's steps */
#define THREAD_TEXT_MAX (8 + 6 * (THREAD_COMM_MAX - 1) + 2 + 7 + 20 + 7 + 20 + 32)
struct mem_jsonl_chunk;
struct mem_jsonl_ctx {
	struct data_src_cache data_src;
	struct {
		const char *key;
		const char *text; /* the escaped form, quotes included */
		size_t len;
	} esc[ESCAPE_CACHE];
	struct mem_jsonl_chunk *chunks, *retired;
	char *free_at;        /* unused room in the newest chunk */
	size_t free_len;
	size_t arena_len;     /* escaped bytes cached since the last start-over */
	unsigned long starts; /* times the cache started over */
	uint64_t unknown_src; /* a data_src value known to say nothing (0 at first) */
	uint64_t secs;        /* the last time's seconds, and their digits */
	size_t secs_len;
	char secs_text[24];
	struct {              /* a thread's start of line, by tid (len 0: empty) */
		int64_t tid, pid;
		size_t comm_len, len;
		char comm[THREAD_COMM_MAX];
		char text[THREAD_TEXT_MAX];
	} thread[THREAD_CACHE];
	struct {              /* data id heads (all but the page), by mapping (len 0: empty) */
		struct data_id id;
		size_t len;
		char head[DATA_ID_HEAD_MAX];
	} id[ID_CACHE];
};

struct mem_jsonl_ctx *mem_jsonl_ctx_new(void);
void mem_jsonl_ctx_free(struct mem_jsonl_ctx *c);

/* Append the record as one JSON line (with the trailing newline). */
void mem_jsonl_line(struct jsonw *w, const struct mem_record *r, struct mem_jsonl_ctx *ctx);

#endif
