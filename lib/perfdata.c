/*
 * perfdata.c - reader for perf.data files ("PERFILE2", little-endian, file
 * mode): maps the file, validates the header, attribute, id and feature
 * sections, walks the records of the data section and decodes samples and
 * sample_id trailers. Every length taken from the file is checked against
 * the mapping before use. See perfdata.h for the contract.
 */
#include "lib/perfdata.h"

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

/* Branch counters (kernel 6.8+): one u64 per branch entry after the entries.
 * The bit is ABI; older headers lack the enum value. */
#define PD_SAMPLE_BRANCH_COUNTERS (1ULL << 19)

#define PD_MAX_ATTR_SIZE 4096
#define PD_BRANCH_ENTRY_SIZE 24
#define PD_TRAILER_BITS                                                          \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* ---- small helpers ------------------------------------------------------ */

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static size_t popcount64(uint64_t v)
{
	return (size_t)__builtin_popcountll(v);
}

/* True when [off, off+len) lies within a buffer of `size` bytes. */
static bool range_ok(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

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
static struct pd_attr *id_lookup(const struct pd_file *f, uint64_t id)
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

const struct pd_attr *pd_attr_by_id(const struct pd_file *f, uint64_t id)
{
	const struct pd_attr *a = id_lookup(f, id);

	if (a)
		return a;
	scx_fail("%s: unknown sample id %llu", f->path, (unsigned long long)id);
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
		struct pd_attr *a = id_lookup(f, rd64(p + off + 8 * (uint64_t)i));

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

/* ---- record names --------------------------------------------------------------- */

const char *pd_record_name(uint32_t type)
{
	static const char *const kernel[] = {
		[PERF_RECORD_MMAP] = "MMAP",
		[PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE",
		[PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
		[21] = "AUX_OUTPUT_HW_ID",
	};
	static const char *const user[] = {
		"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
		"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
		"THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
		"TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT",
	};
	const size_t nk = sizeof(kernel) / sizeof(kernel[0]);
	const size_t nu = sizeof(user) / sizeof(user[0]);

	if (type < nk && kernel[type])
		return kernel[type];
	if (type >= PD_RECORD_HEADER_ATTR && type - PD_RECORD_HEADER_ATTR < nu)
		return user[type - PD_RECORD_HEADER_ATTR];
	return "UNKNOWN";
}

/* ---- record walk -------------------------------------------------------------- */

void pd_cursor_init(struct pd_cursor *c, const struct pd_file *f)
{
	c->f = f;
	c->pos = f->data_sec.offset;
	c->end = f->data_sec.offset + f->data_sec.size;
	if (f->data_sec.size == 0)
		c->pos = c->end;
}

static int bad_record(const struct pd_cursor *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad_record(const struct pd_cursor *c, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return scx_fail("%s: record at offset %llu: %s", c->f->path, (unsigned long long)c->pos,
			what);
}

/* Bytes of AUXTRACE payload following a record of `size` bytes at c->pos, or
 * -1 when it does not fit. */
static int auxtrace_payload(const struct pd_cursor *c, uint32_t size, uint64_t *payload)
{
	if (size < 16)
		return bad_record(c, "AUXTRACE record of size %u has no payload size", size);
	*payload = rd64(c->f->map + c->pos + 8);
	if (*payload % 8 != 0)
		return bad_record(c, "AUXTRACE payload of %llu bytes is not a multiple of 8",
				  (unsigned long long)*payload);
	if (*payload > c->end - (c->pos + size))
		return bad_record(c, "AUXTRACE payload of %llu bytes runs past the data end (%llu)",
				  (unsigned long long)*payload, (unsigned long long)c->end);
	return 0;
}

int pd_next(struct pd_cursor *c, const struct perf_event_header **h)
{
	if (c->pos >= c->end)
		return 0;
	if (c->end - c->pos < sizeof(struct perf_event_header))
		return bad_record(c, "only %llu bytes left in the data section",
				  (unsigned long long)(c->end - c->pos));
	const uint8_t *p = c->f->map + c->pos;
	uint16_t size;
	uint32_t type;

	memcpy(&type, p, sizeof(type));
	memcpy(&size, p + 6, sizeof(size));
	if (size < sizeof(struct perf_event_header))
		return bad_record(c, "size %u is smaller than the record header", size);
	if (size > c->end - c->pos)
		return bad_record(c, "size %u runs past the end of the data section (%llu)", size,
				  (unsigned long long)c->end);
	if (size % 8 != 0)
		return bad_record(c, "size %u is not a multiple of 8", size);
	uint64_t payload = 0;
	if (type == PD_RECORD_AUXTRACE && auxtrace_payload(c, size, &payload) < 0)
		return -1;
	*h = (const struct perf_event_header *)(const void *)p;
	c->pos += size + payload;
	return 1;
}

uint64_t pd_offset_of(const struct pd_file *f, const struct perf_event_header *h)
{
	return (uint64_t)((const uint8_t *)h - f->map);
}

void pd_release_before(struct pd_file *f, uint64_t offset)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t end;

	if (!f->map || page <= 0)
		return;
	if (offset > f->size)
		offset = f->size;
	end = offset & ~((uint64_t)page - 1);
	if (end <= f->released)
		return;
	(void)madvise((void *)(f->map + f->released), end - f->released, MADV_DONTNEED);
	f->released = end;
}

/* ---- attr lookup for a record ------------------------------------------------- */

static unsigned long long rec_off(const struct pd_file *f, const struct perf_event_header *h)
{
	return (unsigned long long)pd_offset_of(f, h);
}

/* Records that perf synthesizes (COMM, MMAP, ... from /proc) carry id 0:
 * like perf, give them to the first attr unless 0 is a real id. */
static const struct pd_attr *attr_for_record_id(const struct pd_file *f, uint64_t id)
{
	const struct pd_attr *a = id_lookup(f, id);

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
				rec_off(f, h), h->size);
	if (!trailer) {
		idx = f->attrs[0].id_index_sample;
		if (idx == SIZE_MAX)
			return scx_fail("%s: sample at offset %llu: %zu event attributes but sample_type has "
					"neither ID nor IDENTIFIER, cannot tell them apart",
					f->path, rec_off(f, h), f->nr_attrs);
		if ((idx + 1) * 8 > body)
			return scx_fail("%s: sample at offset %llu: record too short to hold its sample id",
					f->path, rec_off(f, h));
		*id = rd64((const uint8_t *)h + 8 + idx * 8);
		return 0;
	}
	idx = f->attrs[0].id_index_trailer;
	if (!f->sample_id_all || idx == 0)
		return scx_fail("%s: record at offset %llu: %zu event attributes but no id in the "
				"sample_id trailer (needs sample_id_all and ID or IDENTIFIER)",
				f->path, rec_off(f, h), f->nr_attrs);
	if (idx * 8 > body)
		return scx_fail("%s: record at offset %llu: too short to hold its sample id", f->path,
				rec_off(f, h));
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
			 trailer ? "record" : "sample", rec_off(f, h), (unsigned long long)id);
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

int pd_record_time(const struct pd_file *f, const struct perf_event_header *h, uint64_t *time)
{
	const struct pd_attr *a;
	size_t body = h->size >= 8 ? (size_t)h->size - 8 : 0, idx;

	if (h->type >= PD_RECORD_HEADER_ATTR)
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (!(a = pd_attr_for_sample(f, h)))
			return -1;
		idx = a->time_index_sample;
		if (idx == SIZE_MAX)
			return 0;
		if ((idx + 1) * 8 > body)
			return scx_fail("%s: sample at offset %llu: too short to hold its time", f->path,
					rec_off(f, h));
		*time = rd64((const uint8_t *)h + 8 + idx * 8);
		return 1;
	}
	if (!f->sample_id_all)
		return 0;
	if (!(a = pd_attr_for_trailer(f, h)))
		return -1;
	idx = a->time_index_trailer;
	if (!idx)
		return 0;
	if (a->trailer_size > body)
		return scx_fail("%s: record at offset %llu: too short to hold its sample_id trailer",
				f->path, rec_off(f, h));
	*time = rd64((const uint8_t *)h + h->size - idx * 8);
	return 1;
}

bool pd_id_is_unknown(const struct pd_file *f, const struct perf_event_header *h)
{
	uint64_t id;

	if (f->nr_attrs < 2 || h->type >= PD_RECORD_HEADER_ATTR ||
	    read_record_id(f, h, h->type != PERF_RECORD_SAMPLE, &id) < 0)
		return false;
	return attr_for_record_id(f, id) == NULL;
}


/* ---- sample decoding ------------------------------------------------------------ */

/* A bounded forward reader over one record body. */
struct body {
	const struct pd_file *f;
	const struct perf_event_header *h;
	const uint8_t *p;
	size_t pos, len;
	const char *kind; /* "sample" or "record" */
};

static int body_fail(const struct body *b, const char *what)
{
	return scx_fail("%s: %s at offset %llu: %s", b->f->path, b->kind, rec_off(b->f, b->h),
			what);
}

static int short_for(const struct body *b, const char *field)
{
	char what[128];

	snprintf(what, sizeof(what), "record ends before the %s field", field);
	return body_fail(b, what);
}

static int take_u64(struct body *b, uint64_t *v, const char *field)
{
	if (b->len - b->pos < 8)
		return short_for(b, field);
	*v = rd64(b->p + b->pos);
	b->pos += 8;
	return 0;
}

/* Two u32 packed in one u64 slot (pid/tid, cpu/res). */
static int take_u32_pair(struct body *b, uint32_t *lo, uint32_t *hi, const char *field)
{
	if (b->len - b->pos < 8)
		return short_for(b, field);
	*lo = rd32(b->p + b->pos);
	*hi = rd32(b->p + b->pos + 4);
	b->pos += 8;
	return 0;
}

/* Reserve nr entries of `each` bytes; fails (without overflow) when they do not fit. */
static int take_array(struct body *b, uint64_t nr, size_t each, const void **out, const char *what)
{
	size_t left = b->len - b->pos;

	if (nr > left / each) {
		char msg[160];

		snprintf(msg, sizeof(msg), "%s of %llu entries exceeds the record", what,
			 (unsigned long long)nr);
		return body_fail(b, msg);
	}
	*out = b->p + b->pos;
	b->pos += (size_t)nr * each;
	return 0;
}

static int take_bytes(struct body *b, uint64_t size, const void **out, const char *what)
{
	char msg[160];

	if (size > b->len - b->pos) {
		snprintf(msg, sizeof(msg), "%s of %llu bytes exceeds the record", what,
			 (unsigned long long)size);
		return body_fail(b, msg);
	}
	*out = b->p + b->pos;
	b->pos += (size_t)size;
	if (b->pos % 8 != 0) {
		snprintf(msg, sizeof(msg), "%s of %llu bytes leaves the sample misaligned", what,
			 (unsigned long long)size);
		return body_fail(b, msg);
	}
	return 0;
}

static int parse_read(struct body *b, const struct perf_event_attr *attr, struct pd_sample *s)
{
	uint64_t rf = attr->read_format;
	size_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	size_t per_value = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
	size_t start = b->pos;
	const void *dummy;

	if (rf & PERF_FORMAT_GROUP) {
		uint64_t nr;

		if (take_u64(b, &nr, "read_format group nr") < 0 ||
		    take_array(b, times, 8, &dummy, "read_format times") < 0 ||
		    take_array(b, nr, per_value, &dummy, "read_format group") < 0)
			return -1;
	} else if (take_array(b, 1, per_value + 8 * times, &dummy, "read_format value") < 0) {
		return -1;
	}
	s->read = b->p + start;
	s->read_size = b->pos - start;
	return 0;
}

static int parse_regs(struct body *b, uint64_t mask, uint64_t *abi, const uint64_t **regs,
		      const char *what)
{
	const void *p;

	if (take_u64(b, abi, what) < 0)
		return -1;
	if (*abi == 0)
		return 0;
	if (take_array(b, popcount64(mask), 8, &p, what) < 0)
		return -1;
	*regs = p;
	return 0;
}

static int parse_branch_stack(struct body *b, const struct perf_event_attr *attr, struct pd_sample *s)
{
	const void *counters;

	if (take_u64(b, &s->branch_nr, "branch stack nr") < 0)
		return -1;
	if ((attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) &&
	    take_u64(b, &s->branch_hw_idx, "branch hw_idx") < 0)
		return -1;
	if (take_array(b, s->branch_nr, PD_BRANCH_ENTRY_SIZE, &s->branch_entries,
		       "branch stack") < 0)
		return -1;
	if ((attr->branch_sample_type & PD_SAMPLE_BRANCH_COUNTERS) &&
	    take_array(b, s->branch_nr, 8, &counters, "branch counters") < 0)
		return -1;
	return 0;
}

static int parse_stack_user(struct body *b, struct pd_sample *s)
{
	if (take_u64(b, &s->stack_user_size, "user stack size") < 0)
		return -1;
	if (s->stack_user_size == 0)
		return 0;
	if (take_bytes(b, s->stack_user_size, &s->stack_user, "user stack") < 0)
		return -1;
	return take_u64(b, &s->stack_user_dyn_size, "user stack dyn_size");
}

static int parse_raw(struct body *b, struct pd_sample *s)
{
	if (b->len - b->pos < 4)
		return short_for(b, "raw size");
	s->raw_size = rd32(b->p + b->pos);
	b->pos += 4;
	return take_bytes(b, s->raw_size, &s->raw, "raw data");
}

static void set_weight(uint64_t st, uint64_t w, struct pd_sample *s)
{
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		s->weight_var1 = (uint32_t)w;
		s->weight_var2 = (uint16_t)(w >> 32);
		s->weight_var3 = (uint16_t)(w >> 48);
		s->weight = s->weight_var1;
	} else {
		s->weight = w;
	}
}

/* The fixed-size fields before PERF_SAMPLE_READ. */
static int parse_sample_head(struct body *b, uint64_t st, struct pd_sample *s)
{
	uint32_t res;

	if ((st & PERF_SAMPLE_IDENTIFIER) && take_u64(b, &s->id, "identifier") < 0)
		return -1;
	if ((st & PERF_SAMPLE_IP) && take_u64(b, &s->ip, "ip") < 0)
		return -1;
	if ((st & PERF_SAMPLE_TID) && take_u32_pair(b, &s->pid, &s->tid, "pid/tid") < 0)
		return -1;
	if ((st & PERF_SAMPLE_TIME) && take_u64(b, &s->time, "time") < 0)
		return -1;
	if ((st & PERF_SAMPLE_ADDR) && take_u64(b, &s->addr, "addr") < 0)
		return -1;
	if ((st & PERF_SAMPLE_ID) && take_u64(b, &s->id, "id") < 0)
		return -1;
	if ((st & PERF_SAMPLE_STREAM_ID) && take_u64(b, &s->stream_id, "stream_id") < 0)
		return -1;
	if ((st & PERF_SAMPLE_CPU) && take_u32_pair(b, &s->cpu, &res, "cpu") < 0)
		return -1;
	if ((st & PERF_SAMPLE_PERIOD) && take_u64(b, &s->period, "period") < 0)
		return -1;
	return 0;
}

/* READ through STACK_USER: the variable-size middle of a sample. */
static int parse_sample_middle(struct body *b, const struct perf_event_attr *attr, struct pd_sample *s)
{
	uint64_t st = attr->sample_type;
	const void *p;

	if ((st & PERF_SAMPLE_READ) && parse_read(b, attr, s) < 0)
		return -1;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (take_u64(b, &s->callchain_nr, "callchain nr") < 0 ||
		    take_array(b, s->callchain_nr, 8, &p, "callchain") < 0)
			return -1;
		s->callchain = p;
	}
	if ((st & PERF_SAMPLE_RAW) && parse_raw(b, s) < 0)
		return -1;
	if ((st & PERF_SAMPLE_BRANCH_STACK) && parse_branch_stack(b, attr, s) < 0)
		return -1;
	if ((st & PERF_SAMPLE_REGS_USER) &&
	    parse_regs(b, attr->sample_regs_user, &s->regs_user_abi, &s->regs_user, "user regs") < 0)
		return -1;
	if ((st & PERF_SAMPLE_STACK_USER) && parse_stack_user(b, s) < 0)
		return -1;
	return 0;
}

/* WEIGHT through AUX. */
static int parse_sample_tail(struct body *b, const struct perf_event_attr *attr, struct pd_sample *s)
{
	uint64_t st = attr->sample_type;
	uint64_t w;

	if (st & PERF_SAMPLE_WEIGHT_TYPE) {
		if (take_u64(b, &w, "weight") < 0)
			return -1;
		set_weight(st, w, s);
	}
	if ((st & PERF_SAMPLE_DATA_SRC) && take_u64(b, &s->data_src, "data_src") < 0)
		return -1;
	if ((st & PERF_SAMPLE_TRANSACTION) && take_u64(b, &s->transaction, "transaction") < 0)
		return -1;
	if ((st & PERF_SAMPLE_REGS_INTR) &&
	    parse_regs(b, attr->sample_regs_intr, &s->regs_intr_abi, &s->regs_intr, "intr regs") < 0)
		return -1;
	if ((st & PERF_SAMPLE_PHYS_ADDR) && take_u64(b, &s->phys_addr, "phys_addr") < 0)
		return -1;
	if ((st & PERF_SAMPLE_CGROUP) && take_u64(b, &s->cgroup, "cgroup") < 0)
		return -1;
	if ((st & PERF_SAMPLE_DATA_PAGE_SIZE) &&
	    take_u64(b, &s->data_page_size, "data_page_size") < 0)
		return -1;
	if ((st & PERF_SAMPLE_CODE_PAGE_SIZE) &&
	    take_u64(b, &s->code_page_size, "code_page_size") < 0)
		return -1;
	if (st & PERF_SAMPLE_AUX) {
		if (take_u64(b, &s->aux_size, "aux size") < 0 ||
		    take_bytes(b, s->aux_size, &s->aux, "aux data") < 0)
			return -1;
	}
	return 0;
}

int pd_parse_sample(const struct pd_file *f, const struct perf_event_header *h, struct pd_sample *s)
{
	struct body b = { f, h, (const uint8_t *)h + 8, 0, 0, "sample" };

	memset(s, 0, sizeof(*s));
	s->misc = h->misc;
	if (h->size < 8)
		return body_fail(&b, "record size is smaller than its header");
	b.len = (size_t)h->size - 8;
	if (h->type != PERF_RECORD_SAMPLE)
		return body_fail(&b, "not a SAMPLE record");
	s->attr = pd_attr_for_sample(f, h);
	if (!s->attr)
		return -1;
	const struct perf_event_attr *attr = &s->attr->attr;
	if (parse_sample_head(&b, attr->sample_type, s) < 0 ||
	    parse_sample_middle(&b, attr, s) < 0 || parse_sample_tail(&b, attr, s) < 0)
		return -1;
	s->present = attr->sample_type;
	return 0;
}

static bool has_trailer(const struct pd_file *f, const struct perf_event_header *h)
{
	return f->sample_id_all && h->type != PERF_RECORD_SAMPLE &&
	       h->type < PD_RECORD_HEADER_ATTR;
}

int pd_parse_sample_id(const struct pd_file *f, const struct perf_event_header *h, struct pd_sample *s)
{
	struct body b = { f, h, (const uint8_t *)h + 8, 0, 0, "record" };
	uint32_t res;

	if (h->type == PERF_RECORD_SAMPLE)
		return pd_parse_sample(f, h, s);
	memset(s, 0, sizeof(*s));
	s->misc = h->misc;
	if (!has_trailer(f, h))
		return 0;
	if (h->size < 8)
		return body_fail(&b, "record size is smaller than its header");
	s->attr = pd_attr_for_trailer(f, h);
	if (!s->attr)
		return -1;
	uint64_t st = s->attr->attr.sample_type;
	size_t body = (size_t)h->size - 8;
	if (s->attr->trailer_size > body) {
		char msg[128];

		snprintf(msg, sizeof(msg), "body of %zu bytes is shorter than the sample_id trailer "
			 "(%zu bytes)", body, s->attr->trailer_size);
		return body_fail(&b, msg);
	}
	b.pos = body - s->attr->trailer_size;
	b.len = body;
	if (((st & PERF_SAMPLE_TID) && take_u32_pair(&b, &s->pid, &s->tid, "pid/tid") < 0) ||
	    ((st & PERF_SAMPLE_TIME) && take_u64(&b, &s->time, "time") < 0) ||
	    ((st & PERF_SAMPLE_ID) && take_u64(&b, &s->id, "id") < 0) ||
	    ((st & PERF_SAMPLE_STREAM_ID) && take_u64(&b, &s->stream_id, "stream_id") < 0) ||
	    ((st & PERF_SAMPLE_CPU) && take_u32_pair(&b, &s->cpu, &res, "cpu") < 0) ||
	    ((st & PERF_SAMPLE_IDENTIFIER) && take_u64(&b, &s->id, "identifier") < 0))
		return -1;
	s->present = st & PD_TRAILER_BITS;
	return 0;
}

size_t pd_body_size(const struct pd_file *f, const struct perf_event_header *h)
{
	size_t body = h->size >= 8 ? (size_t)h->size - 8 : 0;

	if (!has_trailer(f, h))
		return body;
	const struct pd_attr *a = pd_attr_for_trailer(f, h);
	if (!a || a->trailer_size > body)
		return 0;
	return body - a->trailer_size;
}

/* ---- BUILD_ID feature --------------------------------------------------- */

/*
 * Entries are perf_record_header_build_id: a perf_event_header, pid (s32),
 * 24 bytes of build-id (20 of id, then its size when misc has
 * PERF_RECORD_MISC_BUILD_ID_SIZE), and the NUL-padded file name, header.size
 * bytes in all.
 */
int pd_build_id_for(const struct pd_file *f, const char *filename, uint8_t bid[20], size_t *size)
{
	const uint8_t *p, *end;
	const void *data;
	uint64_t len;

	if (pd_feature(f, PD_FEAT_BUILD_ID, &data, &len) < 0)
		return 0;
	p = data;
	end = p + len;
	while (end - p >= 8 + 4 + 24) {
		struct perf_event_header h;
		const char *name;
		size_t name_max;

		memcpy(&h, p, sizeof(h));
		if (h.size < 8 + 4 + 24 || h.size > end - p)
			return 0;
		name = (const char *)p + 8 + 4 + 24;
		name_max = h.size - (8 + 4 + 24);
		if (strnlen(name, name_max) < name_max && !strcmp(name, filename)) {
			size_t n = 20;

			if (h.misc & (1 << 15)) /* PERF_RECORD_MISC_BUILD_ID_SIZE */
				n = p[8 + 4 + 20] <= 20 ? p[8 + 4 + 20] : 20;
			else
				while (n > 0 && p[8 + 4 + n - 1] == 0) /* perf trims trailing zeros */
					n--;
			memcpy(bid, p + 8 + 4, n);
			*size = n;
			return n > 0;
		}
		p += h.size;
	}
	return 0;
}
