/*
 * sched_jsonl.c - formats sched.jsonl lines and turns trace text into the
 * `fields` object with upstream's rules (see sched_decode.h).
 */
#include "process/sched/sched_decode.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_swapper(const char *comm, int64_t pid)
{
	return pid == 0 || !strncmp(comm, "swapper", 7);
}

bool sched_jsonl_parse_i64(const char *s, size_t n, int64_t *v)
{
	/* strtoll's value of the text up to n bytes or a NUL, whole (clamped
	 * on overflow, as strtoll), without copying it and calling strtoll */
	bool neg, over = false;
	uint64_t u = 0;
	size_t i;

	if (n == 0 || n >= 32)
		return false;
	neg = s[0] == '-';
	i = neg;
	if (i >= n || s[i] < '0' || s[i] > '9')
		return false;
	for (; i < n && s[i]; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';

		if (d > 9)
			return false;
		if (u > (UINT64_MAX - d) / 10)
			over = true;
		else
			u = u * 10 + d;
	}
	if (neg)
		*v = over || u > (uint64_t)INT64_MAX + 1 ? INT64_MIN : (int64_t)(0 - u);
	else
		*v = over || u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
	return true;
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

bool sched_jsonl_kv_next(const char **pos, const char *end, struct sched_kv *kv)
{
	const char *q = *pos;

	while (q < end) {
		const char *s, *e, *eq;

		while (q < end && *q == ' ')
			q++;
		s = q;
		while (q < end && *q != ' ')
			q++;
		e = q;
		if (s < e && *s == '[' && e[-1] == ']') {
			s++;
			e--;
		}
		eq = memchr(s, '=', (size_t)(e - s));
		if (!eq || eq == s || eq - s >= 128)
			continue;
		kv->key = s;
		kv->kl = (size_t)(eq - s);
		kv->val = eq + 1;
		kv->vl = (size_t)(e - eq - 1);
		*pos = q < end ? q + 1 : q;
		return true;
	}
	*pos = q;
	return false;
}

/* key=value tokens; [action=X] too; others ignored */
static void kv_fields(struct jsonw *w, const char *t, size_t len)
{
	const char *end = t + len;
	struct sched_kv kv;

	while (sched_jsonl_kv_next(&t, end, &kv))
		kv_text(w, kv.key, kv.kl, kv.val, kv.vl);
}

/* kv_fields, into p (room for kv_fields_max(len)); the end */
static size_t kv_fields_max(size_t len)
{
	return 20 * len + 64; /* a token: key 6 kl + 3, value at most 6 vl + 2 or 20 digits, a comma */
}

static char *kv_fields_put(char *p, const char *t, size_t len)
{
	const char *end = t + len;
	struct sched_kv kv;
	bool first = true;
	int64_t n;

	while (sched_jsonl_kv_next(&t, end, &kv)) {
		if (!first)
			*p++ = ',';
		first = false;
		p = jsonw_put_str(p, kv.key, strnlen(kv.key, kv.kl)); /* kv_text's key is a C string */
		*p++ = ':';
		if (sched_jsonl_parse_i64(kv.val, kv.vl, &n))
			p = jsonw_put_i64(p, n);
		else
			p = jsonw_put_str(p, kv.val, kv.vl);
	}
	return p;
}

/* The switch's fields, into p (room for 2048 bytes: 3 strings of at most 63 bytes, 6 numbers); the end */
static char *switch_fields_put(char *p, const struct sched_line *l)
{
	const struct sched_switch_info *sw = l->sw;

	p = JSONW_PUT_KV_STR(p, "\"prev_comm\":", sw->prev_comm, strlen(sw->prev_comm));
	p = JSONW_PUT_KV_I64(p, ",\"prev_pid\":", sw->prev_pid);
	p = JSONW_PUT_KV_I64(p, ",\"prev_prio\":", sw->prev_prio);
	p = JSONW_PUT_KV_STR(p, ",\"prev_state\":", sw->prev_state, strlen(sw->prev_state));
	p = JSONW_PUT_KV_STR(p, ",\"next_comm\":", sw->next_comm, strlen(sw->next_comm));
	p = JSONW_PUT_KV_I64(p, ",\"next_pid\":", sw->next_pid);
	p = JSONW_PUT_KV_I64(p, ",\"next_prio\":", sw->next_prio);
	if (is_swapper(sw->next_comm, sw->next_pid))
		p = JSONW_PUT_LIT(p, ",\"cpu_idle\":true");
	else
		p = JSONW_PUT_LIT(p, ",\"cpu_idle\":false");
	if (is_swapper(sw->prev_comm, sw->prev_pid))
		p = JSONW_PUT_LIT(p, ",\"prev_idle\":true");
	else
		p = JSONW_PUT_LIT(p, ",\"prev_idle\":false");
	p = JSONW_PUT_KV_U64(p, ",\"prev_hint\":", l->prev_hint);
	return JSONW_PUT_KV_U64(p, ",\"next_hint\":", l->next_hint);
}

/*
 * The line is written straight into the buffer (one reservation for the
 * most it can take) rather than key by key through jsonw's calls; the bytes
 * are those of the calls (tests/unit/test_sched_process.c keeps them as the
 * reference). nmi_handler's fields still go through the calls.
 */
void sched_jsonl_line(struct jsonw *w, const struct sched_line *l)
{
	char text[1024], *p;
	const char *trace = l->trace;
	size_t trace_len = l->trace_len, comm_len = strlen(l->comm), event_len = strlen(l->event), max;
	bool nmi;

	if (!trace) {
		trace_len = sched_trace_format(l->kind, l->v, text, sizeof(text));
		trace = text;
	}
	nmi = !l->sw && !strcmp(l->event, "nmi:nmi_handler");
	max = 320 + jsonw_escaped_max(comm_len) + jsonw_escaped_max(event_len) + jsonw_escaped_max(trace_len) +
	      (l->sw ? 2048 : kv_fields_max(trace_len));
	if (!(p = jsonw_reserve(w, max)))
		return;
	if (w->need_comma)
		*p++ = ',';
	p = JSONW_PUT_KV_STR(p, "{\"comm\":", l->comm, comm_len);
	p = JSONW_PUT_KV_I64(p, ",\"pid\":", l->pid);
	p = JSONW_PUT_KV_I64(p, ",\"tid\":", l->tid);
	p = JSONW_PUT_KV_I64(p, ",\"cpu\":", l->cpu);
	p = JSONW_PUT_KV_U64(p, ",\"time\":", l->time_ns / 1000000000ULL);
	{ /* ".%09llu": 1000000000 + the fraction has 10 digits, the first a '1' */
		char *dot = p;

		p = jsonw_put_u64(p, l->time_ns % 1000000000ULL + 1000000000ULL);
		*dot = '.';
	}
	p = JSONW_PUT_KV_STR(p, ",\"event\":", l->event, event_len);
	p = JSONW_PUT_KV_STR(p, ",\"trace\":", trace, trace_len);
	p = JSONW_PUT_LIT(p, ",\"fields\":{");
	if (l->sw)
		p = switch_fields_put(p, l);
	else if (!nmi)
		p = kv_fields_put(p, trace, trace_len);
	jsonw_commit(w, p);
	if (nmi) {
		w->need_comma = false;
		if (!nmi_fields(w, trace, trace_len))
			kv_fields(w, trace, trace_len);
		if (!(p = jsonw_reserve(w, 96)))
			return;
	}
	p = JSONW_PUT_KV_U64(p, "},\"hint\":", l->hint);
	p = JSONW_PUT_KV_U64(p, ",\"time_ns\":", l->time_ns);
	p = JSONW_PUT_LIT(p, "}\n");
	jsonw_commit(w, p);
	w->need_comma = false;
}
