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

enum sched_ev_kind {
	SEV_OTHER,
	SEV_SWITCH,       /* sched:sched_switch */
	SEV_WAKEUP,       /* sched:sched_wakeup */
	SEV_WAKEUP_NEW,   /* sched:sched_wakeup_new */
	SEV_WAKING,       /* sched:sched_waking */
	SEV_MIGRATE,      /* sched:sched_migrate_task */
	SEV_EXIT,         /* sched:sched_process_exit */
	SEV_EXEC,         /* sched:sched_process_exec */
	SEV_IRQ_ENTRY,    /* irq:irq_handler_entry */
	SEV_IRQ_EXIT,     /* irq:irq_handler_exit */
	SEV_SOFTIRQ_ENTRY,/* irq:softirq_entry */
	SEV_SOFTIRQ_EXIT, /* irq:softirq_exit */
};

/* One line. Strings point into the reader and live until the next read. */
struct sched_event {
	const char *comm, *event, *trace;
	int64_t pid, tid;
	uint32_t cpu;
	uint64_t time_ns;
	bool time_ok;       /* false: negative or non-finite time (upstream skips the line) */
	uint64_t hint;      /* 0 when absent */
	enum sched_ev_kind kind;
	bool has_fields;
	/* sched_switch (has_switch: has_fields and the next_* keys) */
	const char *prev_comm, *prev_state, *next_comm;
	int64_t prev_pid;           /* -1 when absent */
	int64_t next_pid;           /* INT64_MIN when absent */
	uint64_t next_hint;         /* 0 when absent */
	/* wakeups, exit, exec, migrate: fields.pid (-1 when absent) */
	int64_t f_pid;
	int64_t target_cpu, dest_cpu; /* -1 when absent */
	const char *action;           /* softirq action ("" when absent) */
};

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
