/*
 * test_emit_pool.c - `process -j N`'s formatting threads (process/emit/emit_pool.h):
 * perf.jsonl and the trace are the same bytes as formatting every record on
 * one thread, for any number of workers; a record's comm is copied when
 * queued (a thread's comm changes in place later); a failed write stops the
 * decoding thread with the writer's message.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bgwrite.h"
#include "lib/error.h"
#include "lib/jsonw.h"
#include "lib/pftrace/perfetto_trace.h"
#include "lib/pftrace/perfetto_track.h"
#include "process/emit/emit_pool.h"
#include "process/emit/mem_jsonl.h"

#define NR 5000 /* several batches and a partial last one */

static const char *const syms[] = {"main", "f\"quoted\"", "g\\h", "\xc3\xa9t\xc3\xa9"};
static const char *const dsos[] = {"/usr/bin/x", "[kernel.kallsyms]", "/lib/libc.so.6"};
static const char *const cgroups[] = {"/", "/a/b", "/svc/\"q\""};

static void make_record(size_t i, char comm[32], struct mem_record *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(comm, 32, "w%zu %s", i % 37, i % 5 ? "x" : "tab\there");
	r->comm = comm;
	r->tid = 100 + (int64_t)(i % 37);
	r->pid = 100;
	r->time_ns = 1000000000ULL + i * 1234567ULL;
	r->has_time_ns = true;
	r->addr = 0x7f0000000000ULL + i * 64;
	r->cgroup = cgroups[i % 3];
	r->ip = 0x401000 + i % 97;
	r->sym = syms[i % 4];
	r->dso = dsos[i % 3];
	r->phys_addr = 0x100000 + i * 4096;
	r->data_page_size = 4096;
	r->hint = i % 11;
	r->has_cpu = true;
	r->cpu = (uint32_t)(i % 2);
	r->data_map = i % 2 ? "[heap]" : NULL;
	r->data_id.kind = i % 3 ? DATA_ID_ANON : DATA_ID_NONE;
	r->data_id.pid = 100;
	r->data_id.page = r->addr >> 12;
	r->stable_names = true;
}

static char *slurp(FILE *f, size_t *n)
{
	long len;
	char *buf;

	cr_assert(fflush(f) == 0);
	len = ftell(f);
	cr_assert(len >= 0);
	buf = malloc((size_t)len + 1);
	cr_assert(buf);
	rewind(f);
	cr_assert(fread(buf, 1, (size_t)len, f) == (size_t)len);
	*n = (size_t)len;
	return buf;
}

/* One thread: every line, then every trace sample, in order. */
static void reference(char **jsonl, size_t *jn, char **trace, size_t *tn)
{
	struct mem_jsonl_ctx *ctx = mem_jsonl_ctx_new();
	struct pftrace_host host = {.release = "6.18.0", .machine = "x86_64", .num_cpus = 2};
	FILE *tf = tmpfile();
	struct pftrace *t = pftrace_new(tf, &host);
	struct jsonw w;
	char comm[32];
	struct mem_record r;

	cr_assert(ctx && tf && t);
	jsonw_init(&w);
	for (size_t i = 0; i < NR; i++) {
		make_record(i, comm, &r);
		mem_jsonl_line(&w, &r, ctx);
		cr_assert(pftrace_mem_sample(t, &r) == 0);
	}
	cr_assert(pftrace_finish(t) == 0);
	*jsonl = malloc(w.len);
	memcpy(*jsonl, w.buf, w.len);
	*jn = w.len;
	*trace = slurp(tf, tn);
	pftrace_free(t);
	fclose(tf);
	jsonw_free(&w);
	mem_jsonl_ctx_free(ctx);
}

static void pooled(size_t workers, char **jsonl, size_t *jn, char **trace, size_t *tn)
{
	struct pftrace_host host = {.release = "6.18.0", .machine = "x86_64", .num_cpus = 2};
	FILE *jf = tmpfile(), *tf = tmpfile();
	struct pftrace *t = pftrace_new(tf, &host);
	struct bgwriter bw;
	struct emit_pool *p;
	char comm[32];
	struct mem_record r;

	cr_assert(jf && tf && t);
	cr_assert(bgwriter_start(&bw, jf, "perf.jsonl") == 0);
	p = emit_pool_start(workers, &bw, t);
	cr_assert(p, "%s", scx_errmsg());
	for (size_t i = 0; i < NR; i++) {
		make_record(i, comm, &r);
		cr_assert(emit_pool_add(p, &r) == 0, "%s", scx_errmsg());
		strcpy(comm, "CHANGED"); /* as a later COMM record does to the thread */
	}
	cr_assert(emit_pool_finish(p) == 0, "%s", scx_errmsg());
	emit_pool_free(p);
	cr_assert(bgwriter_finish(&bw) == 0);
	cr_assert(pftrace_finish(t) == 0);
	*jsonl = slurp(jf, jn);
	*trace = slurp(tf, tn);
	pftrace_free(t);
	fclose(jf);
	fclose(tf);
}

Test(emit_pool, same_bytes_as_one_thread_for_any_number_of_workers)
{
	char *want_j, *want_t;
	size_t want_jn, want_tn;
	const size_t workers[] = {1, 2, 3, 8, 100};

	reference(&want_j, &want_jn, &want_t, &want_tn);
	cr_assert(want_jn > NR * 100 && want_tn > 0);
	cr_assert(memmem(want_j, want_jn, "CHANGED", 7) == NULL);
	for (size_t k = 0; k < sizeof(workers) / sizeof(workers[0]); k++) {
		char *j, *t;
		size_t jn, tn;

		pooled(workers[k], &j, &jn, &t, &tn);
		cr_assert(jn == want_jn && !memcmp(j, want_j, jn), "perf.jsonl differs with %zu workers "
			  "(%zu vs %zu bytes)", workers[k], jn, want_jn);
		cr_assert(tn == want_tn && !memcmp(t, want_t, tn), "trace differs with %zu workers", workers[k]);
		free(j);
		free(t);
	}
	free(want_j);
	free(want_t);
}

Test(emit_pool, a_failed_write_stops_the_producer_with_its_message)
{
	FILE *full = fopen("/dev/full", "w");
	struct bgwriter bw;
	struct emit_pool *p;
	char comm[32];
	struct mem_record r;
	int rc = 0;
	size_t i;

	if (!full)
		cr_skip_test("no /dev/full");
	cr_assert(bgwriter_start(&bw, full, "perf.jsonl") == 0);
	p = emit_pool_start(2, &bw, NULL);
	cr_assert(p);
	/* the writer's failure reaches the producer while it adds, or at the end */
	for (i = 0; i < 200 * NR && rc == 0; i++) {
		make_record(i, comm, &r);
		rc = emit_pool_add(p, &r);
	}
	if (rc == 0)
		rc = emit_pool_finish(p);
	cr_assert(rc < 0);
	cr_assert(strstr(scx_errmsg(), "perf.jsonl: write failed"), "%s", scx_errmsg());
	emit_pool_free(p);
	bgwriter_finish(&bw);
	fclose(full);
}
