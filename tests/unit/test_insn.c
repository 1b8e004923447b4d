/*
 * test_insn.c - unit tests for the decode backend's instruction decoder
 * (record/decode/insn_x86.c) and instruction-byte reader (record/decode/insn_text.c):
 * x86-64 instruction forms (bytes from GNU as) with a fixed register
 * context and the data addresses, sizes and load/store marks they must
 * give; the skip reasons (lea, fs/gs, gather, bad and short bytes) and
 * their metadata.json keys; an instruction that crosses a page boundary
 * from a file-backed page into an anonymous one, read back from this very
 * process; the data_src bits; the instruction before an IP, found from the
 * start of a function of this binary with known bytes; an executed
 * instruction that overwrote its address registers; and the ELF function
 * table (record/decode/elf_funcs.c).
 * The decoder is the one record picks for the host (insn_decoder_for_host):
 * on a machine that has none, the cases that decode skip, saying why.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/decode/decode.h"
#include "record/decode/elf_funcs.h"
#include "record/decode/insn_text.h"

/* perf_regs numbering (arch/x86/include/uapi/asm/perf_regs.h) */
enum { AX, BX, CX, DX, SI, DI, BP, SP, IP, R8 = 16, R9, R10, R11, R12, R13, R14, R15 };

/*
 * The decoder the decode backend uses on this host (insn_decoder_for_host):
 * these cases are x86-64 bytes with x86-64 registers, so without it (another
 * architecture) they skip, saying so.
 */
static const struct insn_decoder *host_decoder(void)
{
	const struct insn_decoder *d = insn_decoder_for_host();

	if (!d)
		cr_skip_test("SKIP: no instruction decoder for this host: the decode backend is x86-64's");
	return d;
}

#define V_AX 0x10000ULL
#define V_BX 0x7f0000020000ULL /* high bits: a 32-bit address (67 prefix) drops them */
#define V_CX 3ULL
#define V_DX 0x10ULL
#define V_SI 0x50000ULL
#define V_DI 0x60000ULL
#define V_BP 0x70000ULL
#define V_SP 0x80000ULL
#define V_IP 0x400000ULL
#define V_R8 0x90000ULL
#define V_R9 4ULL
#define V_R12 0xc0000ULL
#define V_R13 0xd0000ULL

static void context(uint64_t *regs)
{
	memset(regs, 0, INSN_MAX_REGS * sizeof(*regs));
	regs[AX] = V_AX, regs[BX] = V_BX, regs[CX] = V_CX, regs[DX] = V_DX;
	regs[SI] = V_SI, regs[DI] = V_DI, regs[BP] = V_BP, regs[SP] = V_SP;
	regs[IP] = V_IP, regs[R8] = V_R8, regs[R9] = V_R9, regs[R12] = V_R12, regs[R13] = V_R13;
}

#define L 1 /* load */
#define S 2 /* store */
struct want_acc {
	uint64_t addr;
	uint32_t size;
	int ls;
};

struct form {
	const char *text;
	uint8_t bytes[INSN_MAX_BYTES];
	size_t len;
	enum insn_status status;
	size_t nr;
	struct want_acc acc[3];
};

static const struct form forms[] = {
	{ "mov rax,[rbx]", { 0x48, 0x8b, 0x03 }, 3, INSN_ACCESS, 1, { { V_BX, 8, L } } },
	{ "mov [rbx+rcx*8+0x10],rdx", { 0x48, 0x89, 0x54, 0xcb, 0x10 }, 5, INSN_ACCESS, 1, { { V_BX + 0x28, 8, S } } },
	{ "mov eax,[rbx+rcx*4-8]", { 0x8b, 0x44, 0x8b, 0xf8 }, 4, INSN_ACCESS, 1, { { V_BX + 4, 4, L } } },
	{ "mov byte [rsi],1", { 0xc6, 0x06, 0x01 }, 3, INSN_ACCESS, 1, { { V_SI, 1, S } } },
	{ "movzx eax,word [rdi+2]", { 0x0f, 0xb7, 0x47, 0x02 }, 4, INSN_ACCESS, 1, { { V_DI + 2, 2, L } } },
	{ "add [rbx+8],rax", { 0x48, 0x01, 0x43, 0x08 }, 4, INSN_ACCESS, 1, { { V_BX + 8, 8, L | S } } },
	{ "add rax,[rsi+rcx*2]", { 0x48, 0x03, 0x04, 0x4e }, 4, INSN_ACCESS, 1, { { V_SI + 6, 8, L } } },
	{ "cmp qword [rbp-0x10],0", { 0x48, 0x83, 0x7d, 0xf0, 0x00 }, 5, INSN_ACCESS, 1, { { V_BP - 0x10, 8, L } } },
	{ "cmp rdx,[r8+r9*8+0x100]", { 0x4b, 0x3b, 0x94, 0xc8, 0x00, 0x01, 0x00, 0x00 }, 8, INSN_ACCESS, 1,
	  { { V_R8 + 0x20 + 0x100, 8, L } } },
	{ "lea rax,[rbx+rcx*8+16] (not an access)", { 0x48, 0x8d, 0x44, 0xcb, 0x10 }, 5, INSN_NO_MEMORY, 0, { { 0 } } },
	{ "mov rax,[rip+0x1000]", { 0x48, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00 }, 7, INSN_ACCESS, 1,
	  { { V_IP + 7 + 0x1000, 8, L } } },
	{ "lea rax,[rip+0x10] (not an access)", { 0x48, 0x8d, 0x05, 0x10, 0x00, 0x00, 0x00 }, 7, INSN_NO_MEMORY, 0,
	  { { 0 } } },
	{ "push rax", { 0x50 }, 1, INSN_ACCESS, 1, { { V_SP - 8, 8, S } } },
	{ "pop rbx", { 0x5b }, 1, INSN_ACCESS, 1, { { V_SP, 8, L } } },
	{ "call rel32", { 0xe8, 0x00, 0x01, 0x00, 0x00 }, 5, INSN_ACCESS, 1, { { V_SP - 8, 8, S } } },
	{ "ret", { 0xc3 }, 1, INSN_ACCESS, 1, { { V_SP, 8, L } } },
	{ "push qword [rax]", { 0xff, 0x30 }, 2, INSN_ACCESS, 2, { { V_AX, 8, L }, { V_SP - 8, 8, S } } },
	{ "movsb", { 0xa4 }, 1, INSN_ACCESS, 2, { { V_DI, 1, S }, { V_SI, 1, L } } },
	{ "movsq", { 0x48, 0xa5 }, 2, INSN_ACCESS, 2, { { V_DI, 8, S }, { V_SI, 8, L } } },
	{ "rep stosq", { 0xf3, 0x48, 0xab }, 3, INSN_ACCESS, 1, { { V_DI, 8, S } } },
	{ "lock cmpxchg [rdi],rcx", { 0xf0, 0x48, 0x0f, 0xb1, 0x0f }, 5, INSN_ACCESS, 1, { { V_DI, 8, L | S } } },
	{ "movdqu xmm0,[rax]", { 0xf3, 0x0f, 0x6f, 0x00 }, 4, INSN_ACCESS, 1, { { V_AX, 16, L } } },
	{ "movaps [rdi+rcx*4],xmm1", { 0x0f, 0x29, 0x0c, 0x8f }, 4, INSN_ACCESS, 1, { { V_DI + 12, 16, S } } },
	{ "vmovdqu ymm0,[rsi+0x20]", { 0xc5, 0xfe, 0x6f, 0x46, 0x20 }, 5, INSN_ACCESS, 1, { { V_SI + 0x20, 32, L } } },
	{ "vaddps ymm0,ymm1,[rbx]", { 0xc5, 0xf4, 0x58, 0x03 }, 4, INSN_ACCESS, 1, { { V_BX, 32, L } } },
	{ "vmovdqu64 zmm0,[rcx+rdx*8+0x40]", { 0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x44, 0xd1, 0x01 }, 8, INSN_ACCESS, 1,
	  { { V_CX + 0x80 + 0x40, 64, L } } },
	{ "movss xmm0,[rsp+8]", { 0xf3, 0x0f, 0x10, 0x44, 0x24, 0x08 }, 6, INSN_ACCESS, 1, { { V_SP + 8, 4, L } } },
	{ "mov rax,fs:0x28 (TLS: skipped)", { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00 }, 9, INSN_SEGMENT,
	  0, { { 0 } } },
	{ "mov rax,gs:[rbx] (skipped)", { 0x65, 0x48, 0x8b, 0x03 }, 4, INSN_SEGMENT, 0, { { 0 } } },
	{ "add dword fs:[rax],1 (skipped)", { 0x64, 0x83, 0x00, 0x01 }, 4, INSN_SEGMENT, 0, { { 0 } } },
	{ "xchg [rdi],rax", { 0x48, 0x87, 0x07 }, 3, INSN_ACCESS, 1, { { V_DI, 8, L | S } } },
	{ "inc dword [rbp+r9*4+0]", { 0x42, 0xff, 0x44, 0x8d, 0x00 }, 5, INSN_ACCESS, 1, { { V_BP + 16, 4, L | S } } },
	{ "nop dword [rax+rax] (not an access)", { 0x0f, 0x1f, 0x04, 0x00 }, 4, INSN_NO_MEMORY, 0, { { 0 } } },
	{ "mov eax,[ebx+ecx*4] (32-bit address)", { 0x67, 0x8b, 0x04, 0x8b }, 4, INSN_ACCESS, 1,
	  { { (uint32_t)V_BX + 12, 4, L } } },
	{ "leave", { 0xc9 }, 1, INSN_ACCESS, 1, { { V_BP, 8, L } } },
	{ "vpgatherdd (vector index: skipped)", { 0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x88 }, 6, INSN_UNSUPPORTED, 0,
	  { { 0 } } },
	{ "mov rax,[r12]", { 0x49, 0x8b, 0x04, 0x24 }, 4, INSN_ACCESS, 1, { { V_R12, 8, L } } },
	{ "mov rax,[r13+0]", { 0x49, 0x8b, 0x45, 0x00 }, 4, INSN_ACCESS, 1, { { V_R13, 8, L } } },
	{ "add rax,rbx (no memory)", { 0x48, 0x01, 0xd8 }, 3, INSN_NO_MEMORY, 0, { { 0 } } },
	{ "cmovne rax,[rbx+rdx]", { 0x48, 0x0f, 0x45, 0x04, 0x13 }, 5, INSN_ACCESS, 1, { { V_BX + 0x10, 8, L } } },
	{ "mov [rip-0x20],ecx", { 0x89, 0x0d, 0xe0, 0xff, 0xff, 0xff }, 6, INSN_ACCESS, 1,
	  { { V_IP + 6 - 0x20, 4, S } } },
	{ "pop qword [rdi+8]", { 0x8f, 0x47, 0x08 }, 3, INSN_ACCESS, 2, { { V_DI + 8, 8, S }, { V_SP, 8, L } } },
	{ "push es (invalid in 64-bit mode)", { 0x06 }, 1, INSN_INVALID, 0, { { 0 } } },
	{ "mov rax,[rip+disp32] cut after 3 bytes", { 0x48, 0x8b, 0x05 }, 3, INSN_TRUNCATED, 0, { { 0 } } },
};

#define NR_FORMS (sizeof(forms) / sizeof(forms[0]))

static void check_form(size_t i)
{
	const struct form *f = &forms[i];
	const struct insn_decoder *d = host_decoder();
	uint64_t regs[INSN_MAX_REGS];
	struct insn_result r;

	context(regs);
	d->decode(f->bytes, f->len, V_IP, regs, false, &r);
	cr_assert_eq(r.status, f->status, "%s: status %d, want %d", f->text, (int)r.status,
		     (int)f->status);
	cr_assert_eq(r.nr, f->nr, "%s: %zu accesses, want %zu", f->text, r.nr, f->nr);
	if (f->status == INSN_ACCESS || f->status == INSN_NO_MEMORY)
		cr_assert_eq(r.length, f->len, "%s: length %u", f->text, r.length);
	for (size_t i = 0; i < f->nr; i++) {
		const struct want_acc *w = &f->acc[i];
		size_t j;

		for (j = 0; j < r.nr && r.acc[j].addr != w->addr; j++)
			;
		cr_assert_lt(j, r.nr, "%s: no access at %#llx (first: %#llx)", f->text, (unsigned long long)w->addr,
			     (unsigned long long)r.acc[0].addr);
		cr_assert_eq(r.acc[j].size, w->size, "%s: size %u, want %u", f->text, r.acc[j].size, w->size);
		cr_assert_eq(r.acc[j].load, !!(w->ls & L), "%s: load mark", f->text);
		cr_assert_eq(r.acc[j].store, !!(w->ls & S), "%s: store mark", f->text);
	}
}

/* one test per form, so a failure names it */
Test(insn, x86_form_00) { check_form(0); }
Test(insn, x86_form_01) { check_form(1); }
Test(insn, x86_form_02) { check_form(2); }
Test(insn, x86_form_03) { check_form(3); }
Test(insn, x86_form_04) { check_form(4); }
Test(insn, x86_form_05) { check_form(5); }
Test(insn, x86_form_06) { check_form(6); }
Test(insn, x86_form_07) { check_form(7); }
Test(insn, x86_form_08) { check_form(8); }
Test(insn, x86_form_09) { check_form(9); }
Test(insn, x86_form_10) { check_form(10); }
Test(insn, x86_form_11) { check_form(11); }
Test(insn, x86_form_12) { check_form(12); }
Test(insn, x86_form_13) { check_form(13); }
Test(insn, x86_form_14) { check_form(14); }
Test(insn, x86_form_15) { check_form(15); }
Test(insn, x86_form_16) { check_form(16); }
Test(insn, x86_form_17) { check_form(17); }
Test(insn, x86_form_18) { check_form(18); }
Test(insn, x86_form_19) { check_form(19); }
Test(insn, x86_form_20) { check_form(20); }
Test(insn, x86_form_21) { check_form(21); }
Test(insn, x86_form_22) { check_form(22); }
Test(insn, x86_form_23) { check_form(23); }
Test(insn, x86_form_24) { check_form(24); }
Test(insn, x86_form_25) { check_form(25); }
Test(insn, x86_form_26) { check_form(26); }
Test(insn, x86_form_27) { check_form(27); }
Test(insn, x86_form_28) { check_form(28); }
Test(insn, x86_form_29) { check_form(29); }
Test(insn, x86_form_30) { check_form(30); }
Test(insn, x86_form_31) { check_form(31); }
Test(insn, x86_form_32) { check_form(32); }
Test(insn, x86_form_33) { check_form(33); }
Test(insn, x86_form_34) { check_form(34); }
Test(insn, x86_form_35) { check_form(35); }
Test(insn, x86_form_36) { check_form(36); }
Test(insn, x86_form_37) { check_form(37); }
Test(insn, x86_form_38) { check_form(38); }
Test(insn, x86_form_39) { check_form(39); }
Test(insn, x86_form_40) { check_form(40); }
Test(insn, x86_form_41) { check_form(41); }
Test(insn, x86_form_42) { check_form(42); }
Test(insn, x86_form_43) { check_form(43); }

Test(insn, every_form_has_its_test)
{
	cr_assert_eq(NR_FORMS, 44, "add a Test line per new form");
	cr_assert_geq(NR_FORMS, 30);
}

Test(insn, decoder_names_itself)
{
	const struct insn_decoder *d = host_decoder();
	char v[32];

	cr_assert_str_eq(d->name, "zydis");
	cr_assert_str_eq(d->arch, "x86_64");
	d->version(v, sizeof(v));
	cr_assert(v[0] >= '4' && strchr(v, '.'), "version %s", v);
	cr_assert_eq(d->regs_mask, 0xff01ffULL);
}

Test(insn, data_src_marks_only_the_op)
{
	union perf_mem_data_src l = { .val = decode_stream_data_src(1, 0) }, s = { .val = decode_stream_data_src(0, 1) },
				rmw = { .val = decode_stream_data_src(1, 1) };

	cr_assert_eq(l.mem_op, PERF_MEM_OP_LOAD);
	cr_assert_eq(s.mem_op, PERF_MEM_OP_STORE);
	cr_assert_eq(rmw.mem_op, PERF_MEM_OP_LOAD | PERF_MEM_OP_STORE);
	cr_assert_eq(l.mem_lvl, PERF_MEM_LVL_NA);
	cr_assert_eq(l.mem_snoop, PERF_MEM_SNOOP_NA);
	cr_assert_eq(l.mem_lvl_num, 0);
	cr_assert_eq(l.mem_remote, 0);
}

/* metadata.json's "skipped" keys, in the order the schema lists them: one
 * per reason, none left unnamed. */
Test(insn, skip_reasons_are_named_in_metadata_order)
{
	static const char *const want[DECODE_SKIP_NR] = { "kernel_mode", "no_user_regs", "unreadable_text",
							   "undecodable", "no_memory_operand", "fs_gs_segment",
							   "vector_index", "previous_clobbered" };

	for (int i = 0; i < DECODE_SKIP_NR; i++) {
		cr_assert(decode_skip_name(i), "reason %d has no name", i);
		cr_assert_str_eq(decode_skip_name(i), want[i]);
	}
}

/* An instruction whose first 3 bytes are the last of a file-backed
 * executable page and whose other 4 start the next page, an anonymous
 * executable one: read from this process as the recorder would read the
 * workload, both sources stitched. */
Test(insn, instruction_crossing_a_page_boundary)
{
	static const uint8_t insn[] = { 0x48, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00 }; /* mov rax,[rip+0x1000] */
	long page = sysconf(_SC_PAGESIZE);
	char path[] = "/tmp/scxprof-insn-XXXXXX";
	int fd = mkstemp(path);
	uint8_t *file_page, *area, got[INSN_MAX_BYTES];
	uint8_t *anon;
	struct insn_text *t;
	struct insn_result r;
	uint64_t regs[INSN_MAX_REGS];
	uint64_t ip;
	size_t n;

	cr_assert_geq(fd, 0);
	unlink(path);
	cr_assert_eq(ftruncate(fd, page), 0);
	file_page = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert_neq(file_page, MAP_FAILED);
	memset(file_page, 0x90, (size_t)page);
	memcpy(file_page + page - 3, insn, 3);
	munmap(file_page, (size_t)page);
	/* reserve two pages, then the file at the first and anonymous memory at the second */
	area = mmap(NULL, 2 * (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(area, MAP_FAILED);
	cr_assert_neq(mmap(area, (size_t)page, PROT_READ | PROT_EXEC, MAP_SHARED | MAP_FIXED, fd, 0), MAP_FAILED);
	anon = mmap(area + page, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		    -1, 0);
	cr_assert_eq(anon, area + page);
	memset(anon, 0x90, (size_t)page);
	memcpy(anon, insn + 3, sizeof(insn) - 3);
	close(fd);

	t = insn_text_new("/proc");
	cr_assert_not_null(t);
	ip = (uint64_t)(uintptr_t)(area + page - 3);
	n = insn_text_read(t, getpid(), ip, got, sizeof(got));
	cr_assert_eq(n, sizeof(got), "read %zu bytes", n);
	cr_assert_eq(memcmp(got, insn, sizeof(insn)), 0, "bytes stitched from both pages");
	cr_assert_geq(insn_text_stats(t)->from_file, 1, "first page from the file");
	cr_assert_geq(insn_text_stats(t)->from_memory, 1, "second page from process memory");
	context(regs);
	regs[IP] = ip;
	host_decoder()->decode(got, n, ip, regs, false, &r);
	cr_assert_eq(r.status, INSN_ACCESS);
	cr_assert_eq(r.nr, 1);
	cr_assert_eq(r.acc[0].addr, ip + sizeof(insn) + 0x1000);
	cr_assert(r.acc[0].load && !r.acc[0].store);

	/* nothing executable there: unreadable */
	cr_assert_eq(insn_text_read(t, getpid(), 8, got, sizeof(got)), 0);
	insn_text_free(t);
	munmap(area, 2 * (size_t)page);
}

Test(insn, text_of_a_gone_process_is_unreadable)
{
	struct insn_text *t = insn_text_new("/proc");
	uint8_t buf[INSN_MAX_BYTES];
	pid_t child = fork();
	int status;

	cr_assert_geq(child, 0);
	if (child == 0)
		_exit(0);
	waitpid(child, &status, 0);
	cr_assert_eq(insn_text_read(t, child, (uint64_t)(uintptr_t)&insn_text_read, buf, sizeof(buf)), 0);
	/* our own code is readable, from the file */
	cr_assert_eq(insn_text_read(t, getpid(), (uint64_t)(uintptr_t)&insn_text_read, buf, sizeof(buf)), sizeof(buf));
	cr_assert_eq(memcmp(buf, (const void *)&insn_text_read, sizeof(buf)), 0);
	insn_text_free(t);
}

/* ---- the instruction before the IP ---------------------------------------- */

/* A function with known instructions, in this binary's .symtab:
 *   0: 48 8b 07       mov rax,[rdi]
 *   3: 48 33 04 cf    xor rax,[rdi+rcx*8]
 *   7: 48 8d 51 01    lea rdx,[rcx+1]
 *  11: 48 8b 3f       mov rdi,[rdi]
 *  14: c3             ret */
__asm__(".text\n.globl scx_insn_test_fn\n.type scx_insn_test_fn,@function\nscx_insn_test_fn:\n"
	".byte 0x48,0x8b,0x07, 0x48,0x33,0x04,0xcf, 0x48,0x8d,0x51,0x01, 0x48,0x8b,0x3f, 0xc3\n"
	".size scx_insn_test_fn, .-scx_insn_test_fn\n");
extern const uint8_t scx_insn_test_fn[];

Test(insn, previous_instruction_from_the_function_start)
{
	struct insn_text *t = insn_text_new("/proc");
	const struct insn_decoder *d = host_decoder();
	uint64_t fn = (uint64_t)(uintptr_t)scx_insn_test_fn, prev = 0;
	uint8_t buf[INSN_MAX_BYTES];

	cr_assert_not_null(t);
	/* load the maps first (a read), as decode_stream does */
	cr_assert_gt(insn_text_read(t, getpid(), fn, buf, sizeof(buf)), 0);
	cr_assert(insn_text_prev(t, getpid(), fn + 7, d, &prev));
	cr_assert_eq(prev, fn + 3, "before the lea: the xor at +3, got +%lld", (long long)(prev - fn));
	cr_assert(insn_text_prev(t, getpid(), fn + 14, d, &prev));
	cr_assert_eq(prev, fn + 11);
	cr_assert(insn_text_prev(t, getpid(), fn + 3, d, &prev));
	cr_assert_eq(prev, fn);
	cr_assert_eq(insn_text_stats(t)->prev_walks, 1, "the function is decoded once");
	cr_assert_not(insn_text_prev(t, getpid(), fn, d, &prev), "a function's first instruction has none");
	cr_assert_not(insn_text_prev(t, getpid(), fn + 5, d, &prev), "+5 is inside the xor");
	insn_text_free(t);
}

Test(insn, executed_instruction_that_overwrote_its_address_registers)
{
	const struct insn_decoder *d = host_decoder();
	static const uint8_t xor_[] = { 0x48, 0x33, 0x04, 0xcf }, mov_self[] = { 0x48, 0x8b, 0x3f },
			     push[] = { 0x50 }, eax_base[] = { 0x8b, 0x00 };
	uint64_t regs[INSN_MAX_REGS];
	struct insn_result r;

	context(regs);
	d->decode(xor_, sizeof(xor_), V_IP, regs, true, &r);
	cr_assert_eq(r.status, INSN_ACCESS, "xor rax,[rdi+rcx*8] leaves rdi and rcx as they were");
	cr_assert_eq(r.acc[0].addr, V_DI + V_CX * 8);
	d->decode(mov_self, sizeof(mov_self), V_IP, regs, true, &r);
	cr_assert_eq(r.status, INSN_CLOBBERED, "mov rdi,[rdi] replaced its base");
	d->decode(push, sizeof(push), V_IP, regs, true, &r);
	cr_assert_eq(r.status, INSN_CLOBBERED, "push moved rsp");
	d->decode(eax_base, sizeof(eax_base), V_IP, regs, true, &r);
	cr_assert_eq(r.status, INSN_CLOBBERED, "mov eax,[rax]: writing eax replaces rax");
	d->decode(eax_base, sizeof(eax_base), V_IP, regs, false, &r);
	cr_assert_eq(r.status, INSN_ACCESS, "about to run: the registers are its inputs");
}

Test(insn, elf_function_table_of_this_binary)
{
	struct insn_text *t = insn_text_new("/proc");
	struct elf_funcs fs;
	FILE *f = fopen("/proc/self/exe", "rb");
	uint8_t *img;
	long size;

	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	img = malloc((size_t)size);
	cr_assert_eq(fread(img, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	cr_assert_eq(elf_funcs_load(img, (size_t)size, &fs), 0);
	cr_assert_gt(fs.n, 100, "%zu functions", fs.n);
	for (size_t i = 1; i < fs.n; i++)
		cr_assert_lt(fs.f[i - 1].start, fs.f[i].start);
	elf_funcs_free(&fs);
	/* not ELF, a truncated header: no functions, no crash */
	cr_assert_eq(elf_funcs_load((const uint8_t *)"\x7f" "ELF", 4, &fs), 0);
	cr_assert_eq(fs.n, 0);
	cr_assert_eq(elf_funcs_load(img, 64, &fs), 0);
	cr_assert_eq(fs.n, 0);
	free(img);
	insn_text_free(t);
}
