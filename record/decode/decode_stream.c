/*
 * decode_stream.c - cpu-clock samples with user registers to memory
 * samples (see decode.h).
 */
#include "record/decode/decode.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/error.h"
#include "record/decode/insn_text.h"
#include "record/streams/streams.h"

struct decode_stream {
	const struct insn_decoder *dec;
	struct insn_text *text;
	struct pagemap_cache *pm;
	size_t nr_regs;
	int reg_index[INSN_MAX_REGS]; /* i-th register of the sample -> perf reg number */
	struct decode_stats st;
};

struct decode_stream *decode_stream_new(const struct insn_decoder *dec)
{
	struct decode_stream *ds = calloc(1, sizeof(*ds));

	if (!ds) {
		scx_fail("out of memory");
		return NULL;
	}
	ds->dec = dec;
	for (int r = 0; r < INSN_MAX_REGS; r++)
		if (dec->regs_mask & (1ULL << r))
			ds->reg_index[ds->nr_regs++] = r;
	ds->text = insn_text_new("/proc");
	ds->pm = pagemap_new();
	if (!ds->text || !ds->pm) {
		decode_stream_free(ds);
		scx_fail("out of memory");
		return NULL;
	}
	return ds;
}

void decode_stream_pass(struct decode_stream *ds)
{
	ds->st.passes++;
	pagemap_next_pass(ds->pm);
}

void decode_stream_charge(struct decode_stream *ds, uint64_t cpu_ns)
{
	ds->st.decode_ns += cpu_ns;
}

uint64_t decode_stream_data_src(int load, int store)
{
	union perf_mem_data_src d = { .val = 0 };

	d.mem_op = (load ? PERF_MEM_OP_LOAD : 0) | (store ? PERF_MEM_OP_STORE : 0);
	d.mem_lvl = PERF_MEM_LVL_NA;
	d.mem_snoop = PERF_MEM_SNOOP_NA;
	d.mem_lock = PERF_MEM_LOCK_NA;
	d.mem_dtlb = PERF_MEM_TLB_NA;
	return d.val;
}

/* The fields of a DECODE_IN_SAMPLE_TYPE sample. */
struct in_sample {
	uint64_t ip, pid_tid, time, id, cpu_res, period, cgroup;
	uint64_t regs[INSN_MAX_REGS];
	int has_regs;
};

static int parse_in(const struct decode_stream *ds, const uint8_t *rec, struct in_sample *s)
{
	struct perf_event_header h;
	const uint8_t *p = rec + sizeof(h), *end;
	uint64_t abi;

	memcpy(&h, rec, sizeof(h));
	end = rec + h.size;
	if (h.size < sizeof(h) + 7 * 8)
		return -1;
	memcpy(&s->ip, p, 8);
	memcpy(&s->pid_tid, p + 8, 8);
	memcpy(&s->time, p + 16, 8);
	memcpy(&s->id, p + 24, 8);
	memcpy(&s->cpu_res, p + 32, 8);
	memcpy(&s->period, p + 40, 8);
	memcpy(&abi, p + 48, 8);
	p += 56;
	s->has_regs = abi != PERF_SAMPLE_REGS_ABI_NONE;
	memset(s->regs, 0, sizeof(s->regs));
	if (s->has_regs) {
		if ((size_t)(end - p) < ds->nr_regs * 8)
			return -1;
		for (size_t i = 0; i < ds->nr_regs; i++)
			memcpy(&s->regs[ds->reg_index[i]], p + 8 * i, 8);
		p += ds->nr_regs * 8;
	}
	if (end - p < 8)
		return -1;
	memcpy(&s->cgroup, p, 8);
	return 0;
}

static int write_access(struct decode_stream *ds, const struct in_sample *s, const struct insn_access *a,
			struct pd_writer *w)
{
	struct {
		struct perf_event_header h;
		uint64_t ip, pid_tid, time, addr, id, cpu_res, period, data_src, phys, cgroup, page_size;
	} out;
	uint64_t page_size = 0;

	memset(&out, 0, sizeof(out));
	out.h.type = PERF_RECORD_SAMPLE;
	out.h.misc = PERF_RECORD_MISC_USER;
	out.h.size = sizeof(out);
	out.ip = s->ip;
	out.pid_tid = s->pid_tid;
	out.time = s->time;
	out.addr = a->addr;
	out.id = s->id;
	out.cpu_res = s->cpu_res;
	out.period = s->period;
	out.data_src = decode_stream_data_src(a->load, a->store);
	out.phys = pagemap_phys(ds->pm, (int)(uint32_t)s->pid_tid, a->addr, &page_size);
	out.page_size = out.phys ? page_size : 0;
	out.cgroup = s->cgroup;
	if (out.phys)
		ds->st.phys_resolved++;
	else
		ds->st.phys_unresolved++;
	ds->st.accesses++;
	ds->st.loads += a->load;
	ds->st.stores += a->store;
	return pd_writer_add_record(w, &out, sizeof(out));
}

/* decode_stats' skipped[] in metadata.json, by enum decode_skip */
static const char *const skip_names[DECODE_SKIP_NR] = {
	[DECODE_SKIP_KERNEL] = "kernel_mode",
	[DECODE_SKIP_NO_REGS] = "no_user_regs",
	[DECODE_SKIP_UNREADABLE] = "unreadable_text",
	[DECODE_SKIP_INVALID] = "undecodable",
	[DECODE_SKIP_NO_MEMORY] = "no_memory_operand",
	[DECODE_SKIP_SEGMENT] = "fs_gs_segment",
	[DECODE_SKIP_UNSUPPORTED] = "vector_index",
	[DECODE_SKIP_CLOBBERED] = "previous_clobbered",
};

const char *decode_skip_name(enum decode_skip why)
{
	return skip_names[why];
}

/* The skip reason of each decoder status but INSN_ACCESS (decoded) */
static const enum decode_skip status_skip[INSN_NR_STATUS] = {
	[INSN_NO_MEMORY] = DECODE_SKIP_NO_MEMORY,
	[INSN_SEGMENT] = DECODE_SKIP_SEGMENT,
	[INSN_UNSUPPORTED] = DECODE_SKIP_UNSUPPORTED,
	[INSN_TRUNCATED] = DECODE_SKIP_INVALID,
	[INSN_INVALID] = DECODE_SKIP_INVALID,
	[INSN_CLOBBERED] = DECODE_SKIP_CLOBBERED,
};
_Static_assert(INSN_NR_STATUS == 7, "status_skip[] names a skip reason for each insn_status: add the new one's");

int decode_stream_sample(struct decode_stream *ds, const uint8_t *rec, uint64_t id, struct pd_writer *w,
			 struct mem_stream_stats *ms)
{
	struct perf_event_header h;
	struct in_sample s;
	struct insn_result r;
	uint8_t code[INSN_MAX_BYTES];
	size_t n;
	int pid, rc = 0;
	bool via_prev = false;

	memcpy(&h, rec, sizeof(h));
	ds->st.ticks++;
	if (parse_in(ds, rec, &s) < 0)
		return scx_fail("decode: malformed cpu-clock sample (%u bytes)", h.size);
	if (id && s.id != id) {
		s.id = id;
		ms->foreign_ids++;
	}
	pid = (int)(uint32_t)s.pid_tid;
	if ((h.misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER || pid <= 0) {
		ds->st.skipped[DECODE_SKIP_KERNEL]++;
		goto out;
	}
	if (!s.has_regs) {
		ds->st.skipped[DECODE_SKIP_NO_REGS]++;
		goto out;
	}
	n = insn_text_read(ds->text, pid, s.ip, code, sizeof(code));
	if (!n) {
		ds->st.skipped[DECODE_SKIP_UNREADABLE]++;
		goto out;
	}
	ds->dec->decode(code, n, s.ip, s.regs, false, &r);
	if (r.status == INSN_NO_MEMORY) {
		/* the interrupt came after the instruction it waited for: that
		 * one, decoded with the registers it left */
		uint64_t prev;
		struct insn_result pr;

		if (insn_text_prev(ds->text, pid, s.ip, ds->dec, &prev) &&
		    (n = insn_text_read(ds->text, pid, prev, code, sizeof(code))) > 0) {
			ds->dec->decode(code, n, prev, s.regs, true, &pr);
			if (pr.status == INSN_ACCESS) {
				via_prev = true;
				s.ip = prev;
				r = pr;
			} else if (pr.status != INSN_NO_MEMORY) {
				r.status = pr.status;
			}
		}
	}
	if (via_prev)
		ds->st.decoded_prev++;
	else if (r.status == INSN_ACCESS)
		ds->st.decoded++;
	else
		ds->st.skipped[status_skip[r.status]]++;
	for (size_t i = 0; i < r.nr && rc == 0; i++)
		rc = write_access(ds, &s, &r.acc[i], w);
	ms->samples += r.nr;
	if (r.nr) {
		if (!ms->first_time || s.time < ms->first_time)
			ms->first_time = s.time;
		if (s.time > ms->last_time)
			ms->last_time = s.time;
	}
out:
	return rc;
}

/* An executable MMAP2 extends the process's cached maps (maj/min/ino
 * form: the side-band event asks for no build ids). */
static void add_exec_map(struct decode_stream *ds, const uint8_t *rec, uint16_t size, uint32_t pid)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
	} m;
	const size_t hdr = sizeof(struct perf_event_header);
	char path[4096];
	size_t n;

	if (size < hdr + sizeof(m))
		return;
	memcpy(&m, rec + hdr, sizeof(m));
	if (!(m.prot & PROT_EXEC))
		return;
	n = size - hdr - sizeof(m);
	if (n >= sizeof(path))
		n = sizeof(path) - 1;
	memcpy(path, rec + hdr + sizeof(m), n);
	path[n] = '\0';
	insn_text_add_map(ds->text, (int)pid, m.addr, m.len, m.pgoff, m.maj, m.min, m.ino, path);
}

void decode_stream_sideband(struct decode_stream *ds, const uint8_t *rec)
{
	struct perf_event_header h;
	uint32_t pid, tid;

	memcpy(&h, rec, sizeof(h));
	if (h.size < sizeof(h) + 8)
		return;
	memcpy(&pid, rec + sizeof(h), 4);
	memcpy(&tid, rec + sizeof(h) + 4, 4);
	switch (h.type) {
	case PERF_RECORD_COMM:
		if (h.misc & PERF_RECORD_MISC_COMM_EXEC) {
			insn_text_forget(ds->text, (int)pid);
			pagemap_forget(ds->pm, (int)pid);
		}
		break;
	case PERF_RECORD_EXIT:
		if (pid == tid) {
			insn_text_forget(ds->text, (int)pid);
			pagemap_forget(ds->pm, (int)pid);
		}
		break;
	case PERF_RECORD_MMAP2:
		add_exec_map(ds, rec, h.size, pid);
		break;
	}
}

void decode_stream_stats(const struct decode_stream *ds, struct decode_stats *out)
{
	*out = ds->st;
	out->text = *insn_text_stats(ds->text);
	out->pm = *pagemap_stats(ds->pm);
}

void decode_stream_free(struct decode_stream *ds)
{
	if (!ds)
		return;
	insn_text_free(ds->text);
	pagemap_free(ds->pm);
	free(ds);
}
