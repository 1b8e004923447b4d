/*
 * perfetto_host.c - the recording host for the trace's SystemInfo, read
 * from record's metadata.json (see pftrace_host_from_metadata()).
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "lib/error.h"
#include "process/summary/metadata_json.h"
#include "process/summary/summary.h"


static void get_str(struct json_object *root, const char *key, char *out, size_t size)
{
	struct json_object *m;

	if (json_object_object_get_ex(root, key, &m) && json_object_is_type(m, json_type_string))
		snprintf(out, size, "%s", json_object_get_string(m));
}

int pftrace_host_from_metadata(const char *path, struct pftrace_host *host)
{
	struct json_object *root, *m;

	memset(host, 0, sizeof(*host));
	root = metadata_json_load(path);
	if (!root)
		return -1;
	if (json_object_is_type(root, json_type_object)) {
		get_str(root, "kernel", host->release, sizeof(host->release));
		get_str(root, "arch", host->machine, sizeof(host->machine));
		if (json_object_object_get_ex(root, "online_cpus", &m) && json_object_is_type(m, json_type_int) &&
		    json_object_get_int64(m) > 0 && json_object_get_int64(m) <= UINT32_MAX)
			host->num_cpus = (uint32_t)json_object_get_int64(m);
	}
	json_object_put(root);
	return 0;
}
