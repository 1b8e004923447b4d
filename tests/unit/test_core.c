/*
 * test_core.c - unit tests of the process stage's own machinery: the JSON
 * writer, perf-style round ordering, session replay (threads, maps, cgroups),
 * data_src decoding and the output-directory helpers.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/perfdata.h"
#include "lib/jsonw.h"
#include "lib/upper_bound.h"
#include "lib/data_src.h"
#include "process/order/order.h"

static char *jsonw_text(struct jsonw *w)
{
	char *s = malloc(w->len + 1);

	memcpy(s, w->buf, w->len);
	s[w->len] = '\0';
	return s;
}

Test(jsonw, escapes_and_replaces_invalid_utf8)
{
	struct jsonw w;
	char *s;

	jsonw_init(&w);
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "a", "q\"b\\s\n\t\x01 \xc3\xa9 \xff end");
	jsonw_obj_close(&w);
	s = jsonw_text(&w);
	cr_assert_str_eq(s, "{\"a\":\"q\\\"b\\\\s\\n\\t\\u0001 \xc3\xa9 \xef\xbf\xbd end\"}");
	free(s);
	jsonw_free(&w);
}

/* What jsonw_put_str must make of an ASCII byte (escapes per RFC 8259). */
static char *ref_escape_ascii(char *p, unsigned char c)
{
	switch (c) {
	case '"': return p + sprintf(p, "\\\"");
	case '\\': return p + sprintf(p, "\\\\");
	case '\n': return p + sprintf(p, "\\n");
	case '\t': return p + sprintf(p, "\\t");
	case '\r': return p + sprintf(p, "\\r");
	default:
		if (c < 0x20)
			return p + sprintf(p, "\\u%04x", c);
		*p++ = (char)c;
		return p;
	}
}

/*
 * The string writer checks whole words and stores them as it goes (the last
 * one overlapping): on every length up to 40, a byte that needs care at every
 * position (or none), and valid UTF-8 at every position, it writes what a
 * byte-by-byte escaper writes, and nothing past its end.
 */
Test(jsonw, put_str_word_path_matches_byte_escaper)
{
	static const unsigned char specials[] = {'"', '\\', '\n', '\t', '\r', 0x01, 0x1f, 0x7f, 'a'};
	char in[64], got[512], want[512];

	for (size_t n = 0; n <= 40; n++) {
		for (size_t at = 0; at <= n; at++) {
			for (size_t k = 0; k < sizeof(specials); k++) {
				char *w = want, *e;

				for (size_t i = 0; i < n; i++)
					in[i] = (char)('A' + (i * 7 + k) % 26);
				if (at < n)
					in[at] = (char)specials[k];
				*w++ = '"';
				for (size_t i = 0; i < n; i++)
					w = ref_escape_ascii(w, (unsigned char)in[i]);
				*w++ = '"';
				memset(got, '#', sizeof(got));
				e = jsonw_put_str(got, in, n);
				cr_assert_eq(e - got, w - want, "length %zu, special %zu at %zu", n, k, at);
				cr_assert(!memcmp(got, want, (size_t)(w - want)), "length %zu, special %zu at %zu: %.*s", n, k,
					  at, (int)(e - got), got);
				cr_assert_eq(*e, '#', "wrote past the end (length %zu)", n);
			}
			if (at + 2 <= n) { /* é (valid UTF-8) is copied as it is */
				char *e;

				for (size_t i = 0; i < n; i++)
					in[i] = (char)('a' + i % 26);
				in[at] = (char)0xc3, in[at + 1] = (char)0xa9;
				e = jsonw_put_str(got, in, n);
				cr_assert_eq(e - got, (long)n + 2);
				cr_assert(!memcmp(got + 1, in, n) && got[0] == '"' && got[n + 1] == '"');
			}
		}
	}
}

Test(jsonw, numbers_and_hex)
{
	struct jsonw w;
	char *s;

	jsonw_init(&w);
	jsonw_arr_open(&w);
	jsonw_hex_str(&w, 0);
	jsonw_hex_str(&w, 0x7f2519e64408ULL);
	jsonw_hex_str(&w, UINT64_MAX);
	jsonw_u64(&w, UINT64_MAX);
	jsonw_i64(&w, -42);
	jsonw_i64(&w, INT64_MIN);
	jsonw_arr_close(&w);
	s = jsonw_text(&w);
	cr_assert_str_eq(s, "[\"0\",\"7f2519e64408\",\"ffffffffffffffff\","
			    "18446744073709551615,-42,-9223372036854775808]");
	free(s);
	jsonw_free(&w);
}

/* The digit writers (decimal, time, hex) against printf on every length, both ends of each and
 * pseudo-random values. */
Test(jsonw, put_u64_time_and_hex_match_printf)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL, p10 = 1;

	for (int i = 0; i < 200000; i++) {
		uint64_t v;
		char a[32], b[48], *e;

		if (i < 60) {
			v = i % 3 == 0 ? p10 : i % 3 == 1 ? p10 - 1 : p10 + 1;
			if (i % 3 == 2 && p10 <= UINT64_MAX / 10)
				p10 *= 10;
		} else if (i == 60) {
			v = UINT64_MAX;
		} else {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v = x >> (x % 64);
		}
		e = jsonw_put_u64(a, v);
		*e = '\0';
		snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
		cr_assert_str_eq(a, b, "put_u64(%llu)", (unsigned long long)v);
		e = jsonw_put_hex_str(a, v);
		*e = '\0';
		snprintf(b, sizeof(b), "\"%llx\"", (unsigned long long)v);
		cr_assert_str_eq(a, b, "put_hex_str(%llx)", (unsigned long long)v);
	}
}

Test(jsonw, jsonl_lines_restart_at_top_level)
{
	struct jsonw w;
	char *s;

	jsonw_init(&w);
	jsonw_obj_open(&w);
	jsonw_kv_u64(&w, "a", 1);
	jsonw_obj_close(&w);
	jsonw_newline(&w);
	jsonw_obj_open(&w);
	jsonw_kv_u64(&w, "b", 2);
	jsonw_obj_close(&w);
	jsonw_newline(&w);
	s = jsonw_text(&w);
	cr_assert_str_eq(s, "{\"a\":1}\n{\"b\":2}\n");
	free(s);
	jsonw_free(&w);
}

/* the field writers of the summary and evidence files */
Test(jsonw, fields_null_or_value_hex_exact_doubles_and_member_names)
{
	struct { uint64_t lost; struct { uint32_t dsos_loaded; } syms; } r = {7, {3}}, *p = &r;
	const char *names[] = {"a", "b\"c"};
	const uint32_t tids[] = {5, 6};
	struct jsonw w;
	char *s;

	jsonw_file_open(&w);
	JSONW_KV_U64S(&w, p->lost, r.syms.dsos_loaded);
	jsonw_kv_hex(&w, "h", 0x1f);
	jsonw_kv_str_or_null(&w, "s", NULL);
	jsonw_kv_u64_or_null(&w, "u", true, 9);
	jsonw_kv_i64_or_null(&w, "i", false, -1);
	jsonw_kv_double_exact(&w, "d", 0.1);
	jsonw_kv_double_exact(&w, "inf", 1.0 / 0.0);
	jsonw_kv_str_array(&w, "n", names, 2);
	jsonw_kv_u32_array(&w, "t", tids, 2);
	cr_assert(!jsonw_kv_obj_or_null(&w, "none", false));
	cr_assert(jsonw_kv_obj_or_null(&w, "some", true));
	jsonw_obj_close(&w);
	jsonw_obj_close(&w);
	s = jsonw_text(&w);
	cr_assert_str_eq(s, "{\"lost\":7,\"dsos_loaded\":3,\"h\":\"1f\",\"s\":null,\"u\":9,\"i\":null,"
			    "\"d\":0.10000000000000001,\"inf\":0,\"n\":[\"a\",\"b\\\"c\"],\"t\":[5,6],"
			    "\"none\":null,\"some\":{}}");
	free(s);
	jsonw_free(&w);
}

/* the binary search of the address tables (maps, tracing-data ksyms, ELF functions) */
Test(upper_bound, counts_keys_at_or_below_against_a_linear_scan)
{
	struct { uint32_t pad; uint64_t key; char name; } v[9];
	const uint64_t keys[9] = {0, 3, 3, 3, 10, 11, 11, 40, UINT64_MAX};

	for (size_t i = 0; i < 9; i++)
		v[i].key = keys[i];
	for (size_t n = 0; n <= 9; n++)
		for (uint64_t k = 0; k < 45; k++) {
			size_t want = 0;

			while (want < n && v[want].key <= k)
				want++;
			cr_assert_eq(UPPER_BOUND(v, n, key, k), want, "n %zu key %llu", n, (unsigned long long)k);
		}
	cr_assert_eq(UPPER_BOUND(v, 9, key, UINT64_MAX), 9);
}

/* perf flushes, at each round end, what is at or below the previous round's max */
Test(order, rounds_release_one_round_late_and_sort)
{
	struct order_queue q;
	struct order_item it;
	int recs[8];

	order_init(&q);
	order_push(&q, 30, &recs[0]);
	order_push(&q, 10, &recs[1]);
	order_push(&q, 20, &recs[2]);
	order_round(&q); /* first round: limit 0, nothing poppable */
	cr_assert_not(order_pop(&q, &it));
	order_push(&q, 25, &recs[3]); /* CPU that lagged: older than 30 */
	order_push(&q, 40, &recs[4]);
	order_round(&q); /* limit = 30 (max before the previous round) */
	cr_assert(order_pop(&q, &it) && it.rec == &recs[1] && it.time == 10);
	cr_assert(order_pop(&q, &it) && it.rec == &recs[2]);
	cr_assert(order_pop(&q, &it) && it.rec == &recs[3]);
	cr_assert(order_pop(&q, &it) && it.rec == &recs[0]);
	cr_assert_not(order_pop(&q, &it), "40 must wait for the next round");
	order_finish(&q);
	cr_assert(order_pop(&q, &it) && it.rec == &recs[4]);
	cr_assert_eq(q.peak, 5);
	cr_assert_eq(q.late, 0);
	order_free(&q);
}

Test(order, equal_times_keep_arrival_order)
{
	struct order_queue q;
	struct order_item it;
	int recs[100], i;

	order_init(&q);
	for (i = 0; i < 100; i++)
		order_push(&q, (uint64_t)(i % 3), &recs[i]);
	order_finish(&q);
	for (int t = 0; t < 3; t++)
		for (i = t; i < 100; i += 3) {
			cr_assert(order_pop(&q, &it));
			cr_assert_eq(it.rec, &recs[i], "time %d: want record %d", t, i);
		}
	order_free(&q);
}

/* Four "CPUs" each produce increasing times; each round hands over, CPU by
 * CPU, everything up to a random "now" (perf record drains every ring
 * buffer each round). The output must be in (time, arrival) order with
 * every record exactly once. */
Test(order, random_per_cpu_runs_come_out_sorted_and_complete)
{
	enum { CPUS = 4, PER_CPU = 5000 };
	static uint64_t times[CPUS][PER_CPU];
	static int seen[CPUS * PER_CPU];
	struct order_queue q;
	struct order_item it;
	size_t pos[CPUS] = {0}, out = 0, c, k;
	uint64_t last_time = 0, last_seq = 0;
	unsigned seed = 12345;

	for (c = 0; c < CPUS; c++)
		for (k = 0, times[c][0] = 0; k < PER_CPU; k++)
			times[c][k] = (k ? times[c][k - 1] : 0) + (rand_r(&seed) % 50);
	order_init(&q);
	for (uint64_t now = 0;; ) {
		bool any = false;

		now += (uint64_t)(rand_r(&seed) % 5000);
		for (c = 0; c < CPUS; c++) {
			for (; pos[c] < PER_CPU && times[c][pos[c]] <= now; pos[c]++) {
				cr_assert_eq(order_push(&q, times[c][pos[c]], &seen[c * PER_CPU + pos[c]]), 0);
				any = true;
			}
		}
		cr_assert_eq(order_round(&q), 0);
		while (order_pop(&q, &it)) {
			cr_assert(it.time > last_time || (it.time == last_time && it.seq > last_seq) || out == 0,
				  "out of order at %zu", out);
			last_time = it.time, last_seq = it.seq;
			(*(int *)it.rec)++;
			out++;
		}
		if (!any && pos[0] == PER_CPU && pos[1] == PER_CPU && pos[2] == PER_CPU && pos[3] == PER_CPU)
			break;
	}
	cr_assert_eq(order_finish(&q), 0);
	while (order_pop(&q, &it)) {
		cr_assert(it.time > last_time || (it.time == last_time && it.seq > last_seq));
		last_time = it.time, last_seq = it.seq;
		(*(int *)it.rec)++;
		out++;
	}
	cr_assert_eq(out, (size_t)CPUS * PER_CPU);
	for (k = 0; k < CPUS * PER_CPU; k++)
		cr_assert_eq(seen[k], 1, "record %zu delivered %d times", k, seen[k]);
	cr_assert_eq(q.late, 0);
	order_free(&q);
}

/* ---- session replay ---- */

struct rec_buf {
	struct perf_event_header h;
	uint8_t body[512];
};

static size_t put_mmap2(struct rec_buf *r, uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
			uint64_t pgoff, const char *name, uint16_t misc)
{
	size_t off = 0, n = strlen(name) + 1;

	memset(r, 0, sizeof(*r));
	memcpy(r->body + off, &pid, 4), off += 4;
	memcpy(r->body + off, &tid, 4), off += 4;
	memcpy(r->body + off, &start, 8), off += 8;
	memcpy(r->body + off, &len, 8), off += 8;
	memcpy(r->body + off, &pgoff, 8), off += 8;
	off += 24 + 8; /* maj/min/ino/gen, prot/flags */
	memcpy(r->body + off, name, n), off += n;
	off = (off + 7) & ~7UL;
	r->h.type = PERF_RECORD_MMAP2;
	r->h.misc = misc;
	r->h.size = (uint16_t)(8 + off);
	return off;
}

static size_t put_comm(struct rec_buf *r, uint32_t pid, uint32_t tid, const char *comm)
{
	size_t n = strlen(comm) + 1, off = 8 + n;

	memset(r, 0, sizeof(*r));
	memcpy(r->body, &pid, 4);
	memcpy(r->body + 4, &tid, 4);
	memcpy(r->body + 8, comm, n);
	off = (off + 7) & ~7UL;
	r->h.type = PERF_RECORD_COMM;
	r->h.size = (uint16_t)(8 + off);
	return off;
}

static size_t put_fork(struct rec_buf *r, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	uint32_t v[4] = {pid, ppid, tid, ptid};

	memset(r, 0, sizeof(*r));
	memcpy(r->body, v, sizeof(v));
	r->h.type = PERF_RECORD_FORK;
	r->h.size = 8 + 24;
	return 24;
}

static void resolve(struct session *s, int pid, int tid, uint64_t ip, struct session_resolved *out)
{
	session_resolve_ip(s, session_thread(s, pid, tid), PERF_RECORD_MISC_USER, ip, out);
}

Test(session, threads_named_like_perf_and_forks_share_or_copy_maps)
{
	struct sym_cache_opts so = {0};
	struct sym_cache *c = sym_cache_new(&so);
	struct session s;
	struct rec_buf r;
	struct session_resolved where;
	size_t n;

	session_init(&s, c);
	cr_assert_str_eq(session_thread(&s, 100, 101)->comm, ":101", "unknown thread is :TID as in perf");
	cr_assert_str_eq(session_thread(&s, 0, 0)->comm, "swapper", "perf's idle thread");
	n = put_comm(&r, 100, 100, "leader"), session_apply(&s, &r.h, n);
	n = put_mmap2(&r, 100, 100, 0x1000, 0x1000, 0, "//anon", PERF_RECORD_MISC_USER);
	cr_assert_eq(session_apply(&s, &r.h, n), 0);
	resolve(&s, 100, 101, 0x1800, &where); /* thread of 100 shares its maps */
	cr_assert_str_eq(where.dso, "//anon");
	cr_assert_str_eq(where.sym, "[unknown]");
	n = put_fork(&r, 200, 100, 200, 100), session_apply(&s, &r.h, n); /* new process: copy */
	cr_assert_str_eq(session_thread(&s, 200, 200)->comm, "leader");
	n = put_fork(&r, 301, 300, 301, 300), session_apply(&s, &r.h, n); /* parent never named */
	cr_assert_str_eq(session_thread(&s, 301, 301)->comm, ":301", "a placeholder name is not inherited (perf)");
	n = put_mmap2(&r, 200, 200, 0x1000, 0x1000, 0, "[heap]", PERF_RECORD_MISC_USER), session_apply(&s, &r.h, n);
	resolve(&s, 200, 200, 0x1800, &where);
	cr_assert_str_eq(where.dso, "[heap]");
	resolve(&s, 100, 100, 0x1800, &where);
	cr_assert_str_eq(where.dso, "//anon", "the parent's maps must not change");
	resolve(&s, 100, 100, 0x9000, &where);
	cr_assert_str_eq(where.dso, "[unknown]");
	session_free(&s);
	sym_cache_free(c);
}

/* Lookups start at the map the last one found (session_maps.hint_*) and
 * session_thread at the last thread: both must follow changes. */
Test(session, remembered_map_and_thread_follow_changes)
{
	struct sym_cache_opts so = {0};
	struct sym_cache *c = sym_cache_new(&so);
	struct session s;
	struct rec_buf r;
	struct session_resolved where;
	struct session_data data;
	struct session_thread *t;
	size_t n;

	session_init(&s, c);
	n = put_mmap2(&r, 7, 7, 0x10000, 0x10000, 0, "[a]", PERF_RECORD_MISC_USER), session_apply(&s, &r.h, n);
	resolve(&s, 7, 7, 0x15000, &where);
	cr_assert_str_eq(where.dso, "[a]");
	t = session_thread(&s, 7, 7);
	session_resolve_data(&s, t, 7, 0x15000, 0, &data);
	cr_assert_str_eq(data.map, "[a]");
	/* a map below shifts [a] to the next index; the remembered index now holds [z] */
	n = put_mmap2(&r, 7, 7, 0x1000, 0x1000, 0, "[z]", PERF_RECORD_MISC_USER), session_apply(&s, &r.h, n);
	resolve(&s, 7, 7, 0x15000, &where);
	cr_assert_str_eq(where.dso, "[a]");
	session_resolve_data(&s, t, 7, 0x15000, 0, &data);
	cr_assert_str_eq(data.map, "[a]");
	resolve(&s, 7, 7, 0x1800, &where);
	cr_assert_str_eq(where.dso, "[z]");
	resolve(&s, 7, 7, 0x3000, &where);
	cr_assert_str_eq(where.dso, "[unknown]", "between maps");
	/* [a] replaced by two: the remembered one's index now holds the first */
	n = put_mmap2(&r, 7, 7, 0x10000, 0x8000, 0, "[b]", PERF_RECORD_MISC_USER), session_apply(&s, &r.h, n);
	n = put_mmap2(&r, 7, 7, 0x18000, 0x8000, 0, "[c]", PERF_RECORD_MISC_USER), session_apply(&s, &r.h, n);
	resolve(&s, 7, 7, 0x1a000, &where);
	cr_assert_str_eq(where.dso, "[c]");
	resolve(&s, 7, 7, 0x11000, &where);
	cr_assert_str_eq(where.dso, "[b]");
	/* tid 51 remembered, then reused by a fork of another process */
	t = session_thread(&s, 50, 51);
	cr_assert_eq(session_thread(&s, 50, 51), t);
	n = put_fork(&r, 60, 40, 51, 40), session_apply(&s, &r.h, n);
	t = session_thread(&s, 60, 51);
	cr_assert_eq(t->pid, 60, "the new thread of tid 51, not the freed one");
	session_free(&s);
	sym_cache_free(c);
}

Test(session, new_mapping_clips_the_ones_it_overlaps)
{
	struct sym_cache_opts so = {0};
	struct sym_cache *c = sym_cache_new(&so);
	struct session s;
	struct rec_buf r;
	struct session_resolved where;
	size_t n;

	session_init(&s, c);
	n = put_mmap2(&r, 7, 7, 0x10000, 0x10000, 0, "[a]", PERF_RECORD_MISC_USER), session_apply(&s, &r.h, n);
	n = put_mmap2(&r, 7, 7, 0x14000, 0x4000, 0, "[b]", PERF_RECORD_MISC_USER), session_apply(&s, &r.h, n);
	resolve(&s, 7, 7, 0x13fff, &where);
	cr_assert_str_eq(where.dso, "[a]");
	resolve(&s, 7, 7, 0x14000, &where);
	cr_assert_str_eq(where.dso, "[b]");
	resolve(&s, 7, 7, 0x17fff, &where);
	cr_assert_str_eq(where.dso, "[b]");
	resolve(&s, 7, 7, 0x18000, &where);
	cr_assert_str_eq(where.dso, "[a]", "tail of [a] kept");
	resolve(&s, 7, 7, 0x1ffff, &where);
	cr_assert_str_eq(where.dso, "[a]");
	n = put_mmap2(&r, 7, 7, 0x8000, 0x20000, 0, "[c]", PERF_RECORD_MISC_USER), session_apply(&s, &r.h, n);
	resolve(&s, 7, 7, 0x14000, &where);
	cr_assert_str_eq(where.dso, "[c]", "covering map replaces all");
	resolve(&s, 7, 7, 0x27fff, &where);
	cr_assert_str_eq(where.dso, "[c]");
	resolve(&s, 7, 7, 0x28000, &where);
	cr_assert_str_eq(where.dso, "[unknown]");
	session_free(&s);
	sym_cache_free(c);
}

Test(session, kernel_maps_and_user_fallback_for_negative_addresses)
{
	struct sym_cache_opts so = {0};
	struct sym_cache *c = sym_cache_new(&so);
	struct session s;
	struct rec_buf r;
	struct session_resolved where;
	size_t n;

	session_init(&s, c);
	n = put_mmap2(&r, (uint32_t)-1, 0, 0xffffffff81000000ULL, 0x1000000, 0xffffffff81000000ULL,
		      "[kernel.kallsyms]_text", PERF_RECORD_MISC_KERNEL);
	session_apply(&s, &r.h, n);
	n = put_mmap2(&r, (uint32_t)-1, 0, 0xffffffffc0000000ULL, 0x10000, 0, "/lib/modules/6.1/kernel/fs/ext4/ext4.ko",
		      PERF_RECORD_MISC_KERNEL);
	session_apply(&s, &r.h, n);
	session_resolve_ip(&s, session_thread(&s, 1, 1), PERF_RECORD_MISC_KERNEL, 0xffffffff81000100ULL, &where);
	cr_assert_str_eq(where.dso, "[kernel.kallsyms]");
	session_resolve_ip(&s, session_thread(&s, 1, 1), PERF_RECORD_MISC_KERNEL, 0xffffffffc0000100ULL, &where);
	cr_assert_str_eq(where.dso, "[ext4]");
	session_resolve_ip(&s, session_thread(&s, 1, 1), PERF_RECORD_MISC_USER, 0xffffffff81000100ULL, &where);
	cr_assert_str_eq(where.dso, "[kernel.kallsyms]", "user-mode negative address falls back to kernel maps");
	session_free(&s);
	sym_cache_free(c);
}

Test(session, a_file_mapped_in_two_processes_is_one_dso_loaded_once)
{
	struct sym_cache *c = sym_cache_new(&(struct sym_cache_opts){ 0 });
	const char *lib = "/nonexistent/libshared.so", *other = "/nonexistent/libother.so";
	struct session s;
	struct rec_buf r;
	struct session_resolved where;
	struct sym_stats st;
	size_t n;

	session_init(&s, c);
	n = put_mmap2(&r, 10, 10, 0x10000, 0x1000, 0, lib, PERF_RECORD_MISC_USER), session_apply(&s, &r.h, n);
	n = put_mmap2(&r, 20, 20, 0x40000, 0x1000, 0, lib, PERF_RECORD_MISC_USER), session_apply(&s, &r.h, n);
	n = put_mmap2(&r, 20, 20, 0x50000, 0x1000, 0, other, PERF_RECORD_MISC_USER), session_apply(&s, &r.h, n);
	resolve(&s, 10, 10, 0x10010, &where);
	cr_assert_str_eq(where.dso, lib);
	resolve(&s, 20, 20, 0x40010, &where);
	cr_assert_str_eq(where.dso, lib);
	resolve(&s, 20, 20, 0x50010, &where);
	cr_assert_str_eq(where.dso, other);
	cr_assert_str_eq(where.sym, "[unknown]");
	cr_assert_eq(s.stats.dsos, 2, "one dso per file name");
	sym_cache_stats(c, &st);
	cr_assert_eq(st.dsos_loaded, 2, "each file's symbols are looked for once, not per mapping");
	session_free(&s);
	sym_cache_free(c);
}

/* ---- data_src ---- */

static char *decode(uint64_t v)
{
	struct jsonw w;
	char *s;

	jsonw_init(&w);
	data_src_json(&w, v);
	s = jsonw_text(&w);
	jsonw_free(&w);
	return s;
}

#define DS(field, shift) ((uint64_t)(field) << (shift))

Test(data_src, l1_hit_load)
{
	uint64_t v = DS(PERF_MEM_OP_LOAD, PERF_MEM_OP_SHIFT) | DS(PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1, PERF_MEM_LVL_SHIFT) |
		     DS(PERF_MEM_SNOOP_NONE, PERF_MEM_SNOOP_SHIFT) | DS(PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT, PERF_MEM_TLB_SHIFT) |
		     DS(PERF_MEM_LOCK_NA, PERF_MEM_LOCK_SHIFT);
	char *s = decode(v);

	cr_assert(strstr(s, "\"op\":\"LOAD\""), "%s", s);
	cr_assert(strstr(s, "\"level\":\"L1\",\"result\":\"HIT\",\"remote\":false"), "%s", s);
	cr_assert(strstr(s, "\"snoop\":\"NONE\",\"hitm\":\"none\",\"lock\":\"NA\",\"dtlb\":\"HIT|L1\""), "%s", s);
	free(s);
}

Test(data_src, local_and_remote_hitm_with_lvl_num)
{
	uint64_t local = DS(PERF_MEM_OP_LOAD, PERF_MEM_OP_SHIFT) | DS(PERF_MEM_LVL_HIT, PERF_MEM_LVL_SHIFT) |
			 DS(PERF_MEM_LVLNUM_L3, PERF_MEM_LVLNUM_SHIFT) | DS(PERF_MEM_SNOOP_HITM, PERF_MEM_SNOOP_SHIFT);
	uint64_t remote = DS(PERF_MEM_OP_LOAD, PERF_MEM_OP_SHIFT) | DS(PERF_MEM_LVL_HIT, PERF_MEM_LVL_SHIFT) |
			  DS(PERF_MEM_LVLNUM_ANY_CACHE, PERF_MEM_LVLNUM_SHIFT) | DS(1, PERF_MEM_REMOTE_SHIFT) |
			  DS(PERF_MEM_HOPS_2, PERF_MEM_HOPS_SHIFT) | DS(PERF_MEM_SNOOP_HITM, PERF_MEM_SNOOP_SHIFT);
	char *a = decode(local), *b = decode(remote);

	cr_assert(strstr(a, "\"level\":\"L3\",\"result\":\"HIT\",\"remote\":false,\"hops\":0"), "%s", a);
	cr_assert(strstr(a, "\"hitm\":\"local\""), "%s", a);
	cr_assert(strstr(b, "\"level\":\"ANY_CACHE\",\"result\":\"HIT\",\"remote\":true,\"hops\":2"), "%s", b);
	cr_assert(strstr(b, "\"hitm\":\"remote\""), "%s", b);
	free(a);
	free(b);
}

Test(data_src, legacy_remote_ram_miss)
{
	uint64_t v = DS(PERF_MEM_OP_STORE, PERF_MEM_OP_SHIFT) | DS(PERF_MEM_LVL_MISS | PERF_MEM_LVL_REM_RAM1, PERF_MEM_LVL_SHIFT);
	char *s = decode(v);

	cr_assert(strstr(s, "\"op\":\"STORE\",\"level\":\"RAM\",\"result\":\"MISS\",\"remote\":true"), "%s", s);
	free(s);
}

/* ---- output directory helpers ---- */

Test(fsutil, commit_refuses_or_replaces)
{
	char base[] = "/tmp/scxprof-fsutil.XXXXXX", final[256], tmp[256], path[300];
	FILE *f;

	cr_assert(mkdtemp(base));
	snprintf(final, sizeof(final), "%s/out", base);
	cr_assert_eq(fs_make_temp_dir_for(final, tmp, sizeof(tmp)), 0);
	cr_assert_eq(fs_commit_dir(tmp, final, false), 0);
	cr_assert(fs_is_dir(final));
	snprintf(path, sizeof(path), "%s/old", final);
	f = fopen(path, "w");
	fclose(f);
	cr_assert_eq(fs_make_temp_dir_for(final, tmp, sizeof(tmp)), 0);
	cr_assert_eq(fs_commit_dir(tmp, final, false), -1, "existing output must be refused");
	cr_assert(fs_exists(path), "refusal must keep the old output");
	cr_assert_eq(fs_commit_dir(tmp, final, true), 0);
	cr_assert_not(fs_exists(path), "replace must drop the old output");
	cr_assert_not(fs_exists(tmp));
	cr_assert_eq(fs_remove_tree(base), 0);
	cr_assert_not(fs_exists(base));
}

Test(fsutil, remove_tree_does_not_follow_symlinks)
{
	char base[] = "/tmp/scxprof-fsutil.XXXXXX", outside[] = "/tmp/scxprof-keep.XXXXXX", link[300], keep[300];
	FILE *f;

	cr_assert(mkdtemp(base) && mkdtemp(outside));
	snprintf(keep, sizeof(keep), "%s/file", outside);
	f = fopen(keep, "w");
	fclose(f);
	snprintf(link, sizeof(link), "%s/link", base);
	cr_assert_eq(symlink(outside, link), 0);
	cr_assert_eq(fs_remove_tree(base), 0);
	cr_assert(fs_exists(keep), "a symlinked directory's content must survive");
	fs_remove_tree(outside);
}

Test(fsutil, read_file_whole_or_one_line_naming_it)
{
	char base[] = "/tmp/scxprof-fsutil.XXXXXX", path[300], fifo[300], *buf;
	size_t n;
	FILE *f;

	cr_assert(mkdtemp(base));
	snprintf(path, sizeof(path), "%s/f", base);
	f = fopen(path, "w");
	fputs("{\"a\": 1}\n", f);
	fclose(f);
	cr_assert_eq(fs_read_file(path, 1 << 20, &buf, &n), 0, "%s", scx_errmsg());
	cr_assert_eq(n, 9);
	cr_assert_str_eq(buf, "{\"a\": 1}\n", "the bytes and a NUL after them");
	free(buf);
	cr_assert_eq(fs_read_file(path, 8, &buf, &n), -1, "larger than max");
	cr_assert_null(buf);
	cr_assert(strstr(scx_errmsg(), path) && strstr(scx_errmsg(), "not a regular file of at most"), "%s", scx_errmsg());
	cr_assert_eq(fs_read_file(base, 1 << 20, &buf, &n), -1, "a directory");
	snprintf(fifo, sizeof(fifo), "%s/fifo", base);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(fs_read_file(fifo, 1 << 20, &buf, &n), -1, "a FIFO is refused, not waited on");
	snprintf(path, sizeof(path), "%s/missing", base);
	cr_assert_eq(fs_read_file(path, 1 << 20, &buf, &n), -1);
	cr_assert(strstr(scx_errmsg(), "No such file"), "%s", scx_errmsg());
	fs_remove_tree(base);
}

/* Every byte, in order, through a pipe four times its buffer that the
 * reader drains 4 kB at a time; ENOSPC from a device that takes nothing. */
Test(fsutil, write_all_whole_buffer_or_errno)
{
	static char big[1 << 18], got[sizeof(big)];
	int p[2], full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	size_t n = 0, i;
	pid_t pid;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + i / 251);
	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		_exit(fs_write_all(p[1], big, sizeof(big)) == 0 ? 0 : 1);
	}
	close(p[1]);
	for (;;) {
		ssize_t r = read(p[0], got + n, n + 4096 <= sizeof(got) ? 4096 : sizeof(got) - n);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(p[0]);
	cr_assert_eq(n, sizeof(big), "every byte arrives (%zu of %zu)", n, sizeof(big));
	cr_assert(!memcmp(got, big, sizeof(big)), "in order");
	cr_assert_eq(waitpid(pid, &p[0], 0), pid);
	cr_assert(WIFEXITED(p[0]) && WEXITSTATUS(p[0]) == 0, "fs_write_all returned 0");
	if (full < 0)
		cr_skip_test("no /dev/full");
	errno = 0;
	cr_assert_eq(fs_write_all(full, big, 10), -1);
	cr_assert_eq(errno, ENOSPC, "%s", strerror(errno));
	close(full);
}

/* ---- BUILD_ID feature lookup (lib/perfdata) ---- */

static size_t put_build_id(uint8_t *buf, const char *name, uint8_t fill, uint8_t size, bool with_size)
{
	struct perf_event_header h = {.type = PD_RECORD_HEADER_BUILD_ID, .misc = with_size ? (1 << 15) : 0};
	size_t n = strlen(name) + 1, total = (8 + 4 + 24 + n + 7) & ~7UL;

	memset(buf, 0, total);
	h.size = (uint16_t)total;
	memcpy(buf, &h, sizeof(h));
	memset(buf + 12, fill, size);
	buf[12 + 20] = size;
	memcpy(buf + 36, name, n);
	return total;
}

Test(perfdata_build_id, finds_entries_by_name_and_size)
{
	char dir[] = "/tmp/scxprof-bid.XXXXXX", path[300];
	struct perf_event_attr attr = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
				       .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID};
	uint64_t id = 1;
	uint8_t feat[512], bid[20];
	size_t len = 0, size = 0;
	struct pd_writer w;
	struct pd_file f;

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	len += put_build_id(feat + len, "/usr/bin/app", 0xab, 20, false);
	len += put_build_id(feat + len, "[vdso]", 0x5c, 8, true);
	cr_assert_eq(pd_writer_open(&w, path), 0);
	cr_assert_eq(pd_writer_add_attr(&w, &attr, &id, 1, "e"), 0);
	cr_assert_eq(pd_writer_add_feature(&w, PD_FEAT_BUILD_ID, feat, len), 0);
	cr_assert_eq(pd_writer_finish(&w), 0);
	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	cr_assert_eq(pd_build_id_for(&f, "[vdso]", bid, &size), 1);
	cr_assert_eq(size, 8, "explicit size from the entry");
	cr_assert_eq(bid[0], 0x5c);
	cr_assert_eq(pd_build_id_for(&f, "/usr/bin/app", bid, &size), 1);
	cr_assert_eq(size, 20);
	cr_assert_eq(pd_build_id_for(&f, "/usr/bin/other", bid, &size), 0);
	pd_close(&f);
	fs_remove_tree(dir);
}

Test(perfdata_build_id, truncated_section_is_not_trusted)
{
	char dir[] = "/tmp/scxprof-bid.XXXXXX", path[300];
	struct perf_event_attr attr = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
				       .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID};
	uint64_t id = 1;
	uint8_t feat[256], bid[20];
	size_t len, size = 0;
	struct pd_writer w;
	struct pd_file f;

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	len = put_build_id(feat, "[vdso]", 0x11, 20, false);
	cr_assert_eq(pd_writer_open(&w, path), 0);
	cr_assert_eq(pd_writer_add_attr(&w, &attr, &id, 1, "e"), 0);
	cr_assert_eq(pd_writer_add_feature(&w, PD_FEAT_BUILD_ID, feat, len - 8), 0); /* cut the name */
	cr_assert_eq(pd_writer_finish(&w), 0);
	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	cr_assert_eq(pd_build_id_for(&f, "[vdso]", bid, &size), 0);
	pd_close(&f);
	fs_remove_tree(dir);
}

/* Two events; a sample whose id is neither is "unknown" (skipped like perf),
 * one with a real id is not. */
Test(perfdata_ids, unknown_sample_id_is_told_apart)
{
	char dir[] = "/tmp/scxprof-ids.XXXXXX", path[300];
	struct perf_event_attr attr = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
				       .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID};
	uint64_t id1 = 11, id2 = 22;
	struct {
		struct perf_event_header h;
		uint64_t id, ip;
		uint32_t pid, tid;
	} rec = {{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(rec)}, 0, 0x1000, 1, 1};
	const struct perf_event_header *h;
	struct pd_cursor cur;
	struct pd_writer w;
	struct pd_file f;
	bool unknown[2];
	int i = 0;

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	cr_assert_eq(pd_writer_open(&w, path), 0);
	cr_assert_eq(pd_writer_add_attr(&w, &attr, &id1, 1, "a"), 0);
	cr_assert_eq(pd_writer_add_attr(&w, &attr, &id2, 1, "b"), 0);
	rec.id = 22;
	cr_assert_eq(pd_writer_add_record(&w, &rec, sizeof(rec)), 0);
	rec.id = 77;
	cr_assert_eq(pd_writer_add_record(&w, &rec, sizeof(rec)), 0);
	cr_assert_eq(pd_writer_finish(&w), 0);
	cr_assert_eq(pd_open(&f, path), 0, "%s", scx_errmsg());
	pd_cursor_init(&cur, &f);
	while (pd_next(&cur, &h) > 0 && i < 2)
		unknown[i++] = pd_id_is_unknown(&f, h);
	cr_assert_eq(i, 2);
	cr_assert_not(unknown[0], "id 22 belongs to event b");
	cr_assert(unknown[1], "id 77 belongs to no event");
	pd_close(&f);
	fs_remove_tree(dir);
}
