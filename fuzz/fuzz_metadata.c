/*
 * fuzz_metadata.c - libFuzzer target for process's metadata.json reader
 * (process/record_losses.c: the recording's loss counters).
 *
 * Invariants, besides no crash:
 *  - success exactly when the file is a JSON object whose "sched" object
 *    has "drops" as a non-negative integer (json-c's reading of the same
 *    bytes) and "skipped_nested" absent (0) or one too, with those values;
 *  - a failure names the file.
 * Seeds: fuzz/corpus/metadata/.
 */
#include "fuzz/fuzz_util.h"
#include "lib/error.h"
#include "process/record_losses.h"

#include <inttypes.h>
#include <json-c/json.h>

static struct fuzz_file in_file;

/* A non-negative integer member of o, as record_losses must read it. */
static bool count_of(struct json_object *o, const char *key, uint64_t *v)
{
	struct json_object *m;

	if (!o || !json_object_object_get_ex(o, key, &m) || !json_object_is_type(m, json_type_int) ||
	    json_object_get_int64(m) < 0)
		return false;
	*v = json_object_get_uint64(m);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *root, *sched = NULL;
	struct record_losses l;
	uint64_t drops = 0, skipped = 0;
	bool valid;
	json_tokener *tok;
	int rc;

	fuzz_file_set(&in_file, data, size);
	scx_clear_error();
	rc = record_losses_read(in_file.path, &l);
	tok = json_tokener_new();
	root = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	if (root && !json_object_object_get_ex(root, "sched", &sched))
		sched = NULL;
	if (sched && !json_object_is_type(sched, json_type_object))
		sched = NULL;
	valid = root && json_tokener_get_error(tok) == json_tokener_success && count_of(sched, "drops", &drops) &&
		(!json_object_object_get_ex(sched, "skipped_nested", NULL) || count_of(sched, "skipped_nested", &skipped));
	if (rc == 0) {
		FUZZ_CHECK(valid, "accepted a file without valid counts");
		FUZZ_CHECK(l.sched_drops == drops, "drops %" PRIu64 ", json-c %" PRIu64, l.sched_drops, drops);
		FUZZ_CHECK(l.sched_skipped == skipped, "skipped %" PRIu64 ", json-c %" PRIu64, l.sched_skipped,
			   skipped);
	} else {
		FUZZ_CHECK(!valid, "refused valid counts: %s", scx_errmsg());
		FUZZ_CHECK(!strncmp(scx_errmsg(), in_file.path, strlen(in_file.path)), "message \"%s\"", scx_errmsg());
	}
	json_object_put(root);
	json_tokener_free(tok);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init(&in_file, "metadata.json");
	return 0;
}
