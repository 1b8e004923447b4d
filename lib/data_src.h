/*
 * data_src.h - decoding PERF_SAMPLE_DATA_SRC (union perf_mem_data_src) into
 * a JSON object: memory operation, level reached (hit/miss), snoop result
 * including HITM, lock, dTLB, remote/hops, block reason. Levels follow perf:
 * the numeric level (lvl_num, with remote and hops) when set, else the
 * legacy mem_lvl bits.
 */
#ifndef SCX_DATA_SRC_H
#define SCX_DATA_SRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/jsonw.h"

/* Append the decoded object as the next value of w. */
void data_src_json(struct jsonw *w, uint64_t data_src);

/* "LEVEL RESULT[ remote]" (e.g. "L1 HIT", "RAM MISS remote"), a short name. */
void data_src_summary(uint64_t data_src, char *buf, size_t size);

/* The value the kernel reports when it knows nothing (every part "NA"). */
bool data_src_is_unknown(uint64_t data_src);

/*
 * A few distinct data_src values make up nearly every sample, so formatted
 * objects are cached (direct-mapped, DATA_SRC_CACHE entries).
 */
#define DATA_SRC_CACHE 64
#define DATA_SRC_TEXT_MAX 320
struct data_src_cache {
	struct {
		uint64_t value;
		uint16_t len; /* 0: empty slot */
		char text[DATA_SRC_TEXT_MAX];
	} slot[DATA_SRC_CACHE];
};

/* The JSON object for value (not NUL-terminated), length in *len. */
const char *data_src_text(struct data_src_cache *c, uint64_t value, size_t *len);

#endif
