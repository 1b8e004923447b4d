/*
 * record_losses.c - reads record's loss counters from metadata.json (see
 * summary.h).
 */
#include "process/summary/summary.h"

#include <json-c/json.h>
#include <string.h>

#include "lib/error.h"
#include "process/summary/metadata_json.h"


/* A count member of sched: 0 and *v; 1 when absent; -1 (scx_fail naming
 * path and key) when present but not a non-negative integer. */
static int get_count(const char *path, struct json_object *o, const char *key, uint64_t *v)
{
	struct json_object *m;

	if (!json_object_object_get_ex(o, key, &m))
		return 1;
	if (!json_object_is_type(m, json_type_int))
		return scx_fail("%s: sched.%s is %s, not a count", path, key,
				json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN));
	/* json-c keeps integers as int64 or uint64: a negative one is below 0 as int64 */
	if (json_object_get_int64(m) < 0)
		return scx_fail("%s: sched.%s is %lld: invalid, a count cannot be negative", path, key,
				(long long)json_object_get_int64(m));
	*v = json_object_get_uint64(m);
	return 0;
}

int record_losses_read(const char *path, struct record_losses *out)
{
	struct json_object *root, *sched;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	root = metadata_json_load(path);
	if (!root)
		return -1;
	if (!json_object_object_get_ex(root, "sched", &sched) || !json_object_is_type(sched, json_type_object))
		scx_fail("%s: no sched.drops count", path);
	else if ((rc = get_count(path, sched, "drops", &out->sched_drops)) > 0)
		rc = scx_fail("%s: no sched.drops count", path);
	else if (rc == 0 && get_count(path, sched, "skipped_nested", &out->sched_skipped) < 0)
		rc = -1; /* absent is fine: written before it existed */
	json_object_put(root);
	return rc;
}
