/*
 * sched_jsonl.c - formats sched.jsonl lines and turns trace text into the
 * `fields` object with upstream's rules (see sched_jsonl.h).
 */
#include "sched_jsonl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "process/sched_trace.h"

static bool is_swapper(const char *comm, int64_t pid)
{
	return pid == 0 || !strncmp(comm, "swapper", 7);
}

bool sched_jsonl_parse_i64(const char *s, size_t n, int64_t *v)
{
	char tmp[32], *e;

	if (n == 0 || n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (!((tmp[0] >= '0' && tmp[0] <= '9') || (tmp[0] == '-' && n > 1 && tmp[1] >= '0' && tmp[1] <= '9')))
		return false;
	*v = strtoll(tmp, &e, 10);
	return *e == '\0';
}

static const char *find(const char *s, const char *end, const char *needle)
{
	size_t nl = strlen(needle);

	for (; s + nl <= end; s++)
		if (!memcmp(s, needle, nl))
			return s;
	return NULL;
}

static bool copy_str(char *dst, size_t size, const char *s, const char *e)
{
	size_t n = (size_t)(e - s);

	if (n >= size)
		return false;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return true;
}

/* value of " KEY=" between from and limit, up to the next space */
static bool int_after(const char *from, const char *limit, const char *key, int64_t *v, const char **after)
{
	const char *k = find(from, limit, key), *s, *e;

	if (!k)
		return false;
	s = k + strlen(key);
	for (e = s; e < limit && *e != ' '; e++)
		;
	*after = e;
	return sched_jsonl_parse_i64(s, (size_t)(e - s), v);
}

bool sched_jsonl_parse_switch(const char *t, size_t len, struct sched_switch_info *si)
{
	const char *end = t + len, *p, *arrow, *q, *np;

	memset(si, 0, sizeof(*si));
	if (len < 10 || memcmp(t, "prev_comm=", 10))
		return false;
	arrow = find(t, end, " ==> next_comm=");
	if (!arrow)
		return false;
	p = find(t, arrow, " prev_pid=");
	if (!p || !copy_str(si->prev_comm, sizeof(si->prev_comm), t + 10, p))
		return false;
	if (!int_after(p, arrow, " prev_pid=", &si->prev_pid, &q) ||
	    !int_after(q, arrow, " prev_prio=", &si->prev_prio, &q))
		return false;
	q = find(q, arrow, " prev_state=");
	if (!q || !copy_str(si->prev_state, sizeof(si->prev_state), q + 12, arrow))
		return false;
	q = arrow + 15;
	np = find(q, end, " next_pid=");
	if (!np || !copy_str(si->next_comm, sizeof(si->next_comm), q, np))
		return false;
	if (!int_after(np, end, " next_pid=", &si->next_pid, &q) ||
	    !int_after(q, end, " next_prio=", &si->next_prio, &q))
		return false;
	return true;
}

void sched_jsonl_switch_of(const struct sched_vals *v, struct sched_switch_info *si)
{
	memset(si, 0, sizeof(*si));
	memcpy(si->prev_comm, v->comm, strnlen(v->comm, sizeof(si->prev_comm) - 1));
	memcpy(si->next_comm, v->comm2, strnlen(v->comm2, sizeof(si->next_comm) - 1));
	memcpy(si->prev_state, v->state, strnlen(v->state, sizeof(si->prev_state) - 1));
	si->prev_pid = v->pid;
	si->prev_prio = v->prio;
	si->next_pid = v->pid2;
	si->next_prio = v->prio2;
}

static void kv_text(struct jsonw *w, const char *k, size_t kl, const char *v, size_t vl)
{
	char key[128];
	int64_t n;

	if (kl == 0 || kl >= sizeof(key))
		return;
	memcpy(key, k, kl);
	key[kl] = '\0';
	jsonw_key(w, key);
	if (sched_jsonl_parse_i64(v, vl, &n))
		jsonw_i64(w, n);
	else
		jsonw_strn(w, v, vl);
}

/* "HANDLER() delta_ns: N handled: N" */
static bool nmi_fields(struct jsonw *w, const char *t, size_t len)
{
	const char *end = t + len, *par = find(t, end, "() delta_ns: "), *h, *e;
	int64_t v;

	if (!par)
		return false;
	jsonw_key(w, "handler");
	jsonw_strn(w, t, (size_t)(par - t));
	h = par + 13;
	for (e = h; e < end && *e != ' '; e++)
		;
	if (!sched_jsonl_parse_i64(h, (size_t)(e - h), &v))
		return false;
	jsonw_kv_i64(w, "delta_ns", v);
	h = find(e, end, " handled: ");
	if (h && sched_jsonl_parse_i64(h + 10, (size_t)(end - h - 10), &v))
		jsonw_kv_i64(w, "handled", v);
	return true;
}

/* key=value tokens; [action=X] too; others ignored */
static void kv_fields(struct jsonw *w, const char *t, size_t len)
{
	const char *end = t + len, *p = t;

	while (p < end) {
		const char *s, *e, *eq;

		while (p < end && *p == ' ')
			p++;
		s = p;
		while (p < end && *p != ' ')
			p++;
		e = p;
		if (s < e && *s == '[' && e[-1] == ']') {
			s++;
			e--;
		}
		eq = memchr(s, '=', (size_t)(e - s));
		if (eq && eq > s)
			kv_text(w, s, (size_t)(eq - s), eq + 1, (size_t)(e - eq - 1));
	}
}

void sched_jsonl_line(struct jsonw *w, const struct sched_line *l)
{
	char tbuf[48], text[1024];
	const struct sched_switch_info *sw = l->sw;
	const char *trace = l->trace;
	size_t trace_len = l->trace_len;
	int n;

	if (!trace) {
		trace_len = sched_trace_format(l->kind, l->v, text, sizeof(text));
		trace = text;
	}

	jsonw_obj_open(w);
	jsonw_kv_str(w, "comm", l->comm);
	jsonw_kv_i64(w, "pid", l->pid);
	jsonw_kv_i64(w, "tid", l->tid);
	jsonw_kv_i64(w, "cpu", l->cpu);
	jsonw_key(w, "time");
	n = snprintf(tbuf, sizeof(tbuf), "%llu.%09llu", (unsigned long long)(l->time_ns / 1000000000ULL),
		     (unsigned long long)(l->time_ns % 1000000000ULL));
	jsonw_raw(w, tbuf, (size_t)n);
	w->need_comma = true;
	jsonw_kv_str(w, "event", l->event);
	jsonw_key(w, "trace");
	jsonw_strn(w, trace, trace_len);
	jsonw_key(w, "fields");
	jsonw_obj_open(w);
	if (sw) {
		jsonw_kv_str(w, "prev_comm", sw->prev_comm);
		jsonw_kv_i64(w, "prev_pid", sw->prev_pid);
		jsonw_kv_i64(w, "prev_prio", sw->prev_prio);
		jsonw_kv_str(w, "prev_state", sw->prev_state);
		jsonw_kv_str(w, "next_comm", sw->next_comm);
		jsonw_kv_i64(w, "next_pid", sw->next_pid);
		jsonw_kv_i64(w, "next_prio", sw->next_prio);
		jsonw_kv_bool(w, "cpu_idle", is_swapper(sw->next_comm, sw->next_pid));
		jsonw_kv_bool(w, "prev_idle", is_swapper(sw->prev_comm, sw->prev_pid));
		jsonw_kv_u64(w, "prev_hint", l->prev_hint);
		jsonw_kv_u64(w, "next_hint", l->next_hint);
	} else if (!strcmp(l->event, "nmi:nmi_handler") && nmi_fields(w, trace, trace_len)) {
		/* done */
	} else {
		kv_fields(w, trace, trace_len);
	}
	jsonw_obj_close(w);
	jsonw_kv_u64(w, "hint", l->hint);
	jsonw_kv_u64(w, "time_ns", l->time_ns);
	jsonw_obj_close(w);
	jsonw_newline(w);
}
