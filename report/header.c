/*
 * header.c - the report's header section (see header.h): a definition
 * list read from process.json and metadata.json with json-c. Every value
 * is escaped; an absent key is left out.
 */
#include "report/header.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "lib/fsutil.h"
#include "report/html.h"

static json_object *get(json_object *o, const char *path)
{
	char key[64];
	const char *dot;

	while (o && *path) {
		dot = strchr(path, '.');
		snprintf(key, sizeof(key), "%.*s", dot ? (int)(dot - path) : (int)strlen(path), path);
		if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &o))
			return NULL;
		path = dot ? dot + 1 : path + strlen(path);
	}
	return o;
}

static bool get_u64(json_object *o, const char *path, uint64_t *v)
{
	json_object *x = get(o, path);

	if (!x || !json_object_is_type(x, json_type_int))
		return false;
	*v = json_object_get_uint64(x);
	return true;
}

static const char *get_str(json_object *o, const char *path)
{
	json_object *x = get(o, path);

	return x && json_object_is_type(x, json_type_string) ? json_object_get_string(x) : NULL;
}

static void dt(FILE *f, const char *name)
{
	fprintf(f, "<dt>%s</dt><dd>", name);
}

void header_find_profile(const char *out_dir, char *profile, size_t size)
{
	char pj[PATH_MAX], cand[PATH_MAX], meta[PATH_MAX], parent[PATH_MAX];
	const char *rel = NULL, *slash;
	json_object *p = NULL;
	int i;

	profile[0] = '\0';
	if (fs_join(pj, sizeof(pj), out_dir, "process.json") == 0 && fs_is_file(pj)) {
		p = json_object_from_file(pj);
		rel = get_str(p, "inputs.profile");
	}
	slash = strrchr(out_dir, '/');
	snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - out_dir) : 1, slash ? out_dir : ".");
	if (slash == out_dir)
		snprintf(parent, sizeof(parent), "/");
	for (i = 0; i < 3; i++) {
		cand[0] = '\0';
		if (i == 0 && rel && rel[0] == '/')
			snprintf(cand, sizeof(cand), "%s", rel);
		else if (i == 0 && rel && fs_join(cand, sizeof(cand), parent, rel) < 0)
			cand[0] = '\0';
		else if (i == 1 && rel)
			snprintf(cand, sizeof(cand), "%s", rel);
		else if (i == 2)
			fs_strip_suffix(cand, sizeof(cand), out_dir, ".out");
		if (!cand[0] || !strcmp(cand, out_dir))
			continue;
		if (fs_join(meta, sizeof(meta), cand, "metadata.json") == 0 && fs_is_file(meta)) {
			snprintf(profile, size, "%s", cand);
			break;
		}
	}
	json_object_put(p);
}

static void write_duration(FILE *f, json_object *meta, json_object *proc)
{
	uint64_t a, b;

	if (get_u64(meta, "start_ns", &a) && get_u64(meta, "end_ns", &b) && b >= a) {
		dt(f, "Duration");
		fprintf(f, "%.3f s recorded", (double)(b - a) / 1e9);
	} else if (get_u64(proc, "sched.first_ns", &a) && get_u64(proc, "sched.last_ns", &b) && b >= a) {
		dt(f, "Duration");
		fprintf(f, "%.3f s of sched trace", (double)(b - a) / 1e9);
	} else {
		return;
	}
	fputs("</dd>\n", f);
}

static void write_command(FILE *f, json_object *meta)
{
	json_object *cl = get(meta, "command_line");
	size_t i, n;

	if (!cl || !json_object_is_type(cl, json_type_array))
		return;
	dt(f, "Recorded with");
	fputs("<code>scxprof", f);
	n = json_object_array_length(cl);
	for (i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(cl, i);

		fputc(' ', f);
		if (a && json_object_is_type(a, json_type_string))
			html_esc(f, json_object_get_string(a));
	}
	fputs("</code></dd>\n", f);
}

/* "name N" for each non-zero counter of obj at the paths listed */
static bool write_counters(FILE *f, json_object *o, const char *const *paths, const char *const *names, size_t n,
			   bool any)
{
	uint64_t v;
	size_t i;

	for (i = 0; i < n; i++)
		if (get_u64(o, paths[i], &v) && v) {
			fprintf(f, "%s%s %llu", any ? ", " : "", names[i], (unsigned long long)v);
			any = true;
		}
	return any;
}

static void write_skipped(FILE *f, json_object *proc)
{
	json_object *sk = get(proc, "samples.skipped");
	uint64_t total, kept;
	bool any = false;

	if (!get_u64(proc, "samples.total", &total) || !get_u64(proc, "samples.kept", &kept))
		return;
	dt(f, "Samples processed");
	fprintf(f, "%llu of %llu kept", (unsigned long long)kept, (unsigned long long)total);
	if (sk && json_object_is_type(sk, json_type_object)) {
		json_object_object_foreach(sk, key, val) {
			fputs(any ? ", " : "; skipped: ", f);
			html_esc(f, key);
			fprintf(f, " %llu", (unsigned long long)json_object_get_uint64(val));
			any = true;
		}
	}
	fputs("</dd>\n", f);
}

static void write_losses(FILE *f, json_object *meta, json_object *proc)
{
	static const char *const kp[] = {"kernel.lost_records", "kernel.lost_events", "kernel.lost_samples",
					 "kernel.throttle", "kernel.unknown_id_records", "samples.unparseable",
					 "sched.unparseable", "sched.truncated_bytes", "sched.unknown_types"};
	static const char *const kn[] = {"lost records", "lost events", "lost samples", "throttled",
					 "records of unknown event id", "unparseable samples",
					 "unparseable sched records", "truncated sched bytes", "unknown sched types"};
	static const char *const mp[] = {"mem.lost_samples", "mem.phys_addr.unresolved", "sched.drops",
					 "sched.drops_nmi", "sched.skipped_nested"};
	static const char *const mn[] = {"samples lost while recording", "samples without phys_addr",
					 "sched records dropped (ring full)", "sched records dropped in NMI",
					 "tracepoint hits skipped by the kernel (nesting)"};
	json_object *missing = get(meta, "sched.missing");
	bool any;

	dt(f, "Lost or skipped");
	any = write_counters(f, proc, kp, kn, sizeof(kp) / sizeof(kp[0]), false);
	any = write_counters(f, meta, mp, mn, sizeof(mp) / sizeof(mp[0]), any);
	if (missing && json_object_is_type(missing, json_type_array) && json_object_array_length(missing)) {
		size_t i;

		fputs(any ? ", " : "", f);
		fputs("tracepoints missing:", f);
		for (i = 0; i < json_object_array_length(missing); i++) {
			fputc(' ', f);
			html_esc(f, json_object_get_string(json_object_array_get_idx(missing, i)));
		}
		any = true;
	}
	fputs(any ? "</dd>\n" : "nothing</dd>\n", f);
}

static void write_warnings(FILE *f, json_object *meta, json_object *proc)
{
	json_object *lists[2] = {get(meta, "warnings"), get(proc, "warnings")};
	const char *from[2] = {"record", "process"};
	size_t l, i, n = 0;

	for (l = 0; l < 2; l++)
		if (lists[l] && json_object_is_type(lists[l], json_type_array))
			n += json_object_array_length(lists[l]);
	if (!n)
		return;
	dt(f, "Warnings");
	fputs("<ul class=\"warnings\">", f);
	for (l = 0; l < 2; l++)
		for (i = 0; lists[l] && json_object_is_type(lists[l], json_type_array) &&
			    i < json_object_array_length(lists[l]);
		     i++) {
			fprintf(f, "<li>%s: ", from[l]);
			html_esc(f, json_object_get_string(json_object_array_get_idx(lists[l], i)));
			fputs("</li>", f);
		}
	fputs("</ul></dd>\n", f);
}

static void kv(FILE *f, const char *name, const char *value)
{
	if (!value)
		return;
	dt(f, name);
	html_esc(f, value);
	fputs("</dd>\n", f);
}

/* prefix and s (escaped), or fallback when there is no s */
static void esc_or(FILE *f, const char *prefix, const char *s, const char *fallback)
{
	if (s) {
		fputs(prefix, f);
		html_esc(f, s);
	} else {
		fputs(fallback, f);
	}
}

static void write_backend(FILE *f, json_object *meta, json_object *proc)
{
	const char *b = get_str(meta, "mem.backend"), *d = get_str(meta, "mem.description");
	const char *fmt = get_str(proc, "inputs.mem.format"), *sfmt = get_str(proc, "inputs.sched.format");

	dt(f, "Backend");
	esc_or(f, "", b, "unknown (no metadata.json)");
	if (b)
		esc_or(f, ": ", d, "");
	fputs("; memory input ", f);
	html_esc(f, fmt ? fmt : "none");
	fputs(", sched input ", f);
	html_esc(f, sfmt ? sfmt : "none");
	fputs("</dd>\n", f);
}

void header_write(FILE *f, const struct report_sources *s)
{
	char pj[PATH_MAX], profile[PATH_MAX] = "", path[PATH_MAX];
	json_object *proc = NULL, *meta = NULL;
	uint64_t cpus;
	const char *model;

	if (fs_join(pj, sizeof(pj), s->out_dir, "process.json") == 0 && fs_is_file(pj))
		proc = json_object_from_file(pj);
	header_find_profile(s->out_dir, profile, sizeof(profile));
	if (profile[0] && fs_join(path, sizeof(path), profile, "metadata.json") == 0)
		meta = json_object_from_file(path);
	fputs("<header>\n<h1>scxprof report</h1>\n<dl class=\"facts\">\n", f);
	kv(f, "Host", get_str(meta, "host"));
	kv(f, "Kernel", get_str(meta, "kernel"));
	model = get_str(meta, "cpu_model");
	if (model || get_u64(meta, "online_cpus", &cpus)) {
		dt(f, "CPU");
		html_esc(f, model ? model : "?");
		if (get_u64(meta, "online_cpus", &cpus))
			fprintf(f, ", %llu online CPUs", (unsigned long long)cpus);
		if (get_str(meta, "arch")) {
			fputs(" (", f);
			html_esc(f, get_str(meta, "arch"));
			fputc(')', f);
		}
		fputs("</dd>\n", f);
	}
	write_backend(f, meta, proc);
	write_duration(f, meta, proc);
	write_command(f, meta);
	write_skipped(f, proc);
	dt(f, "Samples analysed");
	fprintf(f, "%llu</dd>\n", (unsigned long long)s->analysed);
	write_losses(f, meta, proc);
	write_warnings(f, meta, proc);
	dt(f, "Files");
	html_esc(f, s->perf_jsonl);
	fputs(s->sched_jsonl ? ", " : ", no sched.jsonl", f);
	html_esc(f, s->sched_jsonl);
	fputs(proc ? ", process.json" : ", no process.json", f);
	esc_or(f, ", ", meta ? path : NULL, ", no metadata.json found (profile directory not next to the output)");
	fputs("</dd>\n</dl>\n</header>\n", f);
	json_object_put(proc);
	json_object_put(meta);
}
