/*
 * sched_conv.c - a process-stage scheduling record as extract's parsed
 * sched.jsonl line (see sched_conv.h). The `fields` object follows
 * process/sched/sched_jsonl.c's rules: a parsed sched_switch gives its fields;
 * any other event the key=value tokens of its text (numbers as numbers,
 * "[action=X]" too; a later key replaces an earlier one, as json-c does).
 */
#include "pipeline/sched_conv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "process/process.h"

static bool plain(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80 || s[i] == '\0')
			return false;
	return true;
}

static bool plain_str(const char *s)
{
	return plain(s, strlen(s));
}

static char *put(char **p, const char *s, size_t n)
{
	char *r = *p;

	memcpy(r, s, n);
	r[n] = '\0';
	*p += n + 1;
	return r;
}

size_t sched_conv_max(const struct sched_line *l)
{
	return strlen(l->comm) + strlen(l->event) + 2 * l->trace_len + 3 * 64 + 8;
}

static bool key_is(const char *k, size_t kl, const char *name)
{
	return strlen(name) == kl && !memcmp(k, name, kl);
}

/* The fields of key=value tokens; values are cut out of tok (a copy of the text). */
static void kv_fields(struct sched_event *ev, char *tok, size_t len)
{
	const char *p = tok, *end = tok + len;
	struct sched_kv kv;

	while (sched_jsonl_kv_next(&p, end, &kv)) {
		const char *s = kv.key;
		size_t kl = kv.kl;
		char *val = tok + (kv.val - tok);
		int64_t n = 0;
		bool num = sched_jsonl_parse_i64(val, kv.vl, &n);

		val[kv.vl] = '\0'; /* the value as a string: p is past its end */
		if (key_is(s, kl, "prev_comm"))
			ev->prev_comm = num ? NULL : val;
		else if (key_is(s, kl, "prev_state"))
			ev->prev_state = num ? NULL : val;
		else if (key_is(s, kl, "next_comm"))
			ev->next_comm = num ? NULL : val;
		else if (key_is(s, kl, "action"))
			ev->action = num ? "" : val;
		else if (key_is(s, kl, "prev_pid"))
			ev->prev_pid = num ? n : -1;
		else if (key_is(s, kl, "next_pid"))
			ev->next_pid = num ? n : INT64_MIN;
		else if (key_is(s, kl, "next_hint"))
			ev->next_hint = num && n >= 0 ? (uint64_t)n : 0;
		else if (key_is(s, kl, "pid"))
			ev->f_pid = num ? n : -1;
		else if (key_is(s, kl, "target_cpu"))
			ev->target_cpu = num ? n : -1;
		else if (key_is(s, kl, "dest_cpu"))
			ev->dest_cpu = num ? n : -1;
	}
}

/*
 * The fields of plain values (l->v, no text): what kv_fields finds in
 * their text (process/sched/sched_trace.c's formats): every kind with a task
 * prints its pid as "pid" (fork: the parent's), wakeups "target_cpu",
 * migrate "dest_cpu", softirqs "[action=NAME]" (a number, so "", for a
 * vector without a name). Their strings hide no key (sched_trace_plain).
 */
static void vals_fields(struct sched_event *ev, enum sched_kind k, const struct sched_vals *v)
{
	const char *name;

	switch (k) {
	case SK_WAKEUP: case SK_WAKEUP_NEW: case SK_WAKING:
		ev->target_cpu = v->a0;
		ev->f_pid = v->pid;
		break;
	case SK_MIGRATE:
		ev->dest_cpu = v->a1;
		ev->f_pid = v->pid;
		break;
	case SK_EXIT: case SK_EXEC: case SK_FORK: case SK_STAT_RUNTIME:
		ev->f_pid = v->pid;
		break;
	case SK_SOFTIRQ_ENTRY: case SK_SOFTIRQ_EXIT: case SK_SOFTIRQ_RAISE:
		name = sched_trace_softirq_name((uint64_t)v->a0);
		ev->action = name ? name : "";
		break;
	default:
		break;
	}
}

/* The event name's kind and flags, from the cache when it is the last one's. */
static void learn_event(struct sched_conv_cache *c, const char *event)
{
	size_t n = strlen(event);

	if (c->event[0] && !strcmp(c->event, event))
		return;
	c->kind = sched_events_kind(event);
	c->is_switch = !strcmp(event, "sched:sched_switch");
	c->is_nmi = !strcmp(event, "nmi:nmi_handler");
	c->plain = plain(event, n);
	if (n < sizeof(c->event))
		memcpy(c->event, event, n + 1);
	else
		c->event[0] = '\0';
}

bool sched_conv(const struct sched_line *l, struct sched_conv_cache *c, struct sched_event *ev, char *arena,
		size_t *used)
{
	const struct sched_switch_info *sw = l->sw;
	char *p = arena;

	if (l->pid < INT32_MIN || l->pid > INT32_MAX || l->tid < INT32_MIN || l->tid > INT32_MAX ||
	    l->cpu < 0 || l->cpu > (int64_t)UINT32_MAX || l->time_ns > INT64_MAX || l->hint > INT64_MAX)
		return false;
	learn_event(c, l->event);
	if (c->is_nmi || (c->is_switch && !sw) || !c->plain)
		return false;
	if (!plain_str(l->comm) || (l->trace && !plain(l->trace, l->trace_len)))
		return false;
	if (sw && (!plain_str(sw->prev_comm) || !plain_str(sw->prev_state) || !plain_str(sw->next_comm) ||
		   l->prev_hint > INT64_MAX || l->next_hint > INT64_MAX))
		return false;
	memset(ev, 0, sizeof(*ev));
	ev->comm = put(&p, l->comm, strlen(l->comm));
	ev->event = put(&p, l->event, strlen(l->event));
	ev->trace = l->trace ? put(&p, l->trace, l->trace_len) : NULL;
	ev->pid = l->pid;
	ev->tid = l->tid;
	ev->cpu = (uint32_t)l->cpu;
	ev->time_ns = l->time_ns; /* "time_ns" wins over "time" */
	ev->time_ok = true;
	ev->hint = l->hint;
	ev->has_fields = true; /* always an object */
	ev->kind = c->kind;
	ev->prev_pid = -1;
	ev->next_pid = INT64_MIN;
	ev->f_pid = ev->target_cpu = ev->dest_cpu = -1;
	ev->action = "";
	if (sw) {
		ev->prev_comm = put(&p, sw->prev_comm, strlen(sw->prev_comm));
		ev->prev_state = put(&p, sw->prev_state, strlen(sw->prev_state));
		ev->next_comm = put(&p, sw->next_comm, strlen(sw->next_comm));
		ev->prev_pid = sw->prev_pid;
		ev->next_pid = sw->next_pid;
		ev->next_hint = l->next_hint;
	} else if (!l->trace) {
		vals_fields(ev, l->kind, l->v);
	} else {
		char *tok = put(&p, l->trace, l->trace_len);

		kv_fields(ev, tok, l->trace_len);
	}
	*used = (size_t)(p - arena);
	return true;
}
