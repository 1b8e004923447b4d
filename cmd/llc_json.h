/*
 * llc_json.h - `extract --llc-json FILE`: the observer that writes the
 * cross-LLC sidecar (schemas/llc-sharing.schema.json) under a temporary
 * name in FILE's directory and links it into place, so FILE is never
 * overwritten and never left half written.
 */
#ifndef SCX_CMD_LLC_JSON_H
#define SCX_CMD_LLC_JSON_H

#include "llc/llc.h"

/* extract_mem_observer.on_llc; ctx is the path. -1 (scx_fail) on error. */
int llc_json_write(void *ctx, const struct llc_share_result *r);

#endif
