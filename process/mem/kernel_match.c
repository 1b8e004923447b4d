/*
 * kernel_match.c - decides whether a kallsyms file fits a recording (see
 * kernel_match.h).
 */
#include "kernel_match.h"

#include <stdio.h>
#include <string.h>

#include "lib/error.h"
#include "lib/kernel_id.h"

#define KERNEL_MAP_NAME "[kernel.kallsyms]"

/* The file name of an MMAP/MMAP2 record of the kernel, or NULL. */
static const char *kernel_map_name(const struct pd_file *f, const struct perf_event_header *h,
				   uint64_t *start)
{
	const uint8_t *b = (const uint8_t *)(h + 1);
	size_t body = pd_body_size(f, h), fixed = h->type == PERF_RECORD_MMAP ? 32 : 32 + 24 + 8;
	uint32_t pid;
	const char *name;

	if (body <= fixed)
		return NULL;
	memcpy(&pid, b, sizeof(pid));
	if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_KERNEL && pid != (uint32_t)-1)
		return NULL;
	name = (const char *)b + fixed;
	if (strnlen(name, body - fixed) < sizeof(KERNEL_MAP_NAME) - 1 ||
	    strncmp(name, KERNEL_MAP_NAME, sizeof(KERNEL_MAP_NAME) - 1))
		return NULL;
	memcpy(start, b + 8, sizeof(*start));
	return name;
}

bool kernel_match_map_start(const struct pd_file *f, uint64_t *start)
{
	struct pd_cursor c;
	const struct perf_event_header *h;

	pd_cursor_init(&c, f);
	while (pd_next(&c, &h) > 0 && h->type != PERF_RECORD_SAMPLE)
		if ((h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2) && kernel_map_name(f, h, start))
			return true;
	scx_clear_error(); /* a corrupt record is the walk's to report */
	return false;
}

/* The relocation check shared by both cases: NULL when kallsyms' _text is
 * where f's kernel map starts (or f has no kernel map: nothing to resolve). */
static bool relocation_agrees(const struct pd_file *f, const char *kallsyms_path, const char *what,
			      char *why, size_t size)
{
	uint64_t start, text;

	if (!kernel_match_map_start(f, &start))
		return true;
	if (kid_kallsyms_text(kallsyms_path, &text, NULL) < 0) {
		snprintf(why, size, "%s: %s", f->path, scx_errmsg());
		return false;
	}
	if (!text) {
		snprintf(why, size, "%s: %s has no _text address (kptr_restrict?)", f->path, kallsyms_path);
		return false;
	}
	if (text != start) {
		snprintf(why, size, "%s: its kernel map starts at 0x%llx, %s's _text is at 0x%llx (%s)",
			 f->path, (unsigned long long)start, kallsyms_path, (unsigned long long)text, what);
		return false;
	}
	return true;
}

bool kernel_match_running(const struct pd_file *f, const char *notes_path, const char *kallsyms_path,
			  char *why, size_t size)
{
	uint8_t file_bid[20], running[KID_BUILD_ID_MAX];
	size_t file_n = 0;
	int run_n;
	char a[KID_HEX_SIZE], b[KID_HEX_SIZE];

	why[0] = '\0';
	if (pd_build_id_for(f, KERNEL_MAP_NAME, file_bid, &file_n) <= 0) {
		snprintf(why, size, "%s: no kernel build-id in the file (BUILD_ID feature) to check %s against",
			 f->path, kallsyms_path);
		return false;
	}
	run_n = kid_running_build_id(notes_path, running);
	if (run_n < 0) {
		snprintf(why, size, "%s: cannot check the running kernel: %s", f->path, scx_errmsg());
		return false;
	}
	if (!kid_build_id_equal(file_bid, file_n, running, (size_t)run_n)) {
		kid_build_id_hex(file_bid, file_n, a);
		kid_build_id_hex(running, (size_t)run_n, b);
		snprintf(why, size, "%s: recorded on another kernel (build-id %s, running %s)", f->path, a, b);
		return false;
	}
	return relocation_agrees(f, kallsyms_path, "relocated differently: recorded in another boot", why, size);
}

bool kernel_match_snapshot(const struct pd_file *f, const char *snapshot, const uint8_t *snapshot_bid,
			   size_t snapshot_bid_size, char *why, size_t size)
{
	uint8_t file_bid[20];
	size_t file_n = 0;
	char a[KID_HEX_SIZE], b[KID_HEX_SIZE];

	why[0] = '\0';
	if (snapshot_bid_size && pd_build_id_for(f, KERNEL_MAP_NAME, file_bid, &file_n) > 0 &&
	    !kid_build_id_equal(file_bid, file_n, snapshot_bid, snapshot_bid_size)) {
		kid_build_id_hex(file_bid, file_n, a);
		kid_build_id_hex(snapshot_bid, snapshot_bid_size, b);
		snprintf(why, size, "%s: kernel build-id %s, but the kallsyms snapshot %s was taken on kernel %s (metadata.json)",
			 f->path, a, snapshot, b);
		return false;
	}
	return relocation_agrees(f, snapshot, "the snapshot is from another boot or kernel", why, size);
}
