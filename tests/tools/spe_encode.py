#!/usr/bin/env python3
"""spe_encode.py - builds Arm SPE (Statistical Profiling Extension) AUX data
from chosen records and wraps it in a perf.data file laid out as `perf
record -e arm_spe_0//` writes it, for the tests of `process`'s SPE decoder.

The packets follow the Arm Architecture Reference Manual for A-profile
(DDI 0487, chapter D10 "Statistical Profiling Extension", section "Packet
formats"), written here from the manual and not from any decoder:

  header byte          packet                      payload
  0b00000000           Padding                     -
  0b00000001           End                         -
  0b01110001           Timestamp                   8 bytes (generic timer)
  0b01ss0010           Events                      1 << ss bytes
  0b01ss0011           Data Source                 1 << ss bytes
  0b011001ii           Context (ii: 0 EL1, 1 EL2)  4 bytes (CONTEXTIDR)
  0b010010cc           Operation Type (cc: class)  1 byte
  0b10110iii           Address (iii: index)        8 bytes
  0b10011iii           Counter (iii: index)        2 bytes
  0b001000hh           Extended header prefix (index bits 4:3 of the next)

Address indexes: 0 PC (bits 55:0, bit 63 NS, bits 62:61 EL), 1 branch
target, 2 data virtual address (bits 55:0, 63:56 tag), 3 data physical
address (bits 55:0, bit 63 NS, bit 62 CH). Counter indexes: 0 total
latency, 1 issue latency, 2 translation latency. Operation class 1 is
load/store/atomic, payload bit 0 set for a store. Events bits: 1 retired,
2 L1D access, 3 L1D refill, 4 TLB access, 5 TLB walk, 8 LLC access, 9 LLC
miss, 10 remote access. Data sources (Neoverse N1/N2/V1 TRMs): 0x0 L1D,
0x8 L2, 0x9 peer core, 0xa local cluster, 0xb system cache, 0xc peer
cluster, 0xd remote, 0xe DRAM. A record ends with its Timestamp packet, or
with End when timestamps are off.

The perf.data side follows tools/perf of the 6.1 era: the arm_spe attr (its
PMU type, sample_type IP|TID|TIME|CPU|IDENTIFIER, PHYS_ADDR when pa_enable)
and a dummy tracking attr (comm, mmap2, context_switch), TIME_CONV before
AUXTRACE_INFO (type 4 = ARM_SPE, priv[0] PMU type, priv[1] per-cpu mmaps),
one AUXTRACE record (payload padded to 8 bytes) per chunk of a CPU's AUX
data with the kernel's AUX record (offset, size, flags) for it, COMM,
MMAP2 and SWITCH_CPU_WIDE side-band with sample_id trailers, and the header
features perf reads (CPUID with the MIDR, ARCH, NRCPUS, EVENT_DESC).

usage: spe_encode.py OUTDIR            writes the fixtures (FIXTURES below) into OUTDIR
       spe_encode.py --list            prints their names
       spe_encode.py --hostile OUTDIR  writes hostile variants (HOSTILE below):
                                       agree-*.data perf and process must
                                       agree on, fail-*.data process must refuse,
                                       same-v2.data must give spe_ctx_pa's samples
The checked-in fixtures are regenerated with
       python3 tests/tools/spe_encode.py tests/fixtures/spe
Each fixture is deterministic: running this again gives the same bytes.
"""
import os
import struct
import sys

# ---- SPE packets (DDI 0487 D10) --------------------------------------------

ADDR_PC, ADDR_BRANCH, ADDR_DATA_VA, ADDR_DATA_PA = 0, 1, 2, 3
CNT_TOTAL, CNT_ISSUE, CNT_XLAT = 0, 1, 2
OP_OTHER, OP_LDST, OP_BRANCH = 0, 1, 2
EV_RETIRED, EV_L1D_ACCESS, EV_L1D_REFILL = 1 << 1, 1 << 2, 1 << 3
EV_TLB_ACCESS, EV_TLB_WALK = 1 << 4, 1 << 5
EV_LLC_ACCESS, EV_LLC_MISS, EV_REMOTE = 1 << 8, 1 << 9, 1 << 10
SRC_L1D, SRC_L2, SRC_PEER_CORE, SRC_LOCAL_CLUSTER = 0x0, 0x8, 0x9, 0xa
SRC_SYS_CACHE, SRC_PEER_CLUSTER, SRC_REMOTE, SRC_DRAM = 0xb, 0xc, 0xd, 0xe


def size_code(nbytes):
    return {1: 0, 2: 1, 4: 2, 8: 3}[nbytes]


def pkt_pad():
    return b"\x00"


def pkt_end():
    return b"\x01"


def pkt_timestamp(ts):
    return bytes([0b01110001]) + struct.pack("<Q", ts)


def pkt_events(bits, nbytes=2):
    return bytes([0b01000010 | size_code(nbytes) << 4]) + bits.to_bytes(nbytes, "little")


def pkt_data_source(src, nbytes=2):
    return bytes([0b01000011 | size_code(nbytes) << 4]) + src.to_bytes(nbytes, "little")


def pkt_context(value, el2=False):
    return bytes([0b01100100 | (1 if el2 else 0)]) + struct.pack("<I", value)


def pkt_op(cls, payload):
    return bytes([0b01001000 | cls, payload])


def pkt_address(index, payload):
    head = b""
    if index > 7:  # extended header: index bits 4:3 in the prefix
        head = bytes([0b00100000 | (index >> 3)])
    return head + bytes([0b10110000 | (index & 7)]) + struct.pack("<Q", payload)


def pkt_counter(index, value):
    return bytes([0b10011000 | index]) + struct.pack("<H", value)


def pc_payload(pc, el=0, ns=1):
    return (pc & ((1 << 56) - 1)) | (el & 3) << 61 | (ns & 1) << 63


def va_payload(va, tag=0):
    return (va & ((1 << 56) - 1)) | (tag & 0xFF) << 56


def pa_payload(pa, ns=1, ch=0):
    return (pa & ((1 << 56) - 1)) | (ch & 1) << 62 | (ns & 1) << 63


def spe_record(r):
    """One sampled operation. r: dict with pc, el, store, va, pa (None: no
    packet), lat, issue, xlat, events, source (None: no packet), ctx (None:
    no packet), ts (None: End packet instead of Timestamp), pad (padding
    bytes placed between packets, as the hardware may)."""
    out = b""
    if r.get("ctx") is not None:
        out += pkt_context(r["ctx"])
    out += pkt_address(ADDR_PC, pc_payload(r["pc"], r.get("el", 0)))
    out += pkt_op(OP_LDST, 1 if r.get("store") else 0)
    out += pkt_padding(r.get("pad", 0))
    out += pkt_address(ADDR_DATA_VA, va_payload(r["va"], r.get("tag", 0)))
    if r.get("pa") is not None:
        out += pkt_address(ADDR_DATA_PA, pa_payload(r["pa"]))
    out += pkt_events(r.get("events", EV_RETIRED | EV_L1D_ACCESS | EV_TLB_ACCESS))
    if r.get("source") is not None:
        out += pkt_data_source(r["source"])
    out += pkt_counter(CNT_ISSUE, r.get("issue", 3))
    out += pkt_counter(CNT_TOTAL, r["lat"])
    out += pkt_counter(CNT_XLAT, r.get("xlat", 1))
    out += pkt_timestamp(r["ts"]) if r.get("ts") is not None else pkt_end()
    return out


def pkt_padding(n):
    return b"\x00" * n


def other_record(pc, ts, ctx=None):
    """A sampled operation that is neither load nor store (no memory sample)."""
    out = pkt_context(ctx) if ctx is not None else b""
    return out + pkt_address(ADDR_PC, pc_payload(pc)) + pkt_op(OP_OTHER, 0) + \
        pkt_events(EV_RETIRED) + pkt_counter(CNT_TOTAL, 2) + pkt_timestamp(ts)


# ---- perf.data ---------------------------------------------------------------

PERF_TYPE_SOFTWARE, SW_DUMMY = 1, 9
SPE_PMU_TYPE = 8
S_IP, S_TID, S_TIME, S_CPU, S_PERIOD, S_IDENTIFIER, S_PHYS = 1, 2, 4, 1 << 7, 1 << 8, 1 << 16, 1 << 19
R_MMAP2, R_COMM, R_AUX, R_SWITCH_CPU_WIDE = 10, 3, 11, 15
R_AUXTRACE_INFO, R_AUXTRACE, R_TIME_CONV = 70, 71, 79
AUX_TRUNCATED, AUX_OVERWRITE, AUX_PARTIAL, AUX_COLLISION = 1, 2, 4, 8
MISC_SWITCH_OUT, MISC_SWITCH_OUT_PREEMPT, MISC_COMM_EXEC = 1 << 13, 1 << 14, 1 << 13
FEAT = {"ARCH": 6, "NRCPUS": 7, "CPUID": 9, "EVENT_DESC": 12}
ATTR_SIZE = 128  # PERF_ATTR_SIZE_VER7

MIDR_N1 = 0x410FD0C1   # Neoverse N1 r0p1
MIDR_A78 = 0x411FD411  # Cortex-A78 r1p1 (SPE, not in perf 6.1's Neoverse list)


def attr_bytes(typ, config, sample_type, flags, config1=0, config2=0, period=1):
    # struct perf_event_attr up to config2 (VER1..) padded to 128 bytes
    b = struct.pack("<IIQQQQQIIQQ", typ, ATTR_SIZE, config, period, sample_type, 0, flags, 0, 0, config1, config2)
    return b + bytes(ATTR_SIZE - len(b))


# attr flag bits (perf_event_attr bitfield)
F_DISABLED, F_EXCLUDE_HV, F_MMAP, F_COMM, F_TASK = 1, 1 << 6, 1 << 8, 1 << 9, 1 << 13
F_SAMPLE_ID_ALL, F_MMAP2, F_COMM_EXEC, F_CONTEXT_SWITCH = 1 << 18, 1 << 23, 1 << 24, 1 << 26


def header_string(s):
    raw = s.encode() + b"\0"
    n = (len(raw) + 63) // 64 * 64
    return struct.pack("<I", n) + raw + bytes(n - len(raw))


class PerfData:
    """Records appended in file order; write() lays out header, attrs, ids,
    data and features."""

    def __init__(self, midr, ncpus, pa, ts=True, timed=True):
        """timed=False: no event samples its time (perf then times nothing)"""
        self.ncpus = ncpus
        self.midr = midr
        self.timed = timed
        self.st = S_IP | S_TID | (S_TIME if timed else 0) | S_CPU | S_IDENTIFIER
        spe_st = self.st | (S_PHYS if pa else 0)
        config = (1 if ts else 0) | (2 if pa else 0) | (1 << 33)  # ts_enable, pa_enable, load_filter
        self.spe_ids = [100 + c for c in range(ncpus)]
        self.dummy_ids = [200 + c for c in range(ncpus)]
        self.attrs = [
            (attr_bytes(SPE_PMU_TYPE, config, spe_st, F_DISABLED | F_EXCLUDE_HV | F_SAMPLE_ID_ALL,
                        period=4096), self.spe_ids, "arm_spe_0//"),
            (attr_bytes(PERF_TYPE_SOFTWARE, SW_DUMMY, self.st,
                        F_DISABLED | F_EXCLUDE_HV | F_MMAP | F_COMM | F_TASK | F_SAMPLE_ID_ALL | F_MMAP2 |
                        F_COMM_EXEC | F_CONTEXT_SWITCH), self.dummy_ids, "dummy:u"),
        ]
        self.records = []
        self.aux_head = [0] * ncpus

    def trailer(self, pid, tid, time, cpu, ident):
        # sample_id_all: TID, TIME, CPU, IDENTIFIER (perf_event.h order)
        if not self.timed:
            return struct.pack("<iiIIQ", pid, tid, cpu, 0, ident)
        return struct.pack("<iiQIIQ", pid, tid, time, cpu, 0, ident)

    def add(self, typ, misc, body, trailer=b"", payload=b""):
        size = 8 + len(body) + len(trailer)
        self.records.append(struct.pack("<IHH", typ, misc, size) + body + trailer + payload)

    def time_conv(self, shift, mult, zero):
        self.add(R_TIME_CONV, 0, struct.pack("<QQQQQBB6x", shift, mult, zero, 0, 0, 1, 0))

    def auxtrace_info(self, v2_midr=None):
        """perf 6.1's header {PMU type, per-cpu mmaps}; with v2_midr the
        versioned one of perf >= 6.9: {version 2, 4 header words, PMU type,
        CPUs} then per CPU {magic, cpu, 3 params: MIDR, PMU type, min interval}."""
        if v2_midr is None:
            self.add(R_AUXTRACE_INFO, 0, struct.pack("<IIQQ", 4, 0, SPE_PMU_TYPE, 1))
            return
        words = [2, 4, SPE_PMU_TYPE, self.ncpus]
        for c in range(self.ncpus):
            words += [0x1010101010101010, c, 3, v2_midr, SPE_PMU_TYPE, 1024]
        self.add(R_AUXTRACE_INFO, 0, struct.pack("<II%dQ" % len(words), 4, 0, *words))

    def comm(self, pid, tid, name, time, cpu=0):
        raw = name.encode() + b"\0"
        raw += bytes(-len(raw) % 8)
        self.add(R_COMM, 0, struct.pack("<ii", pid, tid) + raw,
                 self.trailer(pid, tid, time, cpu, self.dummy_ids[cpu]))

    def mmap2(self, pid, tid, start, length, pgoff, name, time, cpu=0):
        raw = name.encode() + b"\0"
        raw += bytes(-len(raw) % 8)
        body = struct.pack("<iiQQQIIQQII", pid, tid, start, length, pgoff, 8, 1, 1234, 0, 5, 2) + raw
        self.add(R_MMAP2, 2, body, self.trailer(pid, tid, time, cpu, self.dummy_ids[cpu]))

    def switch_cpu_wide(self, cpu, time, out, prev_pid, prev_tid, next_pid, next_tid):
        """out: the switch-out record (of prev, naming next); else switch-in (of next, naming prev)."""
        if out:
            self.add(R_SWITCH_CPU_WIDE, MISC_SWITCH_OUT, struct.pack("<ii", next_pid, next_tid),
                     self.trailer(prev_pid, prev_tid, time, cpu, self.dummy_ids[cpu]))
        else:
            self.add(R_SWITCH_CPU_WIDE, 0, struct.pack("<ii", prev_pid, prev_tid),
                     self.trailer(next_pid, next_tid, time, cpu, self.dummy_ids[cpu]))

    def aux_chunk(self, cpu, data, time, flags=0, pid=-1, tid=-1):
        """The kernel's AUX record for `data` written at the CPU's AUX head,
        then perf's AUXTRACE record carrying it (padded to 8 bytes)."""
        off = self.aux_head[cpu]
        self.add(R_AUX, 0, struct.pack("<QQQ", off, len(data), flags),
                 self.trailer(pid, tid, time, cpu, self.spe_ids[cpu]))
        self.auxtrace(cpu, data, off)
        self.aux_head[cpu] += len(data)

    def auxtrace(self, cpu, data, off, size=None):
        padded = data + bytes(-len(data) % 8)
        size = len(padded) if size is None else size
        self.add(R_AUXTRACE, 0, struct.pack("<QQQIIII", size, off, 0x5be0 + off, cpu, -1 & 0xFFFFFFFF, cpu, 0),
                 payload=padded)

    def features(self):
        feats = {}
        feats[FEAT["ARCH"]] = header_string("aarch64")
        feats[FEAT["NRCPUS"]] = struct.pack("<II", self.ncpus, self.ncpus)
        feats[FEAT["CPUID"]] = header_string("0x%016x" % self.midr)
        desc = struct.pack("<II", len(self.attrs), ATTR_SIZE)
        for attr, ids, name in self.attrs:
            desc += attr + struct.pack("<I", len(ids)) + header_string(name) + struct.pack("<%dQ" % len(ids), *ids)
        feats[FEAT["EVENT_DESC"]] = desc
        return feats

    def write(self, path):
        hdr_size = 104
        ids_off = hdr_size
        ids_blob = b""
        id_secs = []
        for _, ids, _ in self.attrs:
            id_secs.append((ids_off + len(ids_blob), 8 * len(ids)))
            ids_blob += struct.pack("<%dQ" % len(ids), *ids)
        attrs_off = ids_off + len(ids_blob)
        attrs_blob = b"".join(a + struct.pack("<QQ", *sec) for (a, _, _), sec in zip(self.attrs, id_secs))
        data_off = attrs_off + len(attrs_blob)
        data = b"".join(self.records)
        feats = self.features()
        bits = sorted(feats)
        feat_off = data_off + len(data)
        payload_off = feat_off + 16 * len(bits)
        secs, payloads = b"", b""
        for b in bits:
            secs += struct.pack("<QQ", payload_off + len(payloads), len(feats[b]))
            payloads += feats[b]
        bitmap = bytearray(32)
        for b in bits:
            bitmap[b // 8] |= 1 << (b % 8)
        header = struct.pack("<8sQQQQQQQQ", b"PERFILE2", hdr_size, ATTR_SIZE + 16, attrs_off, len(attrs_blob),
                             data_off, len(data), 0, 0) + bytes(bitmap)
        assert len(header) == hdr_size
        with open(path, "wb") as f:
            f.write(header + ids_blob + attrs_blob + data + secs + payloads)


# ---- the fixtures -------------------------------------------------------------

# generic timer at 25 MHz (40 ns a tick): perf time = zero + ticks * mult >> shift
SHIFT, MULT, ZERO = 21, 40 << 21, 1_000_000_000
BIN = "/usr/bin/spe-demo"
TEXT, HEAP = 0x0000AAAAD0000000, 0x0000FFFF80000000


def ticks(i):
    return 5_000_000 + 1000 * i


def perf_time(t):
    return ZERO + (t >> SHIFT) * MULT + (((t & ((1 << SHIFT) - 1)) * MULT) >> SHIFT)


SOURCES = [SRC_L1D, SRC_L2, SRC_PEER_CORE, SRC_LOCAL_CLUSTER, SRC_SYS_CACHE, SRC_PEER_CLUSTER, SRC_REMOTE, SRC_DRAM]


def make_record(i, cpu, ctx, pa, store=None, ts=True):
    store = (i % 3 == 2) if store is None else store
    ev = EV_RETIRED | EV_L1D_ACCESS | EV_TLB_ACCESS
    if i % 4 == 1:
        ev |= EV_L1D_REFILL
    if i % 4 == 2:
        ev |= EV_L1D_REFILL | EV_LLC_ACCESS
    if i % 4 == 3:
        ev |= EV_L1D_REFILL | EV_LLC_ACCESS | EV_LLC_MISS | EV_TLB_WALK
    if i % 7 == 5:
        ev |= EV_REMOTE
    va = HEAP + 0x1000 * (i % 5) + 0x40 * i
    return spe_record({
        "pc": TEXT + 0x400 + 4 * i, "el": 0, "store": store, "va": va, "tag": 0x0A if i % 6 == 0 else 0,
        "pa": (0x80_0000_0000 + 0x3000 * (i % 5) + 0x40 * i) if pa else None,
        "lat": 7 + 13 * i, "issue": 2 + i % 5, "xlat": 1 + i % 3, "events": ev,
        "source": SOURCES[i % len(SOURCES)], "ctx": ctx, "ts": ticks(i) + cpu if ts else None,
        "pad": 3 if i % 5 == 4 else 0,
    })


def common_start(pd, threads, v2_midr=None):
    pd.time_conv(SHIFT, MULT, ZERO)
    pd.auxtrace_info(v2_midr)
    for pid, tid, name in threads:
        pd.comm(pid, tid, name, perf_time(ticks(0)) - 5000)
    pd.mmap2(threads[0][0], threads[0][0], TEXT, 0x10000, 0, BIN, perf_time(ticks(0)) - 4000)


def fixture_ctx_pa(path, v2=False):
    """Neoverse N1, physical addresses, CONTEXT packets (pid in CONTEXTIDR),
    loads and stores on two CPUs in two AUX chunks each, one non-memory
    record (no sample). v2: the versioned header of perf >= 6.9 with the
    CPUs' MIDR (N1) and a CPUID feature of another core."""
    pd = PerfData(MIDR_A78 if v2 else MIDR_N1, 2, pa=True)
    threads = [(4100, 4100, "spe-main"), (4100, 4101, "spe-worker"), (4200, 4200, "spe-other")]
    common_start(pd, threads, MIDR_N1 if v2 else None)
    tids = {0: [4100, 4101], 1: [4200, 4101]}
    for chunk in range(2):
        for cpu in range(2):
            data = b""
            for k in range(8):
                i = chunk * 16 + cpu * 8 + k
                data += make_record(i, cpu, tids[cpu][(k // 4)], pa=True)
                if k == 3:
                    data += other_record(TEXT + 0x900, ticks(i) + cpu + 1, ctx=tids[cpu][0])
            pd.aux_chunk(cpu, data, perf_time(ticks(chunk * 16 + 15)) + 100, pid=tids[cpu][1], tid=tids[cpu][1])
    pd.write(path)


def fixture_switch_nopa(path):
    """Cortex-A78 (perf's generic data source), no physical addresses, no
    CONTEXT packets: threads from the CPUs' SWITCH_CPU_WIDE records; stores
    and loads."""
    pd = PerfData(MIDR_A78, 2, pa=False)
    threads = [(5100, 5100, "sw-main"), (5100, 5101, "sw-worker"), (5200, 5200, "sw-other")]
    common_start(pd, threads)
    # cpu 0 runs 5100 then 5101 from record 6 on; cpu 1 runs 5200, then 5101 from record 20
    def switch(cpu, t, prev, nxt):
        pd.switch_cpu_wide(cpu, t, True, prev[0], prev[1], nxt[0], nxt[1])
        pd.switch_cpu_wide(cpu, t + 1, False, prev[0], prev[1], nxt[0], nxt[1])
    switch(0, perf_time(ticks(0)) - 2000, (0, 0), (5100, 5100))
    switch(1, perf_time(ticks(0)) - 2000, (0, 0), (5200, 5200))
    for chunk in range(2):
        for cpu in range(2):
            data = b""
            for k in range(12):
                i = chunk * 24 + cpu * 12 + k
                data += make_record(i, cpu, None, pa=False)
            pd.aux_chunk(cpu, data, perf_time(ticks(chunk * 24 + 23)) + 100)
        if chunk == 0:
            switch(0, perf_time(ticks(6)) + 500, (5100, 5100), (5100, 5101))
            switch(1, perf_time(ticks(20)) + 500, (5200, 5200), (5100, 5101))
    pd.write(path)


def fixture_lost(path):
    """Neoverse N1 with CONTEXT packets and physical addresses where AUX data
    was lost: a TRUNCATED chunk, a COLLISION chunk, a chunk that starts
    inside a lost packet (bytes no header fits: skipped), a chunk that starts
    with the tail of a record whose start was lost (no operation type: no
    sample), a PARTIAL chunk, and End-terminated records."""
    pd = PerfData(MIDR_N1, 2, pa=True)
    threads = [(6100, 6100, "lost-main"), (6200, 6200, "lost-other")]
    common_start(pd, threads)
    ctx = {0: 6100, 1: 6200}
    recs = {cpu: [make_record(i * 2 + cpu, cpu, ctx[cpu], pa=True) for i in range(14)] for cpu in range(2)}
    # cpu 0: chunk 1 (TRUNCATED); chunk 2 starts inside a packet's payload
    # (0x80 0x80: no packet header), then whole records (COLLISION)
    pd.aux_chunk(0, b"".join(recs[0][0:4]), perf_time(ticks(8)), flags=AUX_TRUNCATED)
    pd.aux_chunk(0, b"\x80\x80\xf0" + b"".join(recs[0][5:9]), perf_time(ticks(18)), flags=AUX_COLLISION)
    # cpu 1: chunk 1 whole; chunk 2 begins with the end of a record whose
    # first packets were lost (events, source, counters, timestamp: no op)
    tail = recs[1][4]
    cut = tail.index(bytes([0b01000010 | 1 << 4]))  # from its Events packet on
    pd.aux_chunk(1, b"".join(recs[1][0:4]), perf_time(ticks(8)))
    pd.aux_chunk(1, tail[cut:] + b"".join(recs[1][5:9]), perf_time(ticks(18)), flags=AUX_TRUNCATED | AUX_PARTIAL)
    # End-terminated records (timestamps off for a moment) are timed 0 by
    # perf (tsc 0): kept out of the fixture; both CPUs' last chunk
    pd.aux_chunk(0, b"".join(recs[0][9:14]), perf_time(ticks(28)))
    pd.aux_chunk(1, b"".join(recs[1][9:14]), perf_time(ticks(28)))
    pd.write(path)


# ---- hostile variants ----------------------------------------------------------


def hostile_base(pa=True, tc=True, info=None, ncpus=1):
    pd = PerfData(MIDR_N1, ncpus, pa=pa)
    if tc:
        pd.time_conv(SHIFT, MULT, ZERO)
    if info is None:
        pd.auxtrace_info()
    else:
        pd.add(R_AUXTRACE_INFO, 0, info)
    pd.comm(8100, 8100, "hostile", perf_time(ticks(0)) - 5000)
    return pd


def recs(lo, hi, cpu=0):
    return b"".join(make_record(i, cpu, 8100, pa=True) for i in range(lo, hi))


def agree_garbage(path):
    """AUX data with bytes no packet starts with, a record cut by them, a
    reserved operation class, an extended header, alignment padding and
    End-terminated records: perf and process make the same samples."""
    import random
    rnd = random.Random(28)
    pd = hostile_base()
    data = recs(0, 3) + bytes([0x80, 0x81, 0xf0]) + recs(3, 5)
    cut = make_record(5, 0, 8100, pa=True)
    data += cut[:20] + bytes([0xf4]) + cut[20:] + recs(6, 8)
    data += pkt_address(ADDR_PC, pc_payload(TEXT + 0x999)) + pkt_op(OP_LDST, 0) + bytes([0x4b, 0x00]) + recs(8, 9)
    data += pkt_address(11, 0x1234) + bytes([0x21, 0x9a, 0x05, 0x00]) + recs(9, 10)  # extended address / counter
    data += bytes([0x22, 0x00]) + bytes(14) + recs(10, 11)  # alignment packet
    data += spe_record({"pc": TEXT + 0x700, "store": True, "va": HEAP + 0x77, "lat": 9, "ts": None}) + recs(11, 12)
    data += bytes(rnd.randrange(256) for _ in range(300)) + recs(12, 16)
    pd.aux_chunk(0, data, perf_time(ticks(20)))
    pd.write(path)


def agree_wrapped(path):
    """A CPU's AUX ring read in pieces that split records and packets (a
    wrapped buffer written as two AUXTRACE records), AUX records whose
    offsets run past the data, and an empty AUXTRACE record."""
    pd = hostile_base(ncpus=2)
    a = recs(0, 6)
    pd.aux_chunk(0, a[:57], perf_time(ticks(3)), flags=AUX_TRUNCATED)   # splits a packet
    pd.aux_chunk(0, a[57:130], perf_time(ticks(4)))
    pd.auxtrace(0, b"", 0, size=0)
    pd.aux_chunk(0, a[130:], perf_time(ticks(6)))
    b = recs(6, 12, cpu=1)
    pd.aux_chunk(1, b, perf_time(ticks(12)))
    # AUX records pointing far outside any data perf carried
    pd.add(R_AUX, 0, struct.pack("<QQQ", 1 << 40, 1 << 30, AUX_PARTIAL), pd.trailer(-1, -1, perf_time(ticks(13)), 1, pd.spe_ids[1]))
    pd.write(path)


def fail_info_short(path):
    """AUXTRACE_INFO of Arm SPE with one private word (perf reads two)."""
    hostile_base(info=struct.pack("<IIQ", 4, 0, SPE_PMU_TYPE)).write(path)


def fail_info_v2(path):
    """A versioned AUXTRACE_INFO naming more CPUs than it holds."""
    hostile_base(info=struct.pack("<II6Q", 4, 0, 2, 4, SPE_PMU_TYPE, 1000, 0x1010101010101010, 0)).write(path)


def fail_pmu_type(path):
    """AUXTRACE_INFO naming a PMU type no event of the file has."""
    pd = hostile_base(info=struct.pack("<IIQQ", 4, 0, 99, 1))
    pd.aux_chunk(0, recs(0, 2), perf_time(ticks(2)))
    pd.write(path)


def fail_no_time_conv(path):
    """SPE data and events that sample their time, but no TIME_CONV."""
    pd = hostile_base(tc=False)
    pd.aux_chunk(0, recs(0, 2), perf_time(ticks(2)))
    pd.write(path)


def fail_auxtrace_short(path):
    """An AUXTRACE record too short for its idx, tid and cpu fields."""
    pd = hostile_base()
    pd.add(R_AUXTRACE, 0, struct.pack("<QQQ", 0, 0, 0))
    pd.write(path)


def fail_auxtrace_past_end(path):
    """An AUXTRACE record whose payload runs past the data section."""
    pd = hostile_base()
    pd.add(R_AUXTRACE, 0, struct.pack("<QQQIIII", 1 << 20, 0, 0, 0, 0, 0, 0), payload=recs(0, 1)[:40])
    pd.write(path)


def agree_rounds(path):
    """FINISHED_ROUND records between rounds of AUX data and switch records,
    as perf record writes them."""
    pd = PerfData(MIDR_A78, 2, pa=True)
    threads = [(5100, 5100, "sw-main"), (5100, 5101, "sw-worker"), (5200, 5200, "sw-other")]
    common_start(pd, threads)
    for cpu, tid in ((0, 5100), (1, 5200)):
        pd.switch_cpu_wide(cpu, perf_time(ticks(0)) - 2000, True, 0, 0, 5100 if tid == 5100 else 5200, tid)
    for chunk in range(3):
        for cpu in range(2):
            pd.aux_chunk(cpu, b"".join(make_record(chunk * 24 + cpu * 12 + k, cpu, None, pa=True) for k in range(12)),
                         perf_time(ticks(chunk * 24 + 23)) + 100)
        if chunk == 0:
            pd.switch_cpu_wide(0, perf_time(ticks(6)) + 500, True, 5100, 5100, 5100, 5101)
            pd.switch_cpu_wide(1, perf_time(ticks(20)) + 500, True, 5200, 5200, 5100, 5101)
        pd.add(68, 0, b"")  # FINISHED_ROUND
    pd.write(path)


def agree_timeless(path):
    """No event samples its time: perf gives every sample time 0 and no
    thread (tid -1), queue by queue."""
    pd = PerfData(MIDR_N1, 2, pa=True, timed=False)
    common_start(pd, [(4100, 4100, "spe-main"), (4200, 4200, "spe-other")])
    for cpu in range(2):
        pd.aux_chunk(cpu, b"".join(make_record(cpu * 8 + k, cpu, [4100, 4200][cpu], pa=True) for k in range(8)), 0)
    pd.write(path)


def same_v2(path):
    """spe_ctx_pa.data with the versioned AUXTRACE_INFO (perf >= 6.9, which
    perf 6.1 cannot read): process must make the same samples from it."""
    fixture_ctx_pa(path, v2=True)


HOSTILE = {
    "agree-garbage.data": agree_garbage,
    "agree-rounds.data": agree_rounds,
    "agree-timeless.data": agree_timeless,
    "same-v2.data": same_v2,
    "agree-wrapped.data": agree_wrapped,
    "fail-info-short.data": fail_info_short,
    "fail-info-v2.data": fail_info_v2,
    "fail-pmu-type.data": fail_pmu_type,
    "fail-no-time-conv.data": fail_no_time_conv,
    "fail-auxtrace-short.data": fail_auxtrace_short,
    "fail-auxtrace-past-end.data": fail_auxtrace_past_end,
}

FIXTURES = {
    "spe_ctx_pa.data": fixture_ctx_pa,
    "spe_switch_nopa.data": fixture_switch_nopa,
    "spe_lost.data": fixture_lost,
}


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print("\n".join(FIXTURES))
        return 0
    table = FIXTURES
    if len(argv) == 3 and argv[1] == "--hostile":
        table, argv = HOSTILE, argv[1:]
    if len(argv) != 2:
        print("usage: spe_encode.py OUTDIR | --list | --hostile OUTDIR", file=sys.stderr)
        return 2
    os.makedirs(argv[1], exist_ok=True)
    for name, fn in table.items():
        fn(os.path.join(argv[1], name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
