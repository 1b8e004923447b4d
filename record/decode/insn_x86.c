/*
 * insn_x86.c - the x86-64 decoder of decode.h on Zydis (libzydis-dev):
 * ZydisDecoderDecodeFull gives every operand, hidden ones included (the
 * stack slot of push/pop/call/ret, the rsi/rdi of string instructions),
 * with read/write actions; ZydisCalcAbsoluteAddressEx adds base, index
 * times scale, displacement and the next IP for RIP-relative operands from
 * a register context filled from the sampled user registers.
 */
#include "record/decode/decode.h"

#include <stdio.h>
#include <string.h>

#include <Zydis/Zydis.h>

/* arch/x86/include/uapi/asm/perf_regs.h */
enum {
	PR_AX, PR_BX, PR_CX, PR_DX, PR_SI, PR_DI, PR_BP, PR_SP, PR_IP, PR_FLAGS,
	PR_CS, PR_SS, PR_DS, PR_ES, PR_FS, PR_GS, PR_R8, PR_R9, PR_R10, PR_R11,
	PR_R12, PR_R13, PR_R14, PR_R15,
};

#define X86_REGS_MASK (((1ULL << (PR_IP + 1)) - 1) | (0xffULL << PR_R8))

static const struct {
	ZydisRegister r64, r32;
	int perf;
} gprs[] = {
	{ ZYDIS_REGISTER_RAX, ZYDIS_REGISTER_EAX, PR_AX }, { ZYDIS_REGISTER_RBX, ZYDIS_REGISTER_EBX, PR_BX },
	{ ZYDIS_REGISTER_RCX, ZYDIS_REGISTER_ECX, PR_CX }, { ZYDIS_REGISTER_RDX, ZYDIS_REGISTER_EDX, PR_DX },
	{ ZYDIS_REGISTER_RSI, ZYDIS_REGISTER_ESI, PR_SI }, { ZYDIS_REGISTER_RDI, ZYDIS_REGISTER_EDI, PR_DI },
	{ ZYDIS_REGISTER_RBP, ZYDIS_REGISTER_EBP, PR_BP }, { ZYDIS_REGISTER_RSP, ZYDIS_REGISTER_ESP, PR_SP },
	{ ZYDIS_REGISTER_R8, ZYDIS_REGISTER_R8D, PR_R8 },  { ZYDIS_REGISTER_R9, ZYDIS_REGISTER_R9D, PR_R9 },
	{ ZYDIS_REGISTER_R10, ZYDIS_REGISTER_R10D, PR_R10 }, { ZYDIS_REGISTER_R11, ZYDIS_REGISTER_R11D, PR_R11 },
	{ ZYDIS_REGISTER_R12, ZYDIS_REGISTER_R12D, PR_R12 }, { ZYDIS_REGISTER_R13, ZYDIS_REGISTER_R13D, PR_R13 },
	{ ZYDIS_REGISTER_R14, ZYDIS_REGISTER_R14D, PR_R14 }, { ZYDIS_REGISTER_R15, ZYDIS_REGISTER_R15D, PR_R15 },
};

static void x86_version(char *buf, size_t size)
{
	ZyanU64 v = ZydisGetVersion();

	snprintf(buf, size, "%u.%u.%u", ZYDIS_VERSION_MAJOR(v), ZYDIS_VERSION_MINOR(v), ZYDIS_VERSION_PATCH(v));
}

static void fill_context(ZydisRegisterContext *ctx, const uint64_t *regs)
{
	memset(ctx, 0, sizeof(*ctx));
	for (size_t i = 0; i < sizeof(gprs) / sizeof(gprs[0]); i++) {
		ctx->values[gprs[i].r64] = regs[gprs[i].perf];
		ctx->values[gprs[i].r32] = (uint32_t)regs[gprs[i].perf];
	}
	ctx->values[ZYDIS_REGISTER_RIP] = regs[PR_IP];
}

/* push, call and friends store below the sampled rsp: their hidden stack
 * operand reads as [rsp], the slot written is [rsp - size]. */
static bool pushes(const ZydisDecodedOperand *op)
{
	return op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN && op->mem.base == ZYDIS_REGISTER_RSP &&
	       (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) && !(op->actions & ZYDIS_OPERAND_ACTION_MASK_READ);
}

/* Whether the instruction writes a register its memory operand op is
 * addressed with (then the registers after it ran do not give its address). */
static bool clobbers_address(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
			     const ZydisDecodedOperand *op)
{
	ZydisRegister base = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, op->mem.base);
	ZydisRegister index = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, op->mem.index);

	for (unsigned i = 0; i < in->operand_count; i++) {
		ZydisRegister r;

		if (ops[i].type != ZYDIS_OPERAND_TYPE_REGISTER || !(ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, ops[i].reg.value);
		if (r != ZYDIS_REGISTER_NONE && (r == base || r == index))
			return true;
	}
	return false;
}

static unsigned x86_length(const uint8_t *code, size_t len)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction in;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, code, len, &in)))
		return 0;
	return in.length;
}

static void x86_decode(const uint8_t *code, size_t len, uint64_t ip, const uint64_t *regs, bool executed,
		       struct insn_result *out)
{
	bool clobbered = false;
	ZydisDecoder dec;
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisRegisterContext ctx;
	ZyanStatus s;
	bool segment = false, unsupported = false;

	memset(out, 0, sizeof(*out));
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	s = ZydisDecoderDecodeFull(&dec, code, len, &in, ops);
	if (!ZYAN_SUCCESS(s)) {
		out->status = s == ZYDIS_STATUS_NO_MORE_DATA ? INSN_TRUNCATED : INSN_INVALID;
		return;
	}
	out->length = in.length;
	if (in.mnemonic == ZYDIS_MNEMONIC_NOP) { /* the hinting nop's operand is never read */
		out->status = INSN_NO_MEMORY;
		return;
	}
	fill_context(&ctx, regs);
	for (unsigned i = 0; i < in.operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		struct insn_access *a;
		ZyanU64 addr;

		if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->mem.type == ZYDIS_MEMOP_TYPE_AGEN ||
		    !(op->actions & (ZYDIS_OPERAND_ACTION_MASK_READ | ZYDIS_OPERAND_ACTION_MASK_WRITE)))
			continue;
		if (op->mem.segment == ZYDIS_REGISTER_FS || op->mem.segment == ZYDIS_REGISTER_GS) {
			segment = true;
			continue;
		}
		if (op->mem.type != ZYDIS_MEMOP_TYPE_MEM) { /* VSIB, MIB */
			unsupported = true;
			continue;
		}
		if (executed && clobbers_address(&in, ops, op)) {
			clobbered = true;
			continue;
		}
		if (out->nr == INSN_MAX_ACCESSES ||
		    !ZYAN_SUCCESS(ZydisCalcAbsoluteAddressEx(&in, op, ip, &ctx, &addr)))
			continue;
		a = &out->acc[out->nr++];
		a->size = op->size / 8;
		a->addr = pushes(op) ? addr - a->size : addr;
		a->load = op->actions & ZYDIS_OPERAND_ACTION_MASK_READ;
		a->store = op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE;
	}
	if (out->nr)
		out->status = INSN_ACCESS;
	else if (clobbered)
		out->status = INSN_CLOBBERED;
	else if (segment)
		out->status = INSN_SEGMENT;
	else if (unsupported)
		out->status = INSN_UNSUPPORTED;
	else
		out->status = INSN_NO_MEMORY;
}

static const struct insn_decoder x86_64_decoder = {
	.name = "zydis",
	.arch = "x86_64",
	.regs_mask = X86_REGS_MASK,
	.version = x86_version,
	.decode = x86_decode,
	.length = x86_length,
};

const struct insn_decoder *insn_decoder_for_host(void)
{
#if defined(__x86_64__)
	const bool x86_64 = true;
#else
	const bool x86_64 = false; /* built on every target; x86-64 bytes are only sampled on x86-64 */
#endif
	return x86_64 ? &x86_64_decoder : NULL;
}
