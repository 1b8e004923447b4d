/*
 * insn_text.h - the instruction bytes at a user address of a live process,
 * for `record --backend decode`. File-backed executable mappings are read
 * from the mapped file itself (found in /proc/PID/maps, opened once per
 * DSO through /proc/PID/map_files and mapped read-only, keyed by device and
 * inode); anonymous executable memory (JIT code, [vdso]) with
 * process_vm_readv. A read that crosses into the next page is stitched
 * from both mappings. Each process's executable mappings are cached until
 * insn_text_forget() (exec, exit, a new mapping) or a miss.
 */
#ifndef SCX_RECORD_INSN_TEXT_H
#define SCX_RECORD_INSN_TEXT_H

#include <stddef.h>
#include <stdint.h>

struct insn_text;

struct insn_text_stats {
	uint64_t maps_reads;   /* /proc/PID/maps parsed */
	uint64_t dsos_opened;  /* files mapped */
	uint64_t from_file, from_memory; /* reads served */
};

/* proc_root: "/proc" (tests may pass another). NULL on out of memory. */
struct insn_text *insn_text_new(const char *proc_root);
/* Up to want bytes at addr of pid into buf; the count read (0: unreadable:
 * no executable mapping there, or the process is gone). */
size_t insn_text_read(struct insn_text *t, int pid, uint64_t addr, uint8_t *buf, size_t want);
/* Drop what is cached about pid's mappings. */
void insn_text_forget(struct insn_text *t, int pid);
const struct insn_text_stats *insn_text_stats(const struct insn_text *t);
void insn_text_free(struct insn_text *t);

#endif
