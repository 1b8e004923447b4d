/*
 * data_src.c - PERF_SAMPLE_DATA_SRC decoder (see data_src.h). Bit layout from
 * include/uapi/linux/perf_event.h (union perf_mem_data_src).
 */
#include "data_src.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define FIELD(v, shift, bits) (((v) >> (shift)) & ((1ULL << (bits)) - 1))
#define FIELDV(v, shift) ((uint64_t)(v) << (shift))

struct bit_name {
	uint64_t bit;
	const char *name;
};

/* "A|B" of the names whose bits are set, "NA" when none is. */
static void bits_json(struct jsonw *w, const char *key, uint64_t v, const struct bit_name *names, size_t n)
{
	char buf[128];
	size_t len = 0, i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		size_t l = strlen(names[i].name);

		if (!(v & names[i].bit) || len + l + 2 > sizeof(buf))
			continue;
		if (len)
			buf[len++] = '|';
		memcpy(buf + len, names[i].name, l + 1);
		len += l;
	}
	jsonw_kv_str(w, key, len ? buf : "NA");
}

static const struct bit_name op_names[] = {
	{PERF_MEM_OP_NA, "NA"}, {PERF_MEM_OP_LOAD, "LOAD"}, {PERF_MEM_OP_STORE, "STORE"},
	{PERF_MEM_OP_PFETCH, "PFETCH"}, {PERF_MEM_OP_EXEC, "EXEC"},
};
static const struct bit_name snoop_names[] = {
	{PERF_MEM_SNOOP_NA, "NA"}, {PERF_MEM_SNOOP_NONE, "NONE"}, {PERF_MEM_SNOOP_HIT, "HIT"},
	{PERF_MEM_SNOOP_MISS, "MISS"}, {PERF_MEM_SNOOP_HITM, "HITM"},
	{(uint64_t)PERF_MEM_SNOOPX_FWD << 5, "FWD"}, {(uint64_t)PERF_MEM_SNOOPX_PEER << 5, "PEER"},
};
static const struct bit_name tlb_names[] = {
	{PERF_MEM_TLB_NA, "NA"}, {PERF_MEM_TLB_HIT, "HIT"}, {PERF_MEM_TLB_MISS, "MISS"},
	{PERF_MEM_TLB_L1, "L1"}, {PERF_MEM_TLB_L2, "L2"}, {PERF_MEM_TLB_WK, "WALKER"},
	{PERF_MEM_TLB_OS, "OS"},
};
static const struct bit_name blk_names[] = {
	{PERF_MEM_BLK_NA, "NA"}, {PERF_MEM_BLK_DATA, "DATA"}, {PERF_MEM_BLK_ADDR, "ADDR"},
};

static const char *lvlnum_name(unsigned v)
{
	static const char *const names[16] = {
		[1] = "L1", [2] = "L2", [3] = "L3", [4] = "L4", [5] = "L2_MHB", [6] = "MSC",
		[8] = "UNC", [9] = "CXL", [10] = "IO", [11] = "ANY_CACHE", [12] = "LFB",
		[13] = "RAM", [14] = "PMEM", [15] = "NA",
	};
	return v < 16 && names[v] ? names[v] : "NA";
}

/* Legacy mem_lvl: the first level bit set, its remoteness. */
static const char *legacy_level(uint64_t lvl, bool *remote)
{
	static const struct { uint64_t bit; const char *name; bool remote; } order[] = {
		{PERF_MEM_LVL_L1, "L1", false}, {PERF_MEM_LVL_LFB, "LFB", false},
		{PERF_MEM_LVL_L2, "L2", false}, {PERF_MEM_LVL_L3, "L3", false},
		{PERF_MEM_LVL_LOC_RAM, "RAM", false}, {PERF_MEM_LVL_REM_RAM1, "RAM", true},
		{PERF_MEM_LVL_REM_RAM2, "RAM", true}, {PERF_MEM_LVL_REM_CCE1, "ANY_CACHE", true},
		{PERF_MEM_LVL_REM_CCE2, "ANY_CACHE", true}, {PERF_MEM_LVL_IO, "IO", false},
		{PERF_MEM_LVL_UNC, "UNC", false},
	};
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (lvl & order[i].bit) {
			*remote = order[i].remote;
			return order[i].name;
		}
	}
	return "NA";
}

/* Level reached, hit/miss and remoteness, as perf decodes them. */
static void decode_level(uint64_t v, const char **level, const char **result, bool *remote)
{
	uint64_t lvl = FIELD(v, PERF_MEM_LVL_SHIFT, 14);
	unsigned lvlnum = (unsigned)FIELD(v, PERF_MEM_LVLNUM_SHIFT, 4);
	bool legacy_remote = false;

	*remote = FIELD(v, PERF_MEM_REMOTE_SHIFT, 1);
	if (lvlnum && lvlnum != PERF_MEM_LVLNUM_NA) {
		*level = lvlnum_name(lvlnum);
	} else {
		*level = legacy_level(lvl, &legacy_remote);
		*remote = *remote || legacy_remote;
	}
	if (lvl & PERF_MEM_LVL_HIT)
		*result = "HIT";
	else if (lvl & PERF_MEM_LVL_MISS)
		*result = "MISS";
	else
		*result = "NA";
}

void data_src_summary(uint64_t v, char *buf, size_t size)
{
	const char *level, *result;
	bool remote;

	decode_level(v, &level, &result, &remote);
	snprintf(buf, size, "%s %s%s", level, result, remote ? " remote" : "");
}

void data_src_json(struct jsonw *w, uint64_t v)
{
	uint64_t op = FIELD(v, PERF_MEM_OP_SHIFT, 5);
	uint64_t snoop = FIELD(v, PERF_MEM_SNOOP_SHIFT, 5), snoopx = FIELD(v, PERF_MEM_SNOOPX_SHIFT, 2);
	uint64_t lock = FIELD(v, PERF_MEM_LOCK_SHIFT, 2), tlb = FIELD(v, PERF_MEM_TLB_SHIFT, 7);
	uint64_t blk = FIELD(v, PERF_MEM_BLK_SHIFT, 3), hops = FIELD(v, PERF_MEM_HOPS_SHIFT, 3);
	const char *level, *result;
	bool remote, hitm = snoop & PERF_MEM_SNOOP_HITM;

	decode_level(v, &level, &result, &remote);

	jsonw_obj_open(w);
	jsonw_key(w, "raw");
	jsonw_hex_str(w, v);
	bits_json(w, "op", op, op_names, sizeof(op_names) / sizeof(op_names[0]));
	jsonw_kv_str(w, "level", level);
	jsonw_kv_str(w, "result", result);
	jsonw_kv_bool(w, "remote", remote);
	jsonw_kv_u64(w, "hops", hops ? hops - 1 : 0);
	bits_json(w, "snoop", snoop | (snoopx << 5), snoop_names, sizeof(snoop_names) / sizeof(snoop_names[0]));
	jsonw_key(w, "hitm");
	if (!hitm)
		jsonw_str(w, "none");
	else
		jsonw_str(w, remote ? "remote" : "local");
	jsonw_kv_str(w, "lock", lock & PERF_MEM_LOCK_LOCKED ? "LOCKED" : (lock & PERF_MEM_LOCK_NA ? "NA" : "NONE"));
	bits_json(w, "dtlb", tlb, tlb_names, sizeof(tlb_names) / sizeof(tlb_names[0]));
	bits_json(w, "blk", blk, blk_names, sizeof(blk_names) / sizeof(blk_names[0]));
	jsonw_obj_close(w);
}

bool data_src_is_unknown(uint64_t v)
{
	const uint64_t na = FIELDV(PERF_MEM_OP_NA, PERF_MEM_OP_SHIFT) | FIELDV(PERF_MEM_LVL_NA, PERF_MEM_LVL_SHIFT) |
			    FIELDV(PERF_MEM_SNOOP_NA, PERF_MEM_SNOOP_SHIFT) | FIELDV(PERF_MEM_LOCK_NA, PERF_MEM_LOCK_SHIFT) |
			    FIELDV(PERF_MEM_TLB_NA, PERF_MEM_TLB_SHIFT);

	return v == 0 || v == na || v == (na | FIELDV(PERF_MEM_LVLNUM_NA, PERF_MEM_LVLNUM_SHIFT));
}

const char *data_src_text(struct data_src_cache *c, uint64_t value, size_t *len)
{
	size_t i = (size_t)((value * 0x9e3779b97f4a7c15ULL) >> 58) % DATA_SRC_CACHE;
	struct jsonw w;

	if (c->slot[i].len && c->slot[i].value == value) {
		*len = c->slot[i].len;
		return c->slot[i].text;
	}
	jsonw_init(&w);
	data_src_json(&w, value);
	if (w.oom || w.len > DATA_SRC_TEXT_MAX) {
		jsonw_free(&w);
		*len = 4;
		return "null";
	}
	memcpy(c->slot[i].text, w.buf, w.len);
	c->slot[i].len = (uint16_t)w.len;
	c->slot[i].value = value;
	jsonw_free(&w);
	*len = c->slot[i].len;
	return c->slot[i].text;
}
