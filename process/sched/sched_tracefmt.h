/*
 * sched_tracefmt.h - the tracing data of a perf.data file (feature section
 * HEADER_TRACING_DATA, bit 1): perf's copy of the tracefs `format` files of
 * the recorded tracepoints, and of /proc/kallsyms. Parses the field lists
 * ("field:TYPE NAME; offset:N; size:N; signed:N;") and print fmt of each
 * event, and decodes field values from a sample's raw data.
 *
 * Everything read from the blob and from raw data is bounds-checked: a
 * hostile file yields -1 with scx_errmsg(), or a field that reads as absent.
 */
#ifndef SCX_SCHED_TRACEFMT_H
#define SCX_SCHED_TRACEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tf_field {
	char name[64];
	char type[96];       /* "pid_t", "char[16]" (array suffix moved here), "__data_loc char[]" */
	uint32_t offset, size;
	bool is_signed;
	bool is_data_loc;    /* u32: length << 16 | offset of the data in the record */
	bool is_char_array;  /* char NAME[N]: a NUL-padded string */
	bool common;         /* common_* header fields */
};

struct tf_event {
	uint32_t id;
	char system[64];
	char name[64];
	struct tf_field *fields;
	size_t nr_fields, cap_fields;
	char *print_fmt;     /* the text after "print fmt: ", or NULL */
};

struct tf_ksym {
	uint64_t addr;
	char *name;
};

struct tf_data {
	struct tf_event *events;
	size_t nr_events;
	char version[16];
	uint8_t long_size;
	struct tf_ksym *ksyms;  /* sorted by address; from the kallsyms part */
	size_t nr_ksyms;
};

/* Parse a whole tracing data blob (what perf's trace-event-info writes). */
int tf_parse(struct tf_data *d, const void *buf, size_t size);
/* Parse one format file into ev (system given by the caller). */
int tf_parse_format(struct tf_event *ev, const char *system, const char *text, size_t len);
void tf_event_free(struct tf_event *ev);
void tf_free(struct tf_data *d);

const struct tf_event *tf_event_by_id(const struct tf_data *d, uint32_t id);
const struct tf_field *tf_find_field(const struct tf_event *ev, const char *name);

/* Integer value of a field (sign-extended when signed). false when the field
 * is absent, not 1/2/4/8 bytes, or outside the raw data. */
bool tf_get_int(const struct tf_event *ev, const char *name, const void *raw, size_t raw_size, int64_t *v);
/* String of a char array or __data_loc field, into buf (always terminated).
 * false when absent or out of bounds. */
bool tf_get_str(const struct tf_event *ev, const char *name, const void *raw, size_t raw_size,
		char *buf, size_t bufsz);
/* Generic text of one field's value ("123", "abc", or hex bytes). */
void tf_field_text(const struct tf_field *f, const void *raw, size_t raw_size, char *buf, size_t bufsz);

/* Symbol name at addr (exact or the nearest below), or NULL. */
const char *tf_ksym(const struct tf_data *d, uint64_t addr);

#endif
