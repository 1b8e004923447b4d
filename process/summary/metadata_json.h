/*
 * metadata_json.h - opens a profile's metadata.json (written by record) as
 * hostile input: a regular file of at most METADATA_JSON_MAX_BYTES that
 * parses as JSON. The readers of its parts (record_losses, record_self,
 * record_kernel, perfetto_host) check each field themselves.
 */
#ifndef SCXPROF_PROCESS_METADATA_JSON_H
#define SCXPROF_PROCESS_METADATA_JSON_H

#include <json-c/json.h>

#define METADATA_JSON_MAX_BYTES (16u << 20)

/* The parsed document (json_object_put it), or NULL with scx_errmsg() naming path. */
struct json_object *metadata_json_load(const char *path);

#endif
