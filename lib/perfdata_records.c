/*
 * perfdata_records.c - the records of a perf.data file's data section (see
 * perfdata.h): their names, the bounded walk, the pages given back behind
 * it, and each record's time (its attr from the core, perfdata.c). Every
 * length taken from the file is checked against the mapping before use.
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
					pd_rec_off(f, h));
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
				f->path, pd_rec_off(f, h));
	*time = rd64((const uint8_t *)h + h->size - idx * 8);
	return 1;
}
