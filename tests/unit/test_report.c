/*
 * test_report.c - unit tests of scxprof report's pieces: HTML escaping of
 * hostile strings, the heatmap (one square per pair, merged subcells
 * outlined, 200 units folded into "others" and said), and the whole report
 * on a perf.jsonl whose comms are HTML/script injections (escaped
 * everywhere, no extra tag), refusing to overwrite, leaving nothing on a
 * bad input, and a sched.jsonl the CPU chart cannot use (said in the page).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/fsutil.h"
#include "report/heatmap.h"
#include "report/html.h"
#include "report/report.h"

static char *capture(void (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(f);
	fn(f, arg);
	fclose(f);
	return buf;
}

static void esc_fn(FILE *f, const void *s)
{
	html_esc(f, s);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

Test(report_html, escapes_markup_quotes_controls_and_bad_utf8)
{
	char *s = capture(esc_fn, "<script>alert(\"x\")</script>&'");

	cr_assert_str_eq(s, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;");
	free(s);
	s = capture(esc_fn, "a\x01" "b\xff" "c\xc0\xaf" "d\xed\xa0\x80" "e\xf0\x9f\x9a\x80");
	/* control byte, invalid byte, overlong '/', surrogate: U+FFFD each byte; a valid emoji stays */
	cr_assert_str_eq(s, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd"
			    "d\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "e\xf0\x9f\x9a\x80");
	free(s);
}

struct hm_case {
	size_t n, groups, max;
	const char *prefix;
	bool unknown_01; /* u0 ~ u1 cannot tell (affinity 0) */
};

static void heatmap_fn(FILE *f, const void *arg)
{
	const struct hm_case *c = arg;
	char **names = calloc(c->n, sizeof(*names));
	uint64_t *samples = calloc(c->n, sizeof(*samples));
	size_t *group = calloc(c->n, sizeof(*group)), *merged = calloc(c->n, sizeof(*merged)), i, j;
	double *aff = calloc(c->n * c->n, sizeof(*aff));
	unsigned char *unknown = calloc(c->n * c->n, 1);
	struct heatmap_in in;

	for (i = 0; i < c->n; i++) {
		cr_assert(asprintf(&names[i], "%s%zu", c->prefix, i) > 0);
		samples[i] = 1000 - i;
		group[i] = i % c->groups;
		merged[group[i]]++;
		for (j = 0; j < c->n; j++)
			aff[i * c->n + j] = i == j ? 1 : (i % c->groups == j % c->groups ? 0.5 : 0.01);
	}
	if (c->unknown_01) {
		aff[1] = aff[c->n] = 0;
		unknown[1] = unknown[c->n] = 1;
	}
	in = (struct heatmap_in){.n = c->n, .names = (const char *const *)names, .samples = samples,
				 .group = group, .merged = merged, .aff = aff, .unknown = unknown, .max_units = c->max};
	cr_assert_eq(heatmap_write(f, &in), 0);
	free(unknown);
	for (i = 0; i < c->n; i++)
		free(names[i]);
	free(names);
	free(samples);
	free(group);
	free(merged);
	free(aff);
}

Test(report_heatmap, one_square_per_pair_and_merged_subcells_outlined)
{
	struct hm_case c = {.n = 6, .groups = 4, .max = 0, .prefix = "u"};
	char *s = capture(heatmap_fn, &c);

	cr_assert_eq(count(s, "class=\"hm-cell\""), 36);
	cr_assert_eq(count(s, "<title>"), 36 + 12); /* squares, row and column labels */
	/* groups 0 and 1 have two units each (u0,u4 and u1,u5): two outlines */
	cr_assert_eq(count(s, "class=\"hm-cluster\""), 2);
	cr_assert(strstr(s, "data-row=\"u0\" data-col=\"u4\" data-affinity=\"0.500\""));
	cr_assert_null(strstr(s, "fold-note"));
	free(s);
}

Test(report_heatmap, a_pair_that_cannot_tell_is_unknown_not_zero)
{
	struct hm_case c = {.n = 6, .groups = 4, .max = 0, .prefix = "u", .unknown_01 = true};
	char *s = capture(heatmap_fn, &c);

	cr_assert_eq(count(s, "class=\"hm-cell\""), 36);
	cr_assert(strstr(s, "data-row=\"u0\" data-col=\"u1\" data-affinity=\"unknown\"><title>u0 ~ u1: cannot tell"));
	cr_assert(strstr(s, "data-row=\"u1\" data-col=\"u0\" data-affinity=\"unknown\""));
	cr_assert_eq(count(s, "data-affinity=\"unknown\""), 2, "only that pair");
	cr_assert_eq(count(s, "fill=\"url(#hm-unknown)\" stroke=\"#fff\""), 2, "hatched, not white");
	cr_assert(strstr(s, "cannot tell</text>"), "the legend says what hatched means");
	free(s);
}

Test(report_heatmap, two_hundred_units_fold_into_others_and_say_so)
{
	struct hm_case c = {.n = 200, .groups = 50, .max = 0, .prefix = "<b>\"w"};
	char *s = capture(heatmap_fn, &c);
	size_t rows = (size_t)atol(strstr(s, "data-rows=\"") + strlen("data-rows=\""));

	/* 50 subcells of 4: nine whole subcells (36 units) fit under 40 rows with "others" */
	cr_assert_eq(rows, 37, "%zu", rows);
	cr_assert_eq(count(s, "class=\"hm-cell\""), rows * rows);
	cr_assert(strstr(s, "<p class=\"fold-note\">200 units: the 164 smaller ones"));
	cr_assert(strstr(s, "others (164 units)"));
	cr_assert_null(strstr(s, "<b>"));
	cr_assert(strstr(s, "&lt;b&gt;&quot;w0"));
	free(s);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	cr_assert(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc((size_t)n + 1, 1);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

#define HOSTILE_CG "/workload.slice/workload-tw-<i>x</i>.allotment.slice"

static void write_hostile(const char *path)
{
	static const char *const comms[] = {"<script>alert(1)</script>", "\\\"><img src=x onerror=alert(2)>",
					    "a'b&amp;c", "</pre><script>z</script>"};
	FILE *f = fopen(path, "w");
	size_t c, i;

	cr_assert(f);
	for (c = 0; c < 4; c++)
		for (i = 0; i < 50; i++)
			fprintf(f,
				"{\"comm\":\"%s\",\"tid\":%zu,\"pid\":1,\"time\":\"1\",\"addr\":\"0\",\"cgroup\":\"%s\","
				"\"ip\":\"0\",\"sym\":\"s\",\"dso\":\"d\",\"phys_addr\":\"%zx\",\"data_page_size\":4096,"
				"\"hint\":0}\n",
				comms[c], c + 10, HOSTILE_CG, (c < 2 ? 0x10000 : 0x900000 * (c + 1)) + (i % 8) * 4096);
	fclose(f);
}

/* the directory of a report_run test, removed by the test's .fini (which a
 * failing assertion reaches too): nothing is left in /tmp either way */
static char dir[64];

static void make_dir(void)
{
	strcpy(dir, "/tmp/scxprof-report-unit.XXXXXX");
	cr_assert(mkdtemp(dir));
}

static void remove_dir(void)
{
	fs_remove_tree(dir);
}

Test(report_run, hostile_comms_are_escaped_and_output_is_never_overwritten, .init = make_dir, .fini = remove_dir)
{
	char perf[256], out[256], bad[256];
	struct report_opts o;
	char *html;

	snprintf(perf, sizeof(perf), "%s/perf.jsonl", dir);
	snprintf(out, sizeof(out), "%s/report.html", dir);
	write_hostile(perf);
	memset(&o, 0, sizeof(o));
	o.mem.path = perf;
	o.mem.share_threshold = -1;
	o.mem.max_cell_cpus = 64;
	o.out_dir = dir;
	o.output = out;
	cr_assert_eq(report_run(&o), 0, "%s", scx_errmsg());
	html = read_all(out);
	/* our one script element, nothing the input opened */
	cr_assert_eq(count(html, "<script"), 1);
	cr_assert_null(strstr(html, "<img"));
	cr_assert_null(strstr(html, "<i>"));
	cr_assert_eq(count(html, "</pre>"), 2);
	cr_assert(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	cr_assert(strstr(html, "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"));
	cr_assert(strstr(html, "a&#39;b&amp;amp;c"));
	/* the first two share pages: one merged subcell, named in the tree */
	cr_assert(strstr(html, "<span class=\"merged\">merged: 2 units</span>"));
	free(html);
	/* refused: the page stays as it was, no temporary file is left */
	cr_assert_eq(report_run(&o), -1);
	cr_assert(strstr(scx_errmsg(), "already exists"), "%s", scx_errmsg());
	/* a bad line: an error naming the file and line, no output */
	snprintf(bad, sizeof(bad), "%s/bad.html", dir);
	FILE *f = fopen(perf, "a");
	fputs("{\"comm\": 12\n", f);
	fclose(f);
	o.output = bad;
	cr_assert_eq(report_run(&o), -1);
	cr_assert(strstr(scx_errmsg(), "perf.jsonl:201"), "%s", scx_errmsg());
	cr_assert(!fs_exists(bad));
}

Test(report_run, sched_trace_without_switches_gives_a_page_that_says_why_there_is_no_chart, .init = make_dir,
     .fini = remove_dir)
{
	char perf[256], sched[256], out[256];
	struct report_opts o;
	char *html;
	FILE *f;

	snprintf(perf, sizeof(perf), "%s/perf.jsonl", dir);
	snprintf(sched, sizeof(sched), "%s/sched.jsonl", dir);
	snprintf(out, sizeof(out), "%s/r.html", dir);
	write_hostile(perf);
	cr_assert((f = fopen(sched, "w")));
	for (int i = 0; i < 2; i++)
		fprintf(f,
			"{\"comm\":\"x\",\"pid\":10,\"tid\":10,\"cpu\":0,\"time\":1.%d,\"event\":\"sched:sched_wakeup\","
			"\"trace\":\"\",\"fields\":{\"comm\":\"y\",\"pid\":11,\"prio\":120,\"target_cpu\":0},\"hint\":0,"
			"\"time_ns\":%d}\n",
			i, 1000000000 + i * 1000);
	fclose(f);
	memset(&o, 0, sizeof(o));
	o.mem.path = perf;
	o.mem.sched_path = sched;
	o.mem.share_threshold = -1;
	o.mem.max_cell_cpus = 64;
	o.out_dir = dir;
	o.output = out;
	cr_assert_eq(report_run(&o), 0, "%s", scx_errmsg());
	html = read_all(out);
	cr_assert(strstr(html, "No CPU chart: "), "%s", strstr(html, "id=\"cpu\""));
	cr_assert(strstr(html, "no sched:sched_switch events found"));
	cr_assert_null(strstr(html, "<svg class=\"cpu-chart\""));
	free(html);
}
