/*
 * perfetto_track.c - TrackEvents of the trace: each thread's hint as a
 * counter track ("hint") and each kept memory sample as an instant event on
 * the thread's "mem samples" track, both children of the thread's track.
 * A sample's name is its data_src level ("L1 HIT", ...) or else its event;
 * its addresses, data_src, weight, symbol and the rest are debug
 * annotations. Names and annotation strings are interned (iids on the
 * TrackEvent sequence, each sent once before its first use); past
 * STRINGS_MAX distinct strings, further ones are written inline.
 */
#include "process/perfetto_internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "process/data_src.h"

#define STRINGS_MAX (1u << 20)
#define STRINGS_ARENA_MAX (64u << 20)

enum { TE_TYPE_INSTANT = 3, TE_TYPE_COUNTER = 4 };
enum { CAT_MEM = 1 };

/* Debug annotation names, interned as iid = index + 1. */
enum { DA_ADDR, DA_PHYS, DA_DATA_SRC, DA_WEIGHT, DA_SYM, DA_DSO, DA_PAGE_SIZE, DA_CPU, DA_CGROUP,
       DA_HINT, DA_DATA_MAP, DA_DATA_ID, DA_DATA_SYM, NR_DA };
static const char *const da_names[NR_DA] = {
	"addr", "phys_addr", "data_src", "weight", "sym", "dso", "data_page_size", "cpu", "cgroup", "hint",
	"data_map", "data_id", "data_sym",
};
#define DA_IID(x) ((uint64_t)(x) + 1)
_Static_assert(NR_DA < 127, "annotation name iids fit one byte");

/* A string -> iid table (open addressing; strings in an arena). */
struct pft_intern {
	struct { uint64_t hash; uint32_t off, len; } *slots; /* off + 1, 0: empty */
	size_t cap, n;
	char *arena;
	size_t arena_len, arena_cap;
};

/* A data_id and the iid of its text. */
struct id_iid {
	struct data_id id;
	uint64_t iid;
};
#define IDS_MAX (256u << 10) /* data_ids remembered; later new ones are written inline */

/* A data_src value's event name and decoded text, both interned. */
struct dsrc_names {
	uint64_t name_iid, text_iid;
};

#define PTR_CACHE 4096 /* direct-mapped: stable string pointer -> iid */

struct pft_strings {
	struct pft_intern values; /* debug_annotation_string_values */
	struct pft_intern names;  /* event_names */
	struct u64map dsrc;       /* data_src value -> struct dsrc_names */
	struct u64map ids;        /* data_id hash -> struct id_iid */
	size_t nr_ids;
	struct { const char *key; uint64_t iid; } ptr[PTR_CACHE];
	uint32_t last_tid;        /* the thread of the previous sample */
	struct pft_thread *last_thread;
};

static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ULL;
	return h | 1;
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

/* iid of s (its arena offset + 1: unique, never 0); *is_new when just added. 0 when
 * the table is full or memory is short: the caller writes s inline. */
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
			return in->slots[i].off;
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
	in->arena_len += n + 1; /* keeps offsets distinct even for "" */
	in->n++;
	*is_new = true;
	return in->slots[i].off;
}

int pft_track_init(struct pftrace *t)
{
	size_t id, e;

	t->strings = calloc(1, sizeof(*t->strings));
	if (!t->strings)
		return scx_fail("out of memory");
	/* the names every sample uses, once */
	pft_packet_begin(t, PFT_SEQ_TRACK, SEQ_NEEDS_INCREMENTAL_STATE);
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
	for (size_t pos = 0; u64map_next(&t->strings->dsrc, &pos, &k, &v);)
		free(v);
	u64map_free(&t->strings->dsrc);
	for (size_t pos = 0; u64map_next(&t->strings->ids, &pos, &k, &v);)
		free(v);
	u64map_free(&t->strings->ids);
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
	pb_varint(&t->pkt, 1, PFT_UUID(kind, tid));              /* uuid */
	pb_varint(&t->pkt, 5, PFT_UUID(PFT_UUID_THREAD, tid));   /* parent_uuid */
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

static int hint_update(void *ctx, uint32_t tid, int32_t tgid, uint64_t ts, uint64_t value)
{
	struct pftrace *t = ctx;
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
	pb_varint(&t->pkt, 11, PFT_UUID(PFT_UUID_HINT, tid));   /* track_uuid */
	if (value <= INT64_MAX)
		pb_int(&t->pkt, 30, (int64_t)value);            /* counter_value */
	else
		pb_double(&t->pkt, 44, (double)value);          /* double_counter_value */
	pb_close(&t->pkt, te);
	t->st.hint_values++;
	return pft_packet_end(t);
}

int pftrace_hints(struct pftrace *t, struct hints_index *h)
{
	return hints_foreach(h, hint_update, t);
}

/* A string annotation value or event name: interned, or inline when the
 * table is full. */
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

/* The same for a string whose pointer stays valid and unchanged for the
 * whole memory pass (mem_record.stable_names): its iid is remembered by
 * pointer, so most samples neither measure nor hash it. */
static void sref_stable(struct pft_strings *S, struct sref *r, const char *s)
{
	size_t slot = (size_t)(((uintptr_t)s >> 3) * 0x9e3779b97f4a7c15ULL >> 52) & (PTR_CACHE - 1);

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

/* One debug annotation whose value is a varint: small enough for a
 * one-byte length (name iid < 128, tag, a value of at most 10 bytes). */
static void da_varint(struct pb_buf *b, int name, uint32_t value_field, uint64_t v)
{
	uint8_t *p, *len;

	if (!pb_room(b, 2 + 2 + 2 + 10))
		return;
	p = b->p + b->len;
	*p++ = 4 << 3 | PB_LEN; /* TrackEvent.debug_annotations */
	len = p++;
	*p++ = 1 << 3 | PB_VARINT; /* name_iid */
	*p++ = (uint8_t)DA_IID(name);
	p = pb_put_varint(p, (uint64_t)value_field << 3 | PB_VARINT);
	p = pb_put_varint(p, v);
	*len = (uint8_t)(p - len - 1);
	b->len = (size_t)(p - b->p);
}

static void da_str(struct pb_buf *b, int name, const struct sref *r)
{
	size_t d;

	if (r->iid) {
		da_varint(b, name, 17, r->iid); /* string_value_iid */
		return;
	}
	d = pb_open(b, 4);
	pb_varint(b, 1, DA_IID(name));
	pb_bytes(b, 6, r->s, r->n);             /* string_value */
	pb_close(b, d);
}

static uint64_t id_hash(const struct data_id *d)
{
	uint64_t v[5] = {(uint64_t)d->kind << 32 | (uint32_t)d->pid, (uint64_t)d->maj << 32 | d->min, d->ino,
			 d->ino_gen, d->page};
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < 5; i++)
		h = (h ^ v[i]) * 0xff51afd7ed558ccdULL, h ^= h >> 29;
	return h;
}

/* data_id's text, interned: a page sampled again reuses the iid found by
 * the id's value, so its text is made once. Past IDS_MAX distinct ids (or
 * on a hash clash) the text is made each time and interned by content. */
static int id_ref(struct pft_strings *S, const struct data_id *id, struct sref *r, char *buf)
{
	uint64_t h = id_hash(id);
	struct id_iid *e = u64map_get(&S->ids, h);
	char *end;

	if (e && !memcmp(&e->id, id, sizeof(*id))) {
		*r = (struct sref){.iid = e->iid};
		return 0;
	}
	end = data_id_put(buf, id);
	if (end - buf < 2 || buf[0] != '"')
		return 0;
	end[-1] = '\0'; /* without the quotes */
	sref_intern(&S->values, r, buf + 1);
	if (e || !r->iid || S->nr_ids >= IDS_MAX)
		return 0;
	if (!(e = malloc(sizeof(*e))))
		return scx_fail("out of memory");
	e->id = *id;
	e->iid = r->iid;
	if (u64map_put(&S->ids, h, e) < 0) {
		free(e);
		return -1;
	}
	S->nr_ids++;
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

int pftrace_mem_sample(struct pftrace *t, const struct mem_record *r)
{
	struct pft_strings *S = t->strings;
	struct sref name, sym, dso, cgroup, dsrc = {0}, map = {0}, dsym = {0}, did = {0};
	char did_text[DATA_ID_JSON_MAX + 1];
	char summary[64], dsrc_text[DATA_SRC_TEXT_MAX + 1];
	struct pft_thread *th;
	uint32_t tid;
	size_t te, id;
	struct pb_buf *b = &t->pkt;
	bool has_dsrc = r->has_data_src && !data_src_is_unknown(r->data_src);

	if (r->tid <= 0 || r->tid > INT32_MAX)
		return 0; /* idle: trace_processor's own thread 0 gets no tracks */
	tid = (uint32_t)r->tid;
	if (tid == S->last_tid && S->last_thread) {
		th = S->last_thread;
	} else {
		if (!(th = pft_thread(t, tid)))
			return -1;
		S->last_tid = tid;
		S->last_thread = th;
	}
	if (r->pid > 0 && r->pid <= INT32_MAX)
		th->tgid = (int32_t)r->pid;
	if (r->comm[0] && strncmp(th->comm, r->comm, PFT_COMM_LEN - 1))
		snprintf(th->comm, sizeof(th->comm), "%s", r->comm);
	if (!th->mem_track && child_track(t, tid, th, PFT_UUID_MEM, r->time_ns) < 0)
		return -1;
	pft_note_ts(t, r->time_ns);
	if (has_dsrc) {
		if (dsrc_refs(S, r->data_src, &name, &dsrc, summary, sizeof(summary), dsrc_text) < 0)
			return -1;
	} else {
		snprintf(summary, sizeof(summary), "%s", r->event ? r->event : "mem sample");
		sref_intern(&S->names, &name, summary);
	}
	sref_name(S, &sym, r->sym, r->stable_names);
	sref_name(S, &dso, r->dso, r->stable_names);
	sref_intern(&S->values, &cgroup, r->cgroup);
	if (r->data_map)
		sref_name(S, &map, r->data_map, r->stable_names);
	if (r->data_sym)
		sref_name(S, &dsym, r->data_sym, r->stable_names);
	if (r->data_id.kind != DATA_ID_NONE && id_ref(S, &r->data_id, &did, did_text) < 0)
		return -1;

	pft_packet_begin(t, PFT_SEQ_TRACK, SEQ_NEEDS_INCREMENTAL_STATE);
	pb_varint(b, TP_TIMESTAMP, r->time_ns);
	if (name.is_new || sym.is_new || dso.is_new || cgroup.is_new || dsrc.is_new || map.is_new || dsym.is_new ||
	    did.is_new) {
		id = pb_open(b, TP_INTERNED_DATA);
		interned_entry(b, 2, &name); /* event_names */
		interned_entry(b, 29, &sym); /* debug_annotation_string_values */
		interned_entry(b, 29, &dso);
		interned_entry(b, 29, &cgroup);
		interned_entry(b, 29, &dsrc);
		interned_entry(b, 29, &map);
		interned_entry(b, 29, &dsym);
		interned_entry(b, 29, &did);
		pb_close(b, id);
	}
	te = pb_open(b, TP_TRACK_EVENT);
	pb_varint(b, 9, TE_TYPE_INSTANT);                 /* type */
	pb_varint(b, 11, PFT_UUID(PFT_UUID_MEM, tid));    /* track_uuid */
	pb_varint(b, 3, CAT_MEM);                         /* category_iids */
	if (name.iid)
		pb_varint(b, 10, name.iid);               /* name_iid */
	else
		pb_bytes(b, 23, name.s, name.n);          /* name */
	da_varint(b, DA_ADDR, 7, r->addr);                  /* pointer_value */
	da_varint(b, DA_PHYS, 7, r->phys_addr);
	if (has_dsrc)
		da_str(b, DA_DATA_SRC, &dsrc);
	if (r->has_weight)
		da_varint(b, DA_WEIGHT, 3, r->weight);      /* uint_value */
	da_str(b, DA_SYM, &sym);
	da_str(b, DA_DSO, &dso);
	if (r->data_page_size)
		da_varint(b, DA_PAGE_SIZE, 3, r->data_page_size);
	if (r->has_cpu)
		da_varint(b, DA_CPU, 3, r->cpu);
	da_str(b, DA_CGROUP, &cgroup);
	if (r->hint) /* 0 is left out: the thread's hint track shows it too */
		da_varint(b, DA_HINT, 3, r->hint);
	if (r->data_map)
		da_str(b, DA_DATA_MAP, &map);
	if (did.iid || did.s)
		da_str(b, DA_DATA_ID, &did);
	if (r->data_sym)
		da_str(b, DA_DATA_SYM, &dsym);
	pb_close(b, te);
	t->st.mem_samples++;
	return pft_packet_end(t);
}
