/*
 * perfdata_sample.c - decoding a perf.data SAMPLE record and the
 * sample_id trailer of other records (see perfdata.h): a bounded forward
 * reader over the record body, each PERF_SAMPLE_* field in the kernel's
 * order. Every length taken from the file is checked before use.
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
	return scx_fail("%s: %s at offset %llu: %s", b->f->path, b->kind, pd_rec_off(b->f, b->h),
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

/* A sample whose fields all have a fixed size and fit its body (checked by
 * the caller): the same fields in the same order as the bounded reader
 * above, without a check per field. */
static void parse_fixed_sample(const uint8_t *p, uint64_t st, struct pd_sample *s)
{
#define TAKE(bit, dst)                    \
	if (st & (bit)) {                 \
		(dst) = rd64(p);          \
		p += 8;                   \
	}
	TAKE(PERF_SAMPLE_IDENTIFIER, s->id);
	TAKE(PERF_SAMPLE_IP, s->ip);
	if (st & PERF_SAMPLE_TID) {
		s->pid = rd32(p);
		s->tid = rd32(p + 4);
		p += 8;
	}
	TAKE(PERF_SAMPLE_TIME, s->time);
	TAKE(PERF_SAMPLE_ADDR, s->addr);
	TAKE(PERF_SAMPLE_ID, s->id);
	TAKE(PERF_SAMPLE_STREAM_ID, s->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		s->cpu = rd32(p);
		p += 8;
	}
	TAKE(PERF_SAMPLE_PERIOD, s->period);
	if (st & PERF_SAMPLE_WEIGHT_TYPE) {
		set_weight(st, rd64(p), s);
		p += 8;
	}
	TAKE(PERF_SAMPLE_DATA_SRC, s->data_src);
	TAKE(PERF_SAMPLE_TRANSACTION, s->transaction);
	TAKE(PERF_SAMPLE_PHYS_ADDR, s->phys_addr);
	TAKE(PERF_SAMPLE_CGROUP, s->cgroup);
	TAKE(PERF_SAMPLE_DATA_PAGE_SIZE, s->data_page_size);
	TAKE(PERF_SAMPLE_CODE_PAGE_SIZE, s->code_page_size);
#undef TAKE
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
	if (s->attr->fixed_sample_size && b.len >= s->attr->fixed_sample_size) {
		parse_fixed_sample(b.p, attr->sample_type, s);
		s->present = attr->sample_type;
		return 0;
	}
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
