/*
 * sched_conv.h - one process-stage scheduling record (struct sched_line,
 * what `process` formats as a sched.jsonl line) as the struct sched_event
 * extract's sched reader (extract/sched/sched_events.h) makes of that line,
 * without the line and without json-c.
 *
 * A record of decoded values (l->trace NULL: the process stage made no
 * text, its values are plain, process/sched/sched_decode.h sched_trace_plain)
 * becomes the event straight from them; its trace is then NULL (the
 * aggregation of extract mem reads no trace text), every other field what
 * the line gives.
 *
 * Only for records whose round trip is plain: every string ASCII (so no
 * U+FFFD replacement) without NUL, pid and tid within int32, times and
 * hints within int64, and not an nmi_handler nor a sched_switch whose text
 * did not parse. sched_conv() says no to the others: the caller then
 * formats the line (process/sched/sched_decode.h) and has sched_events parse it,
 * so every record gives exactly what process + extract give.
 */
#ifndef SCX_PIPELINE_SCHED_CONV_H
#define SCX_PIPELINE_SCHED_CONV_H

#include <stdbool.h>
#include <stddef.h>

#include "extract/extract.h"
#include "process/process.h"

/* What sched_conv learnt of the last event name (a stream has a handful). */
struct sched_conv_cache {
	char event[64];
	enum sched_ev_kind kind;
	bool is_switch, is_nmi, plain;
};

/* Most arena bytes sched_conv() writes for l. */
size_t sched_conv_max(const struct sched_line *l);

/*
 * Fill *ev from l with its strings copied to arena (sched_conv_max(l)
 * bytes free) and return true (c: zeroed before the first call), *used set to the bytes taken; false (ev and
 * arena unused) when l needs the JSON round trip.
 */
bool sched_conv(const struct sched_line *l, struct sched_conv_cache *c, struct sched_event *ev, char *arena,
		size_t *used);

#endif
