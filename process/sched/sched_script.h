/*
 * sched_script.h - upstream's perf.sched.script into the scheduling stream's
 * sink (sched_sink.h). One line is the text of
 * `perf script -F comm,pid,tid,cpu,time,event,trace`:
 *   COMM PID/TID [CPU] SECONDS.FRACTION: SYSTEM:EVENT: TRACE
 * The comm may contain spaces; the first "PID/TID [CPU] TIME:" that follows
 * a space is where it ends. [CPU] is optional (cpu -1 then). The fraction has
 * 6 (perf's default) or 9 (--ns) digits; time_ns pads it. PID and TID are
 * int32, perf prints -1 for a task the kernel had no id for (a thread's last
 * switch-out after it exited: comm ":-1", tid -1).
 */
#ifndef SCX_SCHED_SCRIPT_H
#define SCX_SCHED_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "process/sched/sched_sink.h"

struct sched_script_line {
	char comm[256];
	int64_t pid, tid, cpu;
	uint64_t time_ns;
	char event[128];
	const char *trace;  /* points into the line */
	size_t trace_len;
};

/* 0 on success; -1 with the reason in scx_errmsg(). */
int sched_script_parse_line(const char *line, size_t len, struct sched_script_line *out);

/* Read path into the scheduling stream's sink. -1 with scx_errmsg() set. */
int sched_script_read(struct sched_sink *s, const char *path);

#endif
