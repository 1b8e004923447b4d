/*
 * record_kernel.c - reads the snapshot's kernel build-id from metadata.json
 * (see summary.h).
 */
#include "process/summary/summary.h"

#include <json-c/json.h>
#include <string.h>

#include "lib/error.h"
#include "process/summary/metadata_json.h"


static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int record_kernel_build_id(const char *path, uint8_t bid[20])
{
	struct json_object *root, *v;
	const char *hex;
	size_t len;
	int rc = 0;

	root = metadata_json_load(path);
	if (!root)
		return -1;
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "kernel_build_id", &v)) {
		json_object_put(root);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string)) {
		json_object_put(root);
		return scx_fail("%s: kernel_build_id is not a string", path);
	}
	hex = json_object_get_string(v);
	len = strlen(hex);
	if (len % 2 || len > 40) {
		rc = scx_fail("%s: kernel_build_id \"%.48s\" is not hex of 1 to 20 bytes", path, hex);
	} else {
		for (size_t i = 0; i < len / 2 && rc == 0; i++) {
			int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);

			if (hi < 0 || lo < 0)
				rc = scx_fail("%s: kernel_build_id \"%.48s\" is not hex of 1 to 20 bytes", path, hex);
			else
				bid[i] = (uint8_t)(hi << 4 | lo);
		}
		if (rc == 0)
			rc = (int)(len / 2);
	}
	json_object_put(root);
	return rc;
}
