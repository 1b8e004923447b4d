/*
 * sched_decode.h - the contract of process/sched/, scheduling decoding: the
 * scheduling stream of the process stage (process_sched.c runs the input
 * path the profile has, sched.data in sched_data.c, perf.sched.data in
 * sched_perfdata.c with the tracing data of sched_tracefmt.c, or
 * perf.sched.script in sched_script.c, into the sink sched_sink.c), and
 * what the rest uses of it: the trace text of the scheduling tracepoints
 * (sched_trace.c, parsed back in sched_trace_parse.c), sched.jsonl lines
 * (sched_jsonl.c) and the names the stream gives threads (thread_names.c).
 * The rest of the library includes nothing else from this room
 * (sched_sink.h, sched_data.h, sched_perfdata.h, sched_script.h and
 * sched_tracefmt.h are its own).
 */
#ifndef SCX_PROCESS_SCHED_H
#define SCX_PROCESS_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/sched_vals.h"
#include "lib/jsonw.h"
#include "lib/u64map.h"
#include "lib/pftrace/perfetto_types.h"
#include "process/process_types.h"

/* ---- sched_trace.c: perf's trace text of the scheduling tracepoints, made from
 * decoded values, shared by the perf.sched.data and sched.data input paths.
 * The formats are the tracefs print fmts of Linux 6.x, e.g. sched_switch:
 *   prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s
 *   next_pid=%d next_prio=%d
 * Task states print as the kernel's tracepoint does ("R", "S", "D", "I",
 * "R+" when preempted, "S|D" if several report bits are set).
 */
enum sched_kind sched_trace_kind_of(const char *system, const char *name);
/* Write the trace text; returns its length (truncated to size - 1). */
size_t sched_trace_format(enum sched_kind k, const struct sched_vals *v, char *out, size_t size);
/*
 * Does the text of v (kind k) parse back to v, field for field, by
 * sched.jsonl's rules (sched_jsonl.c below: sched_switch's fields, the
 * key=value tokens of the others)? True for the kinds sched_trace_format
 * prints as key=value pairs (not nmi_handler nor an unknown event) when
 * every string it prints is ASCII without '=' (no key can hide in it) and,
 * but in a sched_switch (whose comms end at the next key), without ' '.
 * Then the text need not be made to know its fields (sched_jsonl_fields_of,
 * sched_jsonl_switch_of).
 */
bool sched_trace_plain(enum sched_kind k, const struct sched_vals *v);
/* "HI", "TIMER", ... "RCU"; NULL for other vectors. */
const char *sched_trace_softirq_name(uint64_t vec);
/* The values of trace text of kind k (the kinds of a Perfetto trace:
 * switch, waking, wakeup_new, irq/softirq/local-timer entry and exit);
 * false for other kinds or text that does not parse. */
bool sched_trace_vals_from_text(enum sched_kind k, const char *trace, size_t len, struct sched_vals *v);
/* prev_state as the tracepoint reports it (TASK_REPORT bits, 0x100 = preempted). */
void sched_trace_state_from_report(uint64_t report, char *buf, size_t size);
/* prev_state from the raw task->__state bits and the preempt flag (sched.data). */
void sched_trace_state_from_raw(uint64_t raw, bool preempt, char *buf, size_t size);

/* ---- sched_jsonl.c: one line of sched.jsonl (upstream's sched record format):
 *   {"comm":C,"pid":P,"tid":T,"cpu":N,"time":SECONDS.NS,"event":"sched:sched_switch",
 *    "trace":TEXT,"fields":{...},"hint":H,"time_ns":NS}
 * `fields` follows upstream's rules: for sched_switch prev_comm, prev_pid,
 * prev_prio, prev_state, next_comm, next_pid, next_prio, cpu_idle (next is
 * pid 0 or a swapper), prev_idle (the same of prev), prev_hint, next_hint;
 * for other events the key=value pairs of the trace text, numbers as numbers
 * ("[action=NET_RX]" of softirqs gives "action"); for nmi_handler also
 * handler, delta_ns and handled ("HANDLER() delta_ns: N handled: N").
 */
struct sched_switch_info {
	char prev_comm[64], next_comm[64], prev_state[32];
	int64_t prev_pid, prev_prio, next_pid, next_prio;
};

/* Is s[0..n) a whole decimal integer ("-" and a digit, or a digit first; it
 * fits 31 bytes; a NUL ends it)? Then *v is it (strtoll's value: clamped to
 * int64 on overflow): a `fields` value written as a number. */
bool sched_jsonl_parse_i64(const char *s, size_t n, int64_t *v);

/* One key=value token of trace text: the key (1 to 127 bytes) and the
 * value, both inside the text. */
struct sched_kv {
	const char *key, *val;
	size_t kl, vl;
};

/* The next key=value token of trace text from *pos to end: tokens are
 * separated by spaces, one in [ ] is unwrapped (softirq's [action=X]);
 * a token with no '=', an empty key or a key of 128 bytes or more is
 * skipped (sched.jsonl's `fields` leave them out). *pos moves past the
 * token and the space after it, so the caller may overwrite that space.
 * False at the end of the text. */
bool sched_jsonl_kv_next(const char **pos, const char *end, struct sched_kv *kv);

/* Parse sched_switch trace text (comms may contain spaces). */
bool sched_jsonl_parse_switch(const char *trace, size_t len, struct sched_switch_info *si);

/* The fields of a sched_switch's values (kind SK_SWITCH): what
 * sched_jsonl_parse_switch makes of their text when sched_trace_plain. */
void sched_jsonl_switch_of(const struct sched_vals *v, struct sched_switch_info *si);

struct sched_line {
	const char *comm;
	int64_t pid, tid, cpu;
	uint64_t time_ns;
	const char *event;     /* "SYSTEM:NAME" */
	const char *trace;     /* NULL: the text of kind and v, made when written */
	size_t trace_len;
	uint64_t hint;
	const struct sched_switch_info *sw; /* set for a parsed sched_switch */
	uint64_t prev_hint, next_hint;      /* with sw */
	/* With trace NULL: decoded values whose text is plain (sched_trace_plain),
	 * so a reader of the record needs no text (pipeline/sched_conv.h). */
	enum sched_kind kind;
	const struct sched_vals *v;
};

void sched_jsonl_line(struct jsonw *w, const struct sched_line *l);

/* ---- thread_names.c: names of threads as the scheduling stream saw them
 * (sched_switch's prev/next comm, a waking's task, a fork's child, the
 * record's own task), for memory samples of a thread perf.data never named:
 * the kernel lost its COMM record (a full ring), so perf calls it ":TID".
 * Deterministic: a thread's name at a time is the name of its first record
 * at or after that time (a rename shows at the next record), but the one
 * before when that record is the exec that gave the name; else its last.
 */
struct thread_name {
	uint32_t tid;
	uint32_t seq;      /* order seen: ties of time keep it */
	uint64_t time_ns;  /* first and last record giving the name (this run of it) */
	uint64_t last_ns;
	bool exec;         /* the run began with an exec record */
	char comm[32];
};

struct thread_names {
	struct thread_name *v;
	size_t n, cap;
	struct u64map last; /* tid -> index + 1 of its last name noted (while noting) */
	int sorted;
};

void thread_names_init(struct thread_names *t);
void thread_names_free(struct thread_names *t);
/* One task seen under a name at time_ns (exec: by its exec record, the
 * exact time it took the name). Ignored: tid <= 0, an empty comm and perf's
 * placeholder ":TID". -1 with scx_errmsg() set (out of memory). */
int thread_names_note(struct thread_names *t, int64_t tid, uint64_t time_ns, const char *comm, bool exec);
/* Every task one scheduling record names (d may be NULL: the record's own
 * task only). */
int thread_names_note_record(struct thread_names *t, const char *comm, int64_t tid, uint64_t time_ns,
			     enum sched_kind kind, const struct sched_vals *v);
/* Done noting: sorts. */
void thread_names_finish(struct thread_names *t);
/* tid's name at time_ns, or NULL when the stream never named it. */
const char *thread_names_lookup(const struct thread_names *t, int64_t tid, uint64_t time_ns);

/* ---- process_sched.c: the scheduling stream of the process stage: whichever
 * of sched.data, perf.sched.data or perf.sched.script the profile has, into
 * sched.jsonl lines (and the Perfetto trace).
 */
/* Run the profile's sched input path into out (sched.jsonl) and trace (when
 * not NULL); fills res->sched and adds warnings to res. */
int process_sched(const struct process_opts *opts, FILE *out, struct pftrace *trace, struct process_result *res);
/* The names the sched input gives threads (thread_names.c, above), finished; writes
 * nothing. Needs opts->in->sched_kind != SCHED_IN_NONE. */
int process_sched_names(const struct process_opts *opts, struct thread_names *names);

#endif
