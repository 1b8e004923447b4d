/*
 * sched_events_fast.h - a parser for the sched.jsonl lines our own writer
 * (process/sched/sched_jsonl.c) produces, without a general JSON parser: the keys
 * in the writer's order, no whitespace, no escapes, integers without
 * leading zeros, fields values that are strings, integers or booleans. A
 * line of any other shape is left to the caller's general parser (json-c
 * in sched_events.c), which gives the same values for the lines taken here
 * (tests/unit/test_sched_events_fast.c, fuzz/fuzz_sched_fast.c) and the
 * error lines for the others.
 */
#ifndef SCX_EXTRACT_SCHED_EVENTS_FAST_H
#define SCX_EXTRACT_SCHED_EVENTS_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extract/sched/sched_event_types.h"

#define SCHED_FAST_TIME_MAX 40

/* What a line holds: the struct sched_event sched_events.c hands out, but
 * for the time (its text here, and time_ns when the line has one), kind,
 * has_fields and an absent action (NULL here, "" there). */
struct sched_fast_line {
	struct sched_event ev;  /* prev_comm, prev_state, next_comm, action: NULL when absent or not strings */
	const char *time_text;  /* "time"'s digits (not NUL-terminated, at most SCHED_FAST_TIME_MAX) */
	size_t time_len;
	bool has_time_ns;       /* ev.time_ns is the line's */
};

/*
 * line[0..len), no surrounding whitespace: 1 with *l filled (its strings
 * point into line, whose closing quotes became NULs), 0 when the line is
 * not of the writer's shape or a value is out of range (line untouched).
 */
int sched_events_fast_parse(char *line, size_t len, struct sched_fast_line *l);

#endif
