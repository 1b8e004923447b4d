/*
 * test_sched_jsonl_ref.c - process's sched.jsonl writer (sched_jsonl_line,
 * written straight into the buffer) and trace text (sched_trace_format,
 * without printf) give the bytes of the reference they replaced: the line
 * built key by key with jsonw's calls and strtoll, the text with snprintf's
 * formats. Both references are kept here, as they were, to compare with.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonw.h"
#include "process/sched/sched_decode.h"

/* ---- the reference line: jsonw's calls, strtoll ---- */

static bool ref_i64(const char *s, size_t n, int64_t *v)
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

static const char *ref_find(const char *s, const char *end, const char *needle)
{
	size_t nl = strlen(needle);

	for (; s + nl <= end; s++)
		if (!memcmp(s, needle, nl))
			return s;
	return NULL;
}

static void ref_kv_text(struct jsonw *w, const char *k, size_t kl, const char *v, size_t vl)
{
	char key[128];
	int64_t n;

	if (kl == 0 || kl >= sizeof(key))
		return;
	memcpy(key, k, kl);
	key[kl] = '\0';
	jsonw_key(w, key);
	if (ref_i64(v, vl, &n))
		jsonw_i64(w, n);
	else
		jsonw_strn(w, v, vl);
}

static bool ref_nmi_fields(struct jsonw *w, const char *t, size_t len)
{
	const char *end = t + len, *par = ref_find(t, end, "() delta_ns: "), *h, *e;
	int64_t v;

	if (!par)
		return false;
	jsonw_key(w, "handler");
	jsonw_strn(w, t, (size_t)(par - t));
	h = par + 13;
	for (e = h; e < end && *e != ' '; e++)
		;
	if (!ref_i64(h, (size_t)(e - h), &v))
		return false;
	jsonw_kv_i64(w, "delta_ns", v);
	h = ref_find(e, end, " handled: ");
	if (h && ref_i64(h + 10, (size_t)(end - h - 10), &v))
		jsonw_kv_i64(w, "handled", v);
	return true;
}

static void ref_kv_fields(struct jsonw *w, const char *t, size_t len)
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
			ref_kv_text(w, s, (size_t)(eq - s), eq + 1, (size_t)(e - eq - 1));
	}
}

static bool ref_swapper(const char *comm, int64_t pid)
{
	return pid == 0 || !strncmp(comm, "swapper", 7);
}

static void ref_line(struct jsonw *w, const struct sched_line *l, const char *trace, size_t trace_len)
{
	char tbuf[48];
	const struct sched_switch_info *sw = l->sw;
	int n;

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
		jsonw_kv_bool(w, "cpu_idle", ref_swapper(sw->next_comm, sw->next_pid));
		jsonw_kv_bool(w, "prev_idle", ref_swapper(sw->prev_comm, sw->prev_pid));
		jsonw_kv_u64(w, "prev_hint", l->prev_hint);
		jsonw_kv_u64(w, "next_hint", l->next_hint);
	} else if (!strcmp(l->event, "nmi:nmi_handler") && ref_nmi_fields(w, trace, trace_len)) {
		/* done */
	} else {
		ref_kv_fields(w, trace, trace_len);
	}
	jsonw_obj_close(w);
	jsonw_kv_u64(w, "hint", l->hint);
	jsonw_kv_u64(w, "time_ns", l->time_ns);
	jsonw_obj_close(w);
	jsonw_newline(w);
}

/* ---- the reference text: snprintf ---- */

static size_t ref_format(enum sched_kind k, const struct sched_vals *v, char *out, size_t size)
{
	const char *sirq;
	int n;

	switch (k) {
	case SK_SWITCH:
		n = snprintf(out, size, "prev_comm=%s prev_pid=%lld prev_prio=%lld prev_state=%s ==> "
			     "next_comm=%s next_pid=%lld next_prio=%lld", v->comm, (long long)v->pid,
			     (long long)v->prio, v->state, v->comm2, (long long)v->pid2, (long long)v->prio2);
		break;
	case SK_WAKEUP: case SK_WAKEUP_NEW: case SK_WAKING:
		n = snprintf(out, size, "comm=%s pid=%lld prio=%lld target_cpu=%03lld", v->comm,
			     (long long)v->pid, (long long)v->prio, (long long)v->a0);
		break;
	case SK_MIGRATE:
		n = snprintf(out, size, "comm=%s pid=%lld prio=%lld orig_cpu=%lld dest_cpu=%lld", v->comm,
			     (long long)v->pid, (long long)v->prio, (long long)v->a0, (long long)v->a1);
		break;
	case SK_EXIT:
		n = snprintf(out, size, "comm=%s pid=%lld prio=%lld%s%s", v->comm, (long long)v->pid,
			     (long long)v->prio, v->has_a0 ? " group_dead=" : "",
			     v->has_a0 ? (v->a0 ? "true" : "false") : "");
		break;
	case SK_EXEC:
		n = snprintf(out, size, "filename=%s pid=%lld old_pid=%lld", v->str, (long long)v->pid,
			     (long long)v->pid2);
		break;
	case SK_FORK:
		n = snprintf(out, size, "comm=%s pid=%lld child_comm=%s child_pid=%lld", v->comm,
			     (long long)v->pid, v->comm2, (long long)v->pid2);
		break;
	case SK_STAT_RUNTIME:
		if (v->has_a1)
			n = snprintf(out, size, "comm=%s pid=%lld runtime=%llu [ns] vruntime=%llu [ns]", v->comm,
				     (long long)v->pid, (unsigned long long)v->a0, (unsigned long long)v->a1);
		else
			n = snprintf(out, size, "comm=%s pid=%lld runtime=%llu [ns]", v->comm, (long long)v->pid,
				     (unsigned long long)v->a0);
		break;
	case SK_IRQ_ENTRY:
		n = snprintf(out, size, "irq=%lld name=%s", (long long)v->a0, v->str);
		break;
	case SK_IRQ_EXIT:
		n = snprintf(out, size, "irq=%lld ret=%s", (long long)v->a0, v->a1 ? "handled" : "unhandled");
		break;
	case SK_SOFTIRQ_ENTRY: case SK_SOFTIRQ_EXIT: case SK_SOFTIRQ_RAISE:
		sirq = sched_trace_softirq_name((uint64_t)v->a0);
		if (sirq)
			n = snprintf(out, size, "vec=%u [action=%s]", (unsigned)v->a0, sirq);
		else
			n = snprintf(out, size, "vec=%u [action=%lld]", (unsigned)v->a0, (long long)v->a0);
		break;
	case SK_NMI:
		if (v->has_a1)
			n = snprintf(out, size, "%s() delta_ns: %lld handled: %lld", v->str, (long long)v->a0,
				     (long long)v->a1);
		else
			n = snprintf(out, size, "%s() delta_ns: %lld", v->str, (long long)v->a0);
		break;
	case SK_TIMER_ENTRY: case SK_TIMER_EXIT: case SK_RESCHED_ENTRY: case SK_RESCHED_EXIT:
		n = snprintf(out, size, "vector=%lld", (long long)v->a0);
		break;
	default:
		n = snprintf(out, size, "%s", v->str);
		break;
	}
	if (n < 0)
		n = 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

/* ---- inputs ---- */

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const int64_t edges[] = {0, 1, -1, 7, 9, 10, 99, 100, 120, -99, -100, 4242, 2147483647, -2147483648LL,
				999999999, 1000000000, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1};
#define NEDGES (sizeof(edges) / sizeof(edges[0]))

static int64_t any_num(void)
{
	uint64_t r = next();

	return r % 3 ? edges[r % NEDGES] : (int64_t)next();
}

static const char *const strs[] = {"", "a", "kworker/0:1", "swapper/3", "swapper", "Web Content", "x\ty", "q\"b\\s",
				   "123", "-4", "[bracket]", "a=b", "x prev_pid=7", "caf\xc3\xa9", "bad\xff",
				   "ctl\x01\x1f", "0123456789abcdef", "99999999999999999999", "-", "=", "[a=b]",
				   "/usr/bin/true", "perf_event_nmi_handler"};
#define NSTRS (sizeof(strs) / sizeof(strs[0]))

static void fill(struct sched_vals *v)
{
	memset(v, 0, sizeof(*v));
	snprintf(v->comm, sizeof(v->comm), "%s", strs[next() % NSTRS]);
	snprintf(v->comm2, sizeof(v->comm2), "%s", strs[next() % NSTRS]);
	snprintf(v->str, sizeof(v->str), "%s", strs[next() % NSTRS]);
	snprintf(v->state, sizeof(v->state), "%s", next() % 2 ? "R+" : strs[next() % NSTRS]);
	v->pid = any_num();
	v->pid2 = any_num();
	v->prio = any_num();
	v->prio2 = any_num();
	v->a0 = next() % 2 ? (int64_t)(next() % 14) - 2 : any_num();
	v->a1 = any_num();
	v->has_a0 = next() % 2;
	v->has_a1 = next() % 2;
}

Test(sched_trace_format, the_bytes_of_snprintf)
{
	for (int i = 0; i < 20000; i++) {
		struct sched_vals v;
		enum sched_kind k = (enum sched_kind)(next() % (SK_RESCHED_EXIT + 2));
		char a[1024], b[1024];
		size_t sizes[] = {sizeof(a), 1 + next() % 80}, na, nb;

		fill(&v);
		for (int j = 0; j < 2; j++) { /* whole, and cut to a small buffer as snprintf cuts */
			memset(a, 'A', sizeof(a));
			memset(b, 'B', sizeof(b));
			na = ref_format(k, &v, a, sizes[j]);
			nb = sched_trace_format(k, &v, b, sizes[j]);
			cr_assert_eq(na, nb, "kind %d size %zu: '%s' vs '%s'", k, sizes[j], a, b);
			cr_assert_str_eq(a, b, "kind %d size %zu", k, sizes[j]);
		}
	}
}

static void check(const struct sched_line *l, const char *trace, size_t trace_len)
{
	struct jsonw a, b;

	jsonw_init(&a);
	jsonw_init(&b);
	/* two lines in a row: the second starts where the first left the writer */
	for (int i = 0; i < 2; i++) {
		ref_line(&a, l, trace, trace_len);
		sched_jsonl_line(&b, l);
	}
	cr_assert_eq(a.len, b.len, "%.*s\nvs\n%.*s", (int)a.len, a.buf, (int)b.len, b.buf);
	cr_assert(!memcmp(a.buf, b.buf, a.len), "%.*s\nvs\n%.*s", (int)a.len, a.buf, (int)b.len, b.buf);
	cr_assert_eq(a.need_comma, b.need_comma);
	jsonw_free(&a);
	jsonw_free(&b);
}

static const char *const events[] = {"sched:sched_switch", "sched:sched_wakeup", "irq:softirq_entry",
				     "nmi:nmi_handler", "x:other", "caf\xc3\xa9:\"q\""};

Test(sched_jsonl, line_is_the_reference_line_for_text)
{
	static const char *const texts[] = {
		"", "   ", "comm=rcu_preempt pid=15 prio=120 target_cpu=000", "vec=3 [action=NET_RX]",
		"vec=1 [action=TIMER] [action=7]", "pid=1 pid=2 pid=x next_hint=-4 prev_pid=99999999999999999999",
		"a=-99999999999999999999 b=-9223372036854775808 c=-9223372036854775809 d=9223372036854775808",
		"e=0123 f=-0 g=- h=-a i=1e3 j=+5 k= 12 l=\t5 m=5\t",
		"prev_comm=1 prev_comm=two prev_state=R+ next_comm=3 action= =5 a==b [] [=] [x=]",
		"  lead   trail  target_cpu=12345678901234567890123456789012 dest_cpu=0x10  ",
		"tab=\tvalue ctl=\x01 q=\"quoted\\\" k=v u=caf\xc3\xa9 bad=\xff\xfe",
		"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
		"kkkkkkkkkkkkkkkkkkkkkkkkkkkkk=1 short=2",
		"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
		"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkk=1 short=2",
		"perf_event_nmi_handler() delta_ns: 2000 handled: 1", "h() delta_ns: 5", "h() delta_ns: x handled: 1",
		"h() delta_ns: 5 handled: y", "() delta_ns: 7 handled: 99999999999999999999 z=1", "no nmi here=1",
	};

	for (size_t e = 0; e < sizeof(events) / sizeof(events[0]); e++)
		for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
			struct sched_line l = {.comm = strs[(e + i) % NSTRS], .pid = edges[i % NEDGES],
					       .tid = edges[(i + 3) % NEDGES], .cpu = edges[(i + e) % NEDGES],
					       .time_ns = (uint64_t)edges[(i * 7 + e) % NEDGES], .event = events[e],
					       .trace = texts[i], .trace_len = strlen(texts[i]),
					       .hint = (uint64_t)edges[(i + 5) % NEDGES]};

			check(&l, l.trace, l.trace_len);
		}
	/* NUL bytes inside the text (perf script text is not C strings) */
	static const char nul[] = "a=1\0b c\0=2 d=3\0 e=4 f=\0x 5\0=6";
	struct sched_line l = {.comm = "c", .event = "x:other", .trace = nul, .trace_len = sizeof(nul) - 1};

	check(&l, l.trace, l.trace_len);
	l.event = "nmi:nmi_handler";
	check(&l, l.trace, l.trace_len);
}

Test(sched_jsonl, line_is_the_reference_line_for_values)
{
	for (int i = 0; i < 20000; i++) {
		struct sched_vals v;
		struct sched_switch_info sw;
		enum sched_kind k = (enum sched_kind)(1 + next() % SK_RESCHED_EXIT);
		char text[1024];
		size_t n;
		struct sched_line l = {.comm = strs[next() % NSTRS], .pid = any_num(), .tid = any_num(),
				       .cpu = any_num(), .time_ns = (uint64_t)any_num(),
				       .event = k == SK_SWITCH ? "sched:sched_switch" : k == SK_NMI ? "nmi:nmi_handler"
											: events[next() % 6],
				       .hint = (uint64_t)any_num(), .prev_hint = (uint64_t)any_num(),
				       .next_hint = (uint64_t)any_num()};

		fill(&v);
		n = ref_format(k, &v, text, sizeof(text));
		if (k == SK_SWITCH && sched_jsonl_parse_switch(text, n, &sw))
			l.sw = &sw;
		l.trace = text;
		l.trace_len = n;
		check(&l, text, n);
		l.trace = NULL; /* the text made by the writer */
		l.trace_len = 0;
		l.kind = k;
		l.v = &v;
		check(&l, text, n);
	}
}

Test(sched_jsonl, parse_i64_is_strtoll)
{
	static const char *const s[] = {"0", "-0", "7", "-7", "007", "-007", "9223372036854775807",
					"9223372036854775808", "-9223372036854775808", "-9223372036854775809",
					"18446744073709551615", "18446744073709551616", "99999999999999999999999999999",
					"1234567890123456789012345678901", "", "-", "+1", " 1", "1 ", "1a", "a1", "--1",
					"0x10", "1e3", "12\0x", "-\0", "5\0\0"};
	static const size_t len[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 2, 3};

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		size_t n = len[i] ? len[i] : strlen(s[i]);
		int64_t a = 11, b = 11;
		bool ra = ref_i64(s[i], n, &a), rb = sched_jsonl_parse_i64(s[i], n, &b);

		cr_assert_eq(ra, rb, "'%s'", s[i]);
		if (ra)
			cr_assert_eq(a, b, "'%s': %lld vs %lld", s[i], (long long)a, (long long)b);
	}
	for (int i = 0; i < 200000; i++) { /* digits, signs and junk of every length up to 31 */
		char buf[32];
		size_t n = 1 + next() % 31;
		int64_t a = 0, b = 0;

		for (size_t j = 0; j < n; j++) {
			uint64_t r = next() % 16;

			buf[j] = r < 12 ? (char)('0' + r % 10) : r == 12 ? '-' : r == 13 ? 'x' : r == 14 ? '\0' : ' ';
		}
		if (next() % 2)
			buf[0] = '-';
		bool ra = ref_i64(buf, n, &a);

		cr_assert_eq(ra, sched_jsonl_parse_i64(buf, n, &b), "'%.*s'", (int)n, buf);
		if (ra) /* the value is the caller's only when true */
			cr_assert_eq(a, b, "'%.*s'", (int)n, buf);
	}
}
