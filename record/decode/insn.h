/*
 * insn.h - the instruction decoder behind `record --backend decode`: given
 * the bytes at a sampled user-mode IP and the sampled user registers, the
 * data addresses the instruction is about to load or store. One
 * implementation per architecture behind this small interface (x86-64:
 * Zydis, insn_x86.c); insn_decoder_for_host() picks the one for the
 * machine, or none.
 *
 * A timer sample's IP is the instruction about to run; the one that just
 * ran (usually the stalled load the interrupt waited for) is found through
 * insn_text_prev() and decoded with the registers it left behind.
 *
 * Registers are passed in the kernel's perf_regs numbering for the arch
 * (PERF_SAMPLE_REGS_USER with the decoder's regs_mask), expanded so
 * regs[i] is register number i.
 */
#ifndef SCX_RECORD_INSN_H
#define SCX_RECORD_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define INSN_MAX_BYTES 15   /* the longest x86 instruction */
#define INSN_MAX_ACCESSES 4
#define INSN_MAX_REGS 64

enum insn_status {
	INSN_ACCESS,      /* nr >= 1 accesses */
	INSN_NO_MEMORY,   /* no memory operand (lea computes an address but is not an access) */
	INSN_SEGMENT,     /* every memory operand is fs/gs-based (TLS; the base is not sampled) */
	INSN_UNSUPPORTED, /* vector-indexed (gather/scatter) or bound-table operands */
	INSN_TRUNCATED,   /* the bytes given end inside the instruction */
	INSN_INVALID,     /* not an instruction */
	INSN_CLOBBERED,   /* executed: it overwrote a register its address is made of */
};

struct insn_access {
	uint64_t addr;
	uint32_t size;    /* bytes */
	bool load, store; /* a read-modify-write sets both */
};

struct insn_result {
	enum insn_status status;
	unsigned length;  /* of the instruction, when decoded */
	size_t nr;
	struct insn_access acc[INSN_MAX_ACCESSES];
};

struct insn_decoder {
	const char *name;   /* "zydis" */
	const char *arch;   /* "x86_64" */
	uint64_t regs_mask; /* perf_event_attr.sample_regs_user it needs */
	/* the library's version, "4.0.0" */
	void (*version)(char *buf, size_t size);
	/* decode code[0..len) at ip with regs (INSN_MAX_REGS entries). With
	 * executed, regs are the state after the instruction ran (it is the
	 * one before the sampled IP): instructions that wrote a register of
	 * their address give INSN_CLOBBERED. */
	void (*decode)(const uint8_t *code, size_t len, uint64_t ip, const uint64_t *regs, bool executed,
		       struct insn_result *out);
	/* the length of the instruction at code, 0 when it does not decode */
	unsigned (*length)(const uint8_t *code, size_t len);
};

/* The decoder for the machine we run on, NULL when there is none. */
const struct insn_decoder *insn_decoder_for_host(void);
/* The x86-64 decoder (every machine can decode x86-64 bytes). */
const struct insn_decoder *insn_decoder_x86_64(void);

const char *insn_status_name(enum insn_status s);

#endif
