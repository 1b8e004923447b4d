/*
 * sched_script.c - upstream's perf.sched.script text into sched.jsonl (see
 * sched_script.h for the line rules). Blank lines are skipped; every other
 * line counts, and one that does not parse is "unparseable" as upstream.
 */
#include "sched_script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/linereader.h"

static bool digits(const char *s, const char *end, const char **after, uint64_t *v)
{
	const char *p = s;
	uint64_t x = 0;

	while (p < end && *p >= '0' && *p <= '9' && p - s < 19)
		x = x * 10 + (uint64_t)(*p++ - '0');
	if (p == s || (p < end && *p >= '0' && *p <= '9'))
		return false;
	*after = p;
	*v = x;
	return true;
}

static const char *spaces(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* A pid or tid as perf script prints it: the sample's u32 as a signed int
 * (%d), so -1 where the kernel had no id for the task (perf_event_pid_type:
 * a task past its unhashing in exit, switched out for the last time, is
 * tid -1; perf then names it ":-1"). The binary reader casts the same u32
 * to int32. */
static bool id32(const char *s, const char *end, const char **after, int64_t *v)
{
	bool neg = s < end && *s == '-';
	uint64_t x;

	if (!digits(s + neg, end, after, &x) || x > (neg ? (uint64_t)INT32_MAX + 1 : (uint64_t)INT32_MAX))
		return false;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return true;
}

/* Try "PID/TID [CPU] SECS.FRAC: " at pid_start; returns the end of it. */
static const char *try_head(const char *s, const char *end, struct sched_script_line *o)
{
	const char *p = s, *q, *f;
	uint64_t cpu, secs, frac;
	int64_t pid, tid;
	int nd;

	if (!id32(p, end, &p, &pid) || p >= end || *p != '/' || !id32(p + 1, end, &p, &tid))
		return NULL;
	q = spaces(p, end);
	if (q == p)
		return NULL;
	p = q;
	o->cpu = -1;
	if (p < end && *p == '[') {
		if (!digits(p + 1, end, &p, &cpu) || p >= end || *p != ']')
			return NULL;
		o->cpu = (int64_t)cpu;
		q = spaces(p + 1, end);
		if (q == p + 1)
			return NULL;
		p = q;
	}
	if (!digits(p, end, &p, &secs) || p >= end || *p != '.')
		return NULL;
	f = p + 1;
	if (!digits(f, end, &p, &frac) || p >= end || *p != ':')
		return NULL;
	nd = (int)(p - f);
	if (nd > 9)
		return NULL;
	while (nd++ < 9)
		frac *= 10;
	if (secs > UINT64_MAX / 1000000000ULL - 1)
		return NULL;
	o->pid = pid;
	o->tid = tid;
	o->time_ns = secs * 1000000000ULL + frac;
	return p + 1;
}

int sched_script_parse_line(const char *line, size_t len, struct sched_script_line *o)
{
	const char *end = line + len, *s, *p = NULL, *c, *ce, *ev;
	size_t n;

	memset(o, 0, sizeof(*o));
	s = spaces(line, end);
	if (s == end)
		return scx_fail("empty line");
	if (memchr(line, '\0', len)) /* perf prints none; a comm or event cut at it would be wrong */
		return scx_fail("NUL byte in the line");
	/* leftmost "PID/TID ..." head preceded by a space, after a non-empty comm */
	for (c = s + 1; c < end; c++) {
		if (c[-1] == ' ' && ((*c >= '0' && *c <= '9') || *c == '-') &&
		    (p = try_head(c, end, o)))
			break;
	}
	if (!p)
		return scx_fail("no 'PID/TID [CPU] TIME:' after the comm");
	ce = c;
	while (ce > s && ce[-1] == ' ')
		ce--;
	n = (size_t)(ce - s);
	if (n == 0 || n >= sizeof(o->comm))
		return scx_fail("bad comm");
	memcpy(o->comm, s, n);
	o->comm[n] = '\0';
	ev = spaces(p, end);
	for (p = ev; p < end && *p != ' '; p++)
		;
	if (p == ev || p[-1] != ':')
		return scx_fail("no 'SYSTEM:EVENT:' after the time");
	n = (size_t)(p - ev - 1);
	if (n == 0 || n >= sizeof(o->event) || !memchr(ev, ':', n))
		return scx_fail("bad event name");
	memcpy(o->event, ev, n);
	o->event[n] = '\0';
	p = spaces(p, end);
	while (end > p && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	o->trace = p;
	o->trace_len = (size_t)(end - p);
	return 0;
}

/* The record's values for the Perfetto trace, from its text; NULL when it
 * is not of a kind the trace shows. */
static const struct sched_decoded *decode(const struct sched_script_line *l, struct sched_vals *v,
					  struct sched_decoded *d)
{
	char system[128];
	const char *colon = strchr(l->event, ':');
	enum sched_kind k;

	if (!colon || (size_t)(colon - l->event) >= sizeof(system))
		return NULL;
	snprintf(system, sizeof(system), "%.*s", (int)(colon - l->event), l->event);
	k = sched_trace_kind_of(system, colon + 1);
	if (!sched_trace_vals_from_text(k, l->trace, l->trace_len, v))
		return NULL;
	*d = (struct sched_decoded){.kind = k, .v = v, .tgid = -1, .tgid2 = -1};
	return d;
}

int sched_script_read(struct sched_sink *s, const char *path)
{
	FILE *f = fopen(path, "r");
	struct line_reader lr;
	char *line;
	size_t len;
	int rc;

	if (!f)
		return scx_fail_errno("%s", path);
	line_reader_init(&lr, f, path);
	while ((rc = line_reader_next(&lr, &line, &len)) > 0) {
		struct sched_script_line l;
		struct sched_vals v;
		struct sched_decoded d;
		const char *p;
		char why[512];

		if ((lr.lineno & 0xfff) == 0 && (rc = sched_sink_check_stop(s)) < 0)
			break;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		for (p = line; p < line + len && (*p == ' ' || *p == '\t'); p++)
			;
		if (p == line + len)
			continue;
		s->res->total++;
		if (sched_script_parse_line(line, (size_t)len, &l) < 0) {
			snprintf(why, sizeof(why), "%s:%llu: %s: %.*s", path, (unsigned long long)lr.lineno, scx_errmsg(),
				 (int)(len > 200 ? 200 : len), line);
			sched_sink_unparseable(s, why);
			continue;
		}
		if ((rc = sched_sink_emit(s, l.comm, l.pid, l.tid, l.cpu, l.time_ns, l.event, l.trace,
					  l.trace_len, s->trace || s->names ? decode(&l, &v, &d) : NULL)) < 0)
			break;
	}
	line_reader_free(&lr);
	fclose(f);
	return rc < 0 ? -1 : 0;
}
