#!/usr/bin/env python3
"""compare_spe_perf.py - compares scxprof's perf.jsonl of a perf.data file
holding Arm SPE AUX data with the memory samples `perf script --itrace=M`
synthesizes from it (the oracle), sample by sample, in order.

usage: compare_spe_perf.py PERF_DATA PERF_JSONL
Runs: perf script -i PERF_DATA --itrace=M --ns
        -F hw:tid,pid,time,cpu,ip,addr,data_src,weight[,phys_addr]
(phys_addr when the arm_spe event samples it, time when any event does) and checks
pid, tid, cpu, time, ip, addr, phys_addr, data_src (the whole
perf_mem_data_src: operation, level, snoop, TLB, ...) and weight (total
latency) of every sample. Prints the sample count, a per-field mismatch
count and up to 10 examples; exits 1 on any mismatch or a different count.
"""
import json
import struct
import subprocess
import sys


def spe_sample_types(data):
    """(whether the file's PMU event (type above PERF_TYPE_BREAKPOINT)
    samples PHYS_ADDR, whether any event samples TIME)"""
    d = open(data, "rb").read()
    attr_size, off, size = struct.unpack_from("<QQQ", d, 16)
    phys, timed = None, False
    for o in range(off, off + size, attr_size):
        typ, = struct.unpack_from("<I", d, o)
        st, = struct.unpack_from("<Q", d, o + 24)
        timed = timed or bool(st & 4)
        if typ > 5 and phys is None:
            phys = bool(st & (1 << 19))
    if phys is None:
        raise SystemExit(data + ": no PMU event of a dynamic type")
    return phys, timed


def perf_samples(data):
    # -F hw:...: perf leaves out phys_addr silently when the event lacks it
    has_phys, timed = spe_sample_types(data)
    fields = "tid,pid," + ("time," if timed else "") + "cpu,ip,addr,data_src,weight" + (",phys_addr" if has_phys else "")
    out = subprocess.run(["perf", "script", "-i", data, "--itrace=M", "--ns", "-F", "hw:" + fields],
                         capture_output=True, text=True, errors="replace")
    if out.returncode != 0:
        raise SystemExit("perf script failed: " + out.stderr.strip()[-300:])
    rows = []
    for line in out.stdout.split("\n"):
        if not line.strip():
            continue
        # " 4100/4100  [000]     1.200000000:  ffff80000000  288100142 |OP LOAD|...|BLK  N/A   7  aaaad0000400  8000000000"
        if timed:
            head, _, rest = line.partition(":")
            ids, cpu, time = head.split()
        else:  # no time: "  -1/-1    [000]     ffff80000000 ..."
            ids, cpu, rest = line.split(None, 2)
            time = "0.000000000"
        pid, tid = ids.split("/")
        tok = rest.split()
        tail = tok[-3:] if has_phys else tok[-2:] + [None]
        rows.append({"pid": int(pid), "tid": int(tid), "cpu": int(cpu.strip("[]")), "time": time,
                     "addr": int(tok[0], 16), "data_src": int(tok[1], 16), "weight": int(tail[0]),
                     "ip": int(tail[1], 16), "phys_addr": int(tail[2], 16) if tail[2] else None})
    return rows, has_phys


def ours(path):
    rows = []
    for line in open(path):
        o = json.loads(line)
        rows.append({"pid": o["pid"], "tid": o["tid"], "cpu": o.get("cpu"), "time": o["time"],
                     "addr": int(o["addr"], 16), "data_src": int(o["data_src"]["raw"], 16),
                     "weight": o.get("weight"), "ip": int(o["ip"], 16),
                     "phys_addr": int(o["phys_addr"], 16) if o.get("phys_addr") not in (None, "") else 0})
    return rows


def main(data, jsonl):
    theirs, has_phys = perf_samples(data)
    mine = ours(jsonl)
    fields = ["pid", "tid", "cpu", "time", "ip", "addr", "data_src", "weight"] + (["phys_addr"] if has_phys else [])
    bad = {f: 0 for f in fields}
    examples = []
    for i, (a, b) in enumerate(zip(theirs, mine)):
        for f in fields:
            if a[f] != b[f]:
                bad[f] += 1
                if len(examples) < 10:
                    examples.append("sample %d %s: perf %r, ours %r" % (i, f, a[f], b[f]))
    print("%d perf samples, %d ours; mismatches: %s" % (len(theirs), len(mine),
                                                         ", ".join("%s %d" % kv for kv in bad.items())))
    for e in examples:
        print("  " + e)
    if len(theirs) != len(mine) or any(bad.values()) or not theirs:
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
