/*
 * synth_bpf.c - KSYMBOL records for the BPF programs loaded when recording
 * starts (see record_perfdata.h), the way perf record synthesizes them: one record
 * per JIT-compiled function, named bpf_prog_<tag>_<name> with the name from
 * the program's BTF function info, else its own name when it has a single
 * function, else "F". Programs loaded later come from the kernel's own
 * KSYMBOL records (the side-band event's attr.ksymbol).
 */
#include "record/perfdata/record_perfdata.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"

#define KSYM_NAME_MAX 512

static int emit_ksymbol(struct pd_writer *w, uint64_t addr, uint32_t len, const char *name, size_t trailer)
{
	uint8_t buf[sizeof(struct perf_event_header) + 16 + KSYM_NAME_MAX + 8 + 64];
	struct perf_event_header h = {.type = PERF_RECORD_KSYMBOL, .misc = 0};
	struct {
		uint64_t addr;
		uint32_t len;
		uint16_t ksym_type, flags;
	} k = {addr, len, PERF_RECORD_KSYMBOL_TYPE_BPF, 0};
	size_t n = strnlen(name, KSYM_NAME_MAX - 1), at = sizeof(h);

	if (trailer > 64)
		return scx_fail("KSYMBOL record: sample_id of %zu bytes", trailer);
	memcpy(buf + at, &k, sizeof(k));
	at += sizeof(k);
	memcpy(buf + at, name, n);
	memset(buf + at + n, 0, ((n + 1 + 7) & ~(size_t)7) - n);
	at += (n + 1 + 7) & ~(size_t)7;
	memset(buf + at, 0, trailer);
	at += trailer;
	h.size = (uint16_t)at;
	memcpy(buf, &h, sizeof(h));
	return pd_writer_add_record(w, buf, at);
}

/* perf's synthesize_bpf_prog_name() */
static void prog_func_name(char *out, size_t size, const struct bpf_prog_info *info, const uint8_t *tags,
			   const uint8_t *func_info, const struct btf *btf, uint32_t i)
{
	const char *short_name = NULL;
	int at = snprintf(out, size, "bpf_prog_");

	for (int b = 0; b < BPF_TAG_SIZE && at > 0 && (size_t)at < size; b++)
		at += snprintf(out + at, size - (size_t)at, "%02x", tags[i * BPF_TAG_SIZE + b]);
	if (btf) {
		const struct bpf_func_info *fi = (const void *)(func_info + (size_t)i * info->func_info_rec_size);
		const struct btf_type *t = btf__type_by_id(btf, fi->type_id);

		short_name = t ? btf__name_by_offset(btf, t->name_off) : NULL;
	} else if (i == 0 && info->nr_jited_ksyms == 1) {
		if (info->name[0])
			short_name = info->name;
	} else {
		short_name = "F";
	}
	if (short_name && at > 0 && (size_t)at < size)
		snprintf(out + at, size - (size_t)at, "_%s", short_name);
}

/* One program's functions; 0 when it is gone or not JIT-compiled. */
static int synth_prog(struct pd_writer *w, int fd, size_t trailer, struct synth_stats *st)
{
	struct bpf_prog_info info = {0}, full = {0};
	uint32_t len = sizeof(info), n;
	uint64_t *addrs = NULL;
	uint32_t *lens = NULL;
	uint8_t *tags = NULL, *finfo = NULL;
	struct btf *btf = NULL;
	char name[KSYM_NAME_MAX];
	int rc = 0;

	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0 || !info.nr_jited_ksyms)
		return 0;
	n = info.nr_jited_ksyms;
	if (n != info.nr_jited_func_lens || n != info.nr_prog_tags)
		return 0; /* perf skips these too */
	addrs = calloc(n, sizeof(*addrs));
	lens = calloc(n, sizeof(*lens));
	tags = calloc(n, BPF_TAG_SIZE);
	if (info.btf_id && info.nr_func_info && info.func_info_rec_size)
		finfo = calloc(info.nr_func_info, info.func_info_rec_size);
	if (!addrs || !lens || !tags || (info.btf_id && info.nr_func_info && info.func_info_rec_size && !finfo)) {
		rc = scx_fail("out of memory (BPF program info)");
		goto out;
	}
	full.nr_jited_ksyms = n;
	full.jited_ksyms = (uint64_t)(uintptr_t)addrs;
	full.nr_jited_func_lens = n;
	full.jited_func_lens = (uint64_t)(uintptr_t)lens;
	full.nr_prog_tags = n;
	full.prog_tags = (uint64_t)(uintptr_t)tags;
	if (finfo) {
		full.nr_func_info = info.nr_func_info;
		full.func_info_rec_size = info.func_info_rec_size;
		full.func_info = (uint64_t)(uintptr_t)finfo;
	}
	len = sizeof(full);
	if (bpf_obj_get_info_by_fd(fd, &full, &len) < 0 || full.nr_jited_ksyms != n)
		goto out; /* changed or gone meanwhile */
	if (finfo && full.nr_func_info >= n) {
		btf = btf__load_from_kernel_by_id(full.btf_id);
		if (libbpf_get_error(btf))
			btf = NULL;
	}
	st->bpf_progs++;
	for (uint32_t i = 0; i < n; i++) {
		if (!addrs[i] || !lens[i])
			continue;
		prog_func_name(name, sizeof(name), &full, tags, finfo, btf, i);
		if (emit_ksymbol(w, addrs[i], lens[i], name, trailer) < 0) {
			rc = -1;
			goto out;
		}
		st->bpf_ksymbols++;
	}
out:
	btf__free(btf);
	free(addrs);
	free(lens);
	free(tags);
	free(finfo);
	return rc;
}

int synth_bpf_progs(struct pd_writer *w, size_t trailer, struct synth_stats *st, bool *denied)
{
	uint32_t id = 0;

	*denied = false;
	while (bpf_prog_get_next_id(id, &id) == 0) {
		int fd = bpf_prog_get_fd_by_id(id), rc;

		if (fd < 0) {
			if (errno == EPERM || errno == EACCES) {
				*denied = true;
				return 0;
			}
			continue; /* unloaded meanwhile */
		}
		rc = synth_prog(w, fd, trailer, st);
		close(fd);
		if (rc < 0)
			return -1;
	}
	if (errno == EPERM || errno == EACCES)
		*denied = true;
	return 0;
}
