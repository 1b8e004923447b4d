/*
 * test_ksymbol_fix.c - unit tests of record/streams/ksymbol_fix.c on a
 * KSYMBOL record the kernel (6.18) wrote into test_record's perf.mem.data
 * while another recording listened for KSYMBOL on the same cpu: header.size
 * 128, body and trailer in the first 96 bytes, stale ring bytes after
 * (perf script: "failed to process type: 17 [Bad address]").
 */
#include "record/streams/ksymbol_fix.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static const char captured[] =
	"1100000000008000986002c0ffffffff9c040000010001006270665f70726f67"
	"5f383236613236363463666531363131635f73636865645f77616b6575700000"
	"4c4a00004c4a000092168c56670200001e170000000000000100000000000000"
	"a0c382d701000000010000000000000000100000000000000900000002005800";

static size_t unhex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned v;

	while (n < max && sscanf(hex + 2 * n, "%2x", &v) == 1)
		out[n++] = (uint8_t)v;
	return n;
}

Test(ksymbol_fix, moves_the_kernels_trailer_to_the_end)
{
	uint8_t rec[256];
	uint32_t pid, tid, cpu;
	uint64_t id;

	cr_assert_geq(unhex(captured, rec, sizeof(rec)), 128);
	cr_assert(ksymbol_fix_trailer(rec, 128, 32));
	memcpy(&pid, rec + 96, 4);
	memcpy(&tid, rec + 100, 4);
	memcpy(&id, rec + 112, 8);
	memcpy(&cpu, rec + 120, 4);
	cr_assert_eq(pid, 19020);
	cr_assert_eq(tid, 19020);
	cr_assert_eq(id, 5918, "the side-band event's own id, as the kernel wrote it");
	cr_assert_eq(cpu, 1);
	for (size_t i = 64; i < 96; i++)
		cr_assert_eq(rec[i], 0, "the gap is zeroed (byte %zu)", i);
	cr_assert_str_eq((const char *)rec + 24, "bpf_prog_826a2664cfe1611c_sched_wakeup");
}

Test(ksymbol_fix, leaves_well_formed_and_odd_records_alone)
{
	uint8_t rec[256], copy[256];

	unhex(captured, rec, sizeof(rec));
	memcpy(copy, rec, sizeof(rec));
	cr_assert_not(ksymbol_fix_trailer(rec, 96, 32), "right size: nothing to do");
	cr_assert_not(ksymbol_fix_trailer(rec, 60, 32), "too short");
	cr_assert_not(ksymbol_fix_trailer(rec, 130, 32), "not a multiple of 8");
	memset(rec + 24, 'x', 128 - 24 - 32);
	memcpy(copy, rec, sizeof(rec));
	cr_assert_not(ksymbol_fix_trailer(rec, 128, 32), "no NUL in the name");
	cr_assert_eq(memcmp(rec, copy, sizeof(rec)), 0, "untouched");
}
