#!/usr/bin/env python3
"""bench_decode.py - overhead of `scxprof record --backend decode` against
`perf record -e cpu-clock -F HZ --user-regs=<the same registers> -a`, the
cost of the same raw samples without decoding, in the same run.

Workload: warm-share (four threads on pre-faulted memory, CPU-bound, a fixed
amount of work, -T reports its own wall and CPU time). Each round runs, in
alternating order, the workload alone, under scxprof (system-wide, the
workload as its command, --disable-sched-trace --disable-archive) and
under perf record (system-wide, the workload as its command). Per round:
the workload's slowdown against its run alone in that round, and each
recorder's CPU time (the recorder process's rusage minus the workload's
own). Medians over the rounds. From scxprof's metadata: decode_ns per
cpu-clock sample (reading text, decoding, pagemap, writing).

usage: bench_decode.py SCXPROF WARM_SHARE RUNS HZ...
One table line per rate (several: the sweep the default was chosen from).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

WL_ARGS = ["-i", "500", "-T"]
REGS = "ax,bx,cx,dx,si,di,bp,sp,ip,r8,r9,r10,r11,r12,r13,r14,r15"


def run(cmd, cwd):
    """Run cmd; return (workload wall s, workload cpu s, total cpu s of cmd, stderr)."""
    err = open(os.path.join(cwd, "err"), "w+")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=cwd)
    _, status, ru = os.wait4(p.pid, 0)
    err.seek(0)
    text = err.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("%s failed: %s" % (cmd[0], text[-600:]))
    line = [l for l in text.splitlines() if l.startswith("work ")][-1].split()
    return float(line[1]), float(line[3]), ru.ru_utime + ru.ru_stime, text


def one_round(scxprof, wl, hz, order):
    out = {}
    for who in order:
        with tempfile.TemporaryDirectory(prefix="scxprof-bench-dec.") as d:
            if who == "alone":
                w, wc, _, _ = run([wl, *WL_ARGS], d)
                out[who] = (w, 0.0, None)
            elif who == "scxprof":
                w, wc, tot, _ = run([scxprof, "record", "-t", "600", "-o", "prof", "--disable-archive",
                                     "--disable-sched-trace", "--backend", "decode", "-F", str(hz), "--", wl,
                                     *WL_ARGS], d)
                meta = json.load(open(os.path.join(d, "prof", "metadata.json")))["mem"]
                out[who] = (w, tot - wc, meta)
            else:
                w, wc, tot, _ = run(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(hz), "--user-regs=" + REGS,
                                     "-a", "-o", "perf.data", "--", wl, *WL_ARGS], d)
                out[who] = (w, tot - wc, None)
    return out


def main():
    scxprof, wl, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rates = [int(x) for x in sys.argv[4:]]
    orders = [["alone", "scxprof", "perf"], ["perf", "scxprof", "alone"], ["scxprof", "alone", "perf"]]
    print("%8s  %16s  %16s  %14s  %14s  %10s  %9s  %11s" % (
        "rate_hz", "slowdown_scxprof", "slowdown_perf", "cpu_scxprof_s", "cpu_perf_s", "cpu_ratio",
        "decode_ns", "samples/s"))
    for hz in rates:
        slow = {"scxprof": [], "perf": []}
        cpu = {"scxprof": [], "perf": []}
        dns, rate = [], []
        for i in range(runs):
            r = one_round(scxprof, wl, hz, orders[i % len(orders)])
            for who in ("scxprof", "perf"):
                slow[who].append(r[who][0] / r["alone"][0] - 1)
                cpu[who].append(r[who][1])
            m = r["scxprof"][2]["decode"]
            dns.append(m["decode_ns"] / max(m["ticks"], 1))
            span = (r["scxprof"][2]["last_sample_ns"] - r["scxprof"][2]["first_sample_ns"]) / 1e9
            rate.append(m["ticks"] / span if span > 0 else 0)
        med = statistics.median
        print("%8d  %+15.1f%%  %+15.1f%%  %14.3f  %14.3f  %10.2f  %9.0f  %11.0f" % (
            hz, med(slow["scxprof"]) * 100, med(slow["perf"]) * 100, med(cpu["scxprof"]), med(cpu["perf"]),
            med(cpu["scxprof"]) / max(med(cpu["perf"]), 1e-9), med(dns), med(rate)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
