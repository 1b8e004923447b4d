/*
 * sched_event_types.h - one line of sched JSONL as the reader hands it out
 * (struct sched_event, its kind). Shared by the reader (sched_events.h) and
 * the parser of our own writer's lines (sched_events_fast.h), which fills it
 * in place; declares no functions.
 */
#ifndef SCX_EXTRACT_SCHED_EVENT_TYPES_H
#define SCX_EXTRACT_SCHED_EVENT_TYPES_H

#include <stdbool.h>
#include <stdint.h>

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

#endif
