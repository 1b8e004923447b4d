/*
 * mem_script.c - the text input path of `process`: upstream archives may hold
 * `perf script` output (perf.mem.script / perf.script) instead of perf.data.
 * Each line is parsed with upstream's rules (script_text.c). As upstream,
 * blank lines are not records, while any other line that does not parse
 * ('#' comments included) counts as unparseable and is reported with -v.
 */
#include "process/mem/mem_decode.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/linereader.h"
#include "process/process_warn.h"
#include "process/mem/script_text.h"

static bool blank(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	return i == len;
}

static int one_line(struct emitter *e, const char *line, size_t len,
		    struct script_mem_sample *smp)
{
	struct mem_record r = {0};
	struct skip_view v = {.raw = line, .raw_len = len};

	e->res->total++;
	if (script_text_parse_mem_line(line, len, smp) < 0) {
		e->res->unparseable++;
		if (e->opts->verbose && e->opts->log)
			fprintf(e->opts->log, "unparseable: %.*s\n", (int)len, line);
		return 0;
	}
	v.comm = smp->comm;
	v.pid = smp->pid; /* the recorder's own samples are told by pid */
	v.tid = smp->tid;
	if (emitter_filter(e, &v, smp->has_phys_addr, smp->phys_addr) != KEEP)
		return 0;
	r.comm = smp->comm;
	r.tid = smp->tid;
	r.pid = smp->pid;
	r.time_ns = smp->time_ns;
	r.has_time_ns = true;
	r.addr = smp->addr;
	r.cgroup = smp->cgroup;
	r.ip = smp->ip;
	r.sym = smp->sym[0] ? smp->sym : "[unknown]";
	r.dso = smp->dso[0] ? smp->dso : "[unknown]";
	r.phys_addr = smp->phys_addr;
	r.data_page_size = smp->data_page_size;
	return emitter_write(e, &r);
}

int mem_script_read(struct emitter *e)
{
	const char *path = e->opts->in->mem_path;
	struct script_mem_sample *smp = malloc(sizeof(*smp));
	FILE *f = fopen(path, "re");
	struct line_reader lr;
	char *line;
	size_t n;
	int rc;

	if (!f || !smp) {
		free(smp);
		if (f)
			fclose(f);
		return scx_fail_errno("%s: cannot open", path);
	}
	line_reader_init(&lr, f, path);
	lr.stop = e->opts->stop;
	while ((rc = line_reader_next(&lr, &line, &n)) > 0) {
		if (blank(line, n))
			continue;
		if ((lr.lineno & 0xfff) == 0 && e->opts->stop && *e->opts->stop) {
			rc = scx_fail("interrupted");
			break;
		}
		if (one_line(e, line, n, smp) < 0) {
			rc = -1;
			break;
		}
	}
	line_reader_free(&lr);
	if (!rc)
		rc = emitter_flush(e);
	if (!rc && e->res->has_hints)
		process_warn(e->res, "%s is perf script text (perf's clock, not CLOCK_MONOTONIC): "
			     "hint times may be skewed", path);
	free(smp);
	fclose(f);
	return rc < 0 ? -1 : 0;
}
