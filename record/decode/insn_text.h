/*
 * insn_text.h - the instruction bytes at a user address of a live process,
 * for `record --backend decode`. File-backed executable mappings are read
 * from the mapped file itself (found in /proc/PID/maps, opened once per
 * DSO through /proc/PID/map_files and mapped read-only, keyed by device and
 * inode); anonymous executable memory (JIT code, [vdso]) with
 * process_vm_readv. A read that crosses into the next page is stitched
 * from both mappings. Each process's executable mappings are cached until
 * insn_text_forget() (exec, exit, a new mapping) or a miss. 128 files are
 * kept mapped; when another needs a slot, the one least recently read
 * leaves, and a cached mapping of it maps it again when next read, so a
 * workload's code keeps coming from its file (where the instruction before
 * an IP can be found).
 */
#ifndef SCX_RECORD_INSN_TEXT_H
#define SCX_RECORD_INSN_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/decode/decode.h"

struct insn_text;

/* proc_root: "/proc" (tests may pass another). NULL on out of memory. */
struct insn_text *insn_text_new(const char *proc_root);
/* Up to want bytes at addr of pid into buf; the count read (0: unreadable:
 * no executable mapping there, or the process is gone). */
size_t insn_text_read(struct insn_text *t, int pid, uint64_t addr, uint8_t *buf, size_t want);
/* The address of the instruction that ends at ip (the one that ran just
 * before, unless ip is a jump target): found by decoding forward from the
 * start of the function holding ip (ELF symbols of the mapped file), and
 * remembered per file offset. false for anonymous memory, ip at a
 * function's start, no symbol, or no instruction boundary at ip. */
bool insn_text_prev(struct insn_text *t, int pid, uint64_t ip, const struct insn_decoder *dec, uint64_t *prev);
/* A new executable mapping of pid (from an MMAP2 record): added to its
 * cached maps (replacing what it overlaps) when they are cached. */
void insn_text_add_map(struct insn_text *t, int pid, uint64_t start, uint64_t len, uint64_t pgoff,
		       unsigned maj, unsigned min, uint64_t ino, const char *path);
/* Drop what is cached about pid's mappings. */
void insn_text_forget(struct insn_text *t, int pid);
const struct insn_text_stats *insn_text_stats(const struct insn_text *t);
void insn_text_free(struct insn_text *t);

#endif
