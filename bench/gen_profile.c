/*
 * gen_profile.c - builds a production-size profile for `make bench` from a
 * real page-fault recording made on this machine (bench/bench_production.sh
 * records it): the source's records replayed R times ("replicas", one per
 * synthetic cgroup), each with its pids and tids moved to a range of its own,
 * its cpus moved to a cpu pair of its own and, when more replicas than cpu
 * pairs are asked for, its times moved to a later stretch, so that every cpu
 * has one consistent timeline. Every replica keeps all of the source's
 * side-band records (COMM, MMAP2, FORK, EXIT: data identity and symbols work
 * as in the source) and 1 in M of its samples (a different 1 in M per
 * replica), M chosen so the total reaches --samples. sched.data (version 2
 * chunks) is replayed the same way, every record in every replica. Both
 * files come in the order a recording of the big host would have: the
 * replicas' records interleaved in time (perf.mem.data drain pass by
 * drain pass, a FINISHED_ROUND every 5 ms of time, as record writes it;
 * sched.data chunk by chunk), not one replica after another.
 *
 * usage: gen-profile SRC_DIR OUT_DIR [--samples N] [--cgroups R] [--cpus C]
 *   SRC_DIR: a profile directory of `scxprof record --backend page-fault
 *   --disable-archive` (perf.mem.data, sched.data, kallsyms, ...).
 *   OUT_DIR is created (refused if it exists): perf.mem.data, sched.data,
 *   topology.json (C cpus), and the source's kallsyms, vdso.so,
 *   metadata.json (online_cpus set to C) copied.
 * Prints one line: samples, cpus, sampled threads, cgroups, sched records.
 * A bench tool, not part of scxprof: it trusts its source (a recording made
 * by the bench script a moment before) beyond what pd_open() checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/error.h"
#include "lib/fsutil.h"
#include "lib/perfdata.h"
#include "lib/sched_data_format.h"
#include "lib/u64map.h"

#define CGROUP_ID_BASE 0x5c0000000ull
#define MAX_REC (64u << 10) /* > any record: header.size is 16 bits */

struct layout {                /* u64 slot of each rewritten field, -1 if absent */
	int tid, time, cpu, cgroup;
};

/* A source record: where it is, the drain pass (slice) and cpu record
 * would have written it in, its sample index (samples only). */
struct srcrec {
	uint64_t off, slice, seq;
	uint32_t cpu;
};

#define SLICE_NS 5000000ull /* record drains the rings every 5 ms (mem_stream.c) */

struct gen {
	struct pd_file src;
	struct pd_writer out;
	unsigned replicas, cpus, pairs, src_cpus;
	uint64_t stride;       /* pid offset between replicas */
	uint64_t span;         /* time offset between stretches */
	uint64_t t0;           /* first non-zero time of the source */
	uint64_t keep_every;   /* M */
	uint64_t samples, sample_seq;
	struct u64map tids;
	struct srcrec *recs;   /* the source's records (not its rounds), in drain order */
	size_t nrecs;
	uint8_t rec[MAX_REC];
};

static int die(const char *what)
{
	fprintf(stderr, "gen-profile: %s%s%s\n", what, *what ? ": " : "", scx_errmsg());
	return 1;
}

/* Field slots of a sample body; -1 (scx_fail) for variable-size fields. */
static int sample_layout(uint64_t st, struct layout *l)
{
	static const uint64_t order[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR,
		PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD,
		PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, PERF_SAMPLE_DATA_SRC, PERF_SAMPLE_TRANSACTION,
		PERF_SAMPLE_PHYS_ADDR, PERF_SAMPLE_CGROUP, PERF_SAMPLE_DATA_PAGE_SIZE, PERF_SAMPLE_CODE_PAGE_SIZE,
	};
	const uint64_t variable = PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
				  PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
				  PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_AUX;
	int slot = 0;

	if (st & variable)
		return scx_fail("sample_type %#llx has variable-size fields: record the source with "
				"--backend page-fault", (unsigned long long)st);
	*l = (struct layout){-1, -1, -1, -1};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(st & order[i]))
			continue;
		if (order[i] == PERF_SAMPLE_TID)
			l->tid = slot;
		else if (order[i] == PERF_SAMPLE_TIME)
			l->time = slot;
		else if (order[i] == PERF_SAMPLE_CPU)
			l->cpu = slot;
		else if (order[i] == PERF_SAMPLE_CGROUP)
			l->cgroup = slot;
		slot++;
	}
	return 0;
}

/* Slots of the sample_id trailer, counted from its start. */
static void trailer_layout(uint64_t st, struct layout *l)
{
	int slot = 0;

	*l = (struct layout){-1, -1, -1, -1};
	if (st & PERF_SAMPLE_TID)
		l->tid = slot++;
	if (st & PERF_SAMPLE_TIME)
		l->time = slot++;
	slot += !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID);
	if (st & PERF_SAMPLE_CPU)
		l->cpu = slot++;
}

static uint32_t move_pid(const struct gen *g, uint32_t pid, unsigned k)
{
	if (pid == 0 || pid == UINT32_MAX)
		return pid;
	return (uint32_t)(pid + k * g->stride);
}

static uint64_t move_time(const struct gen *g, uint64_t t, unsigned k)
{
	unsigned stretch = k / g->pairs;

	if (!stretch)
		return t;
	return (t < g->t0 ? g->t0 - 1 : t) + stretch * g->span;
}

static uint32_t move_cpu(const struct gen *g, uint32_t cpu, unsigned k)
{
	return cpu + (k % g->pairs) * g->src_cpus;
}

/* Rewrite tid/time/cpu (and cgroup) of the u64 slots at base. */
static void rewrite(const struct gen *g, uint64_t *base, const struct layout *l, unsigned k)
{
	if (l->tid >= 0) {
		uint32_t *p = (uint32_t *)&base[l->tid];

		p[0] = move_pid(g, p[0], k);
		p[1] = move_pid(g, p[1], k);
	}
	if (l->time >= 0)
		base[l->time] = move_time(g, base[l->time], k);
	if (l->cpu >= 0) {
		uint32_t *p = (uint32_t *)&base[l->cpu];

		p[0] = move_cpu(g, p[0], k);
	}
	if (l->cgroup >= 0)
		base[l->cgroup] = CGROUP_ID_BASE + k;
}

/* The record h as replica k has it, appended to the output; 0 when dropped. */
static int replay(struct gen *g, const struct perf_event_header *h, unsigned k)
{
	const struct pd_attr *a;
	struct layout l;
	uint8_t *r = g->rec;
	uint32_t *u;

	if (h->type == PERF_RECORD_SAMPLE) {
		uint64_t seq = g->sample_seq;

		if ((seq + k) % g->keep_every)
			return 0;
		if (!(a = pd_attr_for_sample(&g->src, h)) || sample_layout(a->attr.sample_type, &l) < 0)
			return -1;
		memcpy(r, h, h->size);
		rewrite(g, (uint64_t *)(r + 8), &l, k);
		if (l.tid >= 0)
			u64map_slot(&g->tids, ((const uint32_t *)(r + 8 + 8 * l.tid))[1]);
		g->samples++;
		return pd_writer_add_record(&g->out, r, h->size);
	}
	if (h->type == PERF_RECORD_CGROUP || h->type == PD_RECORD_FINISHED_ROUND)
		return 0; /* cgroups are the replicas'; rounds are written by the caller */
	if (h->type >= PERF_RECORD_MAX)
		return k == 0 ? pd_writer_add_record(&g->out, h, h->size) : 0;
	memcpy(r, h, h->size);
	u = (uint32_t *)(r + 8);
	switch (h->type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_NAMESPACES:
		if ((u[0] == 0 || u[0] == UINT32_MAX) && k)
			return 0; /* the kernel's and the idle task's: once */
		u[0] = move_pid(g, u[0], k);
		u[1] = move_pid(g, u[1], k);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		for (int i = 0; i < 4; i++)
			u[i] = move_pid(g, u[i], k);
		((uint64_t *)u)[2] = move_time(g, ((uint64_t *)u)[2], k);
		break;
	default:
		if (k)
			return 0; /* LOST, THROTTLE, ...: once */
	}
	if (g->src.sample_id_all && (a = pd_attr_for_trailer(&g->src, h)) && a->trailer_size) {
		trailer_layout(a->attr.sample_type, &l);
		rewrite(g, (uint64_t *)(r + h->size - a->trailer_size), &l, k);
	}
	return pd_writer_add_record(&g->out, r, h->size);
}

/* One CGROUP record per replica, with a zero trailer. */
static int write_cgroups(struct gen *g)
{
	const struct pd_attr *a = &g->src.attrs[0];
	size_t trailer = g->src.sample_id_all ? a->trailer_size : 0;

	for (unsigned k = 0; k < g->replicas; k++) {
		uint8_t *r = g->rec;
		struct perf_event_header *h = (struct perf_event_header *)r;
		char path[64];
		size_t plen;

		plen = (size_t)snprintf(path, sizeof(path), "/workload.slice/workload-tw-svc%03u.allotment.slice", k) + 1;
		plen = (plen + 7) & ~(size_t)7;
		memset(r, 0, 8 + 8 + plen + trailer);
		h->type = PERF_RECORD_CGROUP;
		h->size = (uint16_t)(8 + 8 + plen + trailer);
		*(uint64_t *)(r + 8) = CGROUP_ID_BASE + k;
		strcpy((char *)r + 16, path);
		if (pd_writer_add_record(&g->out, r, h->size) < 0)
			return -1;
	}
	return 0;
}

static int srcrec_cmp(const void *a, const void *b)
{
	const struct srcrec *x = a, *y = b;

	if (x->slice != y->slice)
		return x->slice < y->slice ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The source's records (g->recs, sorted into drain order), its time range,
 * largest pid, and sample count. */
static int survey(struct gen *g, uint64_t *samples)
{
	struct pd_cursor c;
	const struct perf_event_header *h;
	uint64_t tmax = 0, pidmax = 0, last_t = 0;
	size_t cap = 0;
	int rc;

	*samples = 0;
	g->t0 = UINT64_MAX;
	pd_cursor_init(&c, &g->src);
	while ((rc = pd_next(&c, &h)) > 0) {
		struct pd_sample s;
		struct srcrec *r;
		uint64_t t;

		if (h->type == PD_RECORD_FINISHED_ROUND)
			continue; /* the generator writes its own, a drain pass each */
		if (g->nrecs == cap && !(g->recs = realloc(g->recs, (cap = cap * 2 + 1024) * sizeof(*g->recs))))
			return scx_fail("out of memory");
		r = &g->recs[g->nrecs++];
		*r = (struct srcrec){.off = pd_offset_of(&g->src, h), .seq = UINT64_MAX};
		if (pd_record_time(&g->src, h, &t) == 1 && t) {
			g->t0 = t < g->t0 ? t : g->t0;
			tmax = t > tmax ? t : tmax;
			last_t = t;
		}
		r->slice = last_t; /* a time for now; untimed records go with the one before */
		if (h->type == PERF_RECORD_SAMPLE) {
			r->seq = (*samples)++;
			if (pd_parse_sample(&g->src, h, &s) < 0)
				return -1;
			r->cpu = s.cpu;
			if (s.cpu + 1 > g->src_cpus)
				g->src_cpus = s.cpu + 1;
		} else if (h->type < PERF_RECORD_MAX && pd_parse_sample_id(&g->src, h, &s) == 0 &&
			   (s.present & PERF_SAMPLE_CPU) && s.cpu != UINT32_MAX) {
			r->cpu = s.cpu;
			if (s.cpu + 1 > g->src_cpus)
				g->src_cpus = s.cpu + 1;
		}
		if (h->type == PERF_RECORD_SAMPLE || h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_MMAP2) {
			const uint32_t *u = (const uint32_t *)(h + 1);
			uint32_t pid = h->type == PERF_RECORD_SAMPLE ? s.tid : u[1];

			if (pid != UINT32_MAX && pid > pidmax)
				pidmax = pid;
		}
	}
	if (rc < 0)
		return -1;
	if (g->t0 == UINT64_MAX || !*samples)
		return scx_fail("%s: no timed samples", g->src.path);
	for (size_t i = 0; i < g->nrecs; i++) {
		uint64_t t = g->recs[i].slice;

		g->recs[i].slice = t < g->t0 ? 0 : (t - g->t0) / SLICE_NS;
		if (g->recs[i].cpu >= g->src_cpus)
			g->recs[i].cpu = 0;
	}
	qsort(g->recs, g->nrecs, sizeof(*g->recs), srcrec_cmp);
	g->stride = (pidmax / 1000 + 1) * 1000;
	g->span = tmax - g->t0 + 1000000;
	return 0;
}

static int write_perf_data(struct gen *g, const char *in, const char *out, uint64_t want)
{
	uint64_t src_samples;
	const void *d;
	uint64_t dsz;
	uint8_t finished[8] = {0};

	if (pd_open(&g->src, in) < 0 || survey(g, &src_samples) < 0)
		return -1;
	if (g->src_cpus * (g->cpus / g->src_cpus) != g->cpus || g->src_cpus > g->cpus)
		return scx_fail("%u cpus is not a multiple of the source's %u", g->cpus, g->src_cpus);
	g->pairs = g->cpus / g->src_cpus;
	g->keep_every = src_samples * g->replicas / want;
	if (g->keep_every < 1)
		g->keep_every = 1;
	if (pd_writer_open(&g->out, out) < 0)
		return -1;
	for (size_t i = 0; i < g->src.nr_attrs; i++) {
		const struct pd_attr *a = &g->src.attrs[i];

		if (pd_writer_add_attr(&g->out, &a->attr, a->ids, a->nr_ids, a->name) < 0)
			return -1;
	}
	for (int bit = 1; bit < PD_FEAT_MAX; bit++) {
		if (bit == PD_FEAT_NRCPUS || bit == PD_FEAT_EVENT_DESC || pd_feature(&g->src, bit, &d, &dsz) < 0)
			continue;
		if (pd_writer_add_feature(&g->out, bit, d, dsz) < 0)
			return -1;
	}
	uint32_t nrcpus[2] = {g->cpus, g->cpus};
	if (pd_writer_add_feature(&g->out, PD_FEAT_NRCPUS, nrcpus, sizeof(nrcpus)) < 0 || write_cgroups(g) < 0)
		return -1;
	((struct perf_event_header *)finished)->type = PD_RECORD_FINISHED_ROUND;
	((struct perf_event_header *)finished)->size = 8;
	/*
	 * As record writes a big host's recording: a drain pass every 5 ms
	 * (SLICE_NS) of the source's time, each one every cpu's records of
	 * that stretch of time, cpu after cpu (each cpu's in its order), then
	 * a FINISHED_ROUND. Stretch by stretch; within a pass, the replicas of
	 * the stretch in cpu order.
	 */
	for (unsigned first = 0; first < g->replicas; first += g->pairs) {
		unsigned last = first + g->pairs < g->replicas ? first + g->pairs : g->replicas;

		for (size_t i = 0; i < g->nrecs;) {
			size_t j = i;

			while (j < g->nrecs && g->recs[j].slice == g->recs[i].slice)
				j++;
			for (unsigned k = first; k < last; k++) {
				for (size_t x = i; x < j; x++) {
					const struct srcrec *sr = &g->recs[x];

					g->sample_seq = sr->seq; /* (index + k) % M picks the replica's samples */
					if (replay(g, (const struct perf_event_header *)(g->src.map + sr->off), k) < 0)
						return -1;
				}
			}
			if (pd_writer_add_record(&g->out, finished, 8) < 0)
				return -1;
			i = j;
		}
	}
	free(g->recs);
	return pd_writer_finish(&g->out);
}

/* Length of a version 2 record from its flags. */
static size_t packed_size(uint8_t flags)
{
	return SCHED_PACKED_BASE + (flags & SCHED_F_ARG0_64 ? 8 : 0) + (flags & SCHED_F_ARG1 ? 8 : 0) +
	       (flags & SCHED_F_COMM ? SCHED_COMM_LEN : 0) + (flags & SCHED_F_COMM2 ? SCHED_COMM_LEN : 0);
}

/* Replica k's copy of the source chunk at m + pos (ch.size bytes) into buf;
 * counts its records. */
static void replay_chunk(const struct gen *g, const uint8_t *m, size_t pos, const struct sched_chunk_header *ch,
			 unsigned k, uint8_t *buf, uint64_t *records)
{
	size_t at = SCHED_CHUNK_HEADER_SIZE;

	memcpy(buf, m + pos, ch->size);
	((struct sched_chunk_header *)buf)->cpu = (uint16_t)move_cpu(g, ch->cpu, k);
	for (unsigned i = 0; i < ch->nrec && at + SCHED_PACKED_BASE <= ch->size; i++) {
		struct sched_packed_rec *r = (struct sched_packed_rec *)(buf + at);

		r->timestamp = move_time(g, r->timestamp, k);
		r->cpu = (uint16_t)move_cpu(g, r->cpu, k);
		r->pid = move_pid(g, r->pid, k);
		r->tgid = move_pid(g, r->tgid, k);
		if (r->type != IRQ_HANDLER_ENTRY && r->type != IRQ_HANDLER_EXIT) {
			r->pid2 = move_pid(g, r->pid2, k);
			r->tgid2 = move_pid(g, r->tgid2, k);
		}
		at += packed_size(r->flags);
		(*records)++;
	}
}

/*
 * sched.data in the order record would write it on the big host: record
 * writes each per-cpu chunk when it is full (the partial ones at the stop),
 * all cpus' chunks interleaved as they fill. So, stretch by stretch (as
 * perf.mem.data), the source's chunks in their order, each one for every
 * replica of the stretch (their cpus are the replicas' own, their times
 * the same): a file about in time order, as a real recording's is, not one
 * replica after another.
 */
static int write_sched_data(struct gen *g, const char *in, const char *out, uint64_t *records)
{
	int fd = open(in, O_RDONLY | O_CLOEXEC), ofd = -1;
	struct stat st;
	const uint8_t *m;
	struct sched_data_header hdr;
	uint8_t *buf = NULL;
	size_t *chunks = NULL, nchunks = 0, pos;
	FILE *f;

	*records = 0;
	if (fd < 0 || fstat(fd, &st) < 0)
		return scx_fail_errno("%s", in);
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return scx_fail_errno("%s: mmap", in);
	memcpy(&hdr, m, sizeof(hdr));
	if ((size_t)st.st_size < sizeof(hdr) || memcmp(hdr.magic, SCHED_DATA_MAGIC, 8) || hdr.version != 2)
		return scx_fail("%s: not a version 2 sched.data", in);
	/* the source's whole chunks, in file order */
	for (pos = hdr.header_size; pos + SCHED_CHUNK_HEADER_SIZE <= (size_t)st.st_size;) {
		struct sched_chunk_header ch;

		memcpy(&ch, m + pos, sizeof(ch));
		if (ch.size < SCHED_CHUNK_HEADER_SIZE || ch.size > (1u << 16) || pos + ch.size > (size_t)st.st_size)
			break;
		if (!(nchunks & (nchunks + 1)) && !(chunks = realloc(chunks, (2 * nchunks + 2) * sizeof(*chunks))))
			return scx_fail("out of memory");
		chunks[nchunks++] = pos;
		pos += ch.size;
	}
	if ((ofd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0 || !(f = fdopen(ofd, "w")))
		return scx_fail_errno("%s", out);
	hdr.nr_cpus = g->cpus;
	fwrite(&hdr, sizeof(hdr), 1, f);
	buf = malloc(1u << 16);
	for (unsigned first = 0; buf && first < g->replicas; first += g->pairs) {
		unsigned last = first + g->pairs < g->replicas ? first + g->pairs : g->replicas;

		for (size_t c = 0; c < nchunks; c++) {
			struct sched_chunk_header ch;

			memcpy(&ch, m + chunks[c], sizeof(ch));
			for (unsigned k = first; k < last; k++) {
				replay_chunk(g, m, chunks[c], &ch, k, buf, records);
				fwrite(buf, ch.size, 1, f);
			}
		}
	}
	munmap((void *)m, (size_t)st.st_size);
	free(chunks);
	if (!buf || ferror(f) | fclose(f)) {
		free(buf);
		return scx_fail_errno("%s: write failed", out);
	}
	free(buf);
	return 0;
}

static int write_topology(const char *path, unsigned cpus)
{
	FILE *f = fopen(path, "wx");

	if (!f)
		return scx_fail_errno("%s", path);
	/* two packages, an LLC per 16 cpus, a NUMA node per package */
	fprintf(f, "{\"version\":1,\"cpus\":[");
	for (unsigned c = 0; c < cpus; c++) {
		unsigned llc = c / 16, pkg = c / (cpus / 2 ? cpus / 2 : 1);
		fprintf(f, "%s{\"cpu\":%u,\"core\":%u,\"package\":%u,\"llc\":%u,\"llc_level\":3,\"llc_size\":33554432,"
			"\"llc_cpus\":\"%u-%u\",\"node\":%u,\"siblings\":\"%u\"}",
			c ? "," : "", c, c, pkg, llc, llc * 16, llc * 16 + 15 < cpus ? llc * 16 + 15 : cpus - 1, pkg, c);
	}
	fprintf(f, "]}\n");
	return fclose(f) ? scx_fail_errno("%s", path) : 0;
}

static int write_metadata(const char *in, const char *out, unsigned cpus)
{
	struct json_object *o = json_object_from_file(in);

	if (!o)
		return scx_fail("%s: cannot read", in);
	json_object_object_add(o, "online_cpus", json_object_new_int((int)cpus));
	if (json_object_to_file_ext(out, o, JSON_C_TO_STRING_PLAIN) < 0) {
		json_object_put(o);
		return scx_fail("%s: cannot write", out);
	}
	json_object_put(o);
	return 0;
}

int main(int argc, char **argv)
{
	struct gen *g = calloc(1, sizeof(*g));
	uint64_t want = 20000000, sched_records = 0;
	char a[4096], b[4096];
	const char *src, *dst;
	static const char *const copies[] = {"kallsyms", "vdso.so"};

	if (argc < 3 || !g) {
		fprintf(stderr, "usage: gen-profile SRC_DIR OUT_DIR [--samples N] [--cgroups R] [--cpus C]\n");
		return 2;
	}
	src = argv[1], dst = argv[2];
	g->replicas = 200, g->cpus = 128;
	for (int i = 3; i + 1 < argc; i += 2) {
		unsigned long long v = strtoull(argv[i + 1], NULL, 10);

		if (!strcmp(argv[i], "--samples"))
			want = v;
		else if (!strcmp(argv[i], "--cgroups"))
			g->replicas = (unsigned)v;
		else if (!strcmp(argv[i], "--cpus"))
			g->cpus = (unsigned)v;
	}
	if (!want || !g->replicas || !g->cpus || g->replicas > 400) {
		fprintf(stderr, "gen-profile: --samples, --cgroups (1..400) and --cpus must be positive\n");
		return 2;
	}
	u64map_init(&g->tids);
	if (mkdir(dst, 0755) < 0) {
		scx_fail_errno("%s", dst);
		return die("");
	}
	snprintf(a, sizeof(a), "%s/perf.mem.data", src);
	snprintf(b, sizeof(b), "%s/perf.mem.data", dst);
	if (write_perf_data(g, a, b, want) < 0)
		return die("perf.mem.data");
	snprintf(a, sizeof(a), "%s/sched.data", src);
	snprintf(b, sizeof(b), "%s/sched.data", dst);
	if (fs_exists(a) && write_sched_data(g, a, b, &sched_records) < 0)
		return die("sched.data");
	snprintf(b, sizeof(b), "%s/topology.json", dst);
	if (write_topology(b, g->cpus) < 0)
		return die("topology.json");
	snprintf(a, sizeof(a), "%s/metadata.json", src);
	snprintf(b, sizeof(b), "%s/metadata.json", dst);
	if (fs_exists(a) && write_metadata(a, b, g->cpus) < 0)
		return die("metadata.json");
	for (size_t i = 0; i < sizeof(copies) / sizeof(copies[0]); i++) {
		snprintf(a, sizeof(a), "%s/%s", src, copies[i]);
		snprintf(b, sizeof(b), "%s/%s", dst, copies[i]);
		if (fs_exists(a) && fs_copy_file(a, b) < 0)
			return die(copies[i]);
	}
	printf("samples %llu cpus %u threads %zu cgroups %u sched_records %llu\n", (unsigned long long)g->samples,
	       g->cpus, g->tids.len, g->replicas, (unsigned long long)sched_records);
	pd_close(&g->src);
	u64map_free(&g->tids);
	free(g);
	return 0;
}
