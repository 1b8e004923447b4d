/*
 * perfetto_trace.c - the trace file itself (see perfetto_trace.h):
 * SystemInfo first, the ProcessTree written at the end, and the start,
 * finish and free of the whole writer. Packets, sequences and the thread
 * table are the core's (perfetto_writer.c); the scheduling part is in
 * perfetto_sched.c, hint counters and memory samples in perfetto_track.c.
 */
#include "lib/pftrace/perfetto_trace.h"
#include "lib/pftrace/perfetto_sched.h"
#include "lib/pftrace/perfetto_track.h"
#include "lib/pftrace/perfetto_writer.h"

#include <stdlib.h>

#include "lib/error.h"

/* Threads per ProcessTree packet: keeps each packet small. */
#define TREE_CHUNK 2048

static int write_system_info(struct pftrace *t, const struct pftrace_host *h)
{
	size_t si, uts;

	pft_packet_begin(t, PFT_SEQ_TRACK, 0);
	si = pb_open(&t->pkt, TP_SYSTEM_INFO);
	uts = pb_open(&t->pkt, 1);                 /* utsname */
	pb_string(&t->pkt, 1, "Linux");            /* sysname */
	/* release: the 4.14+ prev_state layout is the one written (see docs) */
	pb_string(&t->pkt, 3, h && h->release[0] ? h->release : "4.14");
	if (h && h->machine[0])
		pb_string(&t->pkt, 4, h->machine);
	pb_close(&t->pkt, uts);
	if (h && h->num_cpus)
		pb_varint(&t->pkt, 8, h->num_cpus); /* num_cpus */
	pb_close(&t->pkt, si);
	return pft_packet_end(t);
}

struct pftrace *pftrace_new(FILE *f, const struct pftrace_host *host)
{
	struct pftrace *t = calloc(1, sizeof(*t));

	if (!t) {
		scx_fail("out of memory");
		return NULL;
	}
	t->out = f;
	u64map_init(&t->threads);
	if (write_system_info(t, host) < 0 || pft_track_init(t) < 0) {
		pftrace_free(t);
		return NULL;
	}
	return t;
}

/* ProcessTree.Process for a tgid: its main thread's comm as cmdline. */
static void tree_process(struct pftrace *t, int32_t tgid)
{
	const struct pft_thread *main = u64map_get(&t->threads, (uint32_t)tgid);
	size_t p = pb_open(&t->pkt, 1); /* processes */

	pb_int(&t->pkt, 1, tgid);       /* pid */
	pb_string(&t->pkt, 3, main && main->comm[0] ? main->comm : "[unknown]"); /* cmdline */
	pb_varint(&t->pkt, 9, 1);       /* cmdline_is_comm */
	pb_close(&t->pkt, p);
}

static void tree_thread(struct pftrace *t, uint32_t tid, const struct pft_thread *th)
{
	size_t p = pb_open(&t->pkt, 2); /* threads */

	pb_int(&t->pkt, 1, tid);        /* tid */
	if (th->comm[0])
		pb_string(&t->pkt, 2, th->comm); /* name */
	pb_int(&t->pkt, 3, th->tgid);   /* tgid */
	pb_close(&t->pkt, p);
}

static void tree_begin(struct pftrace *t, size_t *tree)
{
	pft_packet_begin(t, PFT_SEQ_TRACK, 0);
	pb_varint(&t->pkt, TP_TIMESTAMP, t->first_ts);
	*tree = pb_open(&t->pkt, TP_PROCESS_TREE);
}

static int tree_end(struct pftrace *t, size_t tree)
{
	pb_close(&t->pkt, tree);
	return pft_packet_end(t);
}

/* Every thread whose process is known, and every such process: a
 * process's entry goes in the packet of its first thread in table order,
 * main thread or not (trace_processor takes both in any order). */
static int write_process_tree(struct pftrace *t)
{
	struct u64map seen;
	size_t pos = 0, tree = 0, n = 0;
	uint64_t tid;
	void *v;
	int rc = 0;

	u64map_init(&seen);
	while (rc == 0 && u64map_next(&t->threads, &pos, &tid, &v)) {
		const struct pft_thread *th = v;

		if (!th || th->tgid <= 0)
			continue;
		if (n == 0)
			tree_begin(t, &tree);
		if (!u64map_get(&seen, (uint32_t)th->tgid)) {
			if (u64map_put(&seen, (uint32_t)th->tgid, (void *)1) < 0) {
				rc = -1;
				break;
			}
			tree_process(t, th->tgid);
		}
		tree_thread(t, (uint32_t)tid, th);
		if (++n == TREE_CHUNK) {
			rc = tree_end(t, tree);
			n = 0;
		}
	}
	if (rc == 0 && n)
		rc = tree_end(t, tree);
	u64map_free(&seen);
	return rc;
}

int pftrace_finish(struct pftrace *t)
{
	if (pft_sched_flush_all(t) < 0 || pft_compress_out(t) < 0 || write_process_tree(t) < 0 ||
	    pft_flush_out(t) < 0)
		return -1;
	if (fflush(t->out) != 0 || ferror(t->out))
		return scx_fail_errno("trace.pftrace: write failed");
	return 0;
}

void pftrace_get_stats(const struct pftrace *t, struct pftrace_stats *st)
{
	*st = t->st;
}

void pftrace_free(struct pftrace *t)
{
	size_t pos = 0;
	uint64_t k;
	void *v;

	if (!t)
		return;
	while (u64map_next(&t->threads, &pos, &k, &v))
		free(v);
	u64map_free(&t->threads);
	pft_sched_free(t);
	pft_track_free(t);
	pb_free(&t->pkt);
	pb_free(&t->zpkt);
	pb_free(&t->zout);
	free(t);
}
