/*
 * sched_events_fast.c - sched.jsonl lines of our writer's shape parsed in
 * one scan (see sched_events_fast.h). Anything unexpected returns 0 before
 * the line is changed, so json-c sees it as it was.
 */
#include "extract/sched/sched_events_fast.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct cursor {
	const char *p, *end;
};

/* The literal text (a key with its quotes and colon, a comma) comes next. */
static bool lit(struct cursor *c, const char *text, size_t n)
{
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, text, n))
		return false;
	c->p += n;
	return true;
}
#define LIT(c, s) lit((c), (s), sizeof(s) - 1)

/* "..." without escapes or control characters; *s, *e: its text, e at the closing quote. */
static bool str(struct cursor *c, const char **s, const char **e)
{
	const char *p = c->p;

	if (p >= c->end || *p != '"')
		return false;
	*s = ++p;
	for (; p < c->end; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch == '"') {
			*e = p;
			c->p = p + 1;
			return true;
		}
		if (ch == '\\' || ch < 0x20)
			return false;
	}
	return false;
}

/* Digits of an integer part: 0, or 1-18 digits without a leading zero. */
static bool digits(struct cursor *c, uint64_t *u)
{
	const char *p = c->p;
	uint64_t v = 0;
	int n = 0;

	while (p < c->end && *p >= '0' && *p <= '9' && n < 19) {
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
		n++;
	}
	if (n == 0 || n > 18 || (n > 1 && c->p[0] == '0'))
		return false;
	if (p < c->end && *p >= '0' && *p <= '9')
		return false;
	c->p = p;
	*u = v;
	return true;
}

/* A JSON integer that json-c reads as such (no -0, no fraction or exponent). */
static bool integer(struct cursor *c, int64_t *v)
{
	bool neg = c->p < c->end && *c->p == '-';
	uint64_t u;

	if (neg)
		c->p++;
	if (!digits(c, &u) || (neg && u == 0))
		return false;
	if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E'))
		return false;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return true;
}

static bool int_in(struct cursor *c, int64_t lo, int64_t hi, int64_t *v)
{
	return integer(c, v) && *v >= lo && *v <= hi;
}

/* "time": digits, optionally '.' and digits; the text as json-c keeps it. */
static bool seconds(struct cursor *c, const char **s, const char **e)
{
	uint64_t u;

	*s = c->p;
	if (!digits(c, &u))
		return false;
	if (c->p < c->end && *c->p == '.') {
		const char *d = ++c->p;

		while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
			c->p++;
		if (c->p == d)
			return false;
	}
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E'))
		return false;
	*e = c->p;
	return true;
}

enum fkey { F_PREV_COMM, F_PREV_STATE, F_NEXT_COMM, F_PREV_PID, F_NEXT_PID, F_NEXT_HINT, F_PID,
	    F_TARGET_CPU, F_DEST_CPU, F_ACTION, F_NONE };

static enum fkey field_key(const char *s, size_t n)
{
	static const struct {
		const char *name;
		enum fkey key;
	} keys[] = {
		{"prev_comm", F_PREV_COMM}, {"prev_state", F_PREV_STATE}, {"next_comm", F_NEXT_COMM},
		{"prev_pid", F_PREV_PID},   {"next_pid", F_NEXT_PID},     {"next_hint", F_NEXT_HINT},
		{"pid", F_PID},             {"target_cpu", F_TARGET_CPU}, {"dest_cpu", F_DEST_CPU},
		{"action", F_ACTION},
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].name) == n && !memcmp(keys[i].name, s, n))
			return keys[i].key;
	return F_NONE;
}

/* Strings whose closing quote becomes a NUL once the whole line is taken. */
struct ends {
	char *at[16];
	int n;
};

static void end_at(struct ends *z, const char *e)
{
	z->at[z->n++] = (char *)e;
}

/* Key k's value as sched_events.c's opt_* read it: s (a string), v (an
 * integer) or neither (a boolean); a later duplicate replaces it, as in json-c. */
static void field_value(struct sched_event *ev, enum fkey k, const char *s, const int64_t *v)
{
	switch (k) {
	case F_PREV_COMM: ev->prev_comm = s; break;
	case F_PREV_STATE: ev->prev_state = s; break;
	case F_NEXT_COMM: ev->next_comm = s; break;
	case F_ACTION: ev->action = s; break;
	case F_PREV_PID: ev->prev_pid = v ? *v : -1; break;
	case F_NEXT_PID: ev->next_pid = v ? *v : INT64_MIN; break;
	case F_NEXT_HINT: ev->next_hint = v && *v > 0 ? (uint64_t)*v : 0; break;
	case F_PID: ev->f_pid = v ? *v : -1; break;
	case F_TARGET_CPU: ev->target_cpu = v ? *v : -1; break;
	case F_DEST_CPU: ev->dest_cpu = v ? *v : -1; break;
	case F_NONE: break;
	}
}

/* The fields object, its values of string, integer or boolean type. */
static bool fields(struct cursor *c, struct sched_event *ev, struct ends *z)
{
	if (!LIT(c, "{"))
		return false;
	if (LIT(c, "}"))
		return true;
	for (;;) {
		const char *ks, *ke, *vs, *ve;
		enum fkey k;
		int64_t v;

		if (!str(c, &ks, &ke) || !LIT(c, ":"))
			return false;
		k = field_key(ks, (size_t)(ke - ks));
		if (c->p < c->end && *c->p == '"') {
			if (!str(c, &vs, &ve))
				return false;
			if (k != F_NONE) {
				if (z->n == (int)(sizeof(z->at) / sizeof(z->at[0])))
					return false;
				end_at(z, ve);
			}
			field_value(ev, k, vs, NULL);
		} else if (LIT(c, "true") || LIT(c, "false")) {
			field_value(ev, k, NULL, NULL);
		} else {
			if (!integer(c, &v))
				return false;
			field_value(ev, k, NULL, &v);
		}
		if (LIT(c, "}"))
			return true;
		if (!LIT(c, ","))
			return false;
	}
}

int sched_events_fast_parse(char *line, size_t len, struct sched_fast_line *l)
{
	struct sched_event *ev = &l->ev;
	struct cursor c = {line, line + len};
	struct ends z = {.n = 0};
	const char *s, *e, *te;
	int64_t x, tns = -1;

	memset(l, 0, sizeof(*l));
	ev->prev_pid = -1;
	ev->next_pid = INT64_MIN;
	ev->f_pid = ev->target_cpu = ev->dest_cpu = -1;
	if (!LIT(&c, "{\"comm\":") || !str(&c, &s, &e))
		return 0;
	ev->comm = s;
	end_at(&z, e);
	if (!LIT(&c, ",\"pid\":") || !int_in(&c, INT32_MIN, INT32_MAX, &ev->pid) || !LIT(&c, ",\"tid\":") ||
	    !int_in(&c, INT32_MIN, INT32_MAX, &ev->tid) || !LIT(&c, ",\"cpu\":") || !int_in(&c, 0, UINT32_MAX, &x) ||
	    !LIT(&c, ",\"time\":") || !seconds(&c, &l->time_text, &te))
		return 0;
	if ((l->time_len = (size_t)(te - l->time_text)) > SCHED_FAST_TIME_MAX)
		return 0;
	ev->cpu = (uint32_t)x;
	if (!LIT(&c, ",\"event\":") || !str(&c, &s, &e))
		return 0;
	ev->event = s;
	end_at(&z, e);
	if (!LIT(&c, ",\"trace\":") || !str(&c, &s, &e))
		return 0;
	ev->trace = s;
	end_at(&z, e);
	if (!LIT(&c, ",\"fields\":") || !fields(&c, ev, &z))
		return 0;
	if (LIT(&c, ",\"hint\":")) {
		if (!int_in(&c, 0, INT64_MAX, &x))
			return 0;
		ev->hint = (uint64_t)x;
	}
	if (LIT(&c, ",\"time_ns\":") && !int_in(&c, 0, INT64_MAX, &tns))
		return 0;
	if (!LIT(&c, "}") || c.p != c.end)
		return 0;
	if ((l->has_time_ns = tns >= 0))
		ev->time_ns = (uint64_t)tns;
	/* taken: the strings end here */
	for (int i = 0; i < z.n; i++)
		*z.at[i] = '\0';
	return 1;
}
