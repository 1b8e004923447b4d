/*
 * fuzz_jsonl_scan.c - libFuzzer target for extract's perf.jsonl scanner
 * (extract/mem/jsonl_scan.c) and the reader that feeds it (mem_agg_read()).
 *
 * Invariants, besides no crash:
 *  - the whole input as one line: when jsonl_scan_mem() accepts it, json-c
 *    (an independent parser) accepts it too, as an object whose comm,
 *    cgroup, tid, pid, phys_addr, data_page_size, hint and weight have
 *    the values the scanner decoded; the decoded strings lie inside the
 *    line. When it refuses, it says why.
 *  - the input as a file through mem_agg_read(): success means every line
 *    was a sample (total = lines); a failure names "FILE:LINE: ".
 * An accepted line also goes into one long-lived aggregation with evidence
 * on and a small key budget (the evidence keys, data identity and sampling
 * paths of extract/mem/mem_agg.c), which must not fail.
 * Seeds: fuzz/corpus/jsonl_scan/.
 */
#include "extract/extract_mem.h"
#include "extract/mem/mem_agg.h"
#include "fuzz/fuzz_util.h"
#include "lib/error.h"

#include <inttypes.h>
#include <json-c/json.h>

static json_tokener *tok;
static struct mem_agg evidence_agg;

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	FUZZ_CHECK(json_object_object_get_ex(o, key, &v), "json-c has no \"%s\"", key);
	return v;
}

static void same_string(struct json_object *o, const char *key, const char *s, size_t n)
{
	struct json_object *v = member(o, key);

	FUZZ_CHECK(json_object_is_type(v, json_type_string), "\"%s\" is no string for json-c", key);
	FUZZ_CHECK((size_t)json_object_get_string_len(v) == n && !memcmp(json_object_get_string(v), s, n),
		   "\"%s\" decoded differently", key);
}

static void same_int(struct json_object *o, const char *key, int64_t want)
{
	struct json_object *v = member(o, key);

	FUZZ_CHECK(json_object_is_type(v, json_type_int) && json_object_get_int64(v) == want,
		   "\"%s\": scanner %" PRId64 ", json-c %s", key, want, json_object_to_json_string(v));
}

static void same_uint(struct json_object *o, const char *key, uint64_t want)
{
	struct json_object *v = member(o, key);

	FUZZ_CHECK(json_object_is_type(v, json_type_int) && json_object_get_uint64(v) == want,
		   "\"%s\": scanner %" PRIu64 ", json-c %s", key, want, json_object_to_json_string(v));
}

static void compare_with_json_c(const uint8_t *data, size_t size, const struct mem_sample *s)
{
	struct json_object *o, *phys;
	uint64_t p = 0;
	const char *h;

	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	FUZZ_CHECK(o && json_tokener_get_error(tok) == json_tokener_success &&
			   json_object_is_type(o, json_type_object),
		   "json-c refuses a line the scanner took");
	same_string(o, "comm", s->comm, s->comm_len);
	same_string(o, "cgroup", s->cgroup, s->cgroup_len);
	same_int(o, "tid", s->tid);
	same_int(o, "pid", s->pid);
	same_uint(o, "data_page_size", s->data_page_size);
	if (json_object_object_get_ex(o, "hint", NULL))
		same_uint(o, "hint", s->hint);
	else
		FUZZ_CHECK(s->hint == 0, "a hint without the key");
	FUZZ_CHECK(s->has_weight == json_object_object_get_ex(o, "weight", NULL), "weight presence");
	if (s->has_weight)
		same_uint(o, "weight", s->weight);
	phys = member(o, "phys_addr");
	FUZZ_CHECK(json_object_is_type(phys, json_type_string), "phys_addr is no string for json-c");
	h = json_object_get_string(phys);
	if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X'))
		h += 2;
	for (; *h; h++)
		p = p << 4 | (uint64_t)(*h <= '9' ? *h - '0' : (*h | 0x20) - 'a' + 10);
	FUZZ_CHECK(p == s->phys_addr, "phys_addr: scanner %" PRIx64 ", json-c %" PRIx64, s->phys_addr, p);
	json_object_put(o);
}

static void scan_one_line(const uint8_t *data, size_t size)
{
	char *line = malloc(size ? size : 1), err[256];
	struct mem_sample s;

	if (!line)
		abort();
	memcpy(line, data, size);
	if (jsonl_scan_mem(line, size, &s, err, sizeof(err)) == 0) {
		FUZZ_CHECK(s.comm >= line && s.comm + s.comm_len <= line + size, "comm outside the line");
		FUZZ_CHECK(s.cgroup >= line && s.cgroup + s.cgroup_len <= line + size, "cgroup outside the line");
		compare_with_json_c(data, size, &s);
		{
			uint64_t key;
			unsigned scale;

			(void)mem_agg_sample_key(&s, false, &key, &scale);
			FUZZ_CHECK(mem_agg_add(&evidence_agg, &s) == 0, "mem_agg_add failed: %s", scx_errmsg());
		}
	} else {
		FUZZ_CHECK(err[0], "a refusal without a reason");
	}
	free(line);
}

static void read_as_file(const uint8_t *data, size_t size)
{
	struct mem_agg_opts o = {.workload = EXTRACT_DEFAULT_WORKLOAD, .allotment_re = EXTRACT_DEFAULT_ALLOTMENT_RE,
				 .evidence = true, .track_tids = true};
	FILE *f = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
	size_t lines, nonblank;
	struct mem_agg a;

	if (!f || mem_agg_init(&a, &o) < 0)
		abort();
	scx_clear_error();
	fuzz_count_lines(data, size, "", &lines, &nonblank);
	if (mem_agg_read(&a, f, "in.jsonl", NULL) == 0)
		FUZZ_CHECK(a.total == lines, "read %" PRIu64 " samples of %zu lines", a.total, lines);
	else
		FUZZ_CHECK(!strncmp(scx_errmsg(), "in.jsonl:", 9), "message \"%s\"", scx_errmsg());
	mem_agg_free(&a);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	scan_one_line(data, size);
	read_as_file(data, size);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	struct mem_agg_opts o = {.workload = EXTRACT_DEFAULT_WORKLOAD, .allotment_re = EXTRACT_DEFAULT_ALLOTMENT_RE,
				 .evidence = true, .objects = true, .max_keys = 1024};

	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH * 4); /* the scanner nests up to 64 */
	if (!tok || mem_agg_init(&evidence_agg, &o) < 0)
		abort();
	return 0;
}
