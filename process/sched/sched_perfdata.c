/*
 * sched_perfdata.c - upstream's perf.sched.data (perf record of sched/irq
 * tracepoints) into sched.jsonl: records come in perf script's order
 * (process/order/order.h), COMM/FORK/EXIT records name the threads, and each sample's raw
 * tracepoint data is decoded with the format files stored in the file's
 * tracing data feature section (sched_tracefmt.h).
 */
#include "sched_perfdata.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/perfdata.h"
#include "process/order/order.h"
#include "process/sched/sched_decode.h"
#include "process/sched/sched_tracefmt.h"

struct swalk {
	struct sched_sink *sink;
	struct pd_file *f;
	struct session s;
	struct tf_data tf;
	/* per event id: kind, cached */
	const struct tf_event *last_ev;
	enum sched_kind last_kind;
};

/* Values of a known event from its raw data; false when a field is missing. */
static bool decode_known(const struct tf_data *tf, const struct tf_event *ev, enum sched_kind k,
			 const void *raw, size_t n, struct sched_vals *v)
{
	int64_t x;

	memset(v, 0, sizeof(*v));
	switch (k) {
	case SK_SWITCH:
		if (!tf_get_str(ev, "prev_comm", raw, n, v->comm, sizeof(v->comm)) ||
		    !tf_get_int(ev, "prev_pid", raw, n, &v->pid) || !tf_get_int(ev, "prev_prio", raw, n, &v->prio) ||
		    !tf_get_int(ev, "prev_state", raw, n, &x) ||
		    !tf_get_str(ev, "next_comm", raw, n, v->comm2, sizeof(v->comm2)) ||
		    !tf_get_int(ev, "next_pid", raw, n, &v->pid2) || !tf_get_int(ev, "next_prio", raw, n, &v->prio2))
			return false;
		sched_trace_state_from_report((uint64_t)x, v->state, sizeof(v->state));
		return true;
	case SK_WAKEUP: case SK_WAKEUP_NEW: case SK_WAKING:
		return tf_get_str(ev, "comm", raw, n, v->comm, sizeof(v->comm)) &&
		       tf_get_int(ev, "pid", raw, n, &v->pid) && tf_get_int(ev, "prio", raw, n, &v->prio) &&
		       tf_get_int(ev, "target_cpu", raw, n, &v->a0);
	case SK_MIGRATE:
		return tf_get_str(ev, "comm", raw, n, v->comm, sizeof(v->comm)) &&
		       tf_get_int(ev, "pid", raw, n, &v->pid) && tf_get_int(ev, "prio", raw, n, &v->prio) &&
		       tf_get_int(ev, "orig_cpu", raw, n, &v->a0) && tf_get_int(ev, "dest_cpu", raw, n, &v->a1);
	case SK_EXIT:
		v->has_a0 = tf_get_int(ev, "group_dead", raw, n, &v->a0);
		return tf_get_str(ev, "comm", raw, n, v->comm, sizeof(v->comm)) &&
		       tf_get_int(ev, "pid", raw, n, &v->pid) && tf_get_int(ev, "prio", raw, n, &v->prio);
	case SK_EXEC:
		return tf_get_str(ev, "filename", raw, n, v->str, sizeof(v->str)) &&
		       tf_get_int(ev, "pid", raw, n, &v->pid) && tf_get_int(ev, "old_pid", raw, n, &v->pid2);
	case SK_FORK:
		return tf_get_str(ev, "parent_comm", raw, n, v->comm, sizeof(v->comm)) &&
		       tf_get_int(ev, "parent_pid", raw, n, &v->pid) &&
		       tf_get_str(ev, "child_comm", raw, n, v->comm2, sizeof(v->comm2)) &&
		       tf_get_int(ev, "child_pid", raw, n, &v->pid2);
	case SK_STAT_RUNTIME:
		v->has_a1 = tf_get_int(ev, "vruntime", raw, n, &v->a1);
		return tf_get_str(ev, "comm", raw, n, v->comm, sizeof(v->comm)) &&
		       tf_get_int(ev, "pid", raw, n, &v->pid) && tf_get_int(ev, "runtime", raw, n, &v->a0);
	case SK_IRQ_ENTRY:
		return tf_get_int(ev, "irq", raw, n, &v->a0) && tf_get_str(ev, "name", raw, n, v->str, sizeof(v->str));
	case SK_IRQ_EXIT:
		return tf_get_int(ev, "irq", raw, n, &v->a0) && tf_get_int(ev, "ret", raw, n, &v->a1);
	case SK_SOFTIRQ_ENTRY: case SK_SOFTIRQ_EXIT: case SK_SOFTIRQ_RAISE:
		return tf_get_int(ev, "vec", raw, n, &v->a0);
	case SK_NMI: {
		const char *sym;

		if (!tf_get_int(ev, "handler", raw, n, &x) || !tf_get_int(ev, "delta_ns", raw, n, &v->a0) ||
		    !tf_get_int(ev, "handled", raw, n, &v->a1))
			return false;
		v->has_a1 = true;
		sym = tf_ksym(tf, (uint64_t)x);
		if (sym)
			snprintf(v->str, sizeof(v->str), "%s", sym);
		else
			snprintf(v->str, sizeof(v->str), "0x%llx", (unsigned long long)x);
		return true;
	}
	case SK_TIMER_ENTRY: case SK_TIMER_EXIT: case SK_RESCHED_ENTRY: case SK_RESCHED_EXIT:
		return tf_get_int(ev, "vector", raw, n, &v->a0);
	default:
		return false;
	}
}

/* "name=value ..." of the non-common fields */
static size_t generic_text(const struct tf_event *ev, const void *raw, size_t n, char *out, size_t size)
{
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < ev->nr_fields && len + 1 < size; i++) {
		char val[256];
		int w;

		if (ev->fields[i].common)
			continue;
		tf_field_text(&ev->fields[i], raw, n, val, sizeof(val));
		w = snprintf(out + len, size - len, "%s%s=%s", len ? " " : "", ev->fields[i].name, val);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return len < size ? len : size - 1;
}

static int deliver_sample(struct swalk *wk, const struct perf_event_header *h)
{
	struct pd_sample smp;
	const struct tf_event *ev = NULL;
	struct session_thread *t;
	struct sched_vals v;
	/* tracepoints name no processes: the trace's ProcessTree has them from the samples */
	struct sched_decoded dec = {.v = &v, .tgid = -1, .tgid2 = -1}, *d = NULL;
	char trace[1024], event[160], why[4400];
	size_t tlen;
	enum sched_kind k;

	wk->sink->res->total++;
	if (pd_parse_sample(wk->f, h, &smp) < 0) {
		snprintf(why, sizeof(why), "%s", scx_errmsg());
		sched_sink_unparseable(wk->sink, why);
		return 0;
	}
	if (!(smp.present & PERF_SAMPLE_RAW) || smp.raw_size < 8) {
		snprintf(why, sizeof(why), "%s: sample at offset %llu has no tracepoint raw data", wk->f->path,
			 (unsigned long long)pd_offset_of(wk->f, h));
		sched_sink_unparseable(wk->sink, why);
		return 0;
	}
	if (smp.attr && smp.attr->attr.type == PERF_TYPE_TRACEPOINT)
		ev = tf_event_by_id(&wk->tf, (uint32_t)smp.attr->attr.config);
	if (!ev) {
		uint16_t common_type;

		memcpy(&common_type, smp.raw, 2);
		ev = tf_event_by_id(&wk->tf, common_type);
	}
	if (!ev) {
		snprintf(why, sizeof(why), "%s: sample at offset %llu: tracepoint id not in the tracing data",
			 wk->f->path, (unsigned long long)pd_offset_of(wk->f, h));
		sched_sink_unparseable(wk->sink, why);
		return 0;
	}
	if (ev == wk->last_ev) {
		k = wk->last_kind;
	} else {
		k = sched_trace_kind_of(ev->system, ev->name);
		wk->last_ev = ev;
		wk->last_kind = k;
	}
	dec.kind = k;
	if (k != SK_UNKNOWN && decode_known(&wk->tf, ev, k, smp.raw, smp.raw_size, &v)) {
		d = &dec; /* the sink makes the text of v when it needs it */
		tlen = 0;
	} else {
		tlen = generic_text(ev, smp.raw, smp.raw_size, trace, sizeof(trace));
	}
	snprintf(event, sizeof(event), "%s:%s", ev->system, ev->name);
	t = session_thread(&wk->s, (int32_t)smp.pid, (int32_t)smp.tid);
	if (!t)
		return -1;
	return sched_sink_emit(wk->sink, t->comm, (int32_t)smp.pid, (int32_t)smp.tid,
			       (smp.present & PERF_SAMPLE_CPU) ? (int64_t)smp.cpu : -1,
			       smp.time, event, d ? NULL : trace, tlen, d);
}

static int deliver(void *ctx, const struct perf_event_header *h)
{
	struct swalk *wk = ctx;

	if (h->type == PERF_RECORD_SAMPLE)
		return deliver_sample(wk, h);
	if (h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) {
		if (session_apply(&wk->s, h, pd_body_size(wk->f, h)) < 0)
			return scx_fail_prefix("%s: record at offset %llu", wk->f->path,
					       (unsigned long long)pd_offset_of(wk->f, h));
	}
	return 0;
}

/* The records in perf script's order; -v notes how the file is ordered. */
static int walk(struct swalk *wk)
{
	const struct process_opts *opts = wk->sink->opts;
	struct order_walk ow;
	int rc;

	order_walk_init(&ow, wk->f, deliver, wk);
	ow.stop = opts->stop;
	ow.log = opts->verbose ? opts->log : NULL;
	rc = order_walk_run(&ow);
	order_walk_free(&ow);
	return rc;
}

int sched_perfdata_read(struct sched_sink *sink, const char *path)
{
	struct pd_file f;
	struct swalk *wk;
	const void *td;
	uint64_t tdsize;
	int rc = -1;

	if (pd_open(&f, path) < 0)
		return -1;
	wk = calloc(1, sizeof(*wk));
	if (!wk) {
		pd_close(&f);
		return scx_fail("out of memory");
	}
	wk->sink = sink;
	wk->f = &f;
	if (pd_feature(&f, PD_FEAT_TRACING_DATA, &td, &tdsize) < 0) {
		scx_fail("%s: no tracing data section (feature bit 1): cannot decode tracepoints", path);
		goto out_nosession;
	}
	if (tf_parse(&wk->tf, td, (size_t)tdsize) < 0) {
		scx_fail_prefix("%s", path);
		goto out_nosession;
	}
	if (session_init(&wk->s, NULL) < 0)
		goto out;
	rc = walk(wk);
out:
	session_free(&wk->s);
	tf_free(&wk->tf);
out_nosession:
	free(wk);
	pd_close(&f);
	return rc;
}
