/*
 * buildids.c - collects mapped file names while recording and writes the
 * BUILD_ID feature at the end (see record_perfdata.h). Entry layout as perf's
 * write_buildid(): perf_event_header (misc: cpumode | BUILD_ID_SIZE, size),
 * pid (-1: the host), 20 bytes of id, its size, 3 reserved bytes, and the
 * file name NUL-padded to a multiple of 64.
 */
#include "record/perfdata/record_perfdata.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/hash.h"
#include "lib/kernel_id.h"
#include "lib/vdso.h"

#define MISC_BUILD_ID_SIZE (1 << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */
#define NAME_ALIGN 64
#define ENTRY_FIXED 36               /* header, pid, 24 bytes of id */
#define MMAP_NAME_OFF (8 + 8 + 24)   /* header, pid/tid, start/len/pgoff */
#define MMAP2_NAME_OFF (MMAP_NAME_OFF + 24 + 8) /* + maj/min/ino/gen, prot/flags */

static int grow(struct buildids *b)
{
	size_t cap = b->cap ? b->cap * 2 : 256;
	char **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < b->cap; i++) {
		if (!b->slots[i])
			continue;
		size_t j = hash_fnv1a_str(b->slots[i]) & (cap - 1);

		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = b->slots[i];
	}
	free(b->slots);
	b->slots = slots;
	b->cap = cap;
	return 0;
}

static void add_name(struct buildids *b, const char *name, size_t len)
{
	size_t i;

	if ((b->n + 1) * 2 > b->cap && grow(b) < 0) {
		b->oom = true;
		return;
	}
	for (i = hash_fnv1a_str(name) & (b->cap - 1); b->slots[i]; i = (i + 1) & (b->cap - 1))
		if (!strcmp(b->slots[i], name))
			return;
	if (!(b->slots[i] = strndup(name, len))) {
		b->oom = true;
		return;
	}
	b->n++;
}

void buildids_observe(void *ctx, const void *rec, size_t size)
{
	struct buildids *b = ctx;
	struct perf_event_header h;
	const char *name;
	size_t off, len;

	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_MMAP)
		off = MMAP_NAME_OFF;
	else if (h.type == PERF_RECORD_MMAP2)
		off = MMAP2_NAME_OFF;
	else
		return;
	if (size <= off || (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		return;
	name = (const char *)rec + off;
	len = strnlen(name, size - off);
	if (len == size - off)
		return; /* not terminated */
	if (!strcmp(name, "[vdso]"))
		b->saw_vdso = true;
	else if (name[0] == '/' && !(len > 10 && !strcmp(name + len - 10, " (deleted)")))
		add_name(b, name, len);
}

struct feat_buf {
	uint8_t *p;
	size_t len, cap;
};

static int put_entry(struct feat_buf *f, uint16_t cpumode, const char *name, const uint8_t *bid, size_t n)
{
	size_t name_len = (strlen(name) + 1 + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	size_t size = ENTRY_FIXED + name_len;
	struct perf_event_header h = {.type = 0, .misc = cpumode | MISC_BUILD_ID_SIZE, .size = (uint16_t)size};
	int32_t pid = -1;
	uint8_t *e;

	if (size > UINT16_MAX)
		return 0; /* perf cannot frame it either */
	if (f->len + size > f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 16384;
		uint8_t *p;

		while (cap < f->len + size)
			cap *= 2;
		if (!(p = realloc(f->p, cap)))
			return scx_fail("BUILD_ID feature: out of memory");
		f->p = p;
		f->cap = cap;
	}
	e = f->p + f->len;
	memset(e, 0, size);
	memcpy(e, &h, sizeof(h));
	memcpy(e + 8, &pid, sizeof(pid));
	memcpy(e + 12, bid, n);
	e[12 + 20] = (uint8_t)n;
	memcpy(e + ENTRY_FIXED, name, strlen(name));
	f->len += size;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int buildids_add_feature(struct buildids *b, struct pd_writer *w, const char *kernel_notes)
{
	struct feat_buf f = {0};
	uint8_t bid[KID_BUILD_ID_MAX];
	const void *vdso;
	size_t vdso_len, n = 0;
	int k, rc = 0;

	if (b->oom)
		return scx_fail("BUILD_ID feature: out of memory collecting %zu file names", b->n);
	b->written = 0;
	/* the kernel first, as perf writes it (its readers rely on that) */
	if ((k = kid_running_build_id(kernel_notes, bid)) > 0) {
		rc = put_entry(&f, PERF_RECORD_MISC_KERNEL, "[kernel.kallsyms]", bid, (size_t)k);
		b->written++;
	}
	if (!rc && b->saw_vdso && vdso_image(&vdso, &vdso_len) == 0 &&
	    (k = kid_image_build_id(vdso, vdso_len, bid)) > 0) {
		rc = put_entry(&f, PERF_RECORD_MISC_USER, "[vdso]", bid, (size_t)k);
		b->written++;
	}
	/* compact the set into a sorted list: the same files, the same bytes */
	for (size_t i = 0; i < b->cap; i++)
		if (b->slots[i])
			b->slots[n++] = b->slots[i];
	if (n)
		qsort(b->slots, n, sizeof(*b->slots), cmp_names);
	for (size_t i = 0; !rc && i < n; i++) {
		if ((k = kid_file_build_id(b->slots[i], bid)) > 0) {
			rc = put_entry(&f, PERF_RECORD_MISC_USER, b->slots[i], bid, (size_t)k);
			b->written++;
		}
	}
	for (size_t i = n; i < b->cap; i++)
		b->slots[i] = NULL;
	if (!rc)
		scx_clear_error(); /* no kernel notes or vDSO: those entries are left out */
	if (!rc && f.len)
		rc = pd_writer_add_feature(w, PD_FEAT_BUILD_ID, f.p, f.len);
	free(f.p);
	return rc;
}

void buildids_free(struct buildids *b)
{
	for (size_t i = 0; i < b->cap; i++)
		free(b->slots[i]);
	free(b->slots);
	memset(b, 0, sizeof(*b));
}
