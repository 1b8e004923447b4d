#!/usr/bin/env python3
"""compare_perf_script.py - compares scxprof's perf.jsonl with `perf script`
output of the same perf.data, sample by sample, in order.

usage: compare_perf_script.py [--named-from-sched N] PERF_DATA PERF_JSONL
Runs perf script three times (so that every field parses without ambiguity):
  -F tid,pid,time,ip,addr,phys_addr,data_page_size --ns
  -F comm
  -F ip,sym,dso
and checks pid, tid, comm, time, ip, addr, phys_addr, data_page_size, sym and
dso of every sample (JIT code: /tmp/perf-PID.map to both; where that file
exists perf takes symbols from it and process does not).
Prints a per-field mismatch count and up to 10 examples,
and exits 1 on any mismatch or a different sample count.
--named-from-sched N: process named N threads perf.data has no COMM for by
the scheduling stream (process.json threads_named_from_sched): where perf
prints ':TID' for such a thread, ours is a name; that is no mismatch, and
the threads where it happens must be N exactly.
"""
import json
import os
import re
import subprocess
import sys

SIZES = {"N/A": 0, "4K": 4096, "2M": 2 << 20, "1G": 1 << 30, "16K": 16384, "64K": 65536}


def perf_script(data, fields, extra=()):
    out = subprocess.run(["perf", "script", "-i", data, "-F", fields, *extra],
                         check=True, capture_output=True, text=True, errors="replace")
    return [l for l in out.stdout.split("\n") if l.strip()]


def parse_nums(line):
    # "  1234/1235  107.172290179:  7f25... 55bc... 0 4K"  (addr before ip)
    m = re.match(r"\s*(-?\d+)/(-?\d+)\s+(\d+\.\d+):\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+(\S+)\s*$", line)
    if not m:
        raise ValueError("cannot parse: " + line)
    pid, tid, time, addr, ip, phys, size = m.groups()
    return {"pid": int(pid), "tid": int(tid), "time": time, "addr": int(addr, 16), "ip": int(ip, 16),
            "phys_addr": int(phys, 16), "data_page_size": SIZES.get(size, size)}


def parse_sym(line):
    # "  7f25... getenv (/usr/lib/x86_64-linux-gnu/libc.so.6)": the dso is the
    # last balanced (...) group; symbols and dsos may contain parentheses
    # ("f<(T)1>", "/memfd:x (deleted)")
    line = line.rstrip()
    m = re.match(r"\s*([0-9a-f]+)\s+", line)
    if not m or not line.endswith(")"):
        raise ValueError("cannot parse: " + line)
    depth, i = 0, len(line) - 1
    while i >= 0:
        depth += {")": 1, "(": -1}.get(line[i], 0)
        if depth == 0:
            break
        i -= 1
    if i < m.end():
        raise ValueError("cannot parse: " + line)
    return {"ip_s": int(m.group(1), 16), "sym": line[m.end():i].rstrip(), "dso": line[i + 1:-1]}


def main():
    args = sys.argv[1:]
    named = None
    if args[:1] == ["--named-from-sched"]:
        named, args = int(args[1]), args[2:]
    data, jsonl = args[0], args[1]
    named_tids = set()
    nums = [parse_nums(l) for l in perf_script(data, "tid,pid,time,ip,addr,phys_addr,data_page_size", ["--ns"])]
    comms = [l.strip() for l in perf_script(data, "comm")]
    syms = [parse_sym(l) for l in perf_script(data, "ip,sym,dso")]
    ours = [json.loads(l) for l in open(jsonl)]
    print(f"perf script: {len(nums)} samples; scxprof: {len(ours)} samples")
    if not (len(nums) == len(comms) == len(syms)):
        print("perf script runs disagree on the sample count")
        return 1
    bad = {}
    examples = []
    for i, (n, c, s) in enumerate(zip(nums, comms, syms)):
        if i >= len(ours):
            break
        o = ours[i]
        want = dict(n, comm=c, sym=s["sym"], dso=s["dso"])
        got = {"pid": o["pid"], "tid": o["tid"], "time": o["time"], "addr": int(o["addr"], 16),
               "ip": int(o["ip"], 16), "phys_addr": int(o["phys_addr"], 16),
               "data_page_size": o["data_page_size"], "comm": o["comm"], "sym": o["sym"], "dso": o["dso"]}
        # anonymous executable memory (JIT code) is /tmp/perf-PID.map to
        # both; perf also takes symbols from that file when it exists (a
        # JIT wrote it), process does not read JIT maps: [unknown]
        if (re.fullmatch(r"/tmp/perf-\d+\.map", want["dso"]) and got["sym"] == "[unknown]"
                and os.path.exists(want["dso"])):
            want["sym"] = got["sym"]
        if (named is not None and want["comm"] == f":{got['tid']}" and got["comm"]
                and not re.fullmatch(r":\d+", got["comm"])):
            named_tids.add(got["tid"])
            want["comm"] = got["comm"]
        for k in want:
            if want[k] != got[k]:
                bad[k] = bad.get(k, 0) + 1
                if len(examples) < 10:
                    examples.append(f"sample {i}: {k}: perf {want[k]!r} ours {got[k]!r}")
    for k in sorted(bad):
        print(f"mismatch {k}: {bad[k]} of {len(nums)}")
    for e in examples:
        print("  " + e)
    if len(ours) != len(nums):
        print("sample counts differ")
        return 1
    if named is not None:
        print(f"threads perf calls ':TID' and scxprof names: {len(named_tids)} (process.json: {named})")
        if len(named_tids) != named:
            return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
