/*
 * sched_trace.c - trace text of the scheduling tracepoints from decoded
 * values, as perf script prints it (see sched_decode.h).
 */
#include "process/sched/sched_decode.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *system, *name;
	enum sched_kind kind;
} kinds[] = {
	{"sched", "sched_switch", SK_SWITCH},
	{"sched", "sched_wakeup", SK_WAKEUP},
	{"sched", "sched_wakeup_new", SK_WAKEUP_NEW},
	{"sched", "sched_waking", SK_WAKING},
	{"sched", "sched_migrate_task", SK_MIGRATE},
	{"sched", "sched_process_exit", SK_EXIT},
	{"sched", "sched_process_exec", SK_EXEC},
	{"sched", "sched_process_fork", SK_FORK},
	{"sched", "sched_stat_runtime", SK_STAT_RUNTIME},
	{"irq", "irq_handler_entry", SK_IRQ_ENTRY},
	{"irq", "irq_handler_exit", SK_IRQ_EXIT},
	{"irq", "softirq_entry", SK_SOFTIRQ_ENTRY},
	{"irq", "softirq_exit", SK_SOFTIRQ_EXIT},
	{"irq", "softirq_raise", SK_SOFTIRQ_RAISE},
	{"nmi", "nmi_handler", SK_NMI},
	{"irq_vectors", "local_timer_entry", SK_TIMER_ENTRY},
	{"irq_vectors", "local_timer_exit", SK_TIMER_EXIT},
	{"irq_vectors", "reschedule_entry", SK_RESCHED_ENTRY},
	{"irq_vectors", "reschedule_exit", SK_RESCHED_EXIT},
};

enum sched_kind sched_trace_kind_of(const char *system, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].system, system) && !strcmp(kinds[i].name, name))
			return kinds[i].kind;
	return SK_UNKNOWN;
}

const char *sched_trace_softirq_name(uint64_t vec)
{
	static const char *const names[] = {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					    "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};

	return vec < sizeof(names) / sizeof(names[0]) ? names[vec] : NULL;
}

/* ASCII, no '=', and no ' ' unless spaces are allowed */
static bool plain_str(const char *s, bool spaces)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80 || *s == '=' || (*s == ' ' && !spaces))
			return false;
	return true;
}

bool sched_trace_plain(enum sched_kind k, const struct sched_vals *v)
{
	switch (k) {
	case SK_SWITCH:
		return plain_str(v->comm, true) && plain_str(v->comm2, true) && plain_str(v->state, true);
	case SK_WAKEUP: case SK_WAKEUP_NEW: case SK_WAKING: case SK_MIGRATE: case SK_EXIT: case SK_STAT_RUNTIME:
		return plain_str(v->comm, false);
	case SK_FORK:
		return plain_str(v->comm, false) && plain_str(v->comm2, false);
	case SK_EXEC: case SK_IRQ_ENTRY:
		return plain_str(v->str, false);
	case SK_IRQ_EXIT: case SK_SOFTIRQ_ENTRY: case SK_SOFTIRQ_EXIT: case SK_SOFTIRQ_RAISE:
	case SK_TIMER_ENTRY: case SK_TIMER_EXIT: case SK_RESCHED_ENTRY: case SK_RESCHED_EXIT:
		return true;
	default: /* nmi_handler (fields of its own), unknown events (generic text) */
		return false;
	}
}

void sched_trace_state_from_report(uint64_t report, char *buf, size_t size)
{
	static const char flags[] = "SDTtXZPI";
	size_t len = 0;
	int bit;

	buf[0] = '\0';
	if (size < 24)
		return;
	if (!(report & 0xff))
		buf[len++] = 'R';
	for (bit = 0; bit < 8; bit++)
		if (report & (1ULL << bit)) {
			if (len)
				buf[len++] = '|';
			buf[len++] = flags[bit];
		}
	if (report & 0x100)
		buf[len++] = '+';
	buf[len] = '\0';
}

void sched_trace_state_from_raw(uint64_t raw, bool preempt, char *buf, size_t size)
{
	static const char idx[] = "RSDTtXZP";
	uint64_t st = raw & 0x7f;
	int i = 0;

	if (preempt) {
		snprintf(buf, size, "R+");
		return;
	}
	if ((raw & 0x402) == 0x402) { /* TASK_IDLE */
		snprintf(buf, size, "I");
		return;
	}
	if (raw & 0x1000) /* TASK_RTLOCK_WAIT reports as uninterruptible */
		st |= 0x2;
	while (st) {
		i++;
		st >>= 1;
	}
	snprintf(buf, size, "%c", idx[i]);
}

/* A bounded text builder with snprintf's result: n counts every byte asked
 * for, out holds the first size - 1 of them and a NUL. */
struct tb {
	char *out;
	size_t size, n;
};

static void tb_put(struct tb *b, const char *s, size_t len)
{
	if (b->n + 1 < b->size) {
		size_t room = b->size - 1 - b->n;

		memcpy(b->out + b->n, s, len < room ? len : room);
	}
	b->n += len;
}

static void tb_str(struct tb *b, const char *s)
{
	tb_put(b, s, strlen(s));
}

#define TB_LIT(b, s) tb_put((b), (s), sizeof(s) - 1)

/* %llu, or %0<width>lld-style zero padding of the digits (the sign counts in the width, as printf) */
static void tb_num(struct tb *b, uint64_t u, bool neg, int width)
{
	char d[24], *e = d + sizeof(d), *p = e;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while ((int)(e - p) + neg < width)
		*--p = '0';
	if (neg)
		*--p = '-';
	tb_put(b, p, (size_t)(e - p));
}

static void tb_i64(struct tb *b, int64_t v, int width)
{
	tb_num(b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0, width);
}

/* A literal key ("comm=", " pid=") and its value */
#define TB_KV_STR(b, key, s) (TB_LIT(b, key), tb_str((b), (s)))
#define TB_KV_I64(b, key, v) (TB_LIT(b, key), tb_i64((b), (v), 0))

/* "comm=C pid=P": the head of a task's fields */
static void tb_comm_pid(struct tb *b, const char *comm, int64_t pid)
{
	TB_KV_STR(b, "comm=", comm);
	TB_KV_I64(b, " pid=", pid);
}

/* "comm=C pid=P prio=N": the first task of wakeups, migrations and exits */
static void tb_task(struct tb *b, const struct sched_vals *v)
{
	tb_comm_pid(b, v->comm, v->pid);
	TB_KV_I64(b, " prio=", v->prio);
}

size_t sched_trace_format(enum sched_kind k, const struct sched_vals *v, char *out, size_t size)
{
	struct tb b = {out, size, 0};
	const char *sirq;

	if (!size)
		return 0;
	switch (k) {
	case SK_SWITCH:
		TB_KV_STR(&b, "prev_comm=", v->comm);
		TB_KV_I64(&b, " prev_pid=", v->pid);
		TB_KV_I64(&b, " prev_prio=", v->prio);
		TB_KV_STR(&b, " prev_state=", v->state);
		TB_LIT(&b, " ==> ");
		TB_KV_STR(&b, "next_comm=", v->comm2);
		TB_KV_I64(&b, " next_pid=", v->pid2);
		TB_KV_I64(&b, " next_prio=", v->prio2);
		break;
	case SK_WAKEUP: case SK_WAKEUP_NEW: case SK_WAKING:
		tb_task(&b, v);
		TB_LIT(&b, " target_cpu=");
		tb_i64(&b, v->a0, 3);
		break;
	case SK_MIGRATE:
		tb_task(&b, v);
		TB_KV_I64(&b, " orig_cpu=", v->a0);
		TB_KV_I64(&b, " dest_cpu=", v->a1);
		break;
	case SK_EXIT:
		tb_task(&b, v);
		if (v->has_a0)
			tb_str(&b, v->a0 ? " group_dead=true" : " group_dead=false");
		break;
	case SK_EXEC:
		TB_KV_STR(&b, "filename=", v->str);
		TB_KV_I64(&b, " pid=", v->pid);
		TB_KV_I64(&b, " old_pid=", v->pid2);
		break;
	case SK_FORK:
		tb_comm_pid(&b, v->comm, v->pid);
		TB_KV_STR(&b, " child_comm=", v->comm2);
		TB_KV_I64(&b, " child_pid=", v->pid2);
		break;
	case SK_STAT_RUNTIME:
		tb_comm_pid(&b, v->comm, v->pid);
		TB_LIT(&b, " runtime=");
		tb_num(&b, (uint64_t)v->a0, false, 0);
		TB_LIT(&b, " [ns]");
		if (v->has_a1) {
			TB_LIT(&b, " vruntime=");
			tb_num(&b, (uint64_t)v->a1, false, 0);
			TB_LIT(&b, " [ns]");
		}
		break;
	case SK_IRQ_ENTRY:
		TB_KV_I64(&b, "irq=", v->a0);
		TB_KV_STR(&b, " name=", v->str);
		break;
	case SK_IRQ_EXIT:
		TB_KV_I64(&b, "irq=", v->a0);
		tb_str(&b, v->a1 ? " ret=handled" : " ret=unhandled");
		break;
	case SK_SOFTIRQ_ENTRY: case SK_SOFTIRQ_EXIT: case SK_SOFTIRQ_RAISE:
		sirq = sched_trace_softirq_name((uint64_t)v->a0);
		TB_LIT(&b, "vec=");
		tb_num(&b, (unsigned)v->a0, false, 0);
		TB_LIT(&b, " [action=");
		if (sirq)
			tb_str(&b, sirq);
		else
			tb_i64(&b, v->a0, 0);
		TB_LIT(&b, "]");
		break;
	case SK_NMI:
		tb_str(&b, v->str);
		TB_KV_I64(&b, "() delta_ns: ", v->a0);
		if (v->has_a1) {
			TB_KV_I64(&b, " handled: ", v->a1);
		}
		break;
	case SK_TIMER_ENTRY: case SK_TIMER_EXIT: case SK_RESCHED_ENTRY: case SK_RESCHED_EXIT:
		TB_KV_I64(&b, "vector=", v->a0);
		break;
	default:
		tb_str(&b, v->str);
		break;
	}
	out[b.n < size ? b.n : size - 1] = '\0';
	return b.n < size ? b.n : size - 1;
}
