/*
 * data_src.h - decoding PERF_SAMPLE_DATA_SRC (union perf_mem_data_src) into
 * a JSON object: memory operation, level reached (hit/miss), snoop result
 * including HITM, lock, dTLB, remote/hops, block reason. Levels follow perf:
 * the numeric level (lvl_num, with remote and hops) when set, else the
 * legacy mem_lvl bits.
 */
#ifndef SCX_DATA_SRC_H
#define SCX_DATA_SRC_H

#include <stdint.h>

#include "lib/jsonw.h"

/* Append the decoded object as the next value of w. */
void data_src_json(struct jsonw *w, uint64_t data_src);

#endif
