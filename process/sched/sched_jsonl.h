/*
 * sched_jsonl.h - one line of sched.jsonl (upstream's sched record format):
 *   {"comm":C,"pid":P,"tid":T,"cpu":N,"time":SECONDS.NS,"event":"sched:sched_switch",
 *    "trace":TEXT,"fields":{...},"hint":H,"time_ns":NS}
 * `fields` follows upstream's rules: for sched_switch prev_comm, prev_pid,
 * prev_prio, prev_state, next_comm, next_pid, next_prio, cpu_idle (next is
 * pid 0 or a swapper), prev_idle (the same of prev), prev_hint, next_hint;
 * for other events the key=value pairs of the trace text, numbers as numbers
 * ("[action=NET_RX]" of softirqs gives "action"); for nmi_handler also
 * handler, delta_ns and handled ("HANDLER() delta_ns: N handled: N").
 */
#ifndef SCX_SCHED_JSONL_H
#define SCX_SCHED_JSONL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/jsonw.h"
#include "lib/sched_vals.h"

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

#endif
