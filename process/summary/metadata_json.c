/*
 * metadata_json.c - the one loader of metadata.json for process's readers
 * (see metadata_json.h).
 */
#include "process/summary/metadata_json.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/error.h"

struct json_object *metadata_json_load(const char *path)
{
	struct json_object *root;
	struct stat st;

	if (stat(path, &st) < 0) {
		scx_fail("%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > METADATA_JSON_MAX_BYTES) {
		scx_fail("%s: not a regular file of at most %u MB", path, METADATA_JSON_MAX_BYTES >> 20);
		return NULL;
	}
	root = json_object_from_file(path);
	if (!root)
		scx_fail("%s: not valid JSON", path);
	return root;
}
