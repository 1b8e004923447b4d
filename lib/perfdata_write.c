/*
 * perfdata_write.c - streaming writer of perf.data files that perf 6.1 reads.
 *
 * Layout produced: header (104 bytes, written last) | data section (records
 * appended as they come, starting right after the header) | feature index
 * (exactly at data.offset + data.size) | feature payloads | ids of each attr
 * | attr section (perf_event_attr of 128 bytes + ids section per attr).
 * See perfdata.h for the contract.
 */
#include "lib/perfdata.h"

#include "lib/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PD_WRITE_BUF (1u << 20)
#define PD_WRITE_ATTR_SIZE PERF_ATTR_SIZE_VER7
#define PD_NAME_ALIGN 64 /* perf pads header strings to 64 bytes */

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

static int pwrite_all(struct pd_writer *w, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = pwrite(w->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return scx_fail_errno("%s: write failed at offset %llu", w->path,
					      (unsigned long long)off);
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static void writer_free(struct pd_writer *w)
{
	for (size_t i = 0; i < w->nr_attrs; i++)
		free(w->attrs[i].ids);
	for (size_t i = 0; i < w->nr_feats; i++)
		free(w->feats[i].data);
	free(w->attrs);
	free(w->feats);
	free(w->buf);
	w->attrs = NULL;
	w->feats = NULL;
	w->buf = NULL;
	w->nr_attrs = w->nr_feats = 0;
	w->buf_len = w->buf_cap = 0;
}

int pd_writer_open(struct pd_writer *w, const char *path)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (strlen(path) >= sizeof(w->path))
		return scx_fail("%.200s...: path too long", path);
	w->buf = malloc(PD_WRITE_BUF);
	if (!w->buf)
		return scx_fail("%s: out of memory for the write buffer", path);
	w->buf_cap = PD_WRITE_BUF;
	w->fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (w->fd < 0) {
		scx_fail_errno("%s: cannot create", path);
		writer_free(w);
		return -1;
	}
	strcpy(w->path, path);
	w->data_offset = PD_HEADER_SIZE;
	return 0;
}

int pd_writer_add_attr(struct pd_writer *w, const struct perf_event_attr *attr,
		       const uint64_t *ids, size_t nr_ids, const char *name)
{
	struct pd_writer_attr *a;
	void *grown = realloc(w->attrs, (w->nr_attrs + 1) * sizeof(*w->attrs));

	if (!grown)
		return scx_fail("%s: out of memory for attrs", w->path);
	w->attrs = grown;
	a = &w->attrs[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	if (nr_ids > 0) {
		a->ids = malloc(nr_ids * sizeof(*ids));
		if (!a->ids)
			return scx_fail("%s: out of memory for %zu ids", w->path, nr_ids);
		memcpy(a->ids, ids, nr_ids * sizeof(*ids));
	}
	a->attr = *attr;
	a->attr.size = PD_WRITE_ATTR_SIZE;
	a->nr_ids = nr_ids;
	if (name)
		snprintf(a->name, sizeof(a->name), "%s", name);
	w->nr_attrs++;
	return 0;
}

static int flush_buf(struct pd_writer *w)
{
	uint64_t off = w->data_offset + w->data_size - w->buf_len;

	if (w->buf_len == 0)
		return 0;
	if (pwrite_all(w, w->buf, w->buf_len, off) < 0)
		return -1;
	w->buf_len = 0;
	return 0;
}

/* A record must be framed as pd_next() expects: size from its header (plus
 * the payload for AUXTRACE), a multiple of 8. */
static int check_record(const struct pd_writer *w, const void *rec, size_t size)
{
	struct perf_event_header h;
	uint64_t payload = 0;

	if (size < sizeof(h) || size % 8 != 0)
		return scx_fail("%s: record of %zu bytes is not a multiple of 8 of at least 8",
				w->path, size);
	memcpy(&h, rec, sizeof(h));
	if (h.type == PD_RECORD_AUXTRACE && h.size >= 16 && size >= 16)
		memcpy(&payload, (const uint8_t *)rec + 8, sizeof(payload));
	if (h.size < sizeof(h) || h.size % 8 != 0 || payload > size || h.size != size - payload)
		return scx_fail("%s: record of %zu bytes has header size %u (type %u)", w->path,
				size, h.size, h.type);
	return 0;
}

int pd_writer_add_record(struct pd_writer *w, const void *rec, size_t size)
{
	if (check_record(w, rec, size) < 0)
		return -1;
	if (w->observe)
		w->observe(w->observe_ctx, rec, size);
	if (size > w->buf_cap - w->buf_len && flush_buf(w) < 0)
		return -1;
	if (size > w->buf_cap) {
		if (pwrite_all(w, rec, size, w->data_offset + w->data_size) < 0)
			return -1;
	} else {
		memcpy(w->buf + w->buf_len, rec, size);
		w->buf_len += size;
	}
	w->data_size += size;
	return 0;
}

static bool has_feature(const struct pd_writer *w, int bit)
{
	for (size_t i = 0; i < w->nr_feats; i++)
		if (w->feats[i].bit == bit)
			return true;
	return false;
}

int pd_writer_add_feature(struct pd_writer *w, int bit, const void *data, size_t size)
{
	struct pd_writer_feat *ft;
	void *grown;

	if (bit <= 0 || bit >= PD_FEAT_MAX)
		return scx_fail("%s: feature bit %d out of range", w->path, bit);
	if (has_feature(w, bit))
		return scx_fail("%s: feature %d added twice", w->path, bit);
	grown = realloc(w->feats, (w->nr_feats + 1) * sizeof(*w->feats));
	if (!grown)
		return scx_fail("%s: out of memory for features", w->path);
	w->feats = grown;
	ft = &w->feats[w->nr_feats];
	ft->bit = bit;
	ft->size = size;
	ft->data = malloc(size ? size : 1);
	if (!ft->data)
		return scx_fail("%s: out of memory for feature %d", w->path, bit);
	if (size)
		memcpy(ft->data, data, size);
	w->nr_feats++;
	return 0;
}

/* ---- EVENT_DESC ------------------------------------------------------------ */

static size_t name_field_size(const char *name)
{
	size_t len = strlen(name) + 1;

	return (len + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;
}

static size_t event_desc_size(const struct pd_writer *w)
{
	size_t size = 8;

	for (size_t i = 0; i < w->nr_attrs; i++)
		size += PD_WRITE_ATTR_SIZE + 8 + name_field_size(w->attrs[i].name) +
			8 * w->attrs[i].nr_ids;
	return size;
}

static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

/* EVENT_DESC: u32 nr, u32 attr_size, then per attr: attr, u32 nr_ids,
 * u32 padded name length, name, ids. perf matches entries to attrs by index. */
static int add_event_desc(struct pd_writer *w)
{
	size_t size = event_desc_size(w);
	uint8_t *buf = calloc(1, size), *p = buf;
	int ret;

	if (!buf)
		return scx_fail("%s: out of memory for EVENT_DESC", w->path);
	p = put_u32(p, (uint32_t)w->nr_attrs);
	p = put_u32(p, PD_WRITE_ATTR_SIZE);
	for (size_t i = 0; i < w->nr_attrs; i++) {
		const struct pd_writer_attr *a = &w->attrs[i];
		size_t nlen = name_field_size(a->name);

		memcpy(p, &a->attr, PD_WRITE_ATTR_SIZE);
		p += PD_WRITE_ATTR_SIZE;
		p = put_u32(p, (uint32_t)a->nr_ids);
		p = put_u32(p, (uint32_t)nlen);
		memcpy(p, a->name, strlen(a->name));
		p += nlen;
		if (a->nr_ids)
			memcpy(p, a->ids, 8 * a->nr_ids);
		p += 8 * a->nr_ids;
	}
	ret = pd_writer_add_feature(w, PD_FEAT_EVENT_DESC, buf, size);
	free(buf);
	return ret;
}

static bool any_name(const struct pd_writer *w)
{
	for (size_t i = 0; i < w->nr_attrs; i++)
		if (w->attrs[i].name[0])
			return true;
	return false;
}

/* ---- finish ---------------------------------------------------------------- */

static int cmp_feat(const void *a, const void *b)
{
	const struct pd_writer_feat *x = a, *y = b;

	return (x->bit > y->bit) - (x->bit < y->bit);
}

static size_t tail_size(const struct pd_writer *w)
{
	size_t size = 16 * w->nr_feats;

	for (size_t i = 0; i < w->nr_feats; i++)
		size += align8(w->feats[i].size);
	for (size_t i = 0; i < w->nr_attrs; i++)
		size += 8 * w->attrs[i].nr_ids;
	return size + w->nr_attrs * (PD_WRITE_ATTR_SIZE + 16);
}

static uint8_t *put_section(uint8_t *p, uint64_t offset, uint64_t size)
{
	struct pd_section s = { offset, size };

	memcpy(p, &s, sizeof(s));
	return p + sizeof(s);
}

/* Everything after the data section, built in memory at file offset `base`;
 * *attrs_off receives where the attr section starts. */
static void build_tail(const struct pd_writer *w, uint8_t *buf, uint64_t base, uint64_t *attrs_off)
{
	uint64_t off = base + 16 * w->nr_feats;
	uint8_t *index = buf;

	for (size_t i = 0; i < w->nr_feats; i++) {
		index = put_section(index, off, w->feats[i].size);
		memcpy(buf + (off - base), w->feats[i].data, w->feats[i].size);
		off += align8(w->feats[i].size);
	}
	uint64_t ids_off = off;
	for (size_t i = 0; i < w->nr_attrs; i++) {
		if (w->attrs[i].nr_ids)
			memcpy(buf + (off - base), w->attrs[i].ids, 8 * w->attrs[i].nr_ids);
		off += 8 * w->attrs[i].nr_ids;
	}
	*attrs_off = off;
	for (size_t i = 0; i < w->nr_attrs; i++) {
		uint8_t *p = buf + (off - base);

		memcpy(p, &w->attrs[i].attr, PD_WRITE_ATTR_SIZE);
		put_section(p + PD_WRITE_ATTR_SIZE, ids_off, 8 * w->attrs[i].nr_ids);
		ids_off += 8 * w->attrs[i].nr_ids;
		off += PD_WRITE_ATTR_SIZE + 16;
	}
}

static void build_header(const struct pd_writer *w, uint8_t *h, uint64_t attrs_off)
{
	uint64_t v[3] = { PD_MAGIC, PD_HEADER_SIZE, PD_WRITE_ATTR_SIZE + 16 };
	uint64_t features[4] = { 0 };

	memset(h, 0, PD_HEADER_SIZE);
	memcpy(h, v, sizeof(v));
	put_section(h + 24, attrs_off, w->nr_attrs * (PD_WRITE_ATTR_SIZE + 16));
	put_section(h + 40, w->data_offset, w->data_size);
	put_section(h + 56, 0, 0);
	for (size_t i = 0; i < w->nr_feats; i++)
		features[w->feats[i].bit / 64] |= 1ULL << (w->feats[i].bit % 64);
	memcpy(h + 72, features, sizeof(features));
}

static int write_tail_and_header(struct pd_writer *w)
{
	uint64_t base = w->data_offset + w->data_size, attrs_off;
	size_t size = tail_size(w);
	uint8_t header[PD_HEADER_SIZE];
	uint8_t *buf = calloc(1, size);
	int ret;

	if (!buf)
		return scx_fail("%s: out of memory for the file tail", w->path);
	build_tail(w, buf, base, &attrs_off);
	ret = pwrite_all(w, buf, size, base);
	free(buf);
	if (ret < 0)
		return -1;
	build_header(w, header, attrs_off);
	return pwrite_all(w, header, sizeof(header), 0);
}

int pd_writer_finish(struct pd_writer *w)
{
	if (w->fd < 0)
		return scx_fail("%s: writer is not open", w->path);
	if (w->nr_attrs == 0)
		return scx_fail("%s: no event attributes to write", w->path);
	if (flush_buf(w) < 0)
		return -1;
	if (any_name(w) && !has_feature(w, PD_FEAT_EVENT_DESC) && add_event_desc(w) < 0)
		return -1;
	if (w->nr_feats > 1)
		qsort(w->feats, w->nr_feats, sizeof(*w->feats), cmp_feat);
	if (write_tail_and_header(w) < 0)
		return -1;
	if (close(w->fd) < 0) {
		w->fd = -1;
		return scx_fail_errno("%s: close failed", w->path);
	}
	w->fd = -1;
	w->path[0] = '\0'; /* finished: pd_writer_abort() must not unlink it */
	writer_free(w);
	return 0;
}

void pd_writer_abort(struct pd_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->path[0])
		unlink(w->path);
	w->fd = -1;
	w->path[0] = '\0';
	writer_free(w);
}
