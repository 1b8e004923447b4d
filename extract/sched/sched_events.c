/*
 * sched_events.c - sched JSONL line reader (see sched_events.h). Lines of
 * our writer's shape go through sched_events_fast.c; the others are parsed
 * with json-c, whose original text of "time" (json-c keeps it) is converted
 * to nanoseconds without going through a double.
 */
#include "extract/sched/sched_events.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "extract/sched/sched_events_fast.h"
#include "lib/error.h"
#include "lib/linereader.h"

struct sched_reader {
	const char *path;
	unsigned long long lineno; /* of the line last read or parsed */
	struct line_reader lr;     /* unused by lines handed to sched_events_parse_line */
	json_tokener *tok;
	json_object *cur;
	bool json_only;            /* sched_events_set_json_only: no fast path */
};

struct sched_reader *sched_events_open(FILE *in, const char *path)
{
	struct sched_reader *r = calloc(1, sizeof(*r));

	if (!r || !(r->tok = json_tokener_new())) {
		free(r);
		scx_fail("out of memory");
		return NULL;
	}
	if (in)
		line_reader_init(&r->lr, in, path);
	r->path = path;
	return r;
}

void sched_events_close(struct sched_reader *r)
{
	if (!r)
		return;
	if (r->cur)
		json_object_put(r->cur);
	json_tokener_free(r->tok);
	if (r->lr.f)
		line_reader_free(&r->lr);
	free(r);
}

void sched_events_set_json_only(struct sched_reader *r, bool on)
{
	r->json_only = on;
}

int sched_events_seconds_to_ns(const char *s, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	int nd = 0, round_up = 0;
	const char *p = s;

	if (*p == '+')
		p++;
	if (!(*p >= '0' && *p <= '9') && *p != '.')
		return -1;
	while (*p >= '0' && *p <= '9') {
		if (sec > (UINT64_MAX / 1000000000ULL) / 10)
			return -1;
		sec = sec * 10 + (uint64_t)(*p++ - '0');
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (nd < 9)
				frac = frac * 10 + (uint64_t)(*p - '0');
			else if (nd == 9)
				round_up = *p >= '5';
			nd++;
			p++;
		}
	}
	if (*p == 'e' || *p == 'E') { /* rare: go through a double, rounded */
		char *end;
		double d;

		errno = 0;
		d = strtod(s, &end);
		if (errno || *end || !isfinite(d) || d < 0 || d * 1e9 > 1.8e19)
			return -1;
		*ns = (uint64_t)llround(d * 1e9);
		return 0;
	}
	if (*p)
		return -1;
	for (; nd < 9; nd++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac + (uint64_t)round_up;
	return 0;
}

static int bad(struct sched_reader *r, const char *what, const char *key)
{
	return scx_fail("%s:%llu: %s%s%s%s", r->path, r->lineno, key ? "\"" : "", key ? key : "",
			key ? "\": " : "", what);
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static int req_str(struct sched_reader *r, json_object *o, const char *key, const char **out)
{
	json_object *v = get(o, key);

	if (!v)
		return bad(r, "missing key", key);
	if (!json_object_is_type(v, json_type_string))
		return bad(r, "expected a string", key);
	*out = json_object_get_string(v);
	return 0;
}

static int req_int(struct sched_reader *r, json_object *o, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
	json_object *v = get(o, key);

	if (!v)
		return bad(r, "missing key", key);
	if (!json_object_is_type(v, json_type_int))
		return bad(r, "expected an integer", key);
	errno = 0;
	*out = json_object_get_int64(v);
	if (errno || *out < lo || *out > hi)
		return bad(r, "integer out of range", key);
	return 0;
}

/* Optional string/int inside fields: defaults when absent or of another type (as upstream's as_str/as_i64). */
static const char *opt_str(json_object *o, const char *key)
{
	json_object *v = o ? get(o, key) : NULL;

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int64_t opt_i64(json_object *o, const char *key, int64_t dflt)
{
	json_object *v = o ? get(o, key) : NULL;

	if (!v || !json_object_is_type(v, json_type_int))
		return dflt;
	errno = 0;
	int64_t x = json_object_get_int64(v);

	return errno ? dflt : x;
}

static uint64_t opt_u64(json_object *o, const char *key)
{
	json_object *v = o ? get(o, key) : NULL;

	if (!v || !json_object_is_type(v, json_type_int))
		return 0;
	if (json_object_get_int64(v) < 0)
		return 0;
	return json_object_get_uint64(v);
}

static const struct {
	const char *name;
	enum sched_ev_kind kind;
} kinds[] = {
	{"sched:sched_switch", SEV_SWITCH},
	{"sched:sched_wakeup", SEV_WAKEUP},
	{"sched:sched_wakeup_new", SEV_WAKEUP_NEW},
	{"sched:sched_waking", SEV_WAKING},
	{"sched:sched_migrate_task", SEV_MIGRATE},
	{"sched:sched_process_exit", SEV_EXIT},
	{"sched:sched_process_exec", SEV_EXEC},
	{"irq:irq_handler_entry", SEV_IRQ_ENTRY},
	{"irq:irq_handler_exit", SEV_IRQ_EXIT},
	{"irq:softirq_entry", SEV_SOFTIRQ_ENTRY},
	{"irq:softirq_exit", SEV_SOFTIRQ_EXIT},
};

enum sched_ev_kind sched_events_kind(const char *event)
{
	enum sched_ev_kind kind = SEV_OTHER;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(event, kinds[i].name))
			kind = kinds[i].kind;
	return kind;
}

static int fill(struct sched_reader *r, json_object *o, struct sched_event *ev)
{
	json_object *v, *f;
	int64_t x;

	memset(ev, 0, sizeof(*ev));
	if (!json_object_is_type(o, json_type_object))
		return bad(r, "not a JSON object", NULL);
	if (req_str(r, o, "comm", &ev->comm) < 0 || req_int(r, o, "pid", INT32_MIN, INT32_MAX, &ev->pid) < 0 ||
	    req_int(r, o, "tid", INT32_MIN, INT32_MAX, &ev->tid) < 0 ||
	    req_int(r, o, "cpu", 0, UINT32_MAX, &x) < 0 || req_str(r, o, "event", &ev->event) < 0 ||
	    req_str(r, o, "trace", &ev->trace) < 0)
		return -1;
	ev->cpu = (uint32_t)x;
	if (!(v = get(o, "time")))
		return bad(r, "missing key", "time");
	if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) {
		ev->time_ok = sched_events_seconds_to_ns(json_object_get_string(v), &ev->time_ns) == 0;
	} else if (json_object_is_type(v, json_type_string)) { /* tolerated: perf's text */
		if (sched_events_seconds_to_ns(json_object_get_string(v), &ev->time_ns) < 0)
			return bad(r, "not a time in seconds", "time");
		ev->time_ok = true;
	} else {
		return bad(r, "expected a number", "time");
	}
	if ((v = get(o, "time_ns")) && !json_object_is_type(v, json_type_null)) {
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return bad(r, "expected a non-negative integer", "time_ns");
		ev->time_ns = json_object_get_uint64(v);
		ev->time_ok = true;
	}
	if ((v = get(o, "hint")) && !json_object_is_type(v, json_type_null)) {
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return bad(r, "expected a non-negative integer", "hint");
		ev->hint = json_object_get_uint64(v);
	}
	f = get(o, "fields");
	if (f && json_object_is_type(f, json_type_null))
		f = NULL;
	if (f && !json_object_is_type(f, json_type_object))
		return bad(r, "expected an object", "fields");
	ev->has_fields = f != NULL;
	ev->kind = sched_events_kind(ev->event);
	ev->prev_comm = opt_str(f, "prev_comm");
	ev->prev_state = opt_str(f, "prev_state");
	ev->next_comm = opt_str(f, "next_comm");
	ev->prev_pid = opt_i64(f, "prev_pid", -1);
	ev->next_pid = opt_i64(f, "next_pid", INT64_MIN);
	ev->next_hint = opt_u64(f, "next_hint");
	ev->f_pid = opt_i64(f, "pid", -1);
	ev->target_cpu = opt_i64(f, "target_cpu", -1);
	ev->dest_cpu = opt_i64(f, "dest_cpu", -1);
	ev->action = opt_str(f, "action");
	if (!ev->action)
		ev->action = "";
	return 0;
}

/* A line of our writer's shape (sched_events_fast.h) into *ev: true, else false (line untouched). */
static bool fast_line(char *line, size_t len, struct sched_event *ev)
{
	struct sched_fast_line l;

	if (!sched_events_fast_parse(line, len, &l))
		return false;
	*ev = l.ev;
	if (l.has_time_ns) {
		ev->time_ok = true;
	} else {
		char buf[SCHED_FAST_TIME_MAX + 1];

		memcpy(buf, l.time_text, l.time_len);
		buf[l.time_len] = '\0';
		ev->time_ok = sched_events_seconds_to_ns(buf, &ev->time_ns) == 0;
	}
	ev->kind = sched_events_kind(ev->event);
	ev->has_fields = true;
	if (!ev->action)
		ev->action = "";
	return true;
}

/* One line, trailing newline stripped: 1 with *ev filled, 0 when blank. */
static int parse_line(struct sched_reader *r, char *line, size_t len, struct sched_event *ev)
{
	size_t i;

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
		;
	if (i == len)
		return 0;
	if (!r->json_only && fast_line(line + i, len - i, ev))
		return 1;
	if (r->cur) {
		json_object_put(r->cur);
		r->cur = NULL;
	}
	json_tokener_reset(r->tok);
	r->cur = json_tokener_parse_ex(r->tok, line, (int)len);
	enum json_tokener_error e = json_tokener_get_error(r->tok);

	if (!r->cur || e != json_tokener_success || json_tokener_get_parse_end(r->tok) < len) {
		const char *why = e == json_tokener_success ? "trailing characters after the JSON object"
							    : e == json_tokener_continue ? "truncated JSON"
							    : json_tokener_error_desc(e);
		return scx_fail("%s:%llu: invalid JSON: %s", r->path, r->lineno, why);
	}
	return fill(r, r->cur, ev) < 0 ? -1 : 1;
}

int sched_events_next(struct sched_reader *r, struct sched_event *ev)
{
	for (;;) {
		char *line;
		size_t len;
		int rc = line_reader_next(&r->lr, &line, &len);

		if (rc <= 0)
			return rc;
		r->lineno = r->lr.lineno;
		if ((rc = parse_line(r, line, len, ev)) != 0)
			return rc;
	}
}

int sched_events_parse_line(struct sched_reader *r, unsigned long long lineno, char *line, size_t len,
			    struct sched_event *ev)
{
	r->lineno = lineno;
	return parse_line(r, line, len, ev);
}
