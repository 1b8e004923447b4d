/*
 * hints.c - loads hints.jsonl into a per-tid index of hint updates and
 * answers "which hint did tid T have at time t" for sample annotation.
 *
 * Semantics (matching upstream scx_characterize, see hints.h):
 *  - Blank lines (only whitespace) are skipped, as upstream does; they are
 *    still copied verbatim.
 *  - Each tid's updates are sorted by timestamp with a stable sort, so for
 *    equal timestamps file order is kept and the LAST such line in the file
 *    is the one "at or before" a lookup time (upstream sorts stably and its
 *    cursor advances over every update with timestamp <= t).
 *  - A lookup returns the value of the latest update with timestamp <= t,
 *    else 0. Each tid has a forward cursor; a lookup whose time is earlier
 *    than the previous lookup of the same tid is counted as unordered and
 *    answered by binary search. Both paths give the same answer.
 *  - Lookup ordering is tracked for every tid looked up, with or without
 *    hints (upstream does the same). hints_empty() tracks nothing: upstream
 *    has no annotator at all when there is no hints.jsonl.
 *
 * Storage: one open-addressing hash table (linear probing) of tid slots; the
 * updates of all tids live in one array, each slot owning a contiguous,
 * sorted range of it.
 */
#include "process/hints.h"

#include "lib/error.h"
#include "lib/grow.h"
#include "lib/linereader.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

struct hint_update {
	uint64_t timestamp;
	uint64_t value;
};

/* One hints.jsonl line while loading: sorted later by (tid, timestamp, seq). */
struct raw_update {
	uint32_t tid;
	int32_t tgid;
	uint64_t timestamp;
	uint64_t value;
	uint64_t seq;
};

/* The times a tid is seen at on one timeline, in the order they come */
struct tid_clock {
	bool seen;      /* a time was seen */
	bool unordered; /* the tid is counted among those whose time went back */
	uint64_t last;  /* the previous time */
};

struct tid_slot {
	uint32_t tid;
	int32_t tgid;           /* of the tid's last line in the file */
	bool used;
	struct tid_clock file;   /* load: the timestamps of the tid's lines */
	struct tid_clock lookup; /* the times of the tid's lookups */
	size_t first, count;    /* range in hints_index.updates */
	size_t cursor;          /* index within the range */
};

struct hints_index {
	struct tid_slot *slots;
	size_t cap;             /* power of two */
	size_t used;
	size_t last_slot;       /* cache of the last slot looked up */
	bool track_lookups;
	struct hint_update *updates;
	size_t nr_updates;
	struct hints_stats st;
};

/* ---- hash table ------------------------------------------------------ */

static size_t slot_hash(uint32_t tid, size_t cap)
{
	return (size_t)(((uint64_t)tid * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static int table_init(struct hints_index *h, size_t cap)
{
	h->slots = calloc(cap, sizeof(*h->slots));
	if (!h->slots)
		return scx_fail("out of memory");
	h->cap = cap;
	h->used = 0;
	h->last_slot = 0;
	return 0;
}

static size_t table_probe(const struct hints_index *h, uint32_t tid)
{
	size_t i = slot_hash(tid, h->cap);

	while (h->slots[i].used && h->slots[i].tid != tid)
		i = (i + 1) & (h->cap - 1);
	return i;
}

static int table_grow(struct hints_index *h)
{
	struct tid_slot *old = h->slots;
	size_t old_cap = h->cap;

	if (table_init(h, old_cap * 2)) {
		h->slots = old;
		h->cap = old_cap;
		return -1;
	}
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i].used)
			continue;
		h->slots[table_probe(h, old[i].tid)] = old[i];
		h->used++;
	}
	free(old);
	return 0;
}

/* The slot of tid, created if missing; NULL only when out of memory. */
static struct tid_slot *table_get(struct hints_index *h, uint32_t tid)
{
	size_t i;

	if (h->slots[h->last_slot].used && h->slots[h->last_slot].tid == tid)
		return &h->slots[h->last_slot];
	i = table_probe(h, tid);
	if (!h->slots[i].used) {
		if ((h->used + 1) * 2 > h->cap) {
			if (table_grow(h))
				return NULL;
			i = table_probe(h, tid);
		}
		memset(&h->slots[i], 0, sizeof(h->slots[i]));
		h->slots[i].used = true;
		h->slots[i].tid = tid;
		h->used++;
	}
	h->last_slot = i;
	return &h->slots[i];
}

static struct hints_index *index_new(bool track_lookups)
{
	struct hints_index *h = calloc(1, sizeof(*h));

	if (!h) {
		scx_fail("out of memory");
		return NULL;
	}
	if (table_init(h, 64)) {
		free(h);
		return NULL;
	}
	h->track_lookups = track_lookups;
	return h;
}

struct hints_index *hints_empty(void)
{
	return index_new(false);
}

void hints_free(struct hints_index *h)
{
	if (!h)
		return;
	free(h->slots);
	free(h->updates);
	free(h);
}

/* ---- ordering examples ----------------------------------------------- */

static void add_example(uint32_t *ex, size_t *nr, uint32_t tid)
{
	for (size_t i = 0; i < *nr; i++)
		if (ex[i] == tid)
			return;
	if (*nr < HINTS_MAX_EXAMPLES)
		ex[(*nr)++] = tid;
}

/*
 * t, the next time of tid on clock c: when it goes back, count it in
 * *unordered, the tid once in *tids_total and among the examples ex.
 */
static void clock_next(struct tid_clock *c, uint64_t t, uint32_t tid, uint64_t *unordered, uint64_t *tids_total,
		       uint32_t *ex, size_t *nr_ex)
{
	if (c->seen && t < c->last) {
		(*unordered)++;
		if (!c->unordered)
			(*tids_total)++;
		c->unordered = true;
		add_example(ex, nr_ex, tid);
	}
	c->seen = true;
	c->last = t;
}

/* ---- parsing one line ------------------------------------------------ */

/*
 * json-c saturates integers above UINT64_MAX. When a u64 field reads as
 * UINT64_MAX, look at the number text after every unescaped "key": in the
 * line and reject it when it is longer than 2^64-1.
 */
static bool u64_text_overflows(const char *line, const char *key)
{
	static const char max[] = "18446744073709551615";
	char pat[32];
	const char *p = line;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	while ((p = strstr(p, pat)) != NULL) {
		const char *q = p + strlen(pat), *d;

		if (p > line && p[-1] == '\\') {
			p++;
			continue;
		}
		p++;
		q += strspn(q, " \t\r\n");
		if (*q != ':')
			continue;
		q++;
		q += strspn(q, " \t\r\n");
		while (*q == '0' && q[1] >= '0' && q[1] <= '9')
			q++;
		d = q + strspn(q, "0123456789");
		if ((size_t)(d - q) > sizeof(max) - 1 ||
		    ((size_t)(d - q) == sizeof(max) - 1 && strncmp(q, max, d - q) > 0))
			return true;
	}
	return false;
}

static int get_int_field(struct json_object *obj, const char *key,
			 struct json_object **out, const char *where)
{
	if (!json_object_object_get_ex(obj, key, out))
		return scx_fail("%s: missing key \"%s\"", where, key);
	if (!json_object_is_type(*out, json_type_int))
		return scx_fail("%s: \"%s\" is not an integer", where, key);
	return 0;
}

static int get_u64(struct json_object *obj, const char *key, const char *line,
		   uint64_t *val, const char *where)
{
	struct json_object *v;

	if (get_int_field(obj, key, &v, where))
		return -1;
	if (json_object_get_int64(v) < 0)
		return scx_fail("%s: \"%s\" is negative", where, key);
	*val = json_object_get_uint64(v);
	if (*val == UINT64_MAX && u64_text_overflows(line, key))
		return scx_fail("%s: \"%s\" does not fit in 64 bits", where, key);
	return 0;
}

static int get_i64_range(struct json_object *obj, const char *key, int64_t lo,
			 int64_t hi, int64_t *val, const char *where)
{
	struct json_object *v;

	if (get_int_field(obj, key, &v, where))
		return -1;
	*val = json_object_get_int64(v);
	if (*val < lo || *val > hi)
		return scx_fail("%s: \"%s\" %lld is out of range", where, key, (long long)*val);
	return 0;
}

/* line[len] must be '\0'. */
static int parse_object(const char *line, size_t len, struct json_object **out,
			const char *where)
{
	struct json_tokener *tok;
	struct json_object *obj;
	enum json_tokener_error err;
	size_t end;

	if (len >= INT32_MAX)
		return scx_fail("%s: line too long", where);
	tok = json_tokener_new();
	if (!tok)
		return scx_fail("out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	/* len + 1 passes the terminating NUL: the input ends here */
	obj = json_tokener_parse_ex(tok, line, (int)len + 1);
	err = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!obj || err != json_tokener_success) {
		json_object_put(obj);
		if (err == json_tokener_continue || err == json_tokener_error_parse_eof)
			return scx_fail("%s: truncated JSON", where);
		return scx_fail("%s: invalid JSON: %s", where, json_tokener_error_desc(err));
	}
	if (end < len && end + strspn(line + end, " \t\r\n\f\v") != len) {
		json_object_put(obj);
		return scx_fail("%s: trailing characters after the JSON object", where);
	}
	if (!json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		return scx_fail("%s: not a JSON object", where);
	}
	*out = obj;
	return 0;
}

static int parse_line(const char *line, size_t len, struct raw_update *u, const char *where)
{
	struct json_object *obj = NULL;
	int64_t pid = 0, tgid = 0;
	int rc;

	if (strlen(line) != len)
		return scx_fail("%s: NUL byte in line", where);
	if (parse_object(line, len, &obj, where))
		return -1;
	rc = get_i64_range(obj, "pid", 0, INT32_MAX, &pid, where);
	if (!rc)
		rc = get_i64_range(obj, "tgid", INT32_MIN, INT32_MAX, &tgid, where);
	if (!rc)
		rc = get_u64(obj, "hints", line, &u->value, where);
	if (!rc)
		rc = get_u64(obj, "timestamp", line, &u->timestamp, where);
	json_object_put(obj);
	u->tid = (uint32_t)pid;
	u->tgid = (int32_t)tgid;
	return rc;
}

/* ---- loading --------------------------------------------------------- */

struct loader {
	struct hints_index *h;
	struct raw_update *raw;
	size_t nr, cap;
};

static int loader_push(struct loader *ld, const struct raw_update *u)
{
	struct hints_index *h = ld->h;
	struct tid_slot *s;

	if (ld->nr == ld->cap && !GROW(ld->raw, ld->cap, 1024))
		return scx_fail("out of memory");
	s = table_get(h, u->tid);
	if (!s)
		return -1;
	clock_next(&s->file, u->timestamp, u->tid, &h->st.unordered_updates, &h->st.unordered_update_tids_total,
		   h->st.unordered_update_tids, &h->st.nr_unordered_update_tids);
	s->tgid = u->tgid;
	ld->raw[ld->nr] = *u;
	ld->raw[ld->nr].seq = ld->nr;
	ld->nr++;
	return 0;
}

static int cmp_raw(const void *a, const void *b)
{
	const struct raw_update *x = a, *y = b;

	return CMP3(x->tid, y->tid) ?: CMP3(x->timestamp, y->timestamp) ?: CMP3(x->seq, y->seq);
}

/* Sort the loaded lines and give every tid slot its range of updates. */
static int loader_finish(struct loader *ld)
{
	struct hints_index *h = ld->h;

	if (ld->nr) /* raw is NULL then: qsort's pointer must not be */
		qsort(ld->raw, ld->nr, sizeof(*ld->raw), cmp_raw);
	h->updates = malloc((ld->nr ? ld->nr : 1) * sizeof(*h->updates));
	if (!h->updates)
		return scx_fail("out of memory");
	for (size_t i = 0; i < ld->nr; i++) {
		struct tid_slot *s = table_get(h, ld->raw[i].tid);

		if (s->count == 0) {
			s->first = i;
			h->st.tids++;
		}
		s->count++;
		h->updates[i].timestamp = ld->raw[i].timestamp;
		h->updates[i].value = ld->raw[i].value;
		if (h->st.updates == 0 || ld->raw[i].timestamp < h->st.first_timestamp)
			h->st.first_timestamp = ld->raw[i].timestamp;
		if (ld->raw[i].timestamp > h->st.last_timestamp)
			h->st.last_timestamp = ld->raw[i].timestamp;
		h->st.updates++;
	}
	h->nr_updates = ld->nr;
	return 0;
}

static bool line_is_blank(const char *line, size_t len)
{
	return strspn(line, " \t\r\n\f\v") >= len;
}

static int copy_line(FILE *copy, const char *line, size_t len, const char *path)
{
	if (fwrite(line, 1, len, copy) != len || putc('\n', copy) == EOF)
		return scx_fail_errno("%s: cannot write the copy of hints", path);
	return 0;
}

static int load_lines(struct loader *ld, FILE *f, const char *path, FILE *copy)
{
	struct line_reader lr;
	char *line, where[4096];
	size_t n;
	int rc;

	line_reader_init(&lr, f, path);
	while ((rc = line_reader_next(&lr, &line, &n)) > 0) {
		struct raw_update u;

		if (copy && copy_line(copy, line, n, path))
			break;
		if (line_is_blank(line, n))
			continue;
		snprintf(where, sizeof(where), "%s:%llu", path, (unsigned long long)lr.lineno);
		if (parse_line(line, n, &u, where) < 0 || loader_push(ld, &u) < 0)
			break;
	}
	line_reader_free(&lr);
	return rc == 0 ? 0 : -1;
}

int hints_load(struct hints_index **out, const char *path, FILE *copy)
{
	struct loader ld = { 0 };
	FILE *f;
	int rc;

	*out = NULL;
	f = fopen(path, "re");
	if (!f)
		return scx_fail_errno("%s: cannot open", path);
	ld.h = index_new(true);
	rc = ld.h ? load_lines(&ld, f, path, copy) : -1;
	fclose(f);
	if (!rc)
		rc = loader_finish(&ld);
	if (!rc && copy && fflush(copy))
		rc = scx_fail_errno("%s: cannot write the copy of hints", path);
	free(ld.raw);
	if (rc) {
		hints_free(ld.h);
		return -1;
	}
	*out = ld.h;
	return 0;
}

/* ---- lookup ---------------------------------------------------------- */

/* Index of the last of u[0..count) with timestamp <= t, or count if none. */
static size_t search_upto(const struct hint_update *u, size_t count, uint64_t t)
{
	size_t lo = 0, hi = count; /* answer: number of updates <= t */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u[mid].timestamp <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : count;
}

static void note_lookup_order(struct hints_index *h, struct tid_slot *s, uint64_t t)
{
	clock_next(&s->lookup, t, s->tid, &h->st.unordered_lookups, &h->st.unordered_lookup_tids_total,
		   h->st.unordered_lookup_tids, &h->st.nr_unordered_lookup_tids);
}

/* Latest update of s at or before t, or NULL; moves the cursor. */
static const struct hint_update *slot_find(struct hints_index *h, struct tid_slot *s, uint64_t t)
{
	const struct hint_update *u = h->updates + s->first;
	size_t i;

	if (s->count == 0)
		return NULL;
	if (u[s->cursor].timestamp > t) {
		h->st.lookup_searches++;
		i = search_upto(u, s->count, t);
		s->cursor = i == s->count ? 0 : i;
		return i == s->count ? NULL : &u[i];
	}
	while (s->cursor + 1 < s->count && u[s->cursor + 1].timestamp <= t) {
		s->cursor++;
		h->st.lookup_steps++;
	}
	return &u[s->cursor];
}

uint64_t hints_lookup(struct hints_index *h, uint32_t tid, uint64_t time_ns)
{
	const struct hint_update *u;
	struct tid_slot *s;

	h->st.lookups++;
	if (!h->track_lookups)
		return 0;
	s = table_get(h, tid);
	if (!s) /* out of memory while growing: answer without tracking */
		return 0;
	note_lookup_order(h, s, time_ns);
	u = slot_find(h, s, time_ns);
	if (!u)
		return 0;
	h->st.hinted++;
	if (u->value)
		h->st.nonzero++;
	return u->value;
}

int hints_foreach(const struct hints_index *h, hints_update_fn fn, void *ctx)
{
	for (size_t i = 0; i < h->cap; i++) {
		const struct tid_slot *s = &h->slots[i];

		for (size_t k = 0; s->used && k < s->count; k++) {
			const struct hint_update *u = &h->updates[s->first + k];

			if (fn(ctx, s->tid, s->tgid, u->timestamp, u->value) < 0)
				return -1;
		}
	}
	return 0;
}

void hints_get_stats(const struct hints_index *h, struct hints_stats *st)
{
	*st = h->st;
}
