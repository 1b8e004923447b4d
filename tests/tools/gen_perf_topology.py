#!/usr/bin/env python3
"""gen_perf_topology.py OUT [--broken WHAT] - write a perf.data that holds
no samples, only a recording host's topology in the feature sections perf
record writes (NRCPUS, CPU_TOPOLOGY with core/socket and die ids,
NUMA_TOPOLOGY, CACHE; layouts of perf's tools/perf/util/header.c) and
HOSTNAME. The host is an AMD EPYC 9254 numbered as the real recording
of one has it (a perf c2c recording of perf 6.8 with 48 CPUs): 4 LLCs of
12 CPUs, LLC k holding CPUs 6k..6k+5 and their SMT siblings 24+6k..24+6k+5,
core ids in the order that file gives them, one package, die and node.
The unit tests (tests/unit/test_host.c) and the integration test of a
perf.data-only input read it; perf 6.1 reads it too (perf report
--header-only -I).
"""
import struct
import sys

NR = 48
CORE_IDS = [0, 1, 2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 24, 25, 26, 27, 28, 29, 8, 9, 10, 11, 12, 13]
HEADER_HOSTNAME, HEADER_NRCPUS, HEADER_CPU_TOPOLOGY, HEADER_NUMA_TOPOLOGY, HEADER_CACHE = 3, 7, 13, 14, 20


def lst(cpus):
    cpus = sorted(cpus)
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out)


def string(s):
    b = s.encode() + b"\0"
    b += b"\0" * (-len(b) % 64)  # perf pads to NAME_ALIGN (64)
    return struct.pack("<I", len(b)) + b


def strings(ls):
    return struct.pack("<I", len(ls)) + b"".join(string(s) for s in ls)


def llc(k):
    return list(range(6 * k, 6 * k + 6)) + list(range(24 + 6 * k, 24 + 6 * k + 6))


def sections():
    threads = [lst([c, c + 24]) for c in range(24)]
    cpu_topo = strings([lst(range(NR))]) + strings(threads)
    cpu_topo += b"".join(struct.pack("<II", CORE_IDS[c % 24], 0) for c in range(NR))
    cpu_topo += strings([lst(range(NR))]) + b"".join(struct.pack("<I", 0) for _ in range(NR))
    numa = struct.pack("<I", 1) + struct.pack("<IQQ", 0, 395925124, 380000000) + string(lst(range(NR)))
    caches = []
    for c in range(24):  # L1d, L1i, L2 per core (SMT pair)
        pair = lst([c, c + 24])
        caches += [(1, 64, 64, 8, "Data", "32K", pair), (1, 64, 64, 8, "Instruction", "32K", pair),
                   (2, 64, 2048, 8, "Unified", "1024K", pair)]
    caches += [(3, 64, 32768, 16, "Unified", "32768K", lst(llc(k))) for k in range(4)]
    cache = struct.pack("<II", 1, len(caches)) + b"".join(
        struct.pack("<IIII", lv, line, sets, ways) + string(t) + string(sz) + string(m)
        for lv, line, sets, ways, t, sz, m in caches)
    return {HEADER_HOSTNAME: string("epyc9254-fixture"), HEADER_NRCPUS: struct.pack("<II", NR, NR),
            HEADER_CPU_TOPOLOGY: cpu_topo, HEADER_NUMA_TOPOLOGY: numa, HEADER_CACHE: cache}


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: gen_perf_topology.py OUT [--broken cache-string|cache-count|topology-ids]")
    feats = sections()
    broken = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--broken" else None
    if broken == "cache-string":  # a string length past the end of the section
        c = bytearray(feats[HEADER_CACHE])
        struct.pack_into("<I", c, 8 + 16, 0x7fffffff)
        feats[HEADER_CACHE] = bytes(c)
    elif broken == "cache-count":  # more caches than the section holds
        c = bytearray(feats[HEADER_CACHE])
        struct.pack_into("<I", c, 4, 100000)
        feats[HEADER_CACHE] = bytes(c)
    elif broken == "topology-ids":  # the per-CPU ids cut short
        feats[HEADER_CPU_TOPOLOGY] = feats[HEADER_CPU_TOPOLOGY][:-(NR * 4 + 8 + 200)]
    # one software dummy event (type 1, config 9), attr size 128, with sample_id_all
    attr = struct.pack("<IIQQQQQIIQQQQQIIIIQ", 1, 128, 9, 1, 0x1 | 0x2 | 0x4 | 0x40, 0,
                       (1 << 18), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    attr = attr.ljust(128, b"\0")
    ids = struct.pack("<Q", 1)
    header_size, attr_size = 104, 128 + 16
    ids_off = header_size
    attrs_off = ids_off + len(ids)
    data_off = attrs_off + attr_size
    data = b""
    feat_index_off = data_off + len(data)
    bits = sorted(feats)
    body_off = feat_index_off + 16 * len(bits)
    index, body = b"", b""
    for b in bits:
        index += struct.pack("<QQ", body_off + len(body), len(feats[b]))
        body += feats[b]
    flags = [0, 0, 0, 0]
    for b in bits:
        flags[b // 64] |= 1 << (b % 64)
    hdr = b"PERFILE2" + struct.pack("<QQ", header_size, attr_size)
    hdr += struct.pack("<QQQQQQ", attrs_off, attr_size, data_off, len(data), 0, 0)
    hdr += struct.pack("<4Q", *flags)
    out = hdr + ids + attr + struct.pack("<QQ", ids_off, len(ids)) + data + index + body
    with open(sys.argv[1], "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
