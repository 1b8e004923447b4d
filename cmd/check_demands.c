/*
 * check_demands.c - `scxprof check --demands DIR` (see check_demands.h):
 * a recording's threads as the scx_mitosis model's input at given weights,
 * each with its CPU demand (runtime / trace duration, from DIR/sched.jsonl)
 * and its cgroup and comm (the first sample of the thread in
 * DIR/perf.jsonl, else of its process: sched.jsonl has no cgroup).
 */
#include "cmd/check_demands.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "extract/extract.h"
#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/u64map.h"

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

static int64_t int_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : -1;
}

/* key -> strdup(cgroup) unless key has one. */
static int remember(struct u64map *m, int64_t key, const char *cgroup)
{
	char *c;

	if (key <= 0 || u64map_get(m, (uint64_t)key))
		return 0;
	if (!(c = strdup(cgroup)))
		return scx_fail("out of memory");
	if (u64map_put(m, (uint64_t)key, c) < 0) {
		free(c);
		return -1;
	}
	return 0;
}

/* Every sample's thread and process -> its first cgroup. */
static int read_cgroups(const char *path, struct u64map *by_tid, struct u64map *by_pid)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;
	int rc = 0;

	if (!f)
		return scx_fail_errno("%s", path);
	while (!rc && (len = getline(&line, &cap, f)) > 0) {
		struct json_object *o = json_tokener_parse(line);
		const char *cg;

		lineno++;
		if (!o) {
			rc = scx_fail("%s:%ld: not JSON", path, lineno);
			break;
		}
		if ((cg = str_of(o, "cgroup")) && *cg)
			rc = remember(by_tid, int_of(o, "tid"), cg) < 0 || remember(by_pid, int_of(o, "pid"), cg) < 0 ? -1 : 0;
		json_object_put(o);
	}
	free(line);
	fclose(f);
	return rc;
}

static void free_values(struct u64map *m)
{
	uint64_t k;
	void *v;

	for (size_t i = 0; u64map_next(m, &i, &k, &v);)
		free(v);
	u64map_free(m);
}

int check_demands_read(const char *dir, struct place_thread **out, size_t *n, struct check_demands_info *info)
{
	struct u64map by_tid, by_pid;
	struct sched_threads st = {0};
	struct place_thread *t = NULL;
	char perf[4096], sched[4096];
	FILE *f = NULL;
	int rc = -1;

	memset(info, 0, sizeof(*info));
	*out = NULL;
	*n = 0;
	u64map_init(&by_tid);
	u64map_init(&by_pid);
	if (fs_join(perf, sizeof(perf), dir, "perf.jsonl") < 0 || fs_join(sched, sizeof(sched), dir, "sched.jsonl") < 0)
		goto out;
	if (read_cgroups(perf, &by_tid, &by_pid) < 0)
		goto out;
	if (!(f = fopen(sched, "r"))) {
		scx_fail_errno("%s", sched);
		goto out;
	}
	if (sched_stats_threads_read(f, sched, NULL, NULL, &st) < 0)
		goto out;
	if (!st.duration_ns) {
		scx_fail("%s: no scheduling records: no demand", sched);
		goto out;
	}
	if (!(t = calloc(st.n + 1, sizeof(*t)))) {
		scx_fail("out of memory");
		goto out;
	}
	info->duration_ns = st.duration_ns;
	for (size_t i = 0; i < st.n; i++) {
		const struct sched_thread_stats *s = &st.v[i];
		const char *cg;
		double d;

		if (s->tid <= 0 || !s->runtime)
			continue;
		d = (double)s->runtime / (double)st.duration_ns;
		if (!(cg = u64map_get(&by_tid, (uint64_t)s->tid)) && s->pid > 0)
			cg = u64map_get(&by_pid, (uint64_t)s->pid);
		if (!cg) { /* neither it nor its process was sampled: no cgroup to put it in */
			info->unattributed++;
			info->unattributed_cpus += d;
			continue;
		}
		t[*n].tid = s->tid;
		t[*n].pid = s->pid;
		snprintf(t[*n].comm, sizeof(t[*n].comm), "%s", s->comm ? s->comm : "");
		snprintf(t[*n].cgroup, sizeof(t[*n].cgroup), "%s", cg);
		t[*n].demand = d > 1 ? 1 : d;
		info->cpus += t[*n].demand;
		(*n)++;
	}
	*out = t;
	t = NULL;
	rc = 0;
out:
	if (f)
		fclose(f);
	sched_stats_threads_free(&st);
	free(t);
	free_values(&by_tid);
	free_values(&by_pid);
	return rc;
}
