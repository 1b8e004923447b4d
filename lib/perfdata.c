/*
 * perfdata.c - reader for perf.data files ("PERFILE2", little-endian, file
 * mode), its core: maps the file, validates the header, attribute, id and
 * feature sections and the EVENT_DESC names, and finds a record's attr (by
 * its sample id or trailer) and its offset in the file. The parts call this
 * core and never each other: perfdata_records.c walks the records of the
 * data section, perfdata_sample.c decodes samples and sample_id trailers,
 * perfdata_buildid.c reads the BUILD_ID feature. Every length taken from the
 * file is checked against the mapping before use. See perfdata.h for the
 * contract.
 */
#include "lib/perfdata.h"
#include "lib/perfdata_internal.h"

#include "lib/error.h"

#include <byteswap.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- header and section validation ------------------------------------- */

static int check_section(const struct pd_file *f, const char *what, const struct pd_section *s)
{
	if (s->size == 0)
		return 0;
	if (s->offset < PD_HEADER_SIZE)
		return scx_fail("%s: %s section at offset %llu overlaps the file header", f->path,
				what, (unsigned long long)s->offset);
	if (!range_ok(s->offset, s->size, f->size))
		return scx_fail("%s: %s section (offset %llu, size %llu) extends past the end of "
				"the file (%zu bytes)",
				f->path, what, (unsigned long long)s->offset,
				(unsigned long long)s->size, f->size);
	return 0;
}

static struct pd_section read_section(const uint8_t *p)
{
	struct pd_section s = { rd64(p), rd64(p + 8) };

	return s;
}

static int check_magic(const struct pd_file *f)
{
	uint64_t magic = rd64(f->map);
	uint64_t hsize = rd64(f->map + 8);

	if (magic == bswap_64(PD_MAGIC))
		return scx_fail("%s: big-endian perf.data is not supported", f->path);
	if (magic != PD_MAGIC)
		return scx_fail("%s: not a perf.data file (bad magic 0x%016llx)", f->path,
				(unsigned long long)magic);
	if (hsize == 16)
		return scx_fail("%s: pipe-mode perf.data is not supported (record to a file, or "
				"convert with perf inject -o FILE)",
				f->path);
	if (f->size < PD_HEADER_SIZE)
		return scx_fail("%s: truncated header (%zu bytes, need %d)", f->path, f->size,
				PD_HEADER_SIZE);
	if (hsize != PD_HEADER_SIZE)
		return scx_fail("%s: header size %llu, expected %d", f->path,
				(unsigned long long)hsize, PD_HEADER_SIZE);
	return 0;
}

static int read_header(struct pd_file *f)
{
	if (check_magic(f) < 0)
		return -1;
	f->attr_size = rd64(f->map + 16);
	f->attrs_sec = read_section(f->map + 24);
	f->data_sec = read_section(f->map + 40);
	f->event_types_sec = read_section(f->map + 56);
	memcpy(f->features, f->map + 72, sizeof(f->features));

	if (check_section(f, "attrs", &f->attrs_sec) < 0 ||
	    check_section(f, "data", &f->data_sec) < 0 ||
	    check_section(f, "event_types", &f->event_types_sec) < 0)
		return -1;
	if (f->data_sec.size > 0 && f->data_sec.offset % 8 != 0)
		return scx_fail("%s: data section offset %llu is not 8-byte aligned", f->path,
				(unsigned long long)f->data_sec.offset);
	if (f->attr_size < PERF_ATTR_SIZE_VER0 + 16 || f->attr_size > PD_MAX_ATTR_SIZE)
		return scx_fail("%s: attr_size %llu is out of range (%d..%d)", f->path,
				(unsigned long long)f->attr_size, PERF_ATTR_SIZE_VER0 + 16,
				PD_MAX_ATTR_SIZE);
	if (f->attrs_sec.size % f->attr_size != 0)
		return scx_fail("%s: attrs section size %llu is not a multiple of attr_size %llu",
				f->path, (unsigned long long)f->attrs_sec.size,
				(unsigned long long)f->attr_size);
	if (f->attrs_sec.size == 0)
		return scx_fail("%s: the file has no event attributes", f->path);
	return 0;
}

/* ---- features ------------------------------------------------------------ */

static bool feature_bit_set(const struct pd_file *f, int bit)
{
	return (f->features[bit / 64] >> (bit % 64)) & 1;
}

static int read_feature_index(struct pd_file *f)
{
	size_t nr = 0;
	uint64_t index_off = f->data_sec.offset + f->data_sec.size;

	for (int i = 0; i < 4; i++)
		nr += popcount64(f->features[i]);
	if (nr == 0)
		return 0;
	if (index_off < PD_HEADER_SIZE || !range_ok(index_off, nr * 16, f->size))
		return scx_fail("%s: feature index (%zu entries at offset %llu) is outside the file "
				"(%zu bytes)",
				f->path, nr, (unsigned long long)index_off, f->size);
	const uint8_t *p = f->map + index_off;
	for (int bit = 0; bit < PD_FEAT_MAX; bit++) {
		if (!feature_bit_set(f, bit))
			continue;
		struct pd_section s = read_section(p);
		char what[32];

		p += 16;
		snprintf(what, sizeof(what), "feature %d", bit);
		if (check_section(f, what, &s) < 0)
			return -1;
		f->feat[bit] = s;
	}
	return 0;
}

int pd_feature(const struct pd_file *f, int feat, const void **data, uint64_t *size)
{
	if (feat < 0 || feat >= PD_FEAT_MAX || !feature_bit_set(f, feat))
		return -1;
	/* an empty section's offset is not checked (perf writes any): no pointer from it */
	*data = f->feat[feat].size ? f->map + f->feat[feat].offset : f->map;
	*size = f->feat[feat].size;
	return 0;
}

/* ---- attributes ------------------------------------------------------------ */

static void compute_id_positions(struct pd_attr *a)
{
	uint64_t st = a->attr.sample_type;

	a->id_index_sample = SIZE_MAX;
	if (st & PERF_SAMPLE_IDENTIFIER)
		a->id_index_sample = 0;
	else if (st & PERF_SAMPLE_ID)
		a->id_index_sample = popcount64(st & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));

	a->time_index_sample = SIZE_MAX;
	if (st & PERF_SAMPLE_TIME)
		a->time_index_sample = popcount64(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
							PERF_SAMPLE_TID));
	a->fixed_sample_size = pd_fixed_sample_size(st);
	a->trailer_size = 0;
	a->id_index_trailer = 0;
	a->time_index_trailer = 0;
	if (!a->attr.sample_id_all)
		return;
	if (st & PERF_SAMPLE_TIME)
		a->time_index_trailer = 1 + popcount64(st & (PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
							     PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER));
	a->trailer_size = 8 * popcount64(st & PD_TRAILER_BITS);
	if (st & PERF_SAMPLE_IDENTIFIER)
		a->id_index_trailer = 1;
	else if (st & PERF_SAMPLE_ID)
		a->id_index_trailer = 1 + popcount64(st & (PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU));
}

static int load_ids(struct pd_file *f, struct pd_attr *a, size_t idx, const uint8_t *sec)
{
	struct pd_section ids = read_section(sec);
	char what[48];

	if (ids.size % 8 != 0)
		return scx_fail("%s: ids section of attr %zu has size %llu, not a multiple of 8",
				f->path, idx, (unsigned long long)ids.size);
	snprintf(what, sizeof(what), "ids of attr %zu", idx);
	if (check_section(f, what, &ids) < 0)
		return -1;
	a->nr_ids = ids.size / 8;
	if (a->nr_ids == 0)
		return 0;
	if (ids.offset % 8 == 0) {
		a->ids = (const uint64_t *)(const void *)(f->map + ids.offset);
		return 0;
	}
	/* Unaligned in the file: keep an aligned copy (freed by pd_close). */
	uint64_t *copy = malloc(ids.size);
	if (!copy)
		return scx_fail("%s: out of memory for %zu ids", f->path, a->nr_ids);
	memcpy(copy, f->map + ids.offset, ids.size);
	a->ids = copy;
	return 0;
}

static int load_attr(struct pd_file *f, size_t idx)
{
	struct pd_attr *a = &f->attrs[idx];
	const uint8_t *base = f->map + f->attrs_sec.offset + idx * f->attr_size;
	uint32_t sz = rd32(base + 4); /* perf_event_attr.size */

	if (sz == 0)
		sz = PERF_ATTR_SIZE_VER0;
	if (sz < PERF_ATTR_SIZE_VER0 || sz > f->attr_size - 16)
		return scx_fail("%s: attr %zu has size %u, outside %d..%llu", f->path, idx, sz,
				PERF_ATTR_SIZE_VER0, (unsigned long long)(f->attr_size - 16));
	a->file_attr_size = sz;
	memcpy(&a->attr, base, sz < sizeof(a->attr) ? sz : sizeof(a->attr));
	compute_id_positions(a);
	return load_ids(f, a, idx, base + f->attr_size - 16);
}

/* Several attrs must agree on where the id is, or samples cannot be dispatched
 * (perf refuses such files too). */
static int check_attrs_agree(const struct pd_file *f)
{
	const struct pd_attr *first = &f->attrs[0];

	for (size_t i = 1; i < f->nr_attrs; i++) {
		const struct pd_attr *a = &f->attrs[i];

		if (a->id_index_sample != first->id_index_sample)
			return scx_fail("%s: attrs 0 and %zu keep the sample id at different "
					"positions (non-matching sample_type)",
					f->path, i);
		if (f->sample_id_all && a->id_index_trailer != first->id_index_trailer)
			return scx_fail("%s: attrs 0 and %zu keep the sample_id trailer id at "
					"different positions",
					f->path, i);
	}
	return 0;
}

static int load_attrs(struct pd_file *f)
{
	f->nr_attrs = f->attrs_sec.size / f->attr_size;
	f->attrs = calloc(f->nr_attrs, sizeof(*f->attrs));
	if (!f->attrs)
		return scx_fail("%s: out of memory for %zu attrs", f->path, f->nr_attrs);
	f->sample_id_all = true;
	for (size_t i = 0; i < f->nr_attrs; i++) {
		if (load_attr(f, i) < 0)
			return -1;
		if (!f->attrs[i].attr.sample_id_all)
			f->sample_id_all = false;
	}
	return check_attrs_agree(f);
}

/* ---- id -> attr hash -------------------------------------------------------- */

static size_t id_slot(uint64_t id, size_t cap)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (size_t)id & (cap - 1);
}

static void id_insert(struct pd_file *f, uint64_t id, uint32_t attr_idx)
{
	size_t i = id_slot(id, f->id_cap);

	while (f->id_vals[i] != 0) {
		if (f->id_keys[i] == id)
			return; /* first attr wins on duplicates */
		i = (i + 1) & (f->id_cap - 1);
	}
	f->id_keys[i] = id;
	f->id_vals[i] = attr_idx + 1;
}

static int build_id_hash(struct pd_file *f)
{
	size_t total = 0;

	for (size_t i = 0; i < f->nr_attrs; i++)
		total += f->attrs[i].nr_ids;
	f->id_cap = 16;
	while (f->id_cap < 2 * total)
		f->id_cap *= 2;
	f->id_keys = calloc(f->id_cap, sizeof(*f->id_keys));
	f->id_vals = calloc(f->id_cap, sizeof(*f->id_vals));
	if (!f->id_keys || !f->id_vals)
		return scx_fail("%s: out of memory for %zu sample ids", f->path, total);
	for (size_t i = 0; i < f->nr_attrs; i++)
		for (size_t j = 0; j < f->attrs[i].nr_ids; j++)
			id_insert(f, f->attrs[i].ids[j], (uint32_t)i);
	return 0;
}

/* The attr owning id, or NULL (no message). */
struct pd_attr *pd_id_lookup(const struct pd_file *f, uint64_t id)
{
	if (f->id_cap == 0)
		return NULL;
	size_t i = id_slot(id, f->id_cap);

	while (f->id_vals[i] != 0) {
		if (f->id_keys[i] == id)
			return &f->attrs[f->id_vals[i] - 1];
		i = (i + 1) & (f->id_cap - 1);
	}
	return NULL;
}

/* ---- EVENT_DESC names ------------------------------------------------------- */

static void set_attr_name(struct pd_attr *a, const char *s, size_t len)
{
	if (len >= sizeof(a->name))
		len = sizeof(a->name) - 1;
	if (a->name[0] != '\0')
		return;
	memcpy(a->name, s, len);
	a->name[len] = '\0';
}

/* One event of EVENT_DESC at *pos; returns false when it does not fit. */
static bool read_one_event_desc(struct pd_file *f, const uint8_t *p, uint64_t size,
				uint64_t *pos, uint32_t attr_sz, size_t index)
{
	uint64_t off = *pos;

	if (!range_ok(off, (uint64_t)attr_sz + 8, size))
		return false;
	off += attr_sz;
	uint32_t nr_ids = rd32(p + off);
	uint32_t len = rd32(p + off + 4);
	off += 8;
	if (!range_ok(off, len, size))
		return false;
	const char *name = (const char *)(p + off);
	size_t name_len = strnlen(name, len);
	off += len;
	if ((uint64_t)nr_ids > (size - off) / 8)
		return false;
	if (nr_ids == 0 && index < f->nr_attrs)
		set_attr_name(&f->attrs[index], name, name_len);
	for (uint32_t i = 0; i < nr_ids; i++) {
		struct pd_attr *a = pd_id_lookup(f, rd64(p + off + 8 * (uint64_t)i));

		if (a)
			set_attr_name(a, name, name_len);
	}
	*pos = off + 8 * (uint64_t)nr_ids;
	return true;
}

static void clear_names(struct pd_file *f)
{
	for (size_t i = 0; i < f->nr_attrs; i++)
		f->attrs[i].name[0] = '\0';
}

/* Names from EVENT_DESC; a malformed section leaves all names empty. */
static void read_event_desc(struct pd_file *f)
{
	const void *data;
	uint64_t size, pos = 8;

	if (pd_feature(f, PD_FEAT_EVENT_DESC, &data, &size) < 0 || size < 8)
		return;
	const uint8_t *p = data;
	uint32_t nr = rd32(p), attr_sz = rd32(p + 4);
	if (attr_sz < PERF_ATTR_SIZE_VER0 || attr_sz > PD_MAX_ATTR_SIZE)
		return;
	for (uint32_t i = 0; i < nr; i++) {
		if (!read_one_event_desc(f, p, size, &pos, attr_sz, i)) {
			clear_names(f);
			return;
		}
	}
}

/* ---- attr lookup for a record ------------------------------------------------- */

/* Records that perf synthesizes (COMM, MMAP, ... from /proc) carry id 0:
 * like perf, give them to the first attr unless 0 is a real id. */
static const struct pd_attr *attr_for_record_id(const struct pd_file *f, uint64_t id)
{
	const struct pd_attr *a = pd_id_lookup(f, id);

	if (!a && id == 0)
		a = &f->attrs[0];
	return a;
}

/*
 * The sample id of a record when the file has several attrs: from the
 * sample body, or from the sample_id trailer of other records. 0 and *id
 * set; -1 (scx_fail) when the record cannot carry or hold one.
 */
static int read_record_id(const struct pd_file *f, const struct perf_event_header *h, bool trailer,
			  uint64_t *id)
{
	size_t idx, body = h->size >= 8 ? (size_t)h->size - 8 : 0;

	if (f->nr_attrs == 0)
		return scx_fail("%s: the file has no event attributes", f->path);
	if (h->size < 8)
		return scx_fail("%s: record at offset %llu: size %u is smaller than its header", f->path,
				pd_rec_off(f, h), h->size);
	if (!trailer) {
		idx = f->attrs[0].id_index_sample;
		if (idx == SIZE_MAX)
			return scx_fail("%s: sample at offset %llu: %zu event attributes but sample_type has "
					"neither ID nor IDENTIFIER, cannot tell them apart",
					f->path, pd_rec_off(f, h), f->nr_attrs);
		if ((idx + 1) * 8 > body)
			return scx_fail("%s: sample at offset %llu: record too short to hold its sample id",
					f->path, pd_rec_off(f, h));
		*id = rd64((const uint8_t *)h + 8 + idx * 8);
		return 0;
	}
	idx = f->attrs[0].id_index_trailer;
	if (!f->sample_id_all || idx == 0)
		return scx_fail("%s: record at offset %llu: %zu event attributes but no id in the "
				"sample_id trailer (needs sample_id_all and ID or IDENTIFIER)",
				f->path, pd_rec_off(f, h), f->nr_attrs);
	if (idx * 8 > body)
		return scx_fail("%s: record at offset %llu: too short to hold its sample id", f->path,
				pd_rec_off(f, h));
	*id = rd64((const uint8_t *)h + h->size - idx * 8);
	return 0;
}

static const struct pd_attr *attr_of_record(const struct pd_file *f, const struct perf_event_header *h,
					    bool trailer)
{
	const struct pd_attr *a;
	uint64_t id;

	if (f->nr_attrs == 1)
		return &f->attrs[0];
	if (read_record_id(f, h, trailer, &id) < 0)
		return NULL;
	a = attr_for_record_id(f, id);
	if (!a)
		scx_fail("%s: %s at offset %llu: unknown sample id %llu", f->path,
			 trailer ? "record" : "sample", pd_rec_off(f, h), (unsigned long long)id);
	return a;
}

const struct pd_attr *pd_attr_for_sample(const struct pd_file *f, const struct perf_event_header *h)
{
	return attr_of_record(f, h, false);
}

const struct pd_attr *pd_attr_for_trailer(const struct pd_file *f, const struct perf_event_header *h)
{
	return attr_of_record(f, h, true);
}

bool pd_id_is_unknown(const struct pd_file *f, const struct perf_event_header *h)
{
	uint64_t id;

	if (f->nr_attrs < 2 || h->type >= PD_RECORD_HEADER_ATTR ||
	    read_record_id(f, h, h->type != PERF_RECORD_SAMPLE, &id) < 0)
		return false;
	return attr_for_record_id(f, id) == NULL;
}

/* ---- open / close ------------------------------------------------------------- */

static int map_file(struct pd_file *f)
{
	struct stat st;

	f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return scx_fail_errno("%s: cannot open", f->path);
	if (fstat(f->fd, &st) < 0)
		return scx_fail_errno("%s: cannot stat", f->path);
	if (!S_ISREG(st.st_mode))
		return scx_fail("%s: not a regular file", f->path);
	if (st.st_size < 16)
		return scx_fail("%s: truncated header (%lld bytes, need %d)", f->path,
				(long long)st.st_size, PD_HEADER_SIZE);
	f->size = (size_t)st.st_size;
	void *m = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, f->fd, 0);
	if (m == MAP_FAILED)
		return scx_fail_errno("%s: cannot mmap", f->path);
	f->map = m;
	(void)madvise(m, f->size, MADV_SEQUENTIAL);
	return 0;
}

int pd_open(struct pd_file *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (strlen(path) >= sizeof(f->path))
		return scx_fail("%.200s...: path too long", path);
	strcpy(f->path, path);
	if (map_file(f) < 0 || read_header(f) < 0 || read_feature_index(f) < 0 ||
	    load_attrs(f) < 0 || build_id_hash(f) < 0) {
		pd_close(f);
		return -1;
	}
	read_event_desc(f);
	return 0;
}

static bool in_mapping(const struct pd_file *f, const void *p)
{
	const uint8_t *b = p;

	return f->map && b >= f->map && b < f->map + f->size;
}

uint64_t pd_offset_of(const struct pd_file *f, const struct perf_event_header *h)
{
	return (uint64_t)((const uint8_t *)h - f->map);
}

void pd_close(struct pd_file *f)
{
	for (size_t i = 0; f->attrs && i < f->nr_attrs; i++)
		if (f->attrs[i].ids && !in_mapping(f, f->attrs[i].ids))
			free((void *)f->attrs[i].ids);
	free(f->attrs);
	free(f->id_keys);
	free(f->id_vals);
	if (f->map)
		munmap((void *)f->map, f->size);
	if (f->fd >= 0)
		close(f->fd);
	f->attrs = NULL;
	f->id_keys = NULL;
	f->id_vals = NULL;
	f->map = NULL;
	f->fd = -1;
	f->nr_attrs = 0;
	f->id_cap = 0;
}

bool pd_is_perf_data(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) && !memcmp(magic, "PERFILE2", 8);
	close(fd);
	return yes;
}
