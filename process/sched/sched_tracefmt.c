/*
 * sched_tracefmt.c - parser of perf's tracing data (the tracefs format files
 * and kallsyms it copies into perf.data) and decoder of tracepoint raw data.
 * See sched_tracefmt.h. Layout (tools/perf/util/trace-event-info.c):
 *   "\027\010\104tracing" VERSION\0 bigendian:u8 long_size:u8 page_size:u32
 *   "header_page\0" size:u64 text  "header_event\0" size:u64 text
 *   ftrace: count:u32 { size:u64 text }
 *   events: systems:u32 { NAME\0 count:u32 { size:u64 text } }
 *   kallsyms: size:u32 text   printk: size:u32 text   [cmdlines: size:u64 text]
 */
#include "sched_tracefmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/grow.h"
#include "lib/upper_bound.h"

struct rd {
	const uint8_t *p;
	size_t len, pos;
};

static int rd_bytes(struct rd *r, size_t n, const uint8_t **out)
{
	if (n > r->len - r->pos)
		return scx_fail("truncated at byte %zu (need %zu more)", r->pos, n);
	*out = r->p + r->pos;
	r->pos += n;
	return 0;
}

/* the next n bytes into v (a u32 or u64), as stored */
static int rd_copy(struct rd *r, void *v, size_t n)
{
	const uint8_t *b = NULL;

	if (rd_bytes(r, n, &b) < 0)
		return -1;
	memcpy(v, b, n);
	return 0;
}

static int rd_u32(struct rd *r, uint32_t *v) { return rd_copy(r, v, sizeof(*v)); }
static int rd_u64(struct rd *r, uint64_t *v) { return rd_copy(r, v, sizeof(*v)); }

static int rd_string(struct rd *r, const char **s)
{
	const uint8_t *nul = memchr(r->p + r->pos, 0, r->len - r->pos);

	if (!nul)
		return scx_fail("unterminated string at byte %zu", r->pos);
	*s = (const char *)r->p + r->pos;
	r->pos = (size_t)(nul - r->p) + 1;
	return 0;
}

static int rd_blob64(struct rd *r, const uint8_t **b, size_t *n)
{
	uint64_t sz;

	if (rd_u64(r, &sz) < 0)
		return -1;
	if (sz > r->len - r->pos)
		return scx_fail("section of %llu bytes at byte %zu exceeds the data",
				(unsigned long long)sz, r->pos);
	*n = (size_t)sz;
	return rd_bytes(r, *n, b);
}

/* One of the two header files: "NAME\0" size:u64 text (the text is not used). */
static int rd_header_file(struct rd *r, const char *name)
{
	const uint8_t *b = NULL;
	const char *s = NULL;
	size_t n = 0;

	if (rd_string(r, &s) < 0)
		return scx_fail_prefix("bad header files");
	if (strcmp(s, name))
		return scx_fail("bad header files: expected \"%s\"", name);
	if (rd_blob64(r, &b, &n) < 0)
		return scx_fail_prefix("bad header files: %s", name);
	return 0;
}

/* ---- format files --------------------------------------------------------- */

static bool parse_uint_after(const char *s, const char *end, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	const char *p;

	for (p = s; p + kl <= end; p++) {
		if (!memcmp(p, key, kl)) {
			char *e;
			char tmp[32];
			size_t n = 0;

			p += kl;
			while (p < end && n < sizeof(tmp) - 1 && *p != ';')
				tmp[n++] = *p++;
			tmp[n] = '\0';
			*v = strtoull(tmp, &e, 10);
			return e != tmp;
		}
	}
	return false;
}

/* "field:TYPE NAME[N];\toffset:N;\tsize:N;\tsigned:N;" */
static int parse_field_line(const char *l, const char *end, struct tf_field *f)
{
	const char *decl = l + 6, *semi, *name_end, *name;
	uint64_t off, size, sgn = 0;
	size_t tl, nl;
	char bracket[32] = "";

	memset(f, 0, sizeof(*f));
	semi = memchr(decl, ';', (size_t)(end - decl));
	if (!semi)
		return scx_fail("format: field line without ';'");
	name_end = semi;
	while (name_end > decl && name_end[-1] == ' ')
		name_end--;
	if (name_end > decl && name_end[-1] == ']') {
		const char *ob = name_end;

		while (ob > decl && *ob != '[')
			ob--;
		if (*ob != '[' || (size_t)(name_end - ob) >= sizeof(bracket))
			return scx_fail("format: bad array declaration");
		memcpy(bracket, ob, (size_t)(name_end - ob));
		bracket[name_end - ob] = '\0';
		name_end = ob;
	}
	name = name_end;
	while (name > decl && name[-1] != ' ' && name[-1] != '\t' && name[-1] != '*')
		name--;
	nl = (size_t)(name_end - name);
	if (nl == 0 || nl >= sizeof(f->name))
		return scx_fail("format: bad field name");
	memcpy(f->name, name, nl);
	tl = (size_t)(name - decl);
	while (tl && (decl[tl - 1] == ' ' || decl[tl - 1] == '\t'))
		tl--;
	if (tl + strlen(bracket) >= sizeof(f->type))
		return scx_fail("format: field type too long");
	memcpy(f->type, decl, tl);
	strcat(f->type, bracket);
	if (!parse_uint_after(semi, end, "offset:", &off) || !parse_uint_after(semi, end, "size:", &size))
		return scx_fail("format: field %s without offset/size", f->name);
	parse_uint_after(semi, end, "signed:", &sgn);
	if (off > UINT32_MAX || size > UINT32_MAX)
		return scx_fail("format: field %s offset/size out of range", f->name);
	f->offset = (uint32_t)off;
	f->size = (uint32_t)size;
	f->is_signed = sgn != 0;
	f->is_data_loc = !strncmp(f->type, "__data_loc", 10);
	f->is_char_array = !f->is_data_loc && bracket[0] &&
			   (!strncmp(f->type, "char", 4) || !strncmp(f->type, "unsigned char", 13) ||
			    !strncmp(f->type, "const char", 10));
	f->common = !strncmp(f->name, "common_", 7);
	return 0;
}

int tf_parse_format(struct tf_event *ev, const char *system, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	bool have_id = false;

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->system, sizeof(ev->system), "%s", system);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *l = p;

		p = nl ? nl + 1 : end;
		while (l < le && (*l == ' ' || *l == '\t'))
			l++;
		if ((size_t)(le - l) > 6 && !memcmp(l, "name: ", 6)) {
			size_t n = (size_t)(le - l - 6);

			if (n >= sizeof(ev->name))
				n = sizeof(ev->name) - 1;
			memcpy(ev->name, l + 6, n);
			ev->name[n] = '\0';
		} else if ((size_t)(le - l) > 4 && !memcmp(l, "ID: ", 4)) {
			char tmp[16];
			size_t n = (size_t)(le - l - 4);
			char *e;
			unsigned long v;

			if (n >= sizeof(tmp))
				goto bad;
			memcpy(tmp, l + 4, n);
			tmp[n] = '\0';
			v = strtoul(tmp, &e, 10);
			if (e == tmp || v > UINT32_MAX)
				goto bad;
			ev->id = (uint32_t)v;
			have_id = true;
		} else if ((size_t)(le - l) > 6 && !memcmp(l, "field:", 6)) {
			struct tf_field f;

			if (parse_field_line(l, le, &f) < 0)
				goto fail;
			if (!grow_one_max((void **)&ev->fields, &ev->cap_fields, ev->nr_fields, sizeof(*ev->fields), 256,
					  "format: too many fields"))
				goto fail;
			ev->fields[ev->nr_fields++] = f;
		} else if ((size_t)(le - l) > 11 && !memcmp(l, "print fmt: ", 11)) {
			size_t n = (size_t)(le - l - 11);

			free(ev->print_fmt);
			ev->print_fmt = strndup(l + 11, n);
			if (!ev->print_fmt) {
				scx_fail("out of memory");
				goto fail;
			}
		}
	}
	if (!have_id || !ev->name[0])
		goto bad;
	return 0;
bad:
	scx_fail("format of %s:%s: no name or ID", system, ev->name[0] ? ev->name : "?");
fail:
	tf_event_free(ev);
	return -1;
}

void tf_event_free(struct tf_event *ev)
{
	free(ev->fields);
	free(ev->print_fmt);
	ev->fields = NULL;
	ev->print_fmt = NULL;
	ev->nr_fields = ev->cap_fields = 0;
}

void tf_free(struct tf_data *d)
{
	size_t i;

	for (i = 0; i < d->nr_events; i++)
		tf_event_free(&d->events[i]);
	free(d->events);
	for (i = 0; i < d->nr_ksyms; i++)
		free(d->ksyms[i].name);
	free(d->ksyms);
	memset(d, 0, sizeof(*d));
}

static int add_event(struct tf_data *d, const char *system, const uint8_t *text, size_t n)
{
	struct tf_event ev, *ne;

	if (tf_parse_format(&ev, system, (const char *)text, n) < 0)
		return -1;
	ne = realloc(d->events, (d->nr_events + 1) * sizeof(*ne));
	if (!ne) {
		tf_event_free(&ev);
		return scx_fail("out of memory");
	}
	d->events = ne;
	d->events[d->nr_events++] = ev;
	return 0;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct tf_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* "ADDR T NAME [module]" lines; text symbols only */
static int parse_kallsyms(struct tf_data *d, const uint8_t *buf, size_t n)
{
	const char *p = (const char *)buf, *end = p + n;
	size_t cap = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		char line[512], name[256], type;
		unsigned long long addr;
		size_t ll = (size_t)(le - p);

		if (ll < sizeof(line)) {
			memcpy(line, p, ll);
			line[ll] = '\0';
			if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
			    (type == 't' || type == 'T') && addr) {
				if (d->nr_ksyms == cap) {
					size_t nc = cap ? cap * 2 : 1024;
					struct tf_ksym *nk = realloc(d->ksyms, nc * sizeof(*nk));

					if (!nk)
						return scx_fail("out of memory");
					d->ksyms = nk;
					cap = nc;
				}
				d->ksyms[d->nr_ksyms].addr = addr;
				if (!(d->ksyms[d->nr_ksyms].name = strdup(name)))
					return scx_fail("out of memory");
				d->nr_ksyms++;
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (d->nr_ksyms)
		qsort(d->ksyms, d->nr_ksyms, sizeof(*d->ksyms), ksym_cmp);
	return 0;
}

int tf_parse(struct tf_data *d, const void *buf, size_t size)
{
	static const uint8_t magic[10] = {23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
	struct rd r = {.p = buf, .len = size};
	const uint8_t *b = NULL;
	const char *s = NULL;
	uint32_t count = 0, systems = 0, i, j, ksz = 0;
	size_t n = 0;

	memset(d, 0, sizeof(*d));
	if (rd_bytes(&r, 10, &b) < 0 || memcmp(b, magic, 10)) {
		scx_fail("bad magic");
		goto fail;
	}
	if (rd_string(&r, &s) < 0)
		goto fail;
	snprintf(d->version, sizeof(d->version), "%s", s);
	if (rd_bytes(&r, 2, &b) < 0)
		goto fail;
	if (b[0]) {
		scx_fail("big-endian data is not supported");
		goto fail;
	}
	d->long_size = b[1];
	if (rd_bytes(&r, 4, &b) < 0) /* page size */
		goto fail;
	if (rd_header_file(&r, "header_page") < 0 || rd_header_file(&r, "header_event") < 0)
		goto fail;
	if (rd_u32(&r, &count) < 0) /* ftrace's own events */
		goto fail;
	for (i = 0; i < count; i++)
		if (rd_blob64(&r, &b, &n) < 0 || add_event(d, "ftrace", b, n) < 0)
			goto fail;
	if (rd_u32(&r, &systems) < 0)
		goto fail;
	for (i = 0; i < systems; i++) {
		const char *sys = NULL;

		if (rd_string(&r, &sys) < 0 || rd_u32(&r, &count) < 0)
			goto fail;
		for (j = 0; j < count; j++)
			if (rd_blob64(&r, &b, &n) < 0 || add_event(d, sys, b, n) < 0)
				goto fail;
	}
	/* kallsyms is optional for our purposes: a short blob just has none */
	if (rd_u32(&r, &ksz) == 0 && rd_bytes(&r, ksz, &b) == 0 && parse_kallsyms(d, b, ksz) < 0)
		goto fail;
	scx_clear_error();
	return 0;
fail:
	tf_free(d);
	return scx_fail_prefix("tracing data");
}

const struct tf_event *tf_event_by_id(const struct tf_data *d, uint32_t id)
{
	size_t i;

	for (i = 0; i < d->nr_events; i++)
		if (d->events[i].id == id)
			return &d->events[i];
	return NULL;
}

const struct tf_field *tf_find_field(const struct tf_event *ev, const char *name)
{
	size_t i;

	for (i = 0; i < ev->nr_fields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return &ev->fields[i];
	return NULL;
}

static bool field_int(const struct tf_field *f, const void *raw, size_t raw_size, int64_t *v)
{
	const uint8_t *p = raw;

	if (f->offset > raw_size || f->size > raw_size - f->offset)
		return false;
	p += f->offset;
	switch (f->size) {
	case 1: { uint8_t x = p[0]; *v = f->is_signed ? (int8_t)x : x; return true; }
	case 2: { uint16_t x; memcpy(&x, p, 2); *v = f->is_signed ? (int16_t)x : x; return true; }
	case 4: { uint32_t x; memcpy(&x, p, 4); *v = f->is_signed ? (int32_t)x : (int64_t)x; return true; }
	case 8: { uint64_t x; memcpy(&x, p, 8); *v = (int64_t)x; return true; }
	default: return false;
	}
}

bool tf_get_int(const struct tf_event *ev, const char *name, const void *raw, size_t raw_size, int64_t *v)
{
	const struct tf_field *f = tf_find_field(ev, name);

	return f && !f->is_data_loc && field_int(f, raw, raw_size, v);
}

static bool field_str(const struct tf_field *f, const void *raw, size_t raw_size, char *buf, size_t bufsz)
{
	const uint8_t *p = raw, *s;
	size_t n, off;

	buf[0] = '\0';
	if (f->offset > raw_size || f->size > raw_size - f->offset)
		return false;
	if (f->is_data_loc) {
		uint32_t loc;

		if (f->size != 4)
			return false;
		memcpy(&loc, p + f->offset, 4);
		off = loc & 0xffff;
		n = loc >> 16;
		if (strstr(f->type, "__rel_loc"))
			off += f->offset + 4;
		if (off > raw_size || n > raw_size - off)
			return false;
		s = p + off;
	} else {
		s = p + f->offset;
		n = f->size;
	}
	{
		const uint8_t *nul = memchr(s, 0, n);

		if (nul)
			n = (size_t)(nul - s);
	}
	if (n >= bufsz)
		n = bufsz - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return true;
}

bool tf_get_str(const struct tf_event *ev, const char *name, const void *raw, size_t raw_size,
		char *buf, size_t bufsz)
{
	const struct tf_field *f = tf_find_field(ev, name);

	buf[0] = '\0';
	if (!f || !(f->is_data_loc || f->is_char_array))
		return false;
	return field_str(f, raw, raw_size, buf, bufsz);
}

void tf_field_text(const struct tf_field *f, const void *raw, size_t raw_size, char *buf, size_t bufsz)
{
	int64_t v;

	if (f->is_data_loc || f->is_char_array) {
		if (!field_str(f, raw, raw_size, buf, bufsz))
			snprintf(buf, bufsz, "?");
	} else if (field_int(f, raw, raw_size, &v)) {
		if (f->is_signed)
			snprintf(buf, bufsz, "%lld", (long long)v);
		else
			snprintf(buf, bufsz, "%llu", (unsigned long long)(uint64_t)v);
	} else if (f->offset <= raw_size && f->size <= raw_size - f->offset && bufsz > 3) {
		const uint8_t *p = (const uint8_t *)raw + f->offset;
		size_t i, len = 0;

		buf[0] = '\0';
		for (i = 0; i < f->size && len + 3 < bufsz; i++)
			len += (size_t)snprintf(buf + len, bufsz - len, "%02x", p[i]);
	} else {
		snprintf(buf, bufsz, "?");
	}
}

const char *tf_ksym(const struct tf_data *d, uint64_t addr)
{
	size_t lo = UPPER_BOUND(d->ksyms, d->nr_ksyms, addr, addr);

	return lo ? d->ksyms[lo - 1].name : NULL;
}
