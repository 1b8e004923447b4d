/*
 * fuzz_metadata.c - libFuzzer target for process's metadata.json readers:
 * the loss counters (process/summary/record_losses.c), and on the same bytes the
 * recorder's own pids (record_self.c), the snapshot's kernel build-id
 * (record_kernel.c) and the host facts of the Perfetto trace
 * (perfetto_host.c), all opened by metadata_json.c.
 *
 * Invariants, besides no crash:
 *  - success exactly when the file is a JSON object whose "sched" object
 *    has "drops" as a non-negative integer (json-c's reading of the same
 *    bytes) and "skipped_nested" absent (0) or one too, with those values;
 *  - a failure names the file (every reader);
 *  - record_self: at most RECORD_SELF_MAX_PIDS pids, each > 0, a
 *    NUL-terminated comm; record_kernel: a size of 0..20 bytes;
 *    perfetto_host: NUL-terminated strings.
 * Seeds: fuzz/corpus/metadata/.
 */
#include "fuzz/fuzz_util.h"
#include "lib/error.h"
#include "process/summary/summary.h"

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

static void check_failure_names_file(const char *who)
{
	FUZZ_CHECK(!strncmp(scx_errmsg(), in_file.path, strlen(in_file.path)), "%s: message \"%s\"", who,
		   scx_errmsg());
}

/* The other readers of metadata.json, on the same bytes. */
static void check_other_readers(void)
{
	static struct record_self self;
	struct pftrace_host host;
	uint8_t bid[20];
	size_t i;
	int n;

	scx_clear_error();
	if (record_self_read(in_file.path, &self) < 0) {
		check_failure_names_file("record_self");
	} else {
		FUZZ_CHECK(self.nr_pids <= RECORD_SELF_MAX_PIDS, "%zu pids", self.nr_pids);
		for (i = 0; i < self.nr_pids; i++)
			FUZZ_CHECK(self.pids[i] > 0, "pid %d", (int)self.pids[i]);
		FUZZ_CHECK(memchr(self.comm, 0, sizeof(self.comm)) != NULL, "comm not terminated");
	}
	scx_clear_error();
	n = record_kernel_build_id(in_file.path, bid);
	if (n < 0)
		check_failure_names_file("record_kernel");
	else
		FUZZ_CHECK(n <= 20, "build-id of %d bytes", n);
	scx_clear_error();
	if (pftrace_host_from_metadata(in_file.path, &host) < 0) {
		check_failure_names_file("perfetto_host");
	} else {
		FUZZ_CHECK(memchr(host.release, 0, sizeof(host.release)) != NULL, "release not terminated");
		FUZZ_CHECK(memchr(host.machine, 0, sizeof(host.machine)) != NULL, "machine not terminated");
	}
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
	check_other_readers();
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init(&in_file, "metadata.json");
	return 0;
}
