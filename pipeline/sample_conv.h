/*
 * sample_conv.h - one process-stage sample (struct mem_record, what
 * `process` formats as a perf.jsonl line) as the struct mem_sample
 * extract's scanner (extract/mem/mem_agg.h) makes of that line, without the
 * line: the same bytes and numbers, so one-pass extract aggregates exactly
 * what process + extract would.
 *
 * What the JSON round trip does, done directly: strings are written with
 * every byte sequence that is not valid UTF-8 replaced by U+FFFD (lib/jsonw
 * does so; escapes decode back to the same bytes); "time" and "time_ns"
 * both give r->time_ns; data_id is its text without quotes (NULL for
 * null); data_src is "peer" when the sample was a HITM or a peer-cache
 * snoop (what the scanner reads from data_src.hitm and data_src.snoop).
 */
#ifndef SCX_PIPELINE_SAMPLE_CONV_H
#define SCX_PIPELINE_SAMPLE_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extract/extract.h"
#include "process/process.h"

/* Most arena bytes sample_conv() writes for r. */
size_t sample_conv_max(const struct mem_record *r);

/*
 * Fill *s from r; its strings are copied to arena (sample_conv_max(r)
 * bytes free), so s stays valid when r's do not. Returns the bytes used.
 * Without data_syms, data_sym is left out (only -v's object names use it).
 */
size_t sample_conv(const struct mem_record *r, bool data_syms, struct mem_sample *s, char *arena);

/* data_src says HITM (local or remote) or a PEER snoop; false when the
 * kernel reported every part of it as not available (no data_src key). */
bool sample_conv_peer(bool has_data_src, uint64_t data_src);

#endif
