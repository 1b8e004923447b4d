/*
 * perfetto_track.c - TrackEvents of the trace: each thread's hint as a
 * counter track ("hint") and each kept memory sample as an instant event on
 * the thread's "mem samples" track, both children of the thread's track.
 * A sample's name is its data_src level ("L1 HIT", ...) or else its event;
 * its code location (sym in dso) is an interned SourceLocation; its
 * addresses, data_src, weight, data object and the rest are debug
 * annotations. Names, locations and annotation strings are interned (dense
 * iids on the samples' own sequence, each sent once before its first use);
 * past STRINGS_MAX distinct strings, further ones are written inline.
 *
 * Samples are most of a memory-heavy trace, so they are made small and
 * cheap: timestamps are deltas on the sequence's incremental clock, track
 * uuids are small, each packet is written directly with exact lengths (no
 * back-patched nesting), and strings are found by pointer where the caller
 * says they are stable.
 */
#include "lib/pftrace/perfetto_writer.h"
#include "lib/pftrace/perfetto_track.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/hash.h"
#include "lib/data_src.h"

#define STRINGS_MAX (1u << 20)
#define STRINGS_ARENA_MAX (64u << 20)

enum { TE_TYPE_INSTANT = 3, TE_TYPE_COUNTER = 4 };
enum { CAT_MEM = 1 };

/* Debug annotation names, interned as iid = index + 1. */
enum { DA_ADDR, DA_PHYS, DA_DATA_SRC, DA_WEIGHT, DA_PAGE_SIZE, DA_CPU, DA_CGROUP, DA_HINT, DA_DATA_MAP,
       DA_DATA_ID, DA_DATA_SYM, NR_DA };
static const char *const da_names[NR_DA] = {
	"addr", "phys_addr", "data_src", "weight", "data_page_size", "cpu", "cgroup", "hint", "data_map",
	"data_id", "data_sym",
};
#define DA_IID(x) ((uint64_t)(x) + 1)
_Static_assert(NR_DA < 127, "annotation name iids fit one byte");

/* A string -> iid table (open addressing; strings in an arena). iids are
 * dense from 1, so the first strings (the common ones) take 1-byte varints. */
struct pft_intern {
	struct { uint64_t hash, iid; uint32_t off, len; } *slots; /* off + 1, 0: empty */
	size_t cap, n;
	uint64_t last_iid;        /* iids given, here and by id_ref() */
	char *arena;
	size_t arena_len, arena_cap;
};

/* A data_id and the iid of its text (ID_SEEN: written inline once): a
 * direct-mapped cache of IDS_SLOTS (384 KiB: it stays in the CPU's cache),
 * so a page sampled again is found by value; an id pushed out by another
 * starts again (inline, then a new iid). */
struct id_iid {
	struct data_id id;
	uint64_t iid;
};
#define IDS_SLOTS (1u << 13)

/* A data_src value's event name and decoded text, both interned. */
struct dsrc_names {
	uint64_t name_iid, text_iid;
};

#define PTR_CACHE 4096 /* direct-mapped: stable string pointer -> iid */
#define CGROUP_CACHE 256 /* longest cgroup remembered as the last one */
#define THREAD_CACHE 256 /* direct-mapped: tid -> struct pft_thread */

struct pft_strings {
	struct pft_intern values; /* debug_annotation_string_values */
	struct pft_intern names;  /* event_names */
	struct pft_intern locs;   /* source_locations: "sym\0dso" */
	struct u64map dsrc;       /* data_src value -> struct dsrc_names */
	struct id_iid *ids;       /* IDS_SLOTS, allocated on the first data_id */
	struct { const char *key; uint64_t iid; } ptr[PTR_CACHE];
	struct { const char *sym, *dso; uint64_t iid; } loc[PTR_CACHE];
	const char *event;        /* the last event name (stable), and its iid */
	uint64_t event_iid;
	char cgroup[CGROUP_CACHE]; /* the last cgroup, and its iid */
	uint64_t cgroup_iid;
	uint64_t last_ts;         /* the incremental clock: the last sample's time */
	/* threads of recent samples, direct-mapped by tid (samples of a few
	 * threads interleave: the previous sample's alone missed 82% of a
	 * 521k-sample recording's); the threads live as long as the trace */
	struct { uint32_t tid; struct pft_thread *th; } thr[THREAD_CACHE];
	struct pb_buf te, idata, key; /* a sample's TrackEvent, its InternedData, a location's key */
};

static uint64_t str_hash(const char *s, size_t n)
{
	return hash_fnv1a(HASH_FNV1A_INIT, s, n) | 1;
}

static void intern_free(struct pft_intern *in)
{
	free(in->slots);
	free(in->arena);
	memset(in, 0, sizeof(*in));
}

static bool intern_grow(struct pft_intern *in)
{
	size_t cap = in->cap ? in->cap * 2 : 1024;
	__typeof__(in->slots) s = calloc(cap, sizeof(*s));

	if (!s)
		return false;
	for (size_t i = 0; i < in->cap; i++) {
		size_t j;

		if (!in->slots[i].off)
			continue;
		for (j = in->slots[i].hash & (cap - 1); s[j].off; j = (j + 1) & (cap - 1))
			;
		s[j] = in->slots[i];
	}
	free(in->slots);
	in->slots = s;
	in->cap = cap;
	return true;
}

/* iid of s (dense from 1); *is_new when just added. 0 when the table is
 * full or memory is short: the caller writes s inline. */
static uint64_t intern(struct pft_intern *in, const char *s, size_t n, bool *is_new)
{
	uint64_t h = str_hash(s, n);
	size_t i;

	*is_new = false;
	if ((in->n + 1) * 2 > in->cap && (in->n >= STRINGS_MAX || !intern_grow(in)))
		return 0;
	for (i = h & (in->cap - 1); in->slots[i].off; i = (i + 1) & (in->cap - 1)) {
		if (in->slots[i].hash == h && in->slots[i].len == n &&
		    !memcmp(in->arena + in->slots[i].off - 1, s, n))
			return in->slots[i].iid;
	}
	if (in->arena_len + n + 1 > in->arena_cap) {
		size_t cap = in->arena_cap ? in->arena_cap * 2 : 1 << 16;
		char *a;

		while (cap < in->arena_len + n + 1)
			cap *= 2;
		if (cap > STRINGS_ARENA_MAX || !(a = realloc(in->arena, cap)))
			return 0;
		in->arena = a;
		in->arena_cap = cap;
	}
	memcpy(in->arena + in->arena_len, s, n);
	in->slots[i].hash = h;
	in->slots[i].off = (uint32_t)in->arena_len + 1;
	in->slots[i].len = (uint32_t)n;
	in->slots[i].iid = ++in->last_iid;
	in->n++;
	in->arena_len += n + 1; /* keeps offsets distinct even for "" */
	*is_new = true;
	return in->last_iid;
}

int pft_track_init(struct pftrace *t)
{
	t->strings = calloc(1, sizeof(*t->strings));
	return t->strings ? 0 : scx_fail("out of memory");
}

/* The memory samples' sequence, before its first sample at ts: the
 * packet that starts it (incremental state cleared, the defaults: the
 * incremental clock; the names every sample uses), then a ClockSnapshot
 * that sets the incremental clock to ts and says the trace's clock reads
 * the same (our timestamps are written unchanged, deltas included). */
static int mem_seq_start(struct pftrace *t, uint64_t ts)
{
	size_t id, e, c;

	pft_packet_begin(t, PFT_SEQ_MEM, SEQ_NEEDS_INCREMENTAL_STATE);
	e = pb_open(&t->pkt, TP_DEFAULTS);
	pb_varint(&t->pkt, TP_TIMESTAMP_CLOCK_ID, PFT_CLOCK_INCREMENTAL); /* timestamp_clock_id */
	pb_close(&t->pkt, e);
	id = pb_open(&t->pkt, TP_INTERNED_DATA);
	e = pb_open(&t->pkt, 1); /* event_categories */
	pb_varint(&t->pkt, 1, CAT_MEM);
	pb_string(&t->pkt, 2, "mem");
	pb_close(&t->pkt, e);
	for (int i = 0; i < NR_DA; i++) {
		e = pb_open(&t->pkt, 3); /* debug_annotation_names */
		pb_varint(&t->pkt, 1, DA_IID(i));
		pb_string(&t->pkt, 2, da_names[i]);
		pb_close(&t->pkt, e);
	}
	pb_close(&t->pkt, id);
	if (pft_packet_end(t) < 0)
		return -1;
	pft_packet_begin(t, PFT_SEQ_MEM, SEQ_NEEDS_INCREMENTAL_STATE);
	e = pb_open(&t->pkt, TP_CLOCK_SNAPSHOT);
	c = pb_open(&t->pkt, 1); /* clocks */
	pb_varint(&t->pkt, 1, PFT_CLOCK_INCREMENTAL); /* clock_id */
	pb_varint(&t->pkt, 2, ts);                    /* timestamp */
	pb_varint(&t->pkt, 3, 1);                     /* is_incremental */
	pb_close(&t->pkt, c);
	c = pb_open(&t->pkt, 1);
	pb_varint(&t->pkt, 1, PFT_CLOCK_TRACE);
	pb_varint(&t->pkt, 2, ts);
	pb_close(&t->pkt, c);
	pb_close(&t->pkt, e);
	t->strings->last_ts = ts;
	return pft_packet_end(t);
}

void pft_track_free(struct pftrace *t)
{
	uint64_t k;
	void *v;

	if (!t->strings)
		return;
	intern_free(&t->strings->values);
	intern_free(&t->strings->names);
	intern_free(&t->strings->locs);
	pb_free(&t->strings->te);
	pb_free(&t->strings->idata);
	pb_free(&t->strings->key);
	for (size_t pos = 0; u64map_next(&t->strings->dsrc, &pos, &k, &v);)
		free(v);
	u64map_free(&t->strings->dsrc);
	free(t->strings->ids);
	free(t->strings);
	t->strings = NULL;
}

/* A child track of tid's thread track: "hint" counter or "mem samples". */
static int child_track(struct pftrace *t, uint32_t tid, struct pft_thread *th, unsigned kind, uint64_t ts)
{
	size_t td, cd;

	if (pft_thread_track(t, tid, th, ts) < 0)
		return -1;
	pft_packet_begin(t, PFT_SEQ_TRACK, 0);
	pb_varint(&t->pkt, TP_TIMESTAMP, ts);
	td = pb_open(&t->pkt, TP_TRACK_DESCRIPTOR);
	pb_varint(&t->pkt, 1, PFT_UUID(kind, th));              /* uuid */
	pb_varint(&t->pkt, 5, PFT_UUID(PFT_UUID_THREAD, th));   /* parent_uuid */
	pb_string(&t->pkt, 2, kind == PFT_UUID_HINT ? "hint" : "mem samples"); /* name */
	if (kind == PFT_UUID_HINT) {
		cd = pb_open(&t->pkt, 8); /* counter */
		pb_string(&t->pkt, 6, "hint"); /* unit_name */
		pb_close(&t->pkt, cd);
	} else {
		pb_varint(&t->pkt, 15, 2); /* sibling_merge_behavior NONE */
	}
	pb_close(&t->pkt, td);
	if (kind == PFT_UUID_HINT)
		th->hint_track = true;
	else
		th->mem_track = true;
	return pft_packet_end(t);
}

int pftrace_hint(struct pftrace *t, uint32_t tid, int32_t tgid, uint64_t ts, uint64_t value)
{
	struct pft_thread *th;
	size_t te;

	if (tid == 0 || tid > INT32_MAX)
		return 0;
	if (pft_note_thread(t, tid, tgid, NULL) < 0 || !(th = pft_thread(t, tid)))
		return -1;
	if (!th->hint_track && child_track(t, tid, th, PFT_UUID_HINT, ts) < 0)
		return -1;
	pft_note_ts(t, ts);
	pft_packet_begin(t, PFT_SEQ_TRACK, 0);
	pb_varint(&t->pkt, TP_TIMESTAMP, ts);
	te = pb_open(&t->pkt, TP_TRACK_EVENT);
	pb_varint(&t->pkt, 9, TE_TYPE_COUNTER);                 /* type */
	pb_varint(&t->pkt, 11, PFT_UUID(PFT_UUID_HINT, th));    /* track_uuid */
	if (value <= INT64_MAX)
		pb_int(&t->pkt, 30, (int64_t)value);            /* counter_value */
	else
		pb_double(&t->pkt, 44, (double)value);          /* double_counter_value */
	pb_close(&t->pkt, te);
	t->st.hint_values++;
	return pft_packet_end(t);
}

/* A string annotation value, event name or source location: interned, or
 * inline when the table is full. */
struct sref {
	const char *s;
	size_t n;
	uint64_t iid;
	bool is_new;
};

static void sref_intern(struct pft_intern *in, struct sref *r, const char *s)
{
	r->s = s;
	r->n = strlen(s);
	r->iid = intern(in, s, r->n, &r->is_new);
}

static size_t ptr_slot(const void *p)
{
	return (size_t)(((uintptr_t)p >> 3) * 0x9e3779b97f4a7c15ULL >> 52) & (PTR_CACHE - 1);
}

/* The same for a string whose pointer stays valid and unchanged for the
 * whole memory pass (mem_record.stable_names): its iid is remembered by
 * pointer, so most samples neither measure nor hash it. */
static void sref_stable(struct pft_strings *S, struct sref *r, const char *s)
{
	size_t slot = ptr_slot(s);

	if (S->ptr[slot].key == s) {
		*r = (struct sref){.s = s, .iid = S->ptr[slot].iid};
		return;
	}
	sref_intern(&S->values, r, s);
	if (r->iid) {
		S->ptr[slot].key = s;
		S->ptr[slot].iid = r->iid;
	}
}

/* A name annotation: by pointer when stable, else by content. */
static void sref_name(struct pft_strings *S, struct sref *r, const char *s, bool stable)
{
	if (stable)
		sref_stable(S, r, s);
	else
		sref_intern(&S->values, r, s);
}

/* The cgroup: samples in a row mostly share it, so the last one is kept. */
static void sref_cgroup(struct pft_strings *S, struct sref *r, const char *cg)
{
	if (S->cgroup_iid && !strcmp(S->cgroup, cg)) {
		*r = (struct sref){.s = cg, .iid = S->cgroup_iid};
		return;
	}
	sref_intern(&S->values, r, cg);
	if (r->iid && r->n < sizeof(S->cgroup)) {
		memcpy(S->cgroup, cg, r->n + 1);
		S->cgroup_iid = r->iid;
	}
}

/* The code location (sym in dso) as an interned SourceLocation: one iid
 * per pair, remembered by the pair's pointers when they are stable. */
static int loc_ref(struct pft_strings *S, const struct mem_record *r, struct sref *loc)
{
	size_t slot = 0, ns, nd;

	if (r->stable_names) {
		slot = ptr_slot((const char *)((uintptr_t)r->sym ^ (uintptr_t)r->dso << 1));
		if (S->loc[slot].sym == r->sym && S->loc[slot].dso == r->dso) {
			*loc = (struct sref){.iid = S->loc[slot].iid};
			return 0;
		}
	}
	ns = strlen(r->sym);
	nd = strlen(r->dso);
	S->key.len = 0;
	if (!pb_room(&S->key, ns + nd + 1))
		return scx_fail("out of memory");
	memcpy(S->key.p, r->sym, ns);
	S->key.p[ns] = '\0';
	memcpy(S->key.p + ns + 1, r->dso, nd);
	*loc = (struct sref){.s = (const char *)S->key.p, .n = ns + 1 + nd};
	loc->iid = intern(&S->locs, loc->s, loc->n, &loc->is_new);
	if (r->stable_names && loc->iid) {
		S->loc[slot].sym = r->sym;
		S->loc[slot].dso = r->dso;
		S->loc[slot].iid = loc->iid;
	}
	return 0;
}

/* SourceLocation { iid, file_name = dso, function_name = sym } as
 * InternedData.source_locations (4), or inline as TrackEvent.source_location
 * (33) when not interned. */
static void loc_message(struct pb_buf *b, uint32_t field, uint64_t iid, const struct mem_record *r)
{
	size_t e = pb_open(b, field);

	if (iid)
		pb_varint(b, 1, iid);
	pb_string(b, 2, r->dso);
	pb_string(b, 3, r->sym);
	pb_close(b, e);
}

static void interned_entry(struct pb_buf *b, uint32_t field, const struct sref *r)
{
	size_t e;

	if (!r->is_new)
		return;
	e = pb_open(b, field);
	pb_varint(b, 1, r->iid);
	pb_bytes(b, 2, r->s, r->n);
	pb_close(b, e);
}

/* The cache slot of a data_id: a hash of its object (kind, pid, file) plus
 * its page, so that the pages of one object, sampled in runs, sit side by
 * side in the cache instead of one cache miss each. */
static size_t id_slot(const struct data_id *d)
{
	uint64_t h = ((uint64_t)d->kind << 32 | (uint32_t)d->pid) * 0x9e3779b97f4a7c15ULL ^
		     ((uint64_t)d->maj << 32 | d->min) * 0xc2b2ae3d27d4eb4fULL ^ d->ino * 0x165667b19e3779f9ULL ^
		     d->ino_gen * 0xd6e8feb86659fd93ULL;

	return (size_t)((h ^ h >> 29) + d->page) & (IDS_SLOTS - 1);
}

#define ID_SEEN UINT64_MAX /* id_iid.iid of an id written inline once */

/* data_id's text as a string value: most pages are sampled once (a page
 * fault is the first touch), so an id's first sample writes its text inline
 * and only a second one interns it (next iid of the string values; not
 * looked up by content: an id has one text, and ids of one text are
 * equal). Found by the id's value in the cache; its text in buf when made. */
static int id_ref(struct pft_strings *S, const struct data_id *id, struct sref *r, char *buf)
{
	struct id_iid *e;
	char *end;
	bool seen;

	if (!S->ids && !(S->ids = calloc(IDS_SLOTS, sizeof(*S->ids))))
		return scx_fail("out of memory");
	e = &S->ids[id_slot(id)];
	seen = e->iid && !memcmp(&e->id, id, sizeof(*id));
	if (seen && e->iid != ID_SEEN) {
		*r = (struct sref){.iid = e->iid};
		return 0;
	}
	end = data_id_put(buf, id);
	if (end - buf < 2 || buf[0] != '"')
		return 0;
	end[-1] = '\0'; /* without the quotes */
	*r = (struct sref){.s = buf + 1, .n = (size_t)(end - buf - 2)};
	if (seen) {
		r->iid = e->iid = ++S->values.last_iid;
		r->is_new = true;
	} else {
		e->id = *id;
		e->iid = ID_SEEN;
	}
	return 0;
}

/* Name and text of a data_src value: interned once and remembered by
 * value (a few values make up nearly every sample); when a table is full,
 * made again each time and written inline. */
static int dsrc_refs(struct pft_strings *S, uint64_t value, struct sref *name, struct sref *text,
		     char *summary, size_t size, char *buf)
{
	struct dsrc_names *d = u64map_get(&S->dsrc, value);
	struct jsonw w;

	if (d) {
		*name = (struct sref){.iid = d->name_iid};
		*text = (struct sref){.iid = d->text_iid};
		return 0;
	}
	data_src_summary(value, summary, size);
	jsonw_init(&w);
	data_src_json(&w, value);
	snprintf(buf, DATA_SRC_TEXT_MAX + 1, "%.*s", (int)w.len, w.buf ? w.buf : "");
	jsonw_free(&w);
	sref_intern(&S->names, name, summary);
	sref_intern(&S->values, text, buf);
	if (!name->iid || !text->iid)
		return 0;
	if (!(d = malloc(sizeof(*d))))
		return scx_fail("out of memory");
	d->name_iid = name->iid;
	d->text_iid = text->iid;
	if (u64map_put(&S->dsrc, value, d) < 0) {
		free(d);
		return -1;
	}
	return 0;
}

/* The event name of a sample without data_src: its event ("page-faults"),
 * by pointer when stable. */
static void event_ref(struct pft_strings *S, const struct mem_record *r, struct sref *name)
{
	const char *ev = r->event ? r->event : "mem sample";

	if (S->event_iid && r->stable_names && S->event == ev) {
		*name = (struct sref){.s = ev, .iid = S->event_iid};
		return;
	}
	sref_intern(&S->names, name, ev);
	S->event = r->stable_names ? ev : NULL;
	S->event_iid = S->event ? name->iid : 0;
}

/* The sample's thread, with what the sample says of it. */
static struct pft_thread *sample_thread(struct pftrace *t, const struct mem_record *r)
{
	struct pft_strings *S = t->strings;
	uint32_t tid = (uint32_t)r->tid;
	size_t slot = tid & (THREAD_CACHE - 1);
	struct pft_thread *th;

	if (S->thr[slot].tid == tid && S->thr[slot].th) {
		th = S->thr[slot].th;
	} else {
		if (!(th = pft_thread(t, tid)))
			return NULL;
		S->thr[slot].tid = tid;
		S->thr[slot].th = th;
	}
	if (r->pid > 0 && r->pid <= INT32_MAX)
		th->tgid = (int32_t)r->pid;
	if (r->comm[0] && strncmp(th->comm, r->comm, PFT_COMM_LEN - 1))
		snprintf(th->comm, sizeof(th->comm), "%s", r->comm);
	return th;
}

/* Append `src` as a length-delimited field with a one-byte tag. */
static uint8_t *put_len_field(uint8_t *p, uint8_t tag, const struct pb_buf *src)
{
	*p++ = tag;
	p = pb_put_varint(p, src->len);
	memcpy(p, src->p, src->len);
	return p + src->len;
}

/* The sample's packet, written once with exact lengths: sequence id and
 * flags, timestamp (a delta on the incremental clock; a sample earlier than
 * the one before gives its time on the trace's clock instead), its
 * InternedData (when something is new) and the TrackEvent built in S->te. */
static int sample_packet(struct pftrace *t, uint64_t ts, const uint8_t *te, size_t te_len)
{
	struct pft_strings *S = t->strings;
	bool back = ts < S->last_ts;
	uint64_t tv = back ? ts : ts - S->last_ts;
	size_t body = 2 + 2 + 1 + pb_varint_size(tv) + 1 + pb_varint_size(te_len) + te_len + (back ? 3 : 0);
	uint8_t *p;

	if (S->idata.len)
		body += 1 + pb_varint_size(S->idata.len) + S->idata.len;
	if (S->te.oom || S->idata.oom || !pb_room(&t->pkt, body + 11))
		return scx_fail("trace.pftrace: out of memory");
	p = t->pkt.p + t->pkt.len;
	*p++ = 1 << 3 | PB_LEN; /* Trace.packet */
	p = pb_put_varint(p, body);
	*p++ = TP_SEQUENCE_ID << 3 | PB_VARINT;
	*p++ = PFT_SEQ_MEM;
	*p++ = TP_SEQUENCE_FLAGS << 3 | PB_VARINT;
	*p++ = SEQ_NEEDS_INCREMENTAL_STATE;
	if (back) {
		p = pb_put_varint(p, TP_TIMESTAMP_CLOCK_ID << 3 | PB_VARINT);
		*p++ = PFT_CLOCK_TRACE;
	} else {
		S->last_ts = ts;
	}
	*p++ = TP_TIMESTAMP << 3 | PB_VARINT;
	p = pb_put_varint(p, tv);
	if (S->idata.len)
		p = put_len_field(p, TP_INTERNED_DATA << 3 | PB_LEN, &S->idata);
	*p++ = TP_TRACK_EVENT << 3 | PB_LEN;
	p = pb_put_varint(p, te_len);
	memcpy(p, te, te_len);
	p += te_len;
	t->pkt.len = (size_t)(p - t->pkt.p);
	return pft_packet_written(t);
}

/* One debug annotation with a varint value (value tag vtag, one or two
 * bytes), written at p: at most 2 + 2 + 2 + 10 bytes. */
static inline uint8_t *da_put(uint8_t *p, int name, uint32_t value_field, uint64_t v)
{
	uint8_t *len;

	*p++ = 4 << 3 | PB_LEN; /* TrackEvent.debug_annotations */
	len = p++;
	*p++ = 1 << 3 | PB_VARINT; /* name_iid */
	*p++ = (uint8_t)DA_IID(name);
	p = pb_put_varint(p, (uint64_t)value_field << 3 | PB_VARINT);
	p = pb_put_varint(p, v);
	*len = (uint8_t)(p - len - 1);
	return p;
}

/* Bytes at p: a field of bytes with a tag of one or two bytes. */
static inline uint8_t *put_bytes(uint8_t *p, uint32_t field, const void *s, size_t n)
{
	p = pb_put_varint(p, (uint64_t)field << 3 | PB_LEN);
	p = pb_put_varint(p, n);
	memcpy(p, s, n);
	return p + n;
}

/* A string annotation: its iid, or inline { name_iid, string_value 6 }. */
static inline uint8_t *da_put_str(uint8_t *p, int name, const struct sref *r)
{
	if (r->iid)
		return da_put(p, name, 17, r->iid); /* string_value_iid */
	*p++ = 4 << 3 | PB_LEN;
	p = pb_put_varint(p, 3 + pb_varint_size(r->n) + r->n);
	*p++ = 1 << 3 | PB_VARINT;
	*p++ = (uint8_t)DA_IID(name);
	return put_bytes(p, 6, r->s, r->n);
}

/* Most bytes te_write() writes with every string interned: type, uuid,
 * category, name, location and every annotation with its largest value;
 * each string written inline adds its length and at most 16. */
#define TE_MAX (2 + 11 + 2 + 11 + 12 + NR_DA * 16)

/* The sample's TrackEvent at p (room checked by the caller). */
static size_t te_write(uint8_t *buf, const struct mem_record *r, const struct pft_thread *th,
		       const struct sref *name, const struct sref *loc, const struct sref *dsrc,
		       const struct sref *cgroup, const struct sref *map, const struct sref *did,
		       const struct sref *dsym, bool has_dsrc)
{
	uint8_t *p = buf;

	*p++ = 9 << 3 | PB_VARINT;                  /* type */
	*p++ = TE_TYPE_INSTANT;
	*p++ = 11 << 3 | PB_VARINT;                 /* track_uuid */
	p = pb_put_varint(p, PFT_UUID(PFT_UUID_MEM, th));
	*p++ = 3 << 3 | PB_VARINT;                  /* category_iids */
	*p++ = CAT_MEM;
	if (name->iid) {
		*p++ = 10 << 3 | PB_VARINT;         /* name_iid */
		p = pb_put_varint(p, name->iid);
	} else {
		p = put_bytes(p, 23, name->s, name->n); /* name */
	}
	if (loc->iid) {
		p = pb_put_varint(p, 34 << 3 | PB_VARINT); /* source_location_iid */
		p = pb_put_varint(p, loc->iid);
	} else { /* source_location 33 { file_name 2, function_name 3 } */
		size_t ns = strlen(r->sym), nd = strlen(r->dso);

		p = pb_put_varint(p, 33 << 3 | PB_LEN);
		p = pb_put_varint(p, 2 + pb_varint_size(nd) + nd + pb_varint_size(ns) + ns);
		p = put_bytes(p, 2, r->dso, nd);
		p = put_bytes(p, 3, r->sym, ns);
	}
	p = da_put(p, DA_ADDR, 7, r->addr);         /* pointer_value */
	if (r->phys_addr)                           /* 0: not known */
		p = da_put(p, DA_PHYS, 7, r->phys_addr);
	if (has_dsrc)
		p = da_put_str(p, DA_DATA_SRC, dsrc);
	if (r->has_weight)
		p = da_put(p, DA_WEIGHT, 3, r->weight); /* uint_value */
	if (r->data_page_size)
		p = da_put(p, DA_PAGE_SIZE, 3, r->data_page_size);
	if (r->has_cpu)
		p = da_put(p, DA_CPU, 3, r->cpu);
	if (r->cgroup[0])
		p = da_put_str(p, DA_CGROUP, cgroup);
	if (r->hint) /* 0 is left out: the thread's hint track shows it too */
		p = da_put(p, DA_HINT, 3, r->hint);
	if (r->data_map)
		p = da_put_str(p, DA_DATA_MAP, map);
	if (did->iid || did->s)
		p = da_put_str(p, DA_DATA_ID, did);
	if (r->data_sym)
		p = da_put_str(p, DA_DATA_SYM, dsym);
	return (size_t)(p - buf);
}

int pftrace_mem_sample(struct pftrace *t, const struct mem_record *r)
{
	struct pft_strings *S = t->strings;
	struct sref name, loc, cgroup = {0}, dsrc = {0}, map = {0}, dsym = {0}, did = {0};
	char did_text[DATA_ID_JSON_MAX + 1];
	char summary[64], dsrc_text[DATA_SRC_TEXT_MAX + 1];
	struct pft_thread *th;
	size_t room;
	struct pb_buf *id = &S->idata;
	bool has_dsrc = r->has_data_src && !data_src_is_unknown(r->data_src);

	if (r->tid <= 0 || r->tid > INT32_MAX)
		return 0; /* idle: trace_processor's own thread 0 gets no tracks */
	if (!(th = sample_thread(t, r)))
		return -1;
	if (!t->seq_started[PFT_SEQ_MEM] && mem_seq_start(t, r->time_ns) < 0)
		return -1;
	if (!th->mem_track && child_track(t, (uint32_t)r->tid, th, PFT_UUID_MEM, r->time_ns) < 0)
		return -1;
	pft_note_ts(t, r->time_ns);
	if (has_dsrc) {
		if (dsrc_refs(S, r->data_src, &name, &dsrc, summary, sizeof(summary), dsrc_text) < 0)
			return -1;
	} else {
		event_ref(S, r, &name);
	}
	if (loc_ref(S, r, &loc) < 0)
		return -1;
	if (r->cgroup[0])
		sref_cgroup(S, &cgroup, r->cgroup);
	if (r->data_map)
		sref_name(S, &map, r->data_map, r->stable_names);
	if (r->data_sym)
		sref_name(S, &dsym, r->data_sym, r->stable_names);
	if (r->data_id.kind != DATA_ID_NONE && id_ref(S, &r->data_id, &did, did_text) < 0)
		return -1;

	id->len = 0;
	if (name.is_new || loc.is_new || cgroup.is_new || dsrc.is_new || map.is_new || dsym.is_new || did.is_new) {
		interned_entry(id, 2, &name); /* event_names */
		if (loc.is_new)
			loc_message(id, 4, loc.iid, r); /* source_locations */
		interned_entry(id, 29, &cgroup); /* debug_annotation_string_values */
		interned_entry(id, 29, &dsrc);
		interned_entry(id, 29, &map);
		interned_entry(id, 29, &dsym);
		interned_entry(id, 29, &did);
	}
	t->st.mem_samples++;
	/* inline strings: their lengths (a location's key is sym, NUL, dso) */
	room = TE_MAX + (name.iid ? 0 : name.n + 16) + (loc.iid ? 0 : loc.n + 32) + (dsrc.iid ? 0 : dsrc.n + 16) +
	       (cgroup.iid ? 0 : cgroup.n + 16) + (map.iid ? 0 : map.n + 16) + (did.iid ? 0 : did.n + 16) +
	       (dsym.iid ? 0 : dsym.n + 16);
	S->te.len = 0;
	if (!pb_room(&S->te, room))
		return scx_fail("trace.pftrace: out of memory");
	S->te.len = te_write(S->te.p, r, th, &name, &loc, &dsrc, &cgroup, &map, &did, &dsym, has_dsrc);
	return sample_packet(t, r->time_ns, S->te.p, S->te.len);
}
