/*
 * sched_events.h - a streaming reader of sched JSONL (ours or upstream's
 * perf.sched.jsonl): one line at a time into a small struct holding what
 * `extract sched util` and `extract sched stats` need.
 *
 * A line is {"comm","pid","tid","cpu","time" (float seconds),"event",
 * "trace","fields":{...},"hint"} plus an optional integer "time_ns", which
 * is preferred. Without it the time is converted from the decimal text of
 * "time" exactly (upstream truncates time*1e9 in floating point, so its
 * nanoseconds may be one lower). Required keys are upstream's (every key
 * but fields and hint); a missing or mistyped one is "FILE:LINE: what".
 */
#ifndef SCX_EXTRACT_SCHED_EVENTS_H
#define SCX_EXTRACT_SCHED_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "extract/sched/sched_event_types.h"

struct sched_reader;

/* in may be NULL for a reader fed by sched_events_parse_line only. */
struct sched_reader *sched_events_open(FILE *in, const char *path);
void sched_events_close(struct sched_reader *r);
/* 1: *ev filled; 0: end of input; -1: scx_fail("PATH:LINE: what"). Blank lines are skipped. */
int sched_events_next(struct sched_reader *r, struct sched_event *ev);
/* A line handed over by the caller instead (line[0..len), no newline; lineno
 * for messages): 1 filled, 0 blank, -1 as above. */
int sched_events_parse_line(struct sched_reader *r, unsigned long long lineno, char *line, size_t len,
			    struct sched_event *ev);
/* Every line through json-c, none through the fast parser of our own
 * lines (sched_events_fast.h): for tests that compare the two. */
void sched_events_set_json_only(struct sched_reader *r, bool on);

/* The kind of an event name ("sched:sched_switch" ...), SEV_OTHER for the rest. */
enum sched_ev_kind sched_events_kind(const char *event);

/* Decimal seconds text ("12.000000345", "1e-3") -> ns; -1 if not a non-negative number. */
int sched_events_seconds_to_ns(const char *s, uint64_t *ns);

#endif
