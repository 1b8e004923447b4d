/*
 * spe_data_src.c - a SPE record's union perf_mem_data_src, as perf 6.1's
 * arm-spe.c synthesizes it (spe.h). On Neoverse N1, N2 and V1 (the MIDRs
 * perf 6.1 lists) the data source packet names where a load was served
 * (the cores' TRMs: 0x0 L1D, 0x8 L2, 0x9 peer core, 0xa local cluster,
 * 0xb system cache, 0xc peer cluster, 0xd remote, 0xe DRAM); stores get no
 * level. Elsewhere the level comes from the events packet (L1D / LLC access
 * and refill, remote access). The TLB part comes from the TLB events.
 * Where later perf changed the encoding (remote accesses), perf 6.1's is
 * kept: it is the oracle the tests compare with.
 */
#include "process/spe/spe.h"

#include <linux/perf_event.h>

/* Neoverse data source packet values */
enum {
	NV_L1D = 0x0,
	NV_L2 = 0x8,
	NV_PEER_CORE = 0x9,
	NV_LOCAL_CLUSTER = 0xa,
	NV_SYS_CACHE = 0xb,
	NV_PEER_CLUSTER = 0xc,
	NV_REMOTE = 0xd,
	NV_DRAM = 0xe,
};

/* perf_mem_data_src bit positions (the union's bitfields, little-endian) */
#define SH_OP 0
#define SH_LVL 5
#define SH_SNOOP 19
#define SH_DTLB 26
#define SH_LVLNUM 33
#define SH_REMOTE 37
#define SH_SNOOPX 38

/* MIDR: implementer 31:24, variant 23:20, architecture 19:16, part 15:4,
 * revision 3:0; perf's MIDR_ALL_VERSIONS ignores variant and revision. */
#define MIDR_MODEL(part) ((0x41ULL << 24) | (0xfULL << 16) | ((uint64_t)(part) << 4))
#define MIDR_VERSION_MASK 0x00f0000fULL

bool spe_midr_is_neoverse(uint64_t midr)
{
	static const uint64_t models[] = {MIDR_MODEL(0xd0c) /* N1 */, MIDR_MODEL(0xd49) /* N2 */,
					  MIDR_MODEL(0xd40) /* V1 */};
	size_t i;

	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if ((midr & ~MIDR_VERSION_MASK) == models[i])
			return true;
	return false;
}

struct parts {
	uint64_t lvl, snoop, lvlnum, remote, snoopx, dtlb;
};

/* What each Neoverse data source says (perf 6.1's arm_spe__synth_data_source_neoverse). */
static const struct {
	uint16_t source;
	struct parts p;
} nv_sources[] = {
	{NV_L1D, {.lvl = PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, .lvlnum = PERF_MEM_LVLNUM_L1,
		  .snoop = PERF_MEM_SNOOP_NONE}},
	{NV_L2, {.lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT, .lvlnum = PERF_MEM_LVLNUM_L2,
		 .snoop = PERF_MEM_SNOOP_NONE}},
	{NV_PEER_CORE, {.lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT, .lvlnum = PERF_MEM_LVLNUM_L2,
			.snoopx = PERF_MEM_SNOOPX_PEER}},
	/* L1 or L2 of another core: a cache-to-cache transfer */
	{NV_LOCAL_CLUSTER, {.lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, .lvlnum = PERF_MEM_LVLNUM_L3,
			    .snoopx = PERF_MEM_SNOOPX_PEER}},
	{NV_PEER_CLUSTER, {.lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, .lvlnum = PERF_MEM_LVLNUM_L3,
			   .snoopx = PERF_MEM_SNOOPX_PEER}},
	/* the system cache, taken as L3 */
	{NV_SYS_CACHE, {.lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, .lvlnum = PERF_MEM_LVLNUM_L3,
			.snoop = PERF_MEM_SNOOP_HIT}},
	/* another socket, level unknown (later perf: REM_CCE1, ANY_CACHE) */
	{NV_REMOTE, {.lvl = PERF_MEM_LVL_NA, .lvlnum = PERF_MEM_LVLNUM_NA, .remote = PERF_MEM_REMOTE_REMOTE,
		     .snoopx = PERF_MEM_SNOOPX_PEER}},
	{NV_DRAM, {.lvl = PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT, .lvlnum = PERF_MEM_LVLNUM_RAM,
		   .snoop = PERF_MEM_SNOOP_NONE}},
};

static void neoverse(const struct spe_record *r, struct parts *p)
{
	size_t i;

	if (r->op & SPE_OP_ST) { /* no level is known for stores */
		p->lvl = PERF_MEM_LVL_NA;
		p->lvlnum = PERF_MEM_LVLNUM_NA;
		p->snoop = PERF_MEM_SNOOP_NA;
		return;
	}
	for (i = 0; i < sizeof(nv_sources) / sizeof(nv_sources[0]); i++)
		if (nv_sources[i].source == r->source) {
			*p = nv_sources[i].p;
			return;
		}
	/* other values: no level */
}

static void generic(const struct spe_record *r, struct parts *p)
{
	if (r->events & (SPE_EV_LLC_ACCESS | SPE_EV_LLC_MISS))
		p->lvl = PERF_MEM_LVL_L3 | ((r->events & SPE_EV_LLC_MISS) ? PERF_MEM_LVL_MISS : PERF_MEM_LVL_HIT);
	else if (r->events & (SPE_EV_L1D_ACCESS | SPE_EV_L1D_REFILL))
		p->lvl = PERF_MEM_LVL_L1 | ((r->events & SPE_EV_L1D_REFILL) ? PERF_MEM_LVL_MISS : PERF_MEM_LVL_HIT);
	if (r->events & SPE_EV_REMOTE) /* perf 6.1; later perf sets mem_lvl REM_CCE1 instead */
		p->remote = PERF_MEM_REMOTE_REMOTE;
}

uint64_t spe_data_src(const struct spe_record *r, uint64_t midr)
{
	struct parts p = {0};
	uint64_t op;

	if (r->op & SPE_OP_LD)
		op = PERF_MEM_OP_LOAD;
	else if (r->op & SPE_OP_ST)
		op = PERF_MEM_OP_STORE;
	else
		return 0;
	if (spe_midr_is_neoverse(midr))
		neoverse(r, &p);
	else
		generic(r, &p);
	if (r->events & (SPE_EV_TLB_ACCESS | SPE_EV_TLB_WALK))
		p.dtlb = PERF_MEM_TLB_WK | ((r->events & SPE_EV_TLB_WALK) ? PERF_MEM_TLB_MISS : PERF_MEM_TLB_HIT);
	/* each part masked to its bitfield's width, as the union's assignments do */
	return op << SH_OP | (p.lvl & 0x3fff) << SH_LVL | (p.snoop & 0x1f) << SH_SNOOP |
	       (p.dtlb & 0x7f) << SH_DTLB | (p.lvlnum & 0xf) << SH_LVLNUM | (p.remote & 1) << SH_REMOTE |
	       (p.snoopx & 3) << SH_SNOOPX;
}
