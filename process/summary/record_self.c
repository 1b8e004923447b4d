/*
 * record_self.c - reads the recorder's own pids from metadata.json (see
 * summary.h).
 */
#include "process/summary/summary.h"

#include <json-c/json.h>
#include <string.h>

#include "lib/error.h"
#include "process/summary/metadata_json.h"


/* A pid: an integer in [1, INT32_MAX]. */
static int get_pid(struct json_object *v, int32_t *pid)
{
	int64_t n;

	if (!json_object_is_type(v, json_type_int))
		return -1;
	n = json_object_get_int64(v);
	if (n < 1 || n > INT32_MAX)
		return -1;
	*pid = (int32_t)n;
	return 0;
}

static int parse_recorder(struct json_object *rec, const char *path, struct record_self *out)
{
	struct json_object *pids, *comm, *cmd;
	size_t i, n;

	if (!json_object_is_type(rec, json_type_object))
		return scx_fail("%s: recorder is not an object", path);
	if (!json_object_object_get_ex(rec, "pids", &pids) || !json_object_is_type(pids, json_type_array))
		return scx_fail("%s: recorder.pids is not an array", path);
	n = json_object_array_length(pids);
	if (n > RECORD_SELF_MAX_PIDS)
		return scx_fail("%s: recorder.pids has %zu entries (at most %d)", path, n, RECORD_SELF_MAX_PIDS);
	for (i = 0; i < n; i++)
		if (get_pid(json_object_array_get_idx(pids, i), &out->pids[i]) < 0)
			return scx_fail("%s: recorder.pids[%zu] is not a pid", path, i);
	out->nr_pids = n;
	if (!json_object_object_get_ex(rec, "comm", &comm) || !json_object_is_type(comm, json_type_string) ||
	    (size_t)json_object_get_string_len(comm) >= sizeof(out->comm))
		return scx_fail("%s: recorder.comm is not a string of at most %zu bytes", path, sizeof(out->comm) - 1);
	memcpy(out->comm, json_object_get_string(comm), (size_t)json_object_get_string_len(comm) + 1);
	if (!json_object_object_get_ex(rec, "command_pid", &cmd))
		return scx_fail("%s: recorder.command_pid missing", path);
	if (cmd && get_pid(cmd, &out->command_pid) < 0)
		return scx_fail("%s: recorder.command_pid is neither a pid nor null", path);
	return 0;
}

int record_self_read(const char *path, struct record_self *out)
{
	struct json_object *root, *rec;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	root = metadata_json_load(path);
	if (!root)
		return -1;
	if (!json_object_is_type(root, json_type_object))
		rc = scx_fail("%s: not a JSON object", path);
	else if (json_object_object_get_ex(root, "recorder", &rec) && parse_recorder(rec, path, out) < 0)
		rc = -1;
	if (rc < 0)
		memset(out, 0, sizeof(*out));
	json_object_put(root);
	return rc;
}

bool record_self_owns(const struct record_self *s, int64_t pid, const char *comm)
{
	size_t i;

	for (i = 0; i < s->nr_pids; i++)
		if (pid == s->pids[i])
			return true;
	return s->command_pid && pid == s->command_pid && s->comm[0] && !strcmp(comm, s->comm);
}
